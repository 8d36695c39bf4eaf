"""RewardLab envs as a verifiers (v1 API, ``verifiers>=0.4``) taskset and env, for ``vf-eval``, prime-rl and
every other verifiers consumer. verifiers 0.4 pins ``mcp`` and ``openai`` versions that break
``openenv-core``, so it lives in its own environment: ``bash scripts/setup-numpy2.sh`` (``.venv-np2``).

- :class:`RewardLabTaskset`: one task per task id of a split of a RewardLab env (``env_id``, ``split``,
  ``num_tasks``, ``env_kwargs``). A task has no prompt: the env's reset observation opens the exchange.
- :class:`RewardLabEnv`: plays each task turn by turn through verifiers' own loop, the env answering as
  the run's user (``agent.interaction(task)``, as verifiers' TextArena and OpenEnv tasksets do). The
  reset observation is the first user turn; each model reply (the text of its last assistant message)
  is one ``env.step``; the next observation is the next user turn, until the episode ends. The system
  prompt is the env's (``info["system_prompt"]``, unless the taskset's ``system_prompt`` file
  overrides it) and, where the env has tools, their OpenAI schemas as JSON after it: actions are text
  in the env's own format (a tool call is a JSON reply), so verifiers runs no tools. The seat
  ``agent`` plays verifiers' tool-less chat harness ``null`` on the local ``subprocess`` runtime by
  default (``--env.agent.harness.id`` / ``--env.agent.runtime.type`` change them).
- Rewards, one ``@vf.reward`` function per reward component ``c_i``, weighted as the env weights it (the
  rubric's normalised weight ``w_i``, ``info["reward_weights"]``), plus ``rubric_adjustment`` (weight 1)::

      rubric_adjustment = R - Σ_i w_i · c_i        R: the env's episode reward (the sum of its step rewards)

  so that verifiers' reward ``Σ weight · score`` is the env's reward ``R`` (up to rounding) with its
  gates, invalid penalty and aggregate, while every component is logged under its own name.
  ``rubric_adjustment`` is 0 for the ``mean`` aggregate without a failed gate or unusable output.
- Metrics (``@vf.metric``): :func:`~rewardlab.core.info.episode_logs` of the final ``info``
  (``reward/<component>``, ``weight/<component>``, ``metric/<name>``, ``score``, ``is_success``,
  ``progress``: the keys every RewardLab adapter logs), ``env_reward`` (``R``), ``env_steps``,
  ``infra_error`` (0 or 1) and ``closed_by_adapter`` (1 when verifiers ended the exchange first, see below).
- Reward provenance: each rollout's ``trace.info["rewardlab"]`` (verifiers' per-rollout metadata, kept in its
  traces) holds ``reward_version``, the stamp of the reward that scored the episode
  (:mod:`rewardlab.core.provenance`), and each task's data the stamp of the env the taskset loaded from.
- Infrastructure faults (``info["infra_error"]``: a sandbox or browser failure, not the agent's doing)
  are never scored: the rollout fails with :class:`InfraError` (a ``vf.EnvError``; stop condition
  ``infra_error``), its trace records metric ``infra_error = 1`` and no rewards, and the episode is not
  ``ok``, so trainers drop it; ``--env.retries.rules '[{"type": "InfraError", "max_retries": 2}]'``
  retries it.
- An exchange that verifiers ends before the episode (the agent's ``max_turns``, token limits or
  timeout, without an error) is closed by playing empty replies until the episode ends (at most
  :data:`CLOSING_STEPS`), as an agent that stopped answering would: ``closed_by_adapter = 1``. A rollout
  whose harness or model call failed is left unscored (verifiers records its error).

verifiers 0.4 resolves a taskset id to a top-level module, so the taskset id is :data:`TASKSET_ID`
(``rewardlab_verifiers``, a package that re-exports this module)::

    from rewardlab.integrations.verifiers import load_environment
    env = load_environment("RewardLab/ToolCall-v3", split="test", num_tasks=8)   # a vf.Env

``examples/verifiers_eval.py`` runs verifiers' eval loop against an OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import gymnasium as gym
import verifiers.v1 as vf
from pydantic import Field, SerializeAsAny

from rewardlab.core.info import episode_logs, is_infra_failure
from rewardlab.errors import ConfigError
from rewardlab.integrations.session import EpisodeSession

__all__ = [
    "ADJUSTMENT",
    "CLOSING_STEPS",
    "DEFAULT_ENV_ID",
    "TASKSET_ID",
    "InfraError",
    "RewardLabConfig",
    "RewardLabData",
    "RewardLabEnv",
    "RewardLabEnvConfig",
    "RewardLabState",
    "RewardLabTask",
    "RewardLabTaskset",
    "env_config",
    "load_environment",
]

TASKSET_ID = "rewardlab_verifiers"
"""The verifiers taskset id of :class:`RewardLabTaskset` (``--env.taskset.id``)."""
DEFAULT_ENV_ID = "RewardLab/ToolCall-v3"
ADJUSTMENT = "rubric_adjustment"
"""The reward that makes the components' weighted sum the env's reward (module docstring)."""
CLOSING_STEPS = 64
"""Most empty replies played to end an episode whose exchange verifiers ended first."""
TOOLS_HEADER = "Tools (OpenAI function schemas):"


class InfraError(vf.EnvError):
    """An infrastructure fault (``info["infra_error"]``) ended the episode: the rollout is dropped, not scored."""


class RewardLabConfig(vf.TasksetConfig):
    """Which RewardLab tasks load (``--env.taskset.*``)."""

    id: str = TASKSET_ID
    env_id: str = DEFAULT_ENV_ID
    """The registered RewardLab env id (``rewardlab list``)."""
    split: str = "train"
    num_tasks: int | None = Field(None, ge=1)
    """The first ``num_tasks`` task ids of the split (all when None)."""
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for ``gym.make(env_id, ...)`` (the env's own and the common ones, e.g. ``reward_weights``)."""
    tools_in_system_prompt: bool = True
    """Append the env's tools (``info["tools"]``, OpenAI schemas as JSON) to the system prompt."""


