"""The Echo oracle: answers every task with its target, in one step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rewardlab.envs.echo.env import EchoEnv


class EchoOracle:
    """Answers with the env's privileged ``target``, the current task's word."""

    def __init__(self, env: EchoEnv):
        self.env = env

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self.env.target

    def reset(self) -> None:
        """Stateless."""
