"""Train on RewardLab envs with TRL's ``GRPOTrainer``.

Single-turn envs (one action, then the rubric scores it; e.g. ``RewardLab/BFCL-v1``,
``RewardLab/BPMN-v2``): :func:`task_dataset` gives one row per task (``prompt`` as chat
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
observation is appended to the row's last user message) and exposes the public methods of the
object's class as tools, with the JSON schemas transformers' ``get_json_schema`` reads from
their signatures and docstrings. :func:`environment_class` builds such a class for any env. An
env with tools of its own (``info["tools"]``: ``RewardLab/ToolCall-v3``,
``RewardLab/BFCLMultiTurn-v1``, ``RewardLab/SlidesAgent-v2``) gets one method per tool
(:func:`tool_method`) whose schema is the env's; each call is played as the env's action
``{"name": ..., "arguments": {...}}`` and returns its observation. Other envs get one tool,
``act(action)``, that plays any text. The model's final message (the reply without a tool call)
is the episode's last action: the reward functions of :func:`environment_reward_funcs` play it
and read the outcome, one function per component plus the aggregate::

    Env = environment_class("RewardLab/ToolCall-v3")
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, environment_factory=Env,
        train_dataset=task_dataset("RewardLab/ToolCall-v3", multi_turn=True),
        reward_funcs=environment_reward_funcs(Env), args=GRPOConfig(..., reward_weights=...),
    )

In a conversation of several user turns (``RewardLab/BFCLMultiTurn-v1``) a plain-text reply
moves to the next request, so such envs also get ``reply_to_user(message)``. A rollout that hit
an infrastructure fault gets None from every reward function (TRL leaves it out, rather than
scoring it 0), and ``infra_error`` and the episode logs of :func:`rewardlab.core.info.episode_logs`
reach TRL's logs through its ``log_metric``.

Reward provenance: TRL logs only numbers as metrics, so each rollout's ``reward_version`` (the stamp of the
reward that scored it, :mod:`rewardlab.core.provenance`) goes into TRL's completions table as the column
``reward_version``, through the ``log_extra`` callback TRL passes to reward functions; every row of
:func:`task_dataset` also carries the stamp of the env its prompt was made from.

TRL reads tools per class, once, so ``environment_class`` offers the union of the tasks' tools in
every prompt. :func:`environment_classes` makes one class per tool set instead, for TRL's
multi-environment mode (``environment_factory=<dict>`` and the dataset's ``environment`` column):
each prompt then shows only its task's tools. TRL runs each tool call of a message as its own
env step, so calls a model makes in parallel count as separate actions (ToolCall-v3's
``efficiency`` counts actions). The envs' system prompts still describe their text action format:
a call written as text in the final message is played as that action.

``environment_factory`` needs a chat template that renders tool calls (Qwen2.5/Qwen3,
Llama 3.1 ...); SmolLM2's does not, and the example ``examples/trl_multi_turn.py`` gives it the
ChatML tool template that TRL ships for Qwen2.5.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium as gym

from rewardlab.core.chat import opening_messages
from rewardlab.core.env import unwrapped_text_env
from rewardlab.core.info import episode_logs, is_infra_failure
from rewardlab.errors import ConfigError, require
from rewardlab.integrations.session import EpisodeSession, task_prompts
from rewardlab.integrations.tool_methods import tool_method, toolset_key

__all__ = [
    "EPISODE_OVER",
    "REPLY_TOOL",
    "RewardFunctions",
    "RewardLabEnvironment",
    "completion_text",
    "environment_class",
    "environment_classes",
    "environment_reward_funcs",
    "task_dataset",
]


def completion_text(completion: Any) -> str:
    """The text of a TRL completion: a string, or the content of its last message when that is the
    assistant's ("" when a multi-turn completion ends on a tool result)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        last = completion[-1]
        assistant = isinstance(last, dict) and last.get("role", "assistant") == "assistant"
        content = last.get("content") if assistant else None
        if isinstance(content, list):  # multimodal content parts
            return "".join(part.get("text", "") for part in content if isinstance(part, dict))
        return content or ""
    return ""


def task_dataset(
    env_id: str,
    split: str = "train",
    *,
    env_kwargs: dict[str, Any] | None = None,
    multi_turn: bool = False,
    limit: int | None = None,
) -> Any:
    """A ``datasets.Dataset`` with one row per task of ``split``: ``prompt`` (chat messages), ``task_id`` and
    ``reward_version`` (the env's stamp, from its reset ``info``).

    For ``multi_turn=True`` the user message is empty: the environment's ``reset`` returns the
    observation and TRL appends it there; the ``environment`` column names the task's tool set
    (:func:`toolset_key`, the keys of :func:`environment_classes`).
    """
    datasets = require("datasets", "train")
    rows = []
    for task_id, messages, info in task_prompts(env_id, split, env_kwargs=env_kwargs, limit=limit):
        row = {
            "prompt": opening_messages("", info) if multi_turn else messages,
            "task_id": task_id,
            "reward_version": info.get("reward_version"),
        }
        if multi_turn:
            row["environment"] = toolset_key(info.get("tools") or [])
        rows.append(row)
    return datasets.Dataset.from_list(rows)


