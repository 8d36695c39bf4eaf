"""The ToolCall oracle: replays the task's reference solution, then gives the reference answer.

It reads privileged task data (``solution`` and ``final_answer``) and exists to prove every
task solvable with full credit and to produce SFT demonstrations. It is stateless: the turn it
plays is the env's step count, so it needs no reset.
"""

from __future__ import annotations

import json
from typing import Any


class ToolCallOracle:
    """Plays turn ``env.elapsed_steps`` of the reference solution (a call, or a list for parallel
    calls), and the reference final answer after the last turn."""

    def __init__(self, env: Any):
        self.env = env

    def act(self, observation: str, info: dict[str, Any]) -> str:
        data = self.env.task.data
        turn = self.env.elapsed_steps
        if turn >= len(data["solution"]):
            return data["final_answer"]
        calls = data["solution"][turn]
        return json.dumps(calls[0] if len(calls) == 1 else list(calls), ensure_ascii=False)

    def reset(self) -> None:
        """Nothing to reset: the oracle reads the turn from the env."""
