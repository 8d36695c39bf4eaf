"""The ToolCall oracle: replays the task's reference solution, then gives the reference answer.

It reads privileged task data (``solution`` and ``final_answer``) and exists to prove every
task solvable with full credit and to produce SFT demonstrations.
"""

from __future__ import annotations

import json
from typing import Any

from rewardlab.core.env import TextEnv


class ToolCallOracle:
    """Plays the reference solution turn by turn (a call, or a list for parallel calls), then the
    reference final answer. It counts its own turns, so it can take over an episode part-way
    (e.g. after a bad action); it starts again whenever the env is at the first step."""

    def __init__(self, env: TextEnv):
        self.env = env
        self.turn = 0

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.env.elapsed_steps == 0:
            self.turn = 0
        data = self.env.current_task.data
        self.turn += 1
        if self.turn > len(data["solution"]):
            return data["final_answer"]
        calls = data["solution"][self.turn - 1]
        return json.dumps(calls[0] if len(calls) == 1 else list(calls), ensure_ascii=False)

    def reset(self) -> None:
        self.turn = 0
