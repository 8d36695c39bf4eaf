"""RewardLab envs as OpenRLHF agents (OpenRLHF 0.11, ``openrlhf.utils.agent``).

OpenRLHF's multi-turn rollouts come from the Python file given as ``--train.agent_func_path``:
each vLLM actor loads it and builds its module-level ``AgentExecutor()``. For every sample,
``MultiTurnAgentExecutor.execute`` makes a fresh ``AgentInstance()``, awaits
``reset({"observation": prompt, "label": label})``, then alternately generates (its
``max_tokens`` is whatever is left of ``max_len``) and awaits ``step({"observation_text",
"action_text", "label", "sampling_params"})`` until ``done`` or the budget is spent. It is text in
and text out: the executor tokenises the texts returned and appends them to the sequence, the
environment feedback with action mask 0.

:class:`RewardLabAgent` plays one RewardLab episode per instance; env calls run off the event loop
(``asyncio.to_thread``):

- ``reset`` makes the env, resets it on the label's task (the label is the task id) and returns the
  env's own prompt, a system message with ``info["system_prompt"]`` (when not empty) and a user
  message with the observation, rendered by the tokenizer's chat template with the generation
  prompt. The dataset's prompt is not used: the label selects the task.
- ``step`` sends ``action_text`` to the env. ``rewards``: the env's step reward (the executor adds
  them up: the episode's return); ``scores`` (OpenRLHF's dynamic-filtering value): the rubric's
  score at the last step, else 0; ``done``; ``environment_feedback``: the next observation as a
  user turn and the generation prompt, as the chat template renders them after an assistant turn,
  less the end-of-turn token the model generated itself (vLLM stops on it, keeps it in the token
  ids and leaves it out of the text); at the last step, only what follows that token.
- ``extra_logs``, at every step (OpenRLHF logs the last step's; the keys must be the same for every
  sample): ``reward/<component>``, ``score``, ``is_success``, ``progress``, ``infra_error`` and
  ``finished`` (names of :func:`rewardlab.core.info.episode_logs`; 0 before the end).
  OpenRLHF averages each over the batch in its logs.
- An infrastructure fault (``info["infra_error"]``) sets ``infra_error`` 1.0 (the reward is the
  env's invalid penalty, the episode never a success). OpenRLHF has no way for an agent to drop a
  sample: filter on that log.
- Reward provenance: OpenRLHF turns every ``extra_logs`` value into a tensor and keeps nothing else per
  sample, so the stamp of the reward (``reward_version``, :mod:`rewardlab.core.provenance`) cannot reach its
  logs. It is in every row of :func:`openrlhf_rows` (the env's stamp when the rows were made) and, per
  episode, in the agent's :attr:`RewardLabAgent.reward_version`.
- The env (an :class:`~rewardlab.integrations.session.EpisodeSession`'s) is closed when the episode ends
  and, for an episode the token budget cut short, when the instance is garbage-collected.

Configuration: :func:`agent_classes` builds ``(AgentInstance, AgentExecutor)`` classes for an env
id, its keyword arguments, an optional ``env_factory`` (no arguments, returns a Gymnasium env,
e.g. a remote one) and a tokenizer (or its name). The module's own ``AgentInstance`` and
``AgentExecutor`` read them from environment variables when an instance is made, so this file can be
given to OpenRLHF as it is::

    REWARDLAB_ENV_ID=RewardLab/ToolCall-v3            # required
    REWARDLAB_ENV_KWARGS='{"max_turns": 6}'           # JSON, optional
    REWARDLAB_TOKENIZER=Qwen/Qwen2.5-0.5B-Instruct    # the policy's tokenizer (name or folder)

(set them for the Ray workers too, e.g. ``ray job submit --runtime-env-json '{"env_vars": ...}'``).
:func:`openrlhf_rows` writes the dataset rows (``--data.input_key prompt --data.label_key label``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import gymnasium as gym

from rewardlab.errors import ConfigError, require
from rewardlab.integrations.session import EpisodeSession, task_prompts

# Any, not ModuleType: its classes are bases and annotations below
agent: Any = require("openrlhf.utils.agent", "openrlhf")
torch = require("torch", "openrlhf")

__all__ = [
    "AgentExecutor",
    "AgentInstance",
    "RewardLabAgent",
    "RewardLabAgentExecutor",
    "agent_classes",
    "environment_feedback",
    "openrlhf_rows",
]

_MARK = "\x00rewardlab-action\x00"


@functools.cache
def _load_tokenizer(name: str) -> Any:
    return require("transformers", "openrlhf").AutoTokenizer.from_pretrained(name)


def _after_turn_end(tokenizer: Any, text: str) -> str:
    """``text`` (what the chat template renders after an assistant turn's content) less the leading
    special token that ends the turn, which the model generated itself."""
    for token in sorted(tokenizer.all_special_tokens, key=len, reverse=True):
        if token and text.startswith(token):
            return text[len(token) :]
    return text


def environment_feedback(tokenizer: Any, observation: str | None) -> str:
    """The text that follows an assistant turn: ``observation`` as a user turn and the generation prompt,
    or (``None``) the end of the conversation, less the model's own end-of-turn token."""
    base = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": _MARK},
    ]
    follow = [{"role": "user", "content": observation}] if observation is not None else []
    rendered = tokenizer.apply_chat_template(base + follow, tokenize=False, add_generation_prompt=bool(follow))
    return _after_turn_end(tokenizer, rendered.split(_MARK, 1)[1])


