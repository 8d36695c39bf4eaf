"""One client session of ``rewardlab serve``: one env, on one thread of its own.

Env calls run on the session's single worker thread, off the event loop, so a slow step (a test
run, a page load) stalls no other session, and an env that must stay on the thread that made it
(Playwright's sync API) always does. The one exception is speed: an env that declares
``cheap_calls`` (ToolCall, BFCL: microseconds of pure Python per step, while handing a call to a
thread and back costs ~100 µs) runs on the event loop itself, as long as its previous call of the same kind
(make, reset, step, close) took under :data:`INLINE_BUDGET_S` (a step before any: trusted to). A call that took
longer sends the following one of its kind to a small pool of threads the server's cheap sessions share
(:data:`CHEAP_CALL_WORKERS`, first come first served; the env is made there too), not to a thread of the
session's own: a thousand session threads all wanting the GIL at once would starve the event loop and serve the
sessions in no order (P99 step latency under overload, ``benchmarks/bench_scaling.py``). A call that took over
:data:`POOL_BUDGET_S` sends the following one of its kind to the session's own thread, so that one surprise slow
call never holds up the others' turns in the pool.

An env whose base class defines ``async def step_async(self, action)`` (returning what ``step`` returns, as
OpenEnv's ``Environment.step_async`` may) has its steps awaited on the event loop, with no thread: a step that
waits on I/O (a remote grader, a judge model's API) then holds no thread while it waits. That path is taken
only when nothing but Gymnasium's bookkeeping wrappers stand between the made env and its base
(:data:`STEP_ASYNC_TRANSPARENT`: the order check, which the session enforces itself, and the passive checker),
so no wrapper's step is ever skipped; any other wrapper (a time limit, a reward wrapper) keeps ``step``.

Errors are sorted by whose they are:

* the client's (an unknown env id or task id, a misspelt env argument, a step before reset):
  :class:`~rewardlab.serve.protocol.ProtocolError` with ``VALIDATION_ERROR``; the session goes on;
* the infrastructure's (any other exception from inside the env: a browser crash, a sandbox
  engine error): an observation with ``infra_error`` set, ``reward`` ``None`` and ``done`` true,
  and the session ends (:attr:`Session.ended`), so a trainer drops the rollout instead of
  learning from a false 0.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

from rewardlab.errors import ConfigError, ResetNeeded, UnknownTaskError, did_you_mean
from rewardlab.serve.protocol import ErrorCode, Message, ProtocolError, observation_frame

__all__ = ["Session"]

T = TypeVar("T")
LOG = logging.getLogger("rewardlab.serve")

INLINE_BUDGET_S = 0.001
"""A call runs on the event loop when the env's previous call took less than this (seconds)."""

CHEAP_CALL_WORKERS = 2
"""Threads of the pool that the sessions of ``cheap_calls`` envs share for their calls over the inline budget."""

POOL_BUDGET_S = 0.1
"""A ``cheap_calls`` env's call runs in the shared pool when its previous call took less than this (seconds), on
the session's own thread when it took longer."""

CLIENT_ERRORS: tuple[type[BaseException], ...] = (ConfigError, UnknownTaskError, TypeError, gym.error.Error)
"""Exceptions from ``gym.make`` or ``reset`` that mean the client asked for something that does not exist."""


STEP_ASYNC_TRANSPARENT: tuple[type[gym.Wrapper], ...] = (OrderEnforcing, PassiveEnvChecker)
"""Wrappers that ``gym.make`` adds for bookkeeping only; an env's ``step_async`` is awaited through them."""

StepResult = tuple[Any, Any, bool, bool, dict[str, Any]]


def async_step(env: gym.Env) -> Callable[[Any], Awaitable[StepResult]] | None:
    """The base env's ``step_async`` when the server may await it in place of ``env.step``: it is a coroutine
    function and every wrapper around the base is one of :data:`STEP_ASYNC_TRANSPARENT`; else None."""
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if type(layer) not in STEP_ASYNC_TRANSPARENT:
            return None
        layer = layer.env
    method = getattr(layer, "step_async", None)
    return method if inspect.iscoroutinefunction(method) else None


