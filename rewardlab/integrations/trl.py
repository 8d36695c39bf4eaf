"""Train on RewardLab envs with TRL's ``GRPOTrainer``.

Single-turn envs (one action, then the rubric scores it; e.g. ``RewardLab/BFCL-v1``,
``RewardLab/BPMN-v1``): :func:`task_dataset` gives one row per task (``prompt`` as chat
messages, ``task_id``); :class:`RewardFunctions` scores each completion by playing it in the
env and exposes one reward function per component, so TRL logs ``rewards/<component>/mean``
for every component. By default the env's own aggregate (weights, gates, penalty included)
is the training reward and the components are logged at weight 0::

    rewards = RewardFunctions("RewardLab/BFCL-v1")
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, train_dataset=task_dataset("RewardLab/BFCL-v1"),
        reward_funcs=rewards.funcs, args=GRPOConfig(..., reward_weights=rewards.weights),
    )

Multi-turn envs (``environment_factory``, see TRL's GRPOTrainer docs): TRL creates one
environment object per rollout, calls ``reset(**row)`` with the dataset row (the returned
observation is appended to the row's last user message) and exposes the object's public
methods as tools. :func:`environment_class` builds such a class for any env: its one tool,
``act(action)``, sends the model's text to the env and returns the next observation. The
model's final message (the reply without a tool call) is the episode's last action: the reward
functions of :func:`environment_reward_funcs` play it and read the outcome, one function per
component plus the aggregate::

    Env = environment_class("RewardLab/ToolCall-v1")
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, environment_factory=Env,
        train_dataset=task_dataset("RewardLab/ToolCall-v1", multi_turn=True),
        reward_funcs=environment_reward_funcs(Env), args=GRPOConfig(..., reward_weights=...),
    )

``environment_factory`` needs a chat template that renders tool calls (Qwen2.5/Qwen3,
Llama 3.1 ...); SmolLM2's does not, and the example ``examples/trl_multi_turn.py`` gives it the
ChatML tool template that TRL ships for Qwen2.5.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium as gym

from rewardlab.errors import ConfigError, require

__all__ = [
    "RewardFunctions",
    "completion_text",
    "environment_class",
    "environment_reward_funcs",
    "task_dataset",
]


def completion_text(completion: Any) -> str:
    """The text of a TRL completion: a string, or the content of its last assistant message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        content = completion[-1].get("content") if isinstance(completion[-1], dict) else None
        if isinstance(content, list):  # multimodal content parts
            return "".join(part.get("text", "") for part in content if isinstance(part, dict))
        return content or ""
    return ""


def _prompt_messages(observation: str, info: dict[str, Any]) -> list[dict[str, str]]:
    system = info.get("system_prompt") or ""
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": observation}]


def task_dataset(
    env_id: str,
    split: str = "train",
    *,
    env_kwargs: dict[str, Any] | None = None,
    multi_turn: bool = False,
    limit: int | None = None,
) -> Any:
    """A ``datasets.Dataset`` with one row per task of ``split``: ``prompt`` (chat messages) and ``task_id``.

    For ``multi_turn=True`` the user message is empty: the environment's ``reset`` returns the
    observation and TRL appends it there.
    """
    datasets = require("datasets", "train")
    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        ids = env.unwrapped.tasks.ids(split)
        if not ids:
            raise ConfigError(f"{env_id} has no tasks in split {split!r}")
        rows = []
        for task_id in ids[:limit]:
            observation, info = env.reset(options={"task_id": task_id})
            messages = _prompt_messages("" if multi_turn else observation, info)
            rows.append({"prompt": messages, "task_id": task_id})
        return datasets.Dataset.from_list(rows)
    finally:
        env.close()


