"""Multi-turn rollouts of a causal LM in RewardLab envs, as token sequences with agent masks.

An episode becomes one token sequence: the chat-rendered prompt, then for each turn the tokens
the model generated (``action_mask = 1``) followed by the tokens that render the env's next
observation (``action_mask = 0``). Generation always continues the exact token sequence that the
trainer later scores, so the log-probabilities seen in training are those of the sampled tokens
(no re-tokenisation drift between rollout and update). Losses are taken only where
``action_mask`` is 1: the agent's tokens, never the prompt or the observations.

Observation tokens come from the chat template: the rendered conversation after the new
observation minus its longest common prefix with the conversation up to the agent's action.
The closing of the agent's message (``<|im_end|>`` and the newline after it, for ChatML)
belongs to the observation part, except the end-of-turn token the model sampled itself.

Envs run behind :class:`~rewardlab.wrappers.ChatHistory`, so ``info["messages"]`` is the chat;
``info["tools"]`` goes to the chat template when the env has tools.

Generation is one ``generate`` call per turn for every running episode (left padding). Episodes of
one group (a GRPO group: one task played G times) share their longest common prefix, at least the
prompt, and that prefix is encoded once, its KV cache repeated across the group
(:mod:`rewardlab.baselines.prefix`); the sampled tokens' distribution is that of each episode alone.

An episode whose final ``info`` has ``infra_error`` is marked (:attr:`Episode.infra_error`): an
infrastructure fault ended it, its reward is no judgement of the actions, and trainers drop it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from rewardlab.baselines.prefix import cache_argument, can_share, prefix_cache, shared_prefixes
from rewardlab.core.chat import Conversation
from rewardlab.core.info import FinalInfo
from rewardlab.wrappers.chat import ChatHistory

MAX_EMPTY_STEPS = 64
"""Steps of empty actions given to an episode that ran out of token budget before the env ends it."""


@dataclass
class Episode:
    """One finished episode as a token sequence.

    Attributes:
        task_id: The task played.
        group: The label GRPO normalises over (the task id, or task id and repeat).
        token_ids: Prompt, then alternating agent and observation tokens.
        action_mask: 1 on agent-generated tokens, 0 elsewhere (same length as ``token_ids``).
        action_ends: Index in ``token_ids`` of the last token of each action that has tokens.
        step_rewards: The env's reward after each of those actions (the outcome reward on the last).
        reward: Sum of the env's rewards over the episode.
        components: ``info["reward_components"]`` of the final step.
        is_success: ``info["is_success"]`` of the final step.
        actions: The decoded actions.
        clipped_actions: Actions cut by ``max_new_tokens`` before the model ended its turn.
        infra_error: An infrastructure fault ended the episode (``info["infra_error"]``): drop it.
    """

    task_id: str
    group: str
    token_ids: list[int] = field(default_factory=list)
    action_mask: list[int] = field(default_factory=list)
    action_ends: list[int] = field(default_factory=list)
    step_rewards: list[float] = field(default_factory=list)
    reward: float = 0.0
    components: dict[str, float] = field(default_factory=dict)
    is_success: bool = False
    actions: list[str] = field(default_factory=list)
    clipped_actions: int = 0
    infra_error: bool = False

    @property
    def prompt_length(self) -> int:
        """Tokens before the first agent token."""
        return self.action_mask.index(1) if 1 in self.action_mask else len(self.token_ids)

    @property
    def agent_tokens(self) -> int:
        return sum(self.action_mask)

    def add(self, tokens: Sequence[int], *, agent: bool) -> None:
        self.token_ids.extend(int(t) for t in tokens)
        self.action_mask.extend([int(agent)] * len(tokens))


class ChatEncoder:
    """Turns chat messages into token ids with the tokenizer's chat template, turn by turn."""

    def __init__(self, tokenizer: Any):
        self.tokenizer = tokenizer
        self.eos_text = tokenizer.eos_token or ""

    def render(self, messages: list[dict[str, str]], tools: list | None, *, generation_prompt: bool) -> str:
        kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": generation_prompt}
        if tools:
            kwargs["tools"] = tools
        return self.tokenizer.apply_chat_template(messages, **kwargs)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt(self, messages: list[dict[str, str]], tools: list | None = None) -> list[int]:
        """Tokens of the conversation so far followed by the assistant header."""
        return self.encode(self.render(messages, tools, generation_prompt=True))

    def observation(
        self,
        before: list[dict[str, str]],
        action: str,
        after: list[dict[str, str]],
        tools: list | None = None,
        *,
        ended_turn: bool,
    ) -> list[int]:
        """Tokens between the agent's action and the next generation.

        ``before`` is the chat the action answered, ``after`` the chat once the env replied;
        ``ended_turn`` says whether the sampled tokens already end with the end-of-turn token.
        """
        with_action = self.render([*before, {"role": "assistant", "content": action}], tools, generation_prompt=False)
        header = self.render(before, tools, generation_prompt=True)
        closing = ""
        if with_action.startswith(header) and with_action[len(header) :].startswith(action):
            closing = with_action[len(header) + len(action) :]
        elif not ended_turn:
            closing = self.eos_text
        if ended_turn and closing.startswith(self.eos_text):
            closing = closing[len(self.eos_text) :]
        full = self.render(after, tools, generation_prompt=True)
        shared = os.path.commonprefix([with_action, full])
        return self.encode(closing + full[len(shared) :])


