"""Shared test helpers: a tiny in-memory TextEnv for core tests."""

from __future__ import annotations

import pytest

from rewardlab.core import Criterion, Rubric, Task, TaskSet, TextEnv, Turn


class EchoEnv(TextEnv):
    """Two-turn toy env: the answer is the task's ``target``; the first step may be a 'draft'.

    Components: ``exact`` (answer == target) and ``length`` (1 - |len diff| / len(target)).
    Milestones: ``drafted`` on a draft, ``answered`` on the final answer.
    """

    system_prompt = "Repeat the target."

    def __init__(self, **kwargs):
        tasks = TaskSet(
            [
                Task(f"t{i}", "train" if i < 4 else "test", f"say {w}", {"target": w})
                for i, w in enumerate(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
            ]
        )
        rubric = Rubric(
            [
                Criterion("exact", lambda out: float(out["answer"] == out["target"])),
                Criterion(
                    "length",
                    lambda out: (
                        1 - abs(len(out["answer"]) - len(out["target"])) / len(out["target"]),
                        {"chars": min(1.0, len(out["answer"]) / 100)},
                    ),
                ),
            ]
        )
        super().__init__(tasks=tasks, rubric=rubric, **kwargs)

    def _start(self, task):
        self.answer = ""
        return task.prompt, {}

    def _act(self, action):
        if action.startswith("draft:"):
            self.answer = action[6:]
            return Turn(observation="noted", milestones=["drafted"])
        self.answer = action
        return Turn(observation="done", done=True, outcome=self._outcome()[0], milestones=["answered"])

    def _outcome(self):
        return {"answer": self.answer, "target": self.task.data["target"]}, True

    def milestone_names(self):
        return ("drafted", "answered")

    def make_oracle(self):
        env = self

        class Oracle:
            def act(self, observation, info):
                return env.task.data["target"]

        return Oracle()


@pytest.fixture
def echo_env():
    env = EchoEnv()
    yield env
    env.close()


def docker_or_skip() -> None:
    """Skip a Docker test with the reason when no engine answers, or fail it where Docker is required
    (``REWARDLAB_REQUIRE_DOCKER=1``, set by CI, which must run every Docker test)."""
    import os

    from rewardlab.sandbox import docker_engine_error

    problem = docker_engine_error()
    if problem is None:
        return
    if os.environ.get("REWARDLAB_REQUIRE_DOCKER") == "1":
        pytest.fail(f"REWARDLAB_REQUIRE_DOCKER=1 but the Docker backend cannot run: {problem}")
    pytest.skip(f"Docker backend not tested: {problem}")