class RewardFunctions:
    """Scores single-turn completions in a RewardLab env, one TRL reward function per component.

    ``funcs`` is ``[reward, <component 1>, ..., <component k>]``: ``reward`` is the env's reward
    (its rubric's aggregate with weights, gates and invalid penalty), each other function one
    component in [0, 1]. ``weights`` is ``[1, 0, ..., 0]`` for ``GRPOConfig(reward_weights=...)``:
    train on the env's reward, log every component. With ``train_on="components"`` the weights
    become ``[0, w_1, ..., w_k]`` (the rubric's normalised weights: the weighted sum equals
    the ``mean`` aggregate without gates).

    Each ``(task_id, completion)`` is played once in the env and cached (the ``k + 1``
    functions share it). TRL passes the dataset's ``task_id`` column to every function. ``reward`` also
    logs the stamp of the reward (``reward_version``) of each completion to TRL's completions table
    (``log_extra``).

    Attributes:
        reward_version: The stamp of the env's reward, read at the first episode played (None before).
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
        self.session = EpisodeSession(env_id, env_kwargs)
        self.names: tuple[str, ...] = tuple(unwrapped_text_env(self.session.open()).reward_component_names)
        self.train_on = train_on
        self.cache: OrderedDict[tuple[str, str], tuple[float, dict[str, float]]] = OrderedDict()
        self.cache_size = cache_size
        self.reward_version: str | None = None
        self.funcs: list[Callable[..., list[float]]] = [self._make("reward")] + [self._make(n) for n in self.names]

    @property
    def weights(self) -> list[float]:
        if self.train_on == "reward":
            return [1.0] + [0.0] * len(self.names)
        normalized = unwrapped_text_env(self.session.open()).rubric.normalized_weights
        return [0.0] + [float(normalized[n]) for n in self.names]

    def score(self, task_id: str, text: str) -> tuple[float, dict[str, float]]:
        """``(reward, components)`` of playing ``text`` as the one action of ``task_id``."""
        key = (str(task_id), text)
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        self.session.start(task_id)
        turn = self.session.play(text)
        if not turn.done:
            raise ConfigError(
                f"{self.env_id} did not end after one action; use environment_class() for multi-turn envs"
            )
        result = (turn.reward, {n: float(turn.info["reward_components"][n]) for n in self.names})
        self.reward_version = self.session.reward_version
        self.cache[key] = result
        if len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return result

    def _make(self, name: str) -> Callable[..., list[float]]:
        def reward_function(completions: Sequence[Any], task_id: Sequence[str], **kwargs: Any) -> list[float]:
            scores = [self.score(t, completion_text(c)) for c, t in zip(completions, task_id, strict=True)]
            if name == "reward" and kwargs.get("log_extra") is not None:
                kwargs["log_extra"]("reward_version", [self.reward_version] * len(scores))
            return [s[0] if name == "reward" else s[1][name] for s in scores]

        reward_function.__name__ = name
        reward_function.__doc__ = f"{self.env_id}: {'the reward' if name == 'reward' else f'component {name}'}."
        return reward_function

    def close(self) -> None:
        self.session.close()


EPISODE_OVER = "The episode is over: reply with your final message."
"""What a tool answers once the episode has ended."""

REPLY_TOOL = "reply_to_user"
"""The tool that plays a plain-text reply in envs whose conversations have several user turns."""


class RewardLabEnvironment:
    """Base of the classes :func:`environment_class` builds (TRL's ``environment_factory`` contract).

    One env (an :class:`~rewardlab.integrations.session.EpisodeSession`) per instance. Public methods
    other than ``reset`` are the model's tools; they are added
    by :func:`environment_class`: the env's own tools (:func:`tool_method`), or ``act`` for envs
    without tools, and :data:`REPLY_TOOL` for conversations of several user turns.
    """

    env_id: ClassVar[str] = ""
    env_kwargs: ClassVar[dict[str, Any]] = {}
    component_names: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self._session = EpisodeSession(self.env_id, self.env_kwargs)
        self._session.open()

    @property
    def reward_version(self) -> str | None:
        """The stamp of the reward of the current episode (None before the first reset)."""
        return self._session.reward_version

    def reset(self, **row: Any) -> str:
        """Start the row's task (``row["task_id"]``); the observation goes into the prompt."""
        self._session.start(row.get("task_id"))
        return self._session.observation

    def _step(self, action: str) -> str:
        """Play one action and return the observation (:data:`EPISODE_OVER` once the episode has ended)."""
        return EPISODE_OVER if self._session.done else self._session.play(action).observation

    def _finish(self, final_message: str) -> dict[str, Any] | None:
        """Play the model's final message (if the episode is still running) and return the final ``info``.

        An env that does not end on the message is given empty actions, at most 64; None if it still
        runs then.
        """
        return self._session.info if self._session.finish(final_message, limit=64) else None


_RESERVED = frozenset({"get_reward", *vars(RewardLabEnvironment)})
"""Attribute names a tool method cannot take: TRL's ``get_reward`` and the base class's own."""


def act(self, action: str) -> str:
    """Send one action to the environment and read what it answers.

    Args:
        action: The text of the action, in the format the task describes.

    Returns:
        The environment's observation after the action.
    """
    return self._step(action)


def reply_to_user(self, message: str) -> str:
    """Reply to the user without calling a tool: this ends your turn, and the user answers with their next request.

    Args:
        message: What you tell the user.

    Returns:
        The user's next request, or the end of the conversation.
    """
    return self._step(message)


def _probe(env_id: str, env_kwargs: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, list[Any]], bool]:
    """``(component names, {toolset_key: tools}, several user turns)`` of an env, read from its
    :class:`~rewardlab.core.EnvCard` (no episode is played): its tasks' tool sets in task order, and
    whether the user speaks again after a reply (``user_turns``).
    """
    env = gym.make(env_id, **env_kwargs)
    try:
        card = unwrapped_text_env(env).card()
    finally:
        env.close()
    tool_sets: dict[str, list[Any]] = {}
    for tools in card.tool_sets:
        tool_sets.setdefault(toolset_key(tools), list(tools))
    return card.component_names, tool_sets, card.user_turns