def make_envs(env_id: str, count: int, env_kwargs: dict[str, Any] | None = None) -> list[gym.Env]:
    """``count`` independent envs of ``env_id``, each behind :class:`ChatHistory`."""
    return [ChatHistory(gym.make(env_id, **(env_kwargs or {}))) for _ in range(count)]


@dataclass
class Continuation:
    """One sampled continuation: its tokens (cut after the first EOS), whether it ended its turn, and
    with ``logprobs=True`` each token's log-probability under the sampling distribution."""

    tokens: list[int]
    ended_turn: bool
    logprobs: list[float] | None = None


def sample_continuations(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[Sequence[int]],
    *,
    max_new_tokens: int,
    temperature: float,
    top_p: float = 1.0,
    groups: Sequence[Hashable] | None = None,
    logprobs: bool = False,
) -> list[Continuation]:
    """Sample one continuation per prompt in one ``generate`` call (left padding).

    With ``groups``, prompts with one label share their longest common prefix: it is encoded once
    and its KV cache repeated for each of them (:mod:`rewardlab.baselines.prefix`), when the model's
    cache allows it. ``logprobs`` asks for ``log softmax(logits / temperature)`` of each sampled token
    (``top_p`` is not applied to it), at the cost of keeping every step's logits.
    """
    import torch

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    eos = tokenizer.eos_token_id
    device = next(model.parameters()).device
    shared = (
        shared_prefixes(prompts, groups, [len(p) - 1 for p in prompts], pad_id=pad, left_pad_suffix=True, device=device)
        if groups is not None and can_share(model)
        else None
    )
    extra: dict[str, Any] = {}
    with torch.no_grad():
        if shared is not None:
            input_ids, attention = shared.input_ids, shared.attention_mask
            extra[cache_argument(model)] = prefix_cache(model, shared)
        else:
            width = max(len(p) for p in prompts)
            input_ids = torch.full((len(prompts), width), pad, dtype=torch.long)
            attention = torch.zeros((len(prompts), width), dtype=torch.long)
            for i, prompt in enumerate(prompts):  # left padding: every prompt ends where generation starts
                input_ids[i, width - len(prompt) :] = torch.tensor(prompt, dtype=torch.long)
                attention[i, width - len(prompt) :] = 1
        sampling = {"temperature": temperature, "top_p": top_p, "top_k": 0} if temperature > 0 else {}
        output = model.generate(
            input_ids=input_ids.to(device),
            attention_mask=attention.to(device),
            max_new_tokens=max_new_tokens,
            do_sample=temperature > 0,
            pad_token_id=pad,
            eos_token_id=eos,
            return_dict_in_generate=True,
            output_logits=logprobs,
            **sampling,
            **extra,
        )
        new = output.sequences[:, input_ids.shape[1] :]
        scores = None
        if logprobs:
            logits = torch.stack(output.logits, dim=1).float()
            logits = logits / temperature if temperature > 0 else logits
            scores = torch.gather(torch.log_softmax(logits, -1), -1, new.unsqueeze(-1)).squeeze(-1).tolist()
    results = []
    for i, row in enumerate(new.tolist()):
        end = row.index(eos) + 1 if eos in row else len(row)
        results.append(Continuation(row[:end], eos in row, scores[i][:end] if scores is not None else None))
    return results


