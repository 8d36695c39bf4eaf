"""The episode-session kernel: what every trainer adapter does with an env, once.

Each adapter (TRL, verifiers, SkyRL, verl, OpenRLHF, NeMo-Gym) is a translation of its trainer's
calls onto an :class:`EpisodeSession`, whose lifecycle is:

1. **Resolve** (construction): the env comes from ``env_factory`` (no arguments, returns a Gymnasium
   env, e.g. a remote one), else from ``gym.make(env_id, **env_kwargs)``, with ``max_turns`` as the
   env's turn budget unless ``env_kwargs`` sets one. Without either, :class:`~rewardlab.errors.ConfigError`
   at once. Nothing is made yet.
2. **Start** (:meth:`EpisodeSession.start`): make the env if none is open, reset it on a task (by
   ``task_id``, else drawn from ``split``; ``seed`` seeds the reset) and return the opening chat
   (:func:`rewardlab.core.chat.opening_messages`). A session plays any number of episodes in turn.
3. **Play** (:meth:`EpisodeSession.play`): one env step per agent turn. It returns a :class:`SessionTurn`:
   the observation, the step reward, whether the env ended the episode (and whether its turn budget
   did), the step's ``info`` and ``reply``, the observation as the next chat message (``[]`` once
   done). The session keeps the conversation (:class:`~rewardlab.core.chat.Conversation`), each
   turn's reward and the latest ``info``. :meth:`EpisodeSession.finish` plays a last action, then
   empty actions until the env ends the episode (an agent that stopped answering).
4. **Outcome**, once the env ended the episode: ``final`` (:class:`~rewardlab.core.info.FinalInfo`),
   ``logs`` (:func:`~rewardlab.core.info.episode_logs`), :meth:`EpisodeSession.rollout_logs` (the
   fixed keys every rollout of a batch logs), ``infra_error``, ``reward_version`` (the stamp of the reward
   that scored the episode, :mod:`rewardlab.core.provenance`: what each adapter puts in its trainer's
   per-rollout metadata) and ``scored_return``: the episode's return (the sum of its step rewards), or
   ``None`` when there is nothing to score, because the episode has not ended or an infrastructure fault
   ended it. A fault is flagged, never scored as 0.
5. **Close** (:meth:`EpisodeSession.close`): the env is closed exactly once however often ``close``
   is called, and also when the session is garbage-collected or leaves a ``with`` block; a later
   ``start`` makes a new env.

Example:
    >>> from rewardlab.envs.echo import EchoEnv
    >>> with EpisodeSession(env_factory=EchoEnv) as session:
    ...     opening = session.start("t0")
    ...     turn = session.play("alpha")
    >>> [m["role"] for m in opening], turn.done, session.scored_return, session.logs["is_success"]
    (['system', 'user'], True, 1.0, 1.0)
    >>> session.reward_version == EchoEnv().reward_version
    True
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from rewardlab.core.chat import Conversation, Message
from rewardlab.core.info import FinalInfo, episode_logs, rollout_logs
from rewardlab.errors import ConfigError, ResetNeeded

__all__ = ["EpisodeSession", "SessionTurn", "task_prompts"]


@dataclass(frozen=True)
class SessionTurn:
    """What :meth:`EpisodeSession.play` returns for one agent turn."""

    observation: str
    reward: float
    done: bool
    """The env ended the episode (terminated or truncated)."""
    truncated: bool
    """The turn budget ended it."""
    info: dict[str, Any]
    reply: list[Message]
    """The observation as the next chat message (a user message); ``[]`` once done."""


class EpisodeSession:
    """One env and the episode playing on it (the lifecycle is in the module docstring).

    Args:
        env_id: The registered env id; ignored when ``env_factory`` is given.
        env_kwargs: Keyword arguments for ``gym.make``.
        env_factory: Makes the env instead of ``gym.make``.
        max_turns: The env's turn budget when ``env_kwargs`` sets none (the trainer's own turn limit,
            so that the env scores the outcome when it cuts the episode).
        missing_env_id: How to set the env id, for the error raised when there is none.

    Attributes:
        env_id: ``env_id``.
        env: The open env, or None.
        conversation: The current episode as chat messages.
        info: The latest ``info`` (the reset's, then each step's).
        observation: The latest observation.
        task_id: The current episode's task id.
        rewards: The env's reward for each turn of the current episode.
        done: The env ended the current episode.
    """

    def __init__(
        self,
        env_id: str | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        *,
        env_factory: Callable[[], gym.Env] | None = None,
        max_turns: int | None = None,
        missing_env_id: str = "pass env_id or env_factory",
    ):
        if env_factory is None:
            if not env_id:
                raise ConfigError(f"no env id to play: {missing_env_id}")
            kwargs = dict(env_kwargs or {})
            if max_turns is not None:
                kwargs.setdefault("max_turns", int(max_turns))
            env_factory = functools.partial(gym.make, env_id, **kwargs)
        self.env_id = env_id
        self.env_factory = env_factory
        self.env: gym.Env | None = None
        self._closer: weakref.finalize | None = None
        self._names: tuple[str, ...] = ()
        self.conversation = Conversation()
        self.info: dict[str, Any] = {}
        self.observation = ""
        self.task_id: str | None = None
        self.rewards: list[float] = []
        self.done = False
        self._started = False

    def __enter__(self) -> EpisodeSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def open(self) -> gym.Env:
        """The env, made now if none is open."""
        if self.env is None:
            env = self.env_factory()
            self.env, self._closer = env, weakref.finalize(self, env.close)
            self._names = tuple(getattr(env.unwrapped, "reward_component_names", None) or ())
        return self.env

    def start(self, task_id: str | None = None, split: str | None = None, seed: int | None = None) -> list[Message]:
        """Reset on ``task_id`` (else a task drawn from ``split``); returns the opening chat (a copy)."""
        options = {key: str(value) for key, value in (("task_id", task_id), ("split", split)) if value is not None}
        self.observation, self.info = self.open().reset(seed=seed, options=options or None)
        self.conversation.start(self.observation, self.info)
        self.task_id = self.info.get("task_id")
        self.rewards, self.done, self._started = [], False, True
        return list(self.conversation.messages)

    def play(self, action: str) -> SessionTurn:
        """One env step with ``action``.

        Raises:
            ResetNeeded: no episode is running (before :meth:`start`, after the episode ended or the env closed).
        """
        if self.env is None or self.done or not self._started:
            raise ResetNeeded("no episode is running: call start() first, and again after an episode ends")
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.observation, self.info, self.done = observation, info, bool(terminated or truncated)
        self.rewards.append(float(reward))
        self._names = self._names or tuple(info.get("reward_components") or ())
        self.conversation.act(action)
        if not self.done:
            self.conversation.observe(observation)
        reply = [] if self.done else [dict(self.conversation.messages[-1])]
        return SessionTurn(observation, float(reward), self.done, bool(truncated), info, reply)

    def finish(self, action: str = "", *, limit: int = 64) -> bool:
        """Play ``action``, then empty actions, until the env ends the episode, at most ``limit`` steps in all;
        True when it ended."""
        for _ in range(limit):
            if self.done:
                break
            self.play(action)
            action = ""
        return self.done

    @property
    def messages(self) -> list[Message]:
        """The current episode's chat (:attr:`conversation`'s list)."""
        return self.conversation.messages

    @property
    def steps(self) -> int:
        return len(self.rewards)

    @property
    def episode_return(self) -> float:
        """The sum of the current episode's step rewards."""
        return sum(self.rewards)

    @property
    def component_names(self) -> tuple[str, ...]:
        """The env's reward components: its ``reward_component_names``, else an info's ``reward_components`` keys."""
        return self._names

    @property
    def final(self) -> FinalInfo | None:
        """The outcome, once the env ended the episode."""
        return FinalInfo.from_info(self.info) if self.done else None

    @property
    def infra_error(self) -> str | None:
        """Why an infrastructure fault ended the episode (drop the rollout), else None."""
        final = self.final
        return final.infra_error if final is not None else None

    @property
    def reward_version(self) -> str | None:
        """The stamp of the reward the episode is paid by: the final info's (:attr:`FinalInfo.reward_version
        <rewardlab.core.info.FinalInfo.reward_version>`) once the env ended the episode, else the latest info's;
        None before a start, or for an env that reports none."""
        final = self.final
        return final.reward_version if final is not None else FinalInfo.from_info(self.info).reward_version

    @property
    def scored_return(self) -> float | None:
        """:attr:`episode_return`, or None when there is nothing to score: the episode has not ended, or an
        infrastructure fault ended it."""
        return self.episode_return if self.done and self.infra_error is None else None

    @property
    def logs(self) -> dict[str, float]:
        """:func:`~rewardlab.core.info.episode_logs` of the final info; ``{}`` before the end."""
        return episode_logs(self.info) if self.done else {}

    def rollout_logs(self) -> dict[str, float]:
        """:func:`~rewardlab.core.info.rollout_logs` of the latest info: the same keys at every turn and for
        every episode of the env (0.0 where not yet known), with ``finished``."""
        return rollout_logs(self.info, self.done, self.component_names)

    def close(self) -> None:
        """Close the env (once: later calls do nothing until a new :meth:`start`)."""
        if self._closer is not None:
            self._closer()
        self.env, self._closer = None, None


def task_prompts(
    env_id: str, split: str = "train", *, env_kwargs: Mapping[str, Any] | None = None, limit: int | None = None
) -> Iterator[tuple[str, list[Message], dict[str, Any]]]:
    """``(task_id, opening chat, reset info)`` of each of the first ``limit`` tasks of ``split``: what a trainer's
    dataset rows are made of.

    Raises:
        ConfigError: when the env has no task in ``split``.
    """
    with EpisodeSession(env_id, env_kwargs) as session:
        base: Any = session.open().unwrapped
        ids = base.tasks.ids(split)[:limit]
        if not ids:
            raise ConfigError(f"{env_id} has no tasks in split {split!r}")
        for task_id in ids:
            yield task_id, session.start(task_id, split), session.info