def describe(exc: BaseException) -> str:
    """``"ExceptionType: message"``, the message cut to 500 characters."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text[:500]}" if text else type(exc).__name__


def declares_cheap_calls(env_id: str) -> bool:
    """Whether the class registered as ``env_id`` declares ``cheap_calls`` (read from the registry, without
    making the env); False when the registry cannot tell (the make reports what is wrong)."""
    try:
        entry_point = gym.spec(env_id).entry_point
        creator = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    except (gym.error.Error, ImportError, AttributeError, ValueError):
        return False
    return getattr(creator, "cheap_calls", False) is True


class Session:
    """One env behind one WebSocket connection.

    Args:
        env_ids: The env ids this server serves; a reset may name one (``env_id``), or leave it
            out when there is exactly one.
        cheap_pool: The pool (of :data:`CHEAP_CALL_WORKERS` threads) the server's ``cheap_calls`` sessions share
            for calls over the inline budget; their own thread when None.
    """

    def __init__(self, env_ids: Sequence[str], cheap_pool: ThreadPoolExecutor | None = None):
        self.env_ids = tuple(env_ids)
        self.cheap_pool = cheap_pool
        self.id = uuid.uuid4().hex
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"rewardlab-session-{self.id[:8]}")
        self.env: gym.Env | None = None
        self.env_id: str | None = None
        self.env_kwargs: dict[str, Any] = {}
        self.episode_id: str | None = None
        self.task_id: str | None = None
        self.reward_version: str | None = None
        """The stamp of the reward of the current episode (its reset ``info``'s), None before the first reset."""
        self.step_count = 0
        self.in_episode = False
        self.ended = False
        self.inline = False
        """Whether env calls may run on the event loop (the env declares ``cheap_calls``)."""
        self.step_async: Callable[[Any], Awaitable[StepResult]] | None = None
        """The env's ``step_async``, awaited on the event loop in place of ``step`` (see :func:`async_step`)."""
        self.last_call_s: dict[str, float] = {"step": 0.0}
        """How long the env's previous call of each kind took; a kind not called yet is not fast enough to run
        inline, but a step: a reset that builds the episode's world does not say how cheap its steps are."""

    async def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the session's thread, or inline when fast enough (module docstring)."""
        kind = fn.__name__

        def timed() -> T:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.last_call_s[kind] = time.perf_counter() - start

        last = self.last_call_s.get(kind, INLINE_BUDGET_S)
        if self.inline and last < INLINE_BUDGET_S:
            return timed()
        shared = self.inline and self.cheap_pool is not None and last < POOL_BUDGET_S
        pool = self.cheap_pool if shared else self.executor
        return await asyncio.get_running_loop().run_in_executor(pool, timed)

    async def handle(self, message: Message) -> dict[str, Any]:
        """The reply frame to one ``reset``, ``step`` or ``state`` message."""
        if message.type == "reset":
            return await self.reset(message.data)
        if message.type == "step":
            return await self.step(message.data["action"])
        return self.state()

    def _chosen_env(self, data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        env_id = data.get("env_id")
        if env_id is None:
            if len(self.env_ids) != 1:
                raise ProtocolError(
                    ErrorCode.VALIDATION_ERROR, f"name the env: 'env_id' is one of {', '.join(self.env_ids)}"
                )
            env_id = self.env_ids[0]
        if env_id not in self.env_ids:
            raise ProtocolError(
                ErrorCode.VALIDATION_ERROR,
                f"this server does not serve {env_id!r}{did_you_mean(env_id, self.env_ids)}; "
                f"it serves {', '.join(self.env_ids)}",
            )
        return env_id, dict(data.get("env_kwargs") or {})

    async def _ensure_env(self, data: Mapping[str, Any]) -> None:
        if self.env is not None:
            changed_kwargs = data.get("env_kwargs") is not None and dict(data["env_kwargs"]) != self.env_kwargs
            if data.get("env_id") not in (None, self.env_id) or changed_kwargs:
                raise ProtocolError(
                    ErrorCode.VALIDATION_ERROR,
                    "env_id and env_kwargs are fixed at a session's first reset; open a new session to change them",
                )
            return
        env_id, env_kwargs = self._chosen_env(data)
        self.inline = declares_cheap_calls(env_id)  # made on the shared pool: such a session needs no thread
        try:
            self.env = await self._call(gym.make, env_id, **env_kwargs)
        except CLIENT_ERRORS as exc:
            raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"cannot make {env_id}: {describe(exc)}") from None
        except Exception as exc:  # noqa: BLE001 - the env could not be built: an infrastructure fault
            raise ProtocolError(ErrorCode.FACTORY_ERROR, f"cannot make {env_id}: {describe(exc)}") from None
        self.env_id, self.env_kwargs = env_id, env_kwargs
        self.inline = bool(getattr(self.env.unwrapped, "cheap_calls", False))
        self.step_async = async_step(self.env)

    async def reset(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Make the env on the first reset, then start an episode (``seed``, ``task_id``, ``split``)."""
        await self._ensure_env(data)
        assert self.env is not None
        options = {key: data[key] for key in ("task_id", "split") if data.get(key) is not None}
        try:
            observation, info = await self._call(self.env.reset, seed=data.get("seed"), options=options or None)
        except CLIENT_ERRORS as exc:
            raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"reset refused: {describe(exc)}") from None
        except Exception as exc:  # noqa: BLE001 - anything else from inside the env is an infrastructure fault
            return self._infra_failure(f"reset: {describe(exc)}")
        self.episode_id = data.get("episode_id") or uuid.uuid4().hex
        self.task_id = info.get("task_id")
        self.reward_version = info.get("reward_version")
        self.step_count = 0
        self.in_episode = True
        return observation_frame(observation, 0.0, False, False, info)

    async def step(self, action: str) -> dict[str, Any]:
        """Play ``action``; an episode that ended needs a reset first."""
        if self.env is None or not self.in_episode:
            raise ProtocolError(ErrorCode.VALIDATION_ERROR, "no episode is running: send a reset first")
        try:
            if self.step_async is not None:
                observation, reward, terminated, truncated, info = await self.step_async(action)
            else:
                observation, reward, terminated, truncated, info = await self._call(self.env.step, action)
        except ResetNeeded as exc:
            raise ProtocolError(ErrorCode.VALIDATION_ERROR, describe(exc)) from None
        except Exception as exc:  # noqa: BLE001 - an env never raises on agent text: this is a fault
            return self._infra_failure(f"step: {describe(exc)}")
        self.step_count += 1
        self.in_episode = not (terminated or truncated)
        return observation_frame(observation, float(reward), bool(terminated), bool(truncated), info)

    def state(self) -> dict[str, Any]:
        """The ``state`` reply: episode id, step count, env id, task id, whether an episode runs and the stamp
        of its reward (``reward_version``)."""
        return {
            "type": "state",
            "data": {
                "episode_id": self.episode_id,
                "step_count": self.step_count,
                "env_id": self.env_id,
                "task_id": self.task_id,
                "in_episode": self.in_episode,
                "reward_version": self.reward_version,
            },
        }

    def _infra_failure(self, reason: str) -> dict[str, Any]:
        self.ended = True
        self.in_episode = False
        info = {"task_id": self.task_id, "infra_error": reason, "usable": False, "is_success": False}
        return observation_frame(f"infra_error: {reason}", None, False, True, info)

    async def close(self) -> None:
        """Close the env (browsers, containers, temp dirs) on its thread, then let the thread go."""
        env, self.env = self.env, None
        try:
            if env is not None:
                await self._call(env.close)
        except Exception as exc:  # noqa: BLE001 - a failing close must not keep the session alive
            LOG.warning("session %s: closing %s failed: %s", self.id[:8], self.env_id, describe(exc))
        finally:
            self.executor.shutdown(wait=False)