def generate_tokens(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[Sequence[int]],
    *,
    max_new_tokens: int,
    temperature: float,
    top_p: float = 1.0,
    groups: Sequence[Hashable] | None = None,
) -> list[tuple[list[int], bool]]:
    """Sample one continuation per prompt: ``(tokens, ended_turn)`` each, cut after the first EOS
    (:func:`sample_continuations`; ``groups`` share their common prefix)."""
    return [
        (c.tokens, c.ended_turn)
        for c in sample_continuations(
            model,
            tokenizer,
            prompts,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            top_p=top_p,
            groups=groups,
        )
    ]


def collect_episodes(
    envs: Sequence[gym.Env],
    model: Any,
    tokenizer: Any,
    task_ids: Sequence[str],
    *,
    max_new_tokens: int,
    temperature: float,
    top_p: float = 1.0,
    max_episode_tokens: int = 4096,
    seed: int | None = None,
    groups: Sequence[str] | None = None,
    share_prefix: bool = True,
) -> list[Episode]:
    """Play one episode per task id, all in lockstep, and return them as token sequences.

    ``envs[i]`` plays ``task_ids[i]`` (pass a task id G times for a GRPO group); generation is
    batched over the episodes still running, and with ``share_prefix`` the episodes of one group
    (``groups``, else the task id) encode their common prefix once. An episode whose tokens would
    pass ``max_episode_tokens`` stops generating and is given empty actions until the env ends it.
    """
    labels = list(groups) if groups else list(task_ids)
    return _run_lockstep(
        envs,
        tokenizer,
        task_ids,
        seed=seed,
        groups=groups,
        max_episode_tokens=max_episode_tokens,
        max_new_tokens=max_new_tokens,
        policy=lambda indices, prompts: generate_tokens(
            model,
            tokenizer,
            prompts,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            top_p=top_p,
            groups=[labels[i] for i in indices] if share_prefix else None,
        ),
    )


def demonstrations(
    envs: Sequence[gym.Env],
    tokenizer: Any,
    task_ids: Sequence[str],
    make_agent: Callable[[gym.Env], Any],
    *,
    max_episode_tokens: int = 4096,
    seed: int | None = None,
) -> list[Episode]:
    """Episodes whose actions come from ``make_agent(env)`` (e.g. the OracleAgent), tokenised as in
    :func:`collect_episodes` so that SFT trains exactly the tokens a rollout would sample."""
    encoder = ChatEncoder(tokenizer)
    agents = [make_agent(env) for env in envs]
    state: dict[int, tuple[str, dict[str, Any]]] = {}

    def act(index: int) -> tuple[list[int], bool]:
        observation, info = state[index]
        action = agents[index].act(observation, info)
        tokens = encoder.encode(action) + ([tokenizer.eos_token_id] if tokenizer.eos_token_id is not None else [])
        return tokens, tokenizer.eos_token_id is not None

    for agent in agents:
        agent.reset()
    return _run_lockstep(
        envs,
        tokenizer,
        task_ids,
        seed=seed,
        groups=None,
        max_episode_tokens=max_episode_tokens,
        max_new_tokens=0,
        policy=lambda indices, prompts: [act(i) for i in indices],
        state=state,
    )


LockstepPolicy = Callable[[list[int], list[list[int]]], list[tuple[list[int], bool]]]
"""``(indices of the episodes to act, their tokens so far) -> [(action tokens, ended its turn)]``, one per index."""