class RewardFunctions:
    """Scores single-turn completions in a RewardLab env, one TRL reward function per component.

    ``funcs`` is ``[reward, <component 1>, ..., <component k>]``: ``reward`` is the env's reward
    (its rubric's aggregate with weights, gates and invalid penalty), each other function one
    component in [0, 1]. ``weights`` is ``[1, 0, ..., 0]`` for ``GRPOConfig(reward_weights=...)``:
    train on the env's reward, log every component. With ``train_on="components"`` the weights
    become ``[0, w_1, ..., w_k]`` (the rubric's normalised weights: the weighted sum equals
    the ``mean`` aggregate without gates).

    Each ``(task_id, completion)`` is played once in the env and cached (the ``k + 1``
    functions share it). TRL passes the dataset's ``task_id`` column to every function.
    """

    def __init__(
        self,
        env_id: str,
        *,
        env_kwargs: dict[str, Any] | None = None,
        train_on: str = "reward",
        cache_size: int = 4096,
    ):
        if train_on not in ("reward", "components"):
            raise ConfigError(f"train_on must be 'reward' or 'components', got {train_on!r}")
        self.env_id = env_id
        self.env = gym.make(env_id, **(env_kwargs or {}))
        self.names: tuple[str, ...] = tuple(self.env.unwrapped.reward_component_names)
        self.train_on = train_on
        self.cache: OrderedDict[tuple[str, str], tuple[float, dict[str, float]]] = OrderedDict()
        self.cache_size = cache_size
        self.funcs: list[Callable[..., list[float]]] = [self._make("reward")] + [self._make(n) for n in self.names]

    @property
    def weights(self) -> list[float]:
        if self.train_on == "reward":
            return [1.0] + [0.0] * len(self.names)
        normalized = self.env.unwrapped.rubric.normalized_weights
        return [0.0] + [float(normalized[n]) for n in self.names]

    def score(self, task_id: str, text: str) -> tuple[float, dict[str, float]]:
        """``(reward, components)`` of playing ``text`` as the one action of ``task_id``."""
        key = (str(task_id), text)
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        self.env.reset(options={"task_id": str(task_id)})
        reward, terminated, truncated, info = self.env.step(text)[1:]
        if not (terminated or truncated):
            raise ConfigError(
                f"{self.env_id} did not end after one action; use environment_class() for multi-turn envs"
            )
        result = (float(reward), {n: float(info["reward_components"][n]) for n in self.names})
        self.cache[key] = result
        if len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return result

    def _make(self, name: str) -> Callable[..., list[float]]:
        def reward_function(completions: Sequence[Any], task_id: Sequence[str], **kwargs: Any) -> list[float]:
            scores = [self.score(t, completion_text(c)) for c, t in zip(completions, task_id, strict=True)]
            return [s[0] if name == "reward" else s[1][name] for s in scores]

        reward_function.__name__ = name
        reward_function.__doc__ = f"{self.env_id}: {'the reward' if name == 'reward' else f'component {name}'}."
        return reward_function

    def close(self) -> None:
        self.env.close()


class RewardLabEnvironment:
    """Base of the classes :func:`environment_class` builds (TRL's ``environment_factory`` contract).

    Public methods other than ``reset`` are the model's tools; here there is one, ``act``.
    """

    env_id: ClassVar[str] = ""
    env_kwargs: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        self._env = gym.make(self.env_id, **self.env_kwargs)
        self._outcome: dict[str, Any] | None = None
        self._reward = 0.0

    def reset(self, **row: Any) -> str:
        """Start the row's task (``row["task_id"]``); the observation goes into the prompt."""
        task_id = row.get("task_id")
        observation, _ = self._env.reset(options={"task_id": str(task_id)} if task_id is not None else None)
        self._outcome = None
        self._reward = 0.0
        return observation

    def act(self, action: str) -> str:
        """Send one action to the environment and read what it answers.

        Args:
            action: The text of the action, in the format the task describes.

        Returns:
            The environment's observation after the action.
        """
        if self._outcome is not None:
            return "The episode is over: reply with your final message."
        observation, reward, terminated, truncated, info = self._env.step(action)
        self._reward += float(reward)
        if terminated or truncated:
            self._outcome = info
        return observation

    def _finish(self, final_message: str) -> tuple[float, dict[str, float]]:
        """Play the model's final message (if the episode is still running) and return the outcome."""
        if self._outcome is None:
            for _ in range(64):
                _, reward, terminated, truncated, info = self._env.step(final_message)
                self._reward += float(reward)
                if terminated or truncated:
                    self._outcome = info
                    break
                final_message = ""
        components = (self._outcome or {}).get("reward_components", {})
        return self._reward, {k: float(v) for k, v in components.items()}


def environment_class(env_id: str, env_kwargs: dict[str, Any] | None = None) -> type[RewardLabEnvironment]:
    """A class for ``GRPOTrainer(environment_factory=...)`` that plays ``env_id`` (one env per instance)."""
    probe = gym.make(env_id, **(env_kwargs or {}))
    names = tuple(probe.unwrapped.reward_component_names)
    probe.close()
    name = "".join(ch for ch in env_id.split("/")[-1].title() if ch.isalnum()) + "Environment"
    return type(
        name,
        (RewardLabEnvironment,),
        {"env_id": env_id, "env_kwargs": dict(env_kwargs or {}), "component_names": names, "__module__": __name__},
    )


def environment_reward_funcs(environment: type[RewardLabEnvironment]) -> list[Callable[..., list[float]]]:
    """``[reward, <component>...]`` reward functions for :func:`environment_class` rollouts.

    Each plays the completion's final message as the last action (once; the episode then stays
    finished) and reads the env's reward or one component. Use weights ``[1, 0, ..., 0]``.
    """

    def make(name: str) -> Callable[..., list[float]]:
        def reward_function(completions: Sequence[Any], environments: Sequence[Any], **kwargs: Any) -> list[float]:
            outcomes = [env._finish(completion_text(c)) for c, env in zip(completions, environments, strict=True)]
            return [o[0] if name == "reward" else o[1].get(name, 0.0) for o in outcomes]

        reward_function.__name__ = name
        return reward_function

    return [make("reward")] + [make(n) for n in environment.component_names]
