"""Rollouts: agent tokens are exactly the actions; the whole sequence is the chat template's rendering."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from rewardlab.baselines.prefix import can_share, shared_prefixes
from rewardlab.baselines.rollout import (
    ChatEncoder,
    Episode,
    collect_episodes,
    demonstrations,
    generate_tokens,
    make_envs,
    sample_continuations,
)
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


def _alone_logprobs(model, prompt, tokens, temperature):
    """Log-probs of ``tokens`` after ``prompt`` from the sequence alone (batch of one, no padding, no cache)."""
    ids = torch.tensor([list(prompt) + list(tokens)])
    with torch.no_grad():
        logits = model(input_ids=ids, use_cache=False).logits[0, len(prompt) - 1 : -1].float() / temperature
    return torch.log_softmax(logits, -1).gather(-1, torch.tensor(tokens).unsqueeze(-1)).squeeze(-1).tolist()


def group_prompts():
    """Two groups of three with prompts of different lengths, and a group whose members share only a
    prefix (the second turn of a multi-turn episode), and one prompt alone."""
    rng = np.random.default_rng(0)
    a, b = rng.integers(10, 1000, size=23).tolist(), rng.integers(10, 1000, size=9).tolist()
    c = rng.integers(10, 1000, size=15).tolist()
    prompts = [a, a, a, b, b, b, c + [5, 6, 7], c + [8, 9], rng.integers(10, 1000, size=4).tolist()]
    labels = ["a", "a", "a", "b", "b", "b", "c", "c", "alone"]
    return prompts, labels


@pytest.mark.parametrize("share", [True, False], ids=["shared-prefix", "plain-batch"])
def test_batched_group_generation_samples_from_each_sequence_alone(share):
    model, tokenizer = tiny_model(), tiny_tokenizer()
    prompts, labels = group_prompts()
    layout = shared_prefixes(prompts, labels, [len(p) - 1 for p in prompts], pad_id=0, left_pad_suffix=True)
    assert can_share(model) and layout is not None and layout.prefix_ids.shape[0] == 4  # 9 sequences, 4 prefixes
    assert layout.lengths == [22, 22, 22, 8, 8, 8, 15, 15, 3]
    torch.manual_seed(0)
    samples = sample_continuations(
        model, tokenizer, prompts, max_new_tokens=6, temperature=0.7, groups=labels if share else None, logprobs=True
    )
    assert len({tuple(s.tokens) for s in samples[:3]}) > 1  # the group's members sample independently
    for prompt, sample in zip(prompts, samples, strict=True):
        assert 1 <= len(sample.tokens) <= 6
        np.testing.assert_allclose(sample.logprobs, _alone_logprobs(model, prompt, sample.tokens, 0.7), atol=1e-4)


def test_greedy_generation_is_the_same_with_and_without_the_shared_prefix():
    model, tokenizer = tiny_model(seed=3), tiny_tokenizer()
    prompts, labels = group_prompts()
    shared = generate_tokens(model, tokenizer, prompts, max_new_tokens=8, temperature=0.0, groups=labels)
    plain = generate_tokens(model, tokenizer, prompts, max_new_tokens=8, temperature=0.0)
    assert shared == plain


def test_shared_prefixes_need_a_shared_nonempty_prefix():
    # every label alone: nothing to share; a group whose members differ at the first token: an empty prefix
    assert shared_prefixes([[1, 2, 3], [1, 2, 4]], ["x", "y"], [2, 2], pad_id=0, left_pad_suffix=True) is None
    assert shared_prefixes([[1, 2, 3], [2, 2, 3]], ["x", "x"], [2, 2], pad_id=0, left_pad_suffix=True) is None
    layout = shared_prefixes([[1, 2, 3], [1, 2, 4, 5]], ["x", "x"], [2, 3], pad_id=0, left_pad_suffix=False)
    assert layout.lengths == [2, 2] and layout.suffix_ids.tolist() == [[3, 0], [4, 5]]
    assert layout.input_ids.tolist() == [[1, 2, 3, 0], [1, 2, 4, 5]]
    assert layout.suffix_positions().tolist() == [[2, 0], [2, 3]]