def _run_lockstep(
    envs: Sequence[gym.Env],
    tokenizer: Any,
    task_ids: Sequence[str],
    *,
    seed: int | None,
    groups: Sequence[str] | None,
    max_episode_tokens: int,
    max_new_tokens: int,
    policy: LockstepPolicy,
    state: dict[int, tuple[str, dict[str, Any]]] | None = None,
) -> list[Episode]:
    if len(envs) < len(task_ids):
        raise ValueError(f"{len(task_ids)} episodes need as many envs, got {len(envs)}")
    encoder = ChatEncoder(tokenizer)
    state = {} if state is None else state
    episodes: list[Episode] = []
    chats: list[Conversation] = []
    done: list[bool] = []
    resets = call_all(
        [envs[i] for i in range(len(task_ids))],
        "reset",
        [{"seed": None if seed is None else seed + i, "options": {"task_id": t}} for i, t in enumerate(task_ids)],
    )
    for i, (task_id, (observation, info)) in enumerate(zip(task_ids, resets, strict=True)):
        state[i] = (observation, info)
        episode = Episode(task_id=task_id, group=groups[i] if groups else task_id)
        chat = Conversation()
        chat.start(observation, info)
        chat.adopt(info)  # the env's own chat (ChatHistory), when it keeps one
        chats.append(chat)
        episode.add(encoder.prompt(chat.messages, chat.tools), agent=False)
        episodes.append(episode)
        done.append(False)
    while not all(done):
        running = [i for i in range(len(episodes)) if not done[i]]
        fits = [i for i in running if len(episodes[i].token_ids) + max_new_tokens <= max_episode_tokens]
        sampled = dict(zip(fits, policy(fits, [episodes[i].token_ids for i in fits]), strict=True)) if fits else {}
        for i in running:
            if i not in sampled:
                _finish_with_empty_actions(envs[i], episodes[i])
                done[i] = True
        stepping = [i for i in running if i in sampled]
        actions = {i: tokenizer.decode(sampled[i][0], skip_special_tokens=True) for i in stepping}
        results = call_all([envs[i] for i in stepping], "step", [{"action": actions[i]} for i in stepping])
        for i, result in zip(stepping, results, strict=True):
            episode = episodes[i]
            tokens, ended_turn = sampled[i]
            action = actions[i]
            episode.add(tokens, agent=True)
            if tokens:
                episode.action_ends.append(len(episode.token_ids) - 1)
            episode.clipped_actions += int(not ended_turn)
            episode.actions.append(action)
            observation, reward, terminated, truncated, info = result
            state[i] = (observation, info)
            episode.reward += float(reward)
            if tokens:
                episode.step_rewards.append(float(reward))
            if terminated or truncated:
                _record_outcome(episode, info)
                done[i] = True
                continue
            chat = chats[i]
            before = list(chat.messages)
            if not chat.adopt(info):
                chat.act(action)
                chat.observe(observation)
            chat.tools = info.get("tools", chat.tools)
            observation_tokens = encoder.observation(before, action, chat.messages, chat.tools, ended_turn=ended_turn)
            episode.add(observation_tokens, agent=False)
    return episodes


def call_all(envs: Sequence[Any], method: str, kwargs: Sequence[dict[str, Any]]) -> list[Any]:
    """Call ``method(**kwargs[i])`` on every env. Envs with ``<method>_async`` (remote envs, see
    :mod:`rewardlab.baselines.ray_envs`) get every call submitted before any result is awaited, so
    they run in parallel; local envs run in turn."""
    pending = [
        getattr(env, f"{method}_async")(**kw) if hasattr(env, f"{method}_async") else None
        for env, kw in zip(envs, kwargs, strict=True)
    ]
    return [
        env.wait(handle) if handle is not None else getattr(env, method)(**kw)
        for env, kw, handle in zip(envs, kwargs, pending, strict=True)
    ]


def _record_outcome(episode: Episode, info: dict[str, Any]) -> None:
    final = FinalInfo.from_info(info)
    episode.components = dict(final.reward_components)
    episode.is_success = final.is_success
    episode.infra_error = final.infra_error is not None


def _finish_with_empty_actions(env: gym.Env, episode: Episode) -> None:
    """Out of token budget: send empty actions until the env ends the episode (its turn budget)."""
    for _ in range(MAX_EMPTY_STEPS):
        _, reward, terminated, truncated, info = env.step("")
        episode.reward += float(reward)
        if terminated or truncated:
            if episode.step_rewards:
                episode.step_rewards[-1] += float(reward)
            _record_outcome(episode, info)
            return


def evaluate_policy(
    model: Any,
    tokenizer: Any,
    env_id: str,
    task_ids: Sequence[str],
    *,
    env_kwargs: dict[str, Any] | None = None,
    batch_size: int = 8,
    max_new_tokens: int = 128,
    max_episode_tokens: int = 4096,
    temperature: float = 0.0,
) -> list[Episode]:
    """Play every task of ``task_ids`` once (greedy by default, so the score repeats), ``batch_size`` at a time."""
    envs = make_envs(env_id, min(batch_size, len(task_ids)), env_kwargs)
    try:
        episodes: list[Episode] = []
        for start in range(0, len(task_ids), len(envs)):
            episodes += collect_episodes(
                envs,
                model,
                tokenizer,
                task_ids[start : start + len(envs)],
                max_new_tokens=max_new_tokens,
                temperature=temperature,
                max_episode_tokens=max_episode_tokens,
                seed=start,
            )
        return episodes
    finally:
        for env in envs:
            env.close()