class RewardLabAgent(agent.AgentInstanceBase):
    """One RewardLab episode behind OpenRLHF's ``AgentInstanceBase`` (see the module docstring).

    The class attributes configure it (:func:`agent_classes` sets them). Without ``env_factory`` or
    ``env_id``, the env is ``REWARDLAB_ENV_ID`` with ``REWARDLAB_ENV_KWARGS``; without ``tokenizer``,
    the tokenizer is loaded from ``REWARDLAB_TOKENIZER``. They are read when an instance is made.
    """

    env_id: ClassVar[str | None] = None
    env_kwargs: ClassVar[Mapping[str, Any] | None] = None
    env_factory: ClassVar[Callable[[], gym.Env] | None] = None
    tokenizer: ClassVar[Any] = None

    def __init__(self, *args: Any, **kwargs: Any):
        tokenizer = type(self).tokenizer or os.environ.get("REWARDLAB_TOKENIZER")
        if not tokenizer:
            raise ConfigError(
                "RewardLabAgent needs the policy's tokenizer: agent_classes(tokenizer=...) or REWARDLAB_TOKENIZER"
            )
        self.chat = _load_tokenizer(tokenizer) if isinstance(tokenizer, str) else tokenizer
        env_id, env_kwargs = type(self).env_id, type(self).env_kwargs
        if type(self).env_factory is None and env_id is None:
            env_id = os.environ.get("REWARDLAB_ENV_ID")
            env_kwargs = json.loads(os.environ.get("REWARDLAB_ENV_KWARGS") or "{}")
        self.session = EpisodeSession(
            env_id,
            env_kwargs,
            env_factory=type(self).env_factory,
            missing_env_id="RewardLabAgent needs agent_classes(env_id) or REWARDLAB_ENV_ID",
        )

    @property
    def reward_version(self) -> str | None:
        """The stamp of the reward of the current (or last) episode; None before the first reset."""
        return self.session.reward_version

    async def reset(self, states: dict, **kwargs: Any) -> dict:
        """Make the env, start the label's task and return ``{"observation": <the rendered prompt>}``."""
        await asyncio.to_thread(self.session.close)  # a second reset: the first episode's env goes
        label = states.get("label")
        messages = await asyncio.to_thread(self.session.start, None if label in (None, "") else label)
        return {"observation": self.chat.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)}

    async def step(self, states: dict, **kwargs: Any) -> dict:
        """Send ``states["action_text"]`` to the env; OpenRLHF's step result (see the module docstring)."""
        turn = await asyncio.to_thread(self.session.play, states["action_text"])
        if turn.done:
            self.session.close()
        return {
            "rewards": torch.tensor(turn.reward),
            "scores": torch.tensor(float(turn.info.get("score", 0.0)) if turn.done else 0.0),
            "environment_feedback": environment_feedback(self.chat, None if turn.done else turn.observation),
            "done": turn.done,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": self.session.rollout_logs(),
        }


class RewardLabAgentExecutor(agent.MultiTurnAgentExecutor):
    """OpenRLHF's multi-turn executor over :attr:`agent_class` (built with no arguments, as OpenRLHF does)."""

    agent_class: ClassVar[type[RewardLabAgent]] = RewardLabAgent

    def __init__(self) -> None:
        super().__init__(self.agent_class)


def agent_classes(
    env_id: str | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    *,
    env_factory: Callable[[], gym.Env] | None = None,
    tokenizer: Any = None,
) -> tuple[type[RewardLabAgent], type[RewardLabAgentExecutor]]:
    """``(AgentInstance, AgentExecutor)`` classes bound to an env and a tokenizer (an object or its name),
    for an ``--agent_func_path`` file: ``AgentInstance, AgentExecutor = agent_classes("RewardLab/BFCL-v1", ...)``."""
    if env_id is None and env_factory is None:
        raise ConfigError("agent_classes needs env_id or env_factory")
    attributes = {
        "env_id": env_id,
        "env_kwargs": dict(env_kwargs or {}),
        "tokenizer": tokenizer,
        "__module__": __name__,
    }
    if env_factory is not None:
        attributes["env_factory"] = staticmethod(env_factory)
    instance = type("RewardLabAgentInstance", (RewardLabAgent,), attributes)
    executor = type(
        "RewardLabAgentExecutorFor", (RewardLabAgentExecutor,), {"agent_class": instance, "__module__": __name__}
    )
    return instance, executor


AgentInstance = RewardLabAgent
"""What OpenRLHF's agent file convention names the instance class (configured by environment variables)."""

AgentExecutor = RewardLabAgentExecutor
"""The class OpenRLHF builds from an ``--agent_func_path`` file (configured by environment variables)."""


def openrlhf_rows(
    env_id: str, split: str = "train", *, env_kwargs: Mapping[str, Any] | None = None, limit: int | None = None
) -> list[dict[str, Any]]:
    """OpenRLHF prompt rows, one per task of ``split``: ``prompt`` (the env's chat messages, for
    ``--data.input_key prompt``), ``label`` (the task id, for ``--data.label_key label``) and
    ``reward_version`` (the env's stamp when the rows were made; OpenRLHF does not read it)."""
    return [
        {"prompt": messages, "label": task_id, "reward_version": info.get("reward_version")}
        for task_id, messages, info in task_prompts(env_id, split, env_kwargs=env_kwargs, limit=limit)
    ]