class RewardLabData(vf.TaskData):
    """A RewardLab task: the env, split and task id, and the rubric's normalised weights and the env's
    ``reward_version`` when the taskset loaded."""

    env_id: str
    split: str
    task_id: str
    reward_weights: dict[str, float]
    reward_version: str | None = None


class RewardLabState(vf.State):
    """The played episode, read by the task's rewards and metrics (not serialised)."""

    info: dict[str, Any] | None = None
    """The final step's ``info``; None until the episode ended."""
    reward: float = 0.0
    """The env's episode reward: the sum of its step rewards."""
    steps: int = 0
    """``env.step`` calls, the closing ones included."""
    closed_by_adapter: bool = False


def _final_info(trace: vf.Trace) -> dict[str, Any]:
    info = trace.state.info
    if info is None:
        raise RuntimeError(f"the RewardLab episode of {trace.task.data.task_id} did not end: nothing to score")
    return info


def _component_reward(name: str, weight: float) -> Callable[..., Any]:
    """The ``@vf.reward(weight=weight)`` function of component ``name`` (its value in the final ``info``)."""

    async def component(trace: vf.Trace) -> float:
        return float(_final_info(trace)["reward_components"][name])

    component.__name__ = component.__qualname__ = name
    return vf.reward(component, weight=weight)


def _adjustment_reward(weights: Mapping[str, float]) -> Callable[..., Any]:
    """The ``@vf.reward`` function ``rubric_adjustment = R - Σ_i w_i · c_i`` (weight 1)."""

    async def rubric_adjustment(trace: vf.Trace) -> float:
        components = _final_info(trace)["reward_components"]
        return trace.state.reward - sum(w * float(components[n]) for n, w in weights.items())

    return vf.reward(rubric_adjustment)


class RewardLabTask(vf.Task[RewardLabData, RewardLabState]):
    """Scores a played episode: one reward per component, ``rubric_adjustment`` and the episode's logs as metrics."""

    @property
    def key(self) -> str:
        """The durable identity ``<env_id>:<split>:<task_id>`` (the played system prompt does not change it)."""
        return f"{self.data.env_id}:{self.data.split}:{self.data.task_id}"

    def hooks(self, attr: str) -> list[Callable[..., Any]]:
        """verifiers' hooks; for ``"reward"``, one function per component and ``rubric_adjustment`` first."""
        hooks = super().hooks(attr)
        if attr != "reward":
            return hooks
        weights = self.data.reward_weights
        return [*(_component_reward(n, w) for n, w in weights.items()), _adjustment_reward(weights), *hooks]

    @vf.metric
    async def rewardlab(self, trace: vf.Trace) -> dict[str, float]:
        """The episode's logs (:func:`~rewardlab.core.info.episode_logs`) and the adapter's own metrics."""
        state = trace.state
        if state.info is None:
            return {}
        return {
            **episode_logs(state.info),
            "env_reward": state.reward,
            "env_steps": float(state.steps),
            "infra_error": float(is_infra_failure(state.info)),
            "closed_by_adapter": float(state.closed_by_adapter),
        }


class RewardLabTaskset(vf.Taskset[RewardLabTask, RewardLabConfig]):
    """The task ids of ``config.split`` of ``config.env_id``, in the env's order (the first ``num_tasks``)."""

    def load(self) -> Iterator[RewardLabTask]:
        config = self.config
        env = gym.make(config.env_id, **config.env_kwargs)
        try:
            unwrapped: Any = env.unwrapped
            weights = {name: float(w) for name, w in unwrapped.rubric.normalized_weights.items()}
            reward_version = str(env.get_wrapper_attr("reward_version"))
            ids = list(unwrapped.tasks.ids(config.split))
        finally:
            env.close()
        if ADJUSTMENT in weights:
            raise ConfigError(f"{config.env_id} has a component named {ADJUSTMENT!r}, the adapter's own reward")
        if not ids:
            raise ConfigError(f"{config.env_id} has no tasks in split {config.split!r}")
        for task_id in ids[: config.num_tasks]:
            data = RewardLabData(
                id=task_id,
                name=f"{config.env_id}:{task_id}",
                env_id=config.env_id,
                split=config.split,
                task_id=task_id,
                reward_weights=weights,
                reward_version=reward_version,
            )
            yield RewardLabTask(data, config.task)


