"""StairsEnv: a small multi-turn TextEnv with milestones and a progress potential, for wrapper tests.

The agent climbs to the task's ``target`` height with ``up`` / ``down`` and ends with ``submit``.

Components: ``reached`` (height == target), ``closeness`` (1 - |height - target| / target) and
``format`` (fraction of valid actions). Milestones ``height1`` .. ``height<target>`` are reached
the first time the height gets there; ``progress`` is height / target, so it can go down.
"""

from __future__ import annotations

import gymnasium as gym

from rewardlab.core import Criterion, Rubric, Task, TaskSet, TextEnv, Turn

TARGETS = [2, 3, 4, 2, 3, 5]


class StairsEnv(TextEnv):
    system_prompt = "Climb to the target height with 'up' and 'down', then 'submit'."
    default_max_turns = 8

    def __init__(self, **kwargs):
        tasks = TaskSet(
            [Task(f"s{i}", "train" if i < 4 else "test", f"climb to {t}", {"target": t}) for i, t in enumerate(TARGETS)]
        )
        rubric = Rubric(
            [
                Criterion("reached", lambda out: float(out["height"] == out["target"]), role="outcome"),
                Criterion(
                    "closeness", lambda out: 1 - abs(out["height"] - out["target"]) / out["target"], role="partial"
                ),
                Criterion("format", lambda out: 1 - out["invalid"] / max(1, out["turns"]), role="format"),
            ]
        )
        super().__init__(tasks=tasks, rubric=rubric, **kwargs)

    def _start(self, task):
        self.height, self.invalid, self.turns = 0, 0, 0
        return task.prompt, {}

    def _act(self, action):
        self.turns += 1
        command = action.strip().lower()
        target = self.task.data["target"]
        if command == "submit":
            return Turn(observation="submitted", done=True, outcome=self._outcome()[0], progress=self._potential())
        if command in ("up", "down"):
            self.height = max(0, self.height + (1 if command == "up" else -1))
            reached = [f"height{h}" for h in range(1, min(self.height, target) + 1)]
            return Turn(observation=f"height {self.height}", milestones=reached, progress=self._potential())
        self.invalid += 1
        return Turn(
            observation=f"unknown action {command[:20]!r}", action_error="unknown action", progress=self._potential()
        )

    def _potential(self):
        return self.height / self.task.data["target"]

    def _outcome(self):
        return {
            "height": self.height,
            "target": self.task.data["target"],
            "turns": self.turns,
            "invalid": self.invalid,
        }, True

    def milestone_names(self):
        return tuple(f"height{h}" for h in range(1, self.task.data["target"] + 1))

    def sample_action(self, rng):
        return str(rng.choice(["up", "up", "down", "submit", "jump"]))

    def make_oracle(self):
        env = self

        class Oracle:
            def act(self, observation, info):
                return "up" if env.height < env.task.data["target"] else "submit"

        return Oracle()


STAIRS_ID = "Test/Stairs-v0"


def register_stairs() -> str:
    if STAIRS_ID not in gym.registry:
        gym.register(STAIRS_ID, entry_point="tests.wrappers.stairs:StairsEnv")
    return STAIRS_ID
