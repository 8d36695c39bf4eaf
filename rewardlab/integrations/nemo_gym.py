"""RewardLab envs as a NeMo-Gym Gymnasium resources server (NeMo-Gym 0.7, ``resources_servers.gymnasium``;
``pip install nemo-gym``, Python >= 3.13).

NeMo-Gym's ``gymnasium_agent`` plays one episode per dataset row on a server session: ``POST /reset``
with the row, then, after each model response, ``POST /step`` with the row and the response, until
``terminated`` or ``truncated``. It sends the model the row's ``responses_create_params.input``
followed by the reset observation and each later observation as user messages. The server, a
``GymnasiumServer``, receives the row's other fields as ``metadata`` and closes the session after a
terminal step. :class:`RewardLabServer` plays one :class:`~rewardlab.integrations.session.EpisodeSession`
per NeMo-Gym session:

- ``reset`` starts the row's task (``task_id``, ``split``) and returns the env's first observation, with
  ``task_id`` and ``reward_version`` (the stamp of the reward, :mod:`rewardlab.core.provenance`) as its
  ``info``; the env's system prompt is in the row's input (:func:`nemo_gym_rows` writes the rows).
- ``step`` plays the text of the response's messages (NeMo-Gym's ``extract_text``) and returns the
  env's step reward, so the rewards add up to the env's return; the last step's ``info`` is the
  episode's :func:`~rewardlab.core.info.episode_logs`, ``task_id`` and ``reward_version`` (the stamp of the
  reward that scored it).
- An infrastructure fault ends the session and fails the step with
  :class:`~rewardlab.errors.InfrastructureError` (HTTP 500): the agent's run fails and the rollout is
  not collected, rather than scored 0 (a server has no other way to drop one).
- ``close_session`` closes the env, once. The config (``RewardLabServerConfig``) names the env to serve.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field

from rewardlab.errors import InfrastructureError, MissingDependencyError
from rewardlab.integrations.session import EpisodeSession, task_prompts

try:
    from nemo_gym.base_resources_server import BaseResourcesServerConfig
    from resources_servers.gymnasium import GymnasiumServer, extract_text
except ImportError as exc:
    raise MissingDependencyError("NeMo-Gym is not installed: pip install 'nemo-gym>=0.7' (Python >= 3.13)") from exc

__all__ = ["RewardLabServer", "RewardLabServerConfig", "nemo_gym_rows"]


class RewardLabServerConfig(BaseResourcesServerConfig):
    """NeMo-Gym's resources server config, plus the env to serve."""

    env_id: str
    env_kwargs: dict[str, Any] = Field(default_factory=dict)


class RewardLabServer(GymnasiumServer):
    """A RewardLab env behind NeMo-Gym's ``/reset`` and ``/step`` (see the module docstring)."""

    config: RewardLabServerConfig
    ray_enabled: ClassVar[bool] = False
    """NeMo-Gym starts Ray for a server unless it declares it needs none (and warns when it says nothing)."""

    async def reset(self, metadata: dict, session_id: str | None = None) -> tuple[str, dict]:
        await self.close_session(session_id)  # a reset on a live session starts over
        session = EpisodeSession(self.config.env_id, self.config.env_kwargs)
        self.session_state[session_id] = session
        await asyncio.to_thread(session.start, metadata.get("task_id"), metadata.get("split"))
        return session.observation, {"task_id": session.task_id, "reward_version": session.reward_version}

    async def step(
        self, action: Any, metadata: dict, session_id: str | None = None
    ) -> tuple[str, float, bool, bool, dict]:
        session: EpisodeSession = self.session_state[session_id]
        turn = await asyncio.to_thread(session.play, extract_text(action))
        if session.infra_error:
            await self.close_session(session_id)
            raise InfrastructureError(f"{self.config.env_id} task {session.task_id}: {session.infra_error}")
        info = (
            {"task_id": session.task_id, "reward_version": session.reward_version, **session.logs} if turn.done else {}
        )
        return turn.observation, turn.reward, turn.done and not turn.truncated, turn.truncated, info

    def _cleanup_session(self, session_id: str | None) -> None:
        session = self.session_state.get(session_id)
        if session is not None:
            session.close()
        super()._cleanup_session(session_id)


def nemo_gym_rows(
    env_id: str,
    split: str = "train",
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    agent_name: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """NeMo-Gym dataset rows, one per task of ``split``: ``responses_create_params`` (the env's system
    prompt, when it has one, as the input: the agent adds the reset observation), ``task_id``, ``split``,
    ``reward_version`` (the env's stamp when the rows were made) and, with ``agent_name``, ``agent_ref``."""
    return [
        {
            "responses_create_params": {"input": messages[:-1]},
            "task_id": task_id,
            "split": split,
            "reward_version": info.get("reward_version"),
            **({"agent_ref": {"type": "responses_api_agents", "name": agent_name}} if agent_name else {}),
        }
        for task_id, messages, info in task_prompts(env_id, split, env_kwargs=env_kwargs, limit=limit)
    ]