class RewardLabEnvConfig(vf.EnvConfig):
    """:class:`RewardLabEnv`'s config: the taskset and the one seat, ``agent`` (``--env.agent.*``)."""

    taskset: SerializeAsAny[vf.TasksetConfig] = RewardLabConfig()
    agent: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime=vf.SubprocessConfig())
    """The policy: verifiers' tool-less chat harness on the local subprocess runtime by default."""


def _reply(segment: vf.Segment) -> str:
    """The segment's reply as the action: the content of its last assistant message, unstripped."""
    for message in reversed(segment.messages):
        if isinstance(message, vf.AssistantMessage):
            return message.content or ""
    return ""


class RewardLabEnv(vf.Env[RewardLabEnvConfig]):
    """Plays a RewardLab episode per task through ``agents.agent.interaction`` (the module docstring).

    Each episode runs on an :class:`~rewardlab.integrations.session.EpisodeSession`; sessions (and their
    envs) are made on first use and reused by later episodes (one episode per session at a time);
    :meth:`stop` closes them. ``reset`` and ``step`` run in worker threads, so a slow env (a sandbox, a
    browser) does not block other rollouts.
    """

    def __init__(self, config: RewardLabEnvConfig) -> None:
        super().__init__(config)
        self._idle: list[EpisodeSession] = []

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        config = self.taskset.config
        session = self._idle.pop() if self._idle else EpisodeSession(config.env_id, config.env_kwargs)
        try:
            await self._play(session, task, agents.agent, config)
        finally:
            self._idle.append(session)

    async def stop(self) -> None:
        idle, self._idle = self._idle, []
        for session in idle:
            session.close()

    async def _play(self, session: EpisodeSession, task: vf.Task, agent: vf.Agent, config: RewardLabConfig) -> None:
        data = task.data
        await asyncio.to_thread(session.start, data.task_id, data.split)
        prompt = _system_prompt(data.system_prompt, session.info, config.tools_in_system_prompt)
        async with agent.interaction(task.with_data(system_prompt=prompt)) as interaction:
            trace = interaction.trace
            state = trace.state

            async def play(action: str, limit: int = 1) -> None:
                await asyncio.to_thread(session.finish, action, limit=limit)
                state.reward, state.steps = session.episode_return, session.steps

            segment = await interaction.turn(session.observation)
            while not segment.terminated:
                await play(_reply(segment))
                if session.done:
                    break
                segment = await interaction.turn(session.observation)
            if not session.done and not trace.errors:
                state.closed_by_adapter = True
                await play("", CLOSING_STEPS)
            trace.info["rewardlab"] = {
                "env_id": data.env_id,
                "task_id": data.task_id,
                "env_steps": state.steps,
                "closed_by_adapter": state.closed_by_adapter,
                "infra_error": session.infra_error,
                "reward_version": session.reward_version,
            }
            if not session.done:
                return
            state.info = session.info
            if session.infra_error:
                trace.record_metric("infra_error", 1.0)
                raise InfraError(f"{data.env_id} task {data.task_id}: infra_error: {session.infra_error}")


def _system_prompt(override: str | None, info: Mapping[str, Any], with_tools: bool) -> str | None:
    """The taskset's override, else the env's system prompt; then the env's tools when ``with_tools``."""
    prompt = override if override is not None else (info.get("system_prompt") or "")
    tools = info.get("tools") if with_tools else None
    parts = (prompt, f"{TOOLS_HEADER}\n{json.dumps(tools)}" if tools else "")
    return "\n\n".join(part for part in parts if part) or None


def env_config(
    env_id: str = DEFAULT_ENV_ID, split: str = "train", num_tasks: int | None = None, **env_kwargs: Any
) -> RewardLabEnvConfig:
    """The verifiers env config (``EvalConfig(env=...)``) of ``env_id``'s tasks of ``split``."""
    taskset = RewardLabConfig(env_id=env_id, split=split, num_tasks=num_tasks, env_kwargs=env_kwargs)
    return RewardLabEnvConfig(taskset=taskset)


def load_environment(
    env_id: str = DEFAULT_ENV_ID, split: str = "train", num_tasks: int | None = None, **env_kwargs: Any
) -> RewardLabEnv:
    """The verifiers env of ``env_id``'s tasks of ``split`` (the first ``num_tasks``); ``env_kwargs`` go to
    ``gym.make``."""
    return RewardLabEnv(env_config(env_id, split, num_tasks, **env_kwargs))
