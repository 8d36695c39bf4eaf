"""Rollouts: agent tokens are exactly the actions; the whole sequence is the chat template's rendering."""

from __future__ import annotations

import gymnasium as gym
import pytest

from rewardlab.baselines.rollout import ChatEncoder, Episode, collect_episodes, demonstrations, make_envs
from tests.agents.tiny import register_echo, tiny_model, tiny_tokenizer


class Scripted:
    """Drafts first, then answers with the target (EchoEnv's two turns)."""

    def __init__(self, env: gym.Env):
        self.env = env

    def reset(self) -> None:
        self.turn = 0

    def act(self, observation, info):
        self.turn += 1
        return "draft: maybe" if self.turn == 1 else self.env.unwrapped.task.data["target"]


def agent_spans(episode: Episode) -> list[list[int]]:
    spans, current = [], []
    for token, flag in zip(episode.token_ids, episode.action_mask, strict=True):
        if flag:
            current.append(token)
        elif current:
            spans.append(current)
            current = []
    return spans + ([current] if current else [])


def test_multi_turn_sequence_is_the_chat_template_rendering_and_masks_only_actions():
    tokenizer = tiny_tokenizer()
    envs = make_envs(register_echo(), 2)
    episodes = demonstrations(envs, tokenizer, ["t0", "t1"], Scripted, seed=0)
    for episode, target in zip(episodes, ["alpha", "beta"], strict=True):
        assert episode.actions == ["draft: maybe", target]
        assert episode.reward == pytest.approx(1.0) and episode.is_success
        assert episode.components == {"exact": 1.0, "length": 1.0}
        spans = agent_spans(episode)
        assert [tokenizer.decode(s) for s in spans] == ["draft: maybe<|im_end|>", f"{target}<|im_end|>"]
        assert episode.action_ends == [
            i
            for i in range(len(episode.action_mask))
            if episode.action_mask[i] and (i + 1 == len(episode.action_mask) or not episode.action_mask[i + 1])
        ]
        assert episode.step_rewards == [0.0, pytest.approx(1.0)]
        # the token sequence decodes to the template's rendering of the whole conversation
        messages = [
            {"role": "system", "content": "Repeat the target."},
            {"role": "user", "content": f"say {target}"},
            {"role": "assistant", "content": "draft: maybe"},
            {"role": "user", "content": "noted"},
            {"role": "assistant", "content": target},
        ]
        rendered = tokenizer.apply_chat_template(messages, tokenize=False)
        assert rendered.startswith(tokenizer.decode(episode.token_ids))
        assert rendered[len(tokenizer.decode(episode.token_ids)) :].strip() == ""
    for env in envs:
        env.close()


def test_observation_tokens_add_the_turn_closing_when_generation_was_cut():
    tokenizer = tiny_tokenizer()
    encoder = ChatEncoder(tokenizer)
    before = [{"role": "user", "content": "hi"}]
    after = [*before, {"role": "assistant", "content": "partial"}, {"role": "user", "content": "next"}]
    cut = tokenizer.decode(encoder.observation(before, "partial", after, ended_turn=False))
    ended = tokenizer.decode(encoder.observation(before, "partial", after, ended_turn=True))
    assert cut == "<|im_end|>\n<|im_start|>user\nnext<|im_end|>\n<|im_start|>assistant\n"
    assert ended == cut[len("<|im_end|>") :]


def test_collect_episodes_samples_groups_and_respects_the_token_budget():
    tokenizer = tiny_tokenizer()
    envs = make_envs(register_echo(), 3)
    model = tiny_model()
    episodes = collect_episodes(
        envs,
        model,
        tokenizer,
        ["t0", "t0", "t2"],
        max_new_tokens=5,
        temperature=1.0,
        seed=3,
        groups=["g0", "g0", "g1"],
    )
    assert [e.group for e in episodes] == ["g0", "g0", "g1"]
    for e in episodes:
        assert len(e.token_ids) == len(e.action_mask)
        assert 1 <= e.agent_tokens <= 5 * len(e.actions)
        assert e.components.keys() == {"exact", "length"}
    # a token budget too small for any generation: the episode is ended by empty actions, no agent tokens
    tight = collect_episodes(
        envs[:1], model, tokenizer, ["t0"], max_new_tokens=5, temperature=1.0, max_episode_tokens=8
    )
    assert tight[0].agent_tokens == 0 and tight[0].actions == []
    assert tight[0].components  # the env still scored the episode
    for env in envs:
        env.close()
