"""WebOracle: follows the task's stored plan, finding each element by role and name in the observation."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from rewardlab.browser.actions import quote_arg

if TYPE_CHECKING:  # the env imports this module: a runtime import would be circular
    from rewardlab.envs.web.env import WebEnv

_LINE = re.compile(r'^\[(\d+)\] (\S+) ("(?:[^"\\]|\\.)*")', re.MULTILINE)


def find_element(observation: str, role: str, name: str) -> int | None:
    """The id of the first listed element with this role and exact name, or ``None``."""
    for match in _LINE.finditer(observation):
        if match.group(2) == role and json.loads(match.group(3)) == name:
            return int(match.group(1))
    return None


class WebOracle:
    """Plays ``task.data["solution"]`` step by step; scrolls down when an element is not in view.

    It reads the privileged plan through the env (``env.task``) and sees only the observation
    otherwise, so it proves each task is solvable through the same interface an agent uses.
    """

    def __init__(self, env: WebEnv):
        self.env = env
        self.reset()

    def reset(self) -> None:
        self.position = 0
        self.task_id: str | None = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        task = self.env.current_task
        if task.id != self.task_id:
            self.task_id, self.position = task.id, 0
        plan = task.data["solution"]
        if self.position >= len(plan):
            return 'answer("")'
        step = plan[self.position]
        op = step["op"]
        if op == "answer":
            self.position += 1
            return f"answer({quote_arg(step['text'])})"
        if op == "goto":
            self.position += 1
            return f"goto({quote_arg(step['url'])})"
        element = find_element(observation, step["role"], step["name"])
        if element is None:
            if "scroll(down) for more" in observation:
                return "scroll(down)"
            self.position = len(plan)
            return 'answer("")'
        self.position += 1
        if op == "click":
            return f"click({element})"
        if op == "type":
            return f"type({element}, {quote_arg(step['text'])})"
        return f"select({element}, {quote_arg(step['option'])})"