def _environment_type(
    env_id: str,
    env_kwargs: dict[str, Any],
    names: tuple[str, ...],
    tools: Sequence[Mapping[str, Any]],
    reply: bool,
    suffix: str = "",
) -> type[RewardLabEnvironment]:
    """The class: one attribute per tool, named as the tool unless that name is private or taken by
    :class:`RewardLabEnvironment` or TRL (``reset``, ``get_reward``): then ``tool_<name>``. TRL lists
    the attributes but calls and renders each tool by its ``__name__``, the tool's own name."""
    methods: dict[str, Callable[..., str]] = {}
    for method in map(tool_method, tools):
        attribute = method.__name__
        while attribute.startswith("_") or attribute in _RESERVED or attribute in methods:
            attribute = "tool_" + attribute.lstrip("_")
        methods[attribute] = method
    if not methods:
        methods["act"] = act
    elif reply:
        if any(method.__name__ == REPLY_TOOL for method in methods.values()):
            raise ConfigError(f"{env_id} has a tool named {REPLY_TOOL!r}; pass reply_tool=False")
        methods[REPLY_TOOL] = reply_to_user
    name = "".join(ch for ch in env_id.split("/")[-1].title() if ch.isalnum()) + "Environment" + suffix
    attributes = {"env_id": env_id, "env_kwargs": env_kwargs, "component_names": names, "__module__": __name__}
    return type(name, (RewardLabEnvironment,), {**attributes, **methods})


def environment_class(
    env_id: str, env_kwargs: dict[str, Any] | None = None, *, reply_tool: bool | None = None
) -> type[RewardLabEnvironment]:
    """A class for ``GRPOTrainer(environment_factory=...)`` that plays ``env_id`` (one env per instance).

    TRL reads the tools from the class (its public methods, once, at trainer start), not per
    instance after ``reset``, so every prompt shows the same tools. For an env with tools
    (``info["tools"]`` at reset) they are the union of its tasks' tools, one :func:`tool_method`
    each (a name offered with two schemas keeps the first task's); a tool the task does not offer
    gets the env's own error. :func:`environment_classes` gives each task only its own tools. An
    env without tools has one tool, ``act(action)``, that plays any text.

    ``reply_tool`` adds ``reply_to_user(message)`` to an env with tools: it plays a plain-text
    reply, which ends the assistant's turn and returns the user's next request. By default it is
    added when the env's reset ``info`` reports a ``turn`` (``RewardLab/BFCLMultiTurn-v1``): there
    a TRL completion's final message would otherwise be the only reply, and the later user turns
    would go unplayed.
    """
    kwargs = dict(env_kwargs or {})
    names, tool_sets, turns = _probe(env_id, kwargs)
    union: dict[str, Any] = {}
    for tools in tool_sets.values():
        for tool in tools:
            union.setdefault(tool.get("function", tool).get("name"), tool)
    return _environment_type(env_id, kwargs, names, list(union.values()), turns if reply_tool is None else reply_tool)


