"""Rollouts on Ray actors: one env per actor, the policy in the trainer or behind an OpenAI-compatible server.

Two ways to use a Ray cluster (``ray.init()`` first; ``pip install 'rewardlab[dist]'``):

1. **Policy in the trainer.** :func:`make_remote_envs` returns env proxies, each backed by its
   own actor holding one env (behind :class:`~rewardlab.wrappers.ChatHistory`). They drop into
   :func:`rewardlab.baselines.rollout.collect_episodes` (and ``GRPOConfig(ray_rollouts=True)`` or
   ``PPOConfig(ray_rollouts=True)``):
   the trainer batches generation on its device, then every actor steps its env at the same
   time (:func:`rewardlab.baselines.rollout.call_all` submits all calls before awaiting any).
   Envs whose step is slow (a browser, a sandboxed test run) then cost one step's time per turn,
   not the sum.
2. **Policy behind a server.** :func:`run_episodes_on_actors` plays whole episodes on the actors,
   each with an :class:`~rewardlab.agents.OpenAIAgent` pointed at a vLLM/SGLang/Ollama server,
   and returns :class:`~rewardlab.evaluation.EpisodeResult` objects. Nothing model-related runs in
   the driver.

Env ids the driver registered itself (``gym.register`` of a string entry point) are registered
again inside each actor, so custom envs work as long as their module is importable there
(``ray.init(runtime_env={"env_vars": {"PYTHONPATH": ...}})`` or an installed package).

Example::

    import ray
    from rewardlab.baselines.ray_envs import make_remote_envs
    ray.init(num_cpus=2, include_dashboard=False)
    envs = make_remote_envs("RewardLab/BFCL-v1", 8)
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym

from rewardlab.errors import ConfigError, InfrastructureError, require

__all__ = ["EnvActor", "RayEnvProxy", "make_remote_envs", "run_episodes_on_actors"]


class EnvActor:
    """Holds one env inside a Ray actor (the class is turned into an actor by :func:`_actor_class`)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any] | None = None, spec_json: str | None = None):
        import rewardlab  # noqa: F401  (registers the env ids in the actor's process)
        from rewardlab.wrappers.chat import ChatHistory

        if env_id not in gym.registry and spec_json is not None:  # an id the driver registered itself
            gym.registry[env_id] = gym.envs.registration.EnvSpec.from_json(spec_json)
        self.env = ChatHistory(gym.make(env_id, **(env_kwargs or {})))

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        return self.env.reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        return self.env.step(action)

    def run_episode(
        self, base_url: str, model: str, task_id: str, seed: int | None, agent_kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """Play one episode with an OpenAIAgent; returns the EpisodeResult as a dict."""
        from rewardlab.agents.openai_agent import OpenAIAgent
        from rewardlab.evaluation import run_episode

        agent = OpenAIAgent(base_url, model, **agent_kwargs)
        return dataclasses.asdict(run_episode(self.env, agent, seed=seed, task_id=task_id))

    def close(self) -> None:
        self.env.close()


def _spec_json(env_id: str) -> str | None:
    """The driver's registration of ``env_id`` (string entry points only), for actors to repeat."""
    spec = gym.spec(env_id)
    return spec.to_json() if isinstance(spec.entry_point, str) else None


def _actor_class(options: dict[str, Any] | None) -> Any:
    ray = require("ray", "dist")
    if not ray.is_initialized():
        raise ConfigError("Ray is not initialised: call ray.init() (or ray.init(address=...)) first")
    return ray.remote(**(options or {"num_cpus": 0}))(EnvActor)


class RayEnvProxy:
    """A gymnasium-style proxy of an env living in an :class:`EnvActor`.

    ``reset``/``step`` block; ``reset_async``/``step_async`` return a Ray object ref that
    :meth:`wait` resolves. ``unwrapped`` is a local instance of the same env, used only for its
    metadata (``tasks``, ``rubric``, ``reward_component_names``); it never plays.

    When the actor dies (its node is lost, it is OOM-killed or killed), a step in flight ends the
    episode as an infrastructure failure: ``terminated``, reward 0.0 and ``info["infra_error"]``,
    which trainers drop instead of scoring. With ``respawn`` (what :func:`make_remote_envs` passes)
    the next ``reset`` runs on a new actor; a reset whose actor died is retried once on a new one.
    """

    def __init__(
        self,
        actor: Any,
        env_id: str,
        env_kwargs: dict[str, Any] | None = None,
        respawn: Callable[[], Any] | None = None,
    ):
        self.actor = actor
        self._respawn = respawn
        self._local = gym.make(env_id, **(env_kwargs or {}))
        self.unwrapped = self._local.unwrapped
        self._pending: dict[Any, tuple[str, dict[str, Any]]] = {}

    def reset_async(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        handle = self.actor.reset.remote(seed=seed, options=options)
        self._pending[handle] = ("reset", {"seed": seed, "options": options})
        return handle

    def step_async(self, action: str) -> Any:
        handle = self.actor.step.remote(action)
        self._pending[handle] = ("step", {})
        return handle

    def wait(self, handle: Any) -> Any:
        ray = require("ray", "dist")
        kind, arguments = self._pending.pop(handle, ("call", {}))
        try:
            return ray.get(handle)
        except ray.exceptions.RayActorError as exc:
            reason = f"the Ray actor holding the env died ({type(exc).__name__}: {str(exc).splitlines()[0]})"
            if self._respawn is None:
                raise InfrastructureError(reason) from exc
            self.actor = self._respawn()
            if kind == "reset":  # nothing was played yet: the same reset on a new actor
                return ray.get(self.actor.reset.remote(**arguments))
            if kind == "step":  # the episode is lost with its actor; the next reset runs on the new one
                return "", 0.0, True, False, {"infra_error": reason, "is_success": False}
            raise InfrastructureError(reason) from exc

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        return self.wait(self.reset_async(seed=seed, options=options))

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return self.wait(self.step_async(action))

    def close(self) -> None:
        ray = require("ray", "dist")
        try:
            with contextlib.suppress(ray.exceptions.RayActorError):  # a dead actor has nothing left to close
                ray.get(self.actor.close.remote())
        finally:
            ray.kill(self.actor)
            self._local.close()


def make_remote_envs(
    env_id: str,
    count: int,
    env_kwargs: dict[str, Any] | None = None,
    *,
    actor_options: dict[str, Any] | None = None,
) -> list[RayEnvProxy]:
    """``count`` actors, one env each, each behind a :class:`RayEnvProxy` (``actor_options`` go to ``ray.remote``;
    default ``{"num_cpus": 0}`` so that many light envs fit on a small node)."""
    if not isinstance(count, int) or count < 1:
        raise ConfigError(f"count must be a positive int, got {count!r}")
    actor = _actor_class(actor_options)
    spec = _spec_json(env_id)

    def respawn() -> Any:
        return actor.remote(env_id, env_kwargs, spec)

    return [RayEnvProxy(respawn(), env_id, env_kwargs, respawn) for _ in range(count)]


def run_episodes_on_actors(
    env_id: str,
    task_ids: Sequence[str],
    *,
    base_url: str,
    model: str,
    num_actors: int = 4,
    env_kwargs: dict[str, Any] | None = None,
    agent_kwargs: dict[str, Any] | None = None,
    seed: int = 0,
    actor_options: dict[str, Any] | None = None,
) -> list[Any]:
    """Play ``task_ids`` (episode ``i`` with seed ``seed + i``) on ``num_actors`` actors, each with an
    OpenAIAgent on ``base_url``; returns :class:`~rewardlab.evaluation.EpisodeResult` in task order."""
    ray = require("ray", "dist")
    from rewardlab.evaluation import EpisodeResult

    actor = _actor_class(actor_options)
    spec = _spec_json(env_id)
    actors = [actor.remote(env_id, env_kwargs, spec) for _ in range(max(1, min(num_actors, len(task_ids))))]
    try:
        refs: list[Any] = [None] * len(task_ids)
        busy: dict[Any, tuple[int, Any]] = {}
        free = list(actors)
        next_task = 0
        while next_task < len(task_ids) or busy:
            while free and next_task < len(task_ids):
                a = free.pop()
                ref = a.run_episode.remote(base_url, model, task_ids[next_task], seed + next_task, agent_kwargs or {})
                busy[ref] = (next_task, a)
                next_task += 1
            done, _ = ray.wait(list(busy), num_returns=1)
            index, a = busy.pop(done[0])
            refs[index] = ray.get(done[0])
            free.append(a)
        return [EpisodeResult(**r) for r in refs]
    finally:
        for a in actors:
            ray.kill(a)