def environment_classes(
    env_id: str, env_kwargs: dict[str, Any] | None = None, *, reply_tool: bool | None = None
) -> dict[str, type[RewardLabEnvironment]]:
    """One :func:`environment_class` per tool set of the env's tasks, keyed by :func:`toolset_key`.

    For ``GRPOTrainer(environment_factory=<this dict>)`` (TRL's multi-environment mode) with the
    ``environment`` column of ``task_dataset(..., multi_turn=True)``: each prompt shows only its
    task's tools (``RewardLab/BFCLMultiTurn-v1``: at most 39 of its 128, in 32 sets;
    ``RewardLab/ToolCall-v3``: one set per world). An env without tools gives one class, with ``act``.
    """
    kwargs = dict(env_kwargs or {})
    names, tool_sets, turns = _probe(env_id, kwargs)
    reply = turns if reply_tool is None else reply_tool
    if not tool_sets:
        return {toolset_key([]): _environment_type(env_id, kwargs, names, [], reply)}
    return {
        key: _environment_type(env_id, kwargs, names, tools, reply, suffix="_" + key.replace("-", "_"))
        for key, tools in tool_sets.items()
    }


def _log_episodes(infos: Sequence[Mapping[str, Any] | None], log_metric: Callable[[str, float], None]) -> None:
    """Log a batch's episodes with TRL's ``log_metric``: ``infra_error``, the share of rollouts with an
    infrastructure fault, and each :func:`~rewardlab.core.info.episode_logs` key averaged over
    the scored rollouts that report it (a faulted or unfinished episode has nothing to score)."""
    faulted = [info is not None and is_infra_failure(info) for info in infos]
    log_metric("infra_error", sum(faulted) / max(len(infos), 1))
    logs = [episode_logs(info) for info, fault in zip(infos, faulted, strict=True) if info is not None and not fault]
    for key in dict.fromkeys(key for log in logs for key in log):
        values = [log[key] for log in logs if key in log]
        log_metric(key, sum(values) / len(values))


def environment_reward_funcs(
    environment: type[RewardLabEnvironment] | Mapping[str, type[RewardLabEnvironment]],
) -> list[Callable[..., list[float | None]]]:
    """``[reward, <component>...]`` reward functions for :func:`environment_class` rollouts.

    Each plays the completion's final message as the last action (once; the episode then stays
    finished) and reads the env's reward or one component. Use weights ``[1, 0, ..., 0]``.
    ``environment`` is a class or the dict of :func:`environment_classes`.

    A rollout that hit an infrastructure fault (``info["infra_error"]``) or whose episode never
    ended gets None from every function: TRL then gives it no advantage and leaves it out of the
    group baseline and the reward logs, instead of scoring it 0. ``reward`` also logs each batch's
    :func:`~rewardlab.core.info.episode_logs` keys (``reward/<component>``, ``score``,
    ``is_success``, ``metric/...``) and ``infra_error``, the share of rollouts with a fault
    (1.0 per faulted rollout, averaged), through the ``log_metric`` callback TRL passes to reward
    functions (TRL 1.16 does; without it nothing is logged beyond the functions' own columns), and each
    rollout's ``reward_version`` as a column of TRL's completions table, through ``log_extra``.
    """
    names = (environment if isinstance(environment, type) else next(iter(environment.values()))).component_names

    def make(name: str) -> Callable[..., list[float | None]]:
        def reward_function(
            completions: Sequence[Any], environments: Sequence[RewardLabEnvironment], **kwargs: Any
        ) -> list[float | None]:
            infos = [env._finish(completion_text(c)) for c, env in zip(completions, environments, strict=True)]
            if name == "reward" and kwargs.get("log_metric") is not None:
                _log_episodes(infos, kwargs["log_metric"])
            if name == "reward" and kwargs.get("log_extra") is not None:
                kwargs["log_extra"]("reward_version", [env.reward_version for env in environments])
            values: list[float | None] = []
            for env in environments:
                session = env._session  # finished above; scored_return is None for a fault or an unended episode
                if session.scored_return is None or name == "reward":
                    values.append(session.scored_return)
                else:
                    values.append(float(session.info["reward_components"][name]))
            return values

        reward_function.__name__ = name
        return reward_function

    return [make("reward")] + [make(n) for n in names]
