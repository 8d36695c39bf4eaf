"""The audit runner on toy envs: a hackable env is flagged, a sound one is not, crashes are flagged."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from rewardlab.audit import GENERIC, AuditProfile, audit_env, strategy
from rewardlab.cli import main
from rewardlab.core import Criterion, Rubric, Task, TaskSet, TextEnv, Turn
from rewardlab.errors import ConfigError

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa"]


@strategy("spray", "every word of the vocabulary")
def spray(view):
    yield " ".join(WORDS)


@strategy("boom", "an action the env cannot handle")
def boom(view):
    yield "boom"


class GuessEnv(TextEnv):
    """One-step env: answer the task's word. ``sound=False`` accepts any answer that contains it."""

    system_prompt = "Say the word."

    def __init__(self, sound: bool = True, crash_on: str | None = None, **kwargs):
        tasks = TaskSet(
            Task(f"t{i}", "train" if i < 4 else "test", f"say {w}", {"target": w}) for i, w in enumerate(WORDS)
        )
        self.sound, self.crash_on = sound, crash_on
        rubric = Rubric([Criterion("right", self._right, role="outcome")])
        super().__init__(tasks=tasks, rubric=rubric, **kwargs)

    def _right(self, outcome) -> float:
        answer, target = outcome
        return float(answer.strip() == target) if self.sound else float(target in answer.split())

    def _start(self, task):
        return task.prompt, {}

    def _act(self, action):
        if self.crash_on is not None and action == self.crash_on:
            raise RuntimeError("unhandled input")
        return Turn("done", done=True, outcome=(action, self.task.data["target"]))

    def make_oracle(self):
        env = self

        class Oracle:
            def act(self, observation, info):
                return env.task.data["target"]

        return Oracle()

    def audit_profile(self):
        return AuditProfile(strategies=(spray, boom))


@pytest.fixture(autouse=True, scope="module")
def registered():
    gym.register("Test/Guess-v0", entry_point=GuessEnv)
    yield
    del gym.registry["Test/Guess-v0"]


def test_sound_env_passes_and_reports_every_strategy():
    report = audit_env("Test/Guess-v0")
    assert report.task_ids == ["t4", "t5", "t6", "t7"]
    assert report.oracle.mean_reward == 1.0 and not report.oracle.flags
    assert [row.strategy for row in report.rows] == [s.name for s in GENERIC] + ["spray", "boom"]
    assert not report.flagged
    # the prompt echo "say beta" is not the answer; half of "beta" is "be"
    assert all(row.mean_reward == 0.0 and row.margin == 1.0 for row in report.rows)


def test_hedging_is_flagged_with_the_tasks_it_wins():
    report = audit_env("Test/Guess-v0", env_kwargs={"sound": False})
    flagged = {row.strategy: row for row in report.flagged}
    # the prompt ("say beta") contains the word: echoing or repeating it wins an answer-contains check
    assert set(flagged) == {"spray", "echo", "repetition"}
    assert flagged["spray"].successes == 4 and "succeeds on t4" in flagged["spray"].flags[-1]
    assert "FLAGGED" in report.format_table()


def test_a_crash_is_flagged_not_raised():
    report = audit_env("Test/Guess-v0", env_kwargs={"crash_on": "boom"}, strategies=["boom", "empty"])
    (row,) = report.flagged
    assert row.strategy == "boom" and "env raised" in row.flags[0] and "unhandled input" in row.flags[0]


def test_a_failing_oracle_is_flagged():
    report = audit_env("Test/Guess-v0", env_kwargs={"crash_on": "epsilon"}, strategies=["empty"])
    assert report.oracle.flagged and "t4" in report.oracle.flags[0]


def test_accepted_successes_are_listed_not_flagged(monkeypatch):
    accept = AuditProfile(strategies=(spray,), accepted_success=lambda task_id, name, info: "lenient by design")
    monkeypatch.setattr(GuessEnv, "audit_profile", lambda self: accept)
    report = audit_env("Test/Guess-v0", env_kwargs={"sound": False}, strategies=["spray"])
    (row,) = report.rows
    assert row.successes == 0 and row.accepted_successes == 4
    assert "+4 accepted" in report.format_table()


def test_unknown_strategy_names_are_a_config_error():
    with pytest.raises(ConfigError, match="did you mean|Did you mean"):
        audit_env("Test/Guess-v0", strategies=["sprya"])


def test_cli_exit_code_and_json(tmp_path, capsys):
    path = tmp_path / "audit.json"
    assert main(["audit", "Test/Guess-v0", "--json", str(path)]) == 0
    assert "nothing flagged" in capsys.readouterr().out
    (report,) = json.loads(path.read_text())
    assert report["flagged"] == [] and len(report["rows"]) == len(GENERIC) + 2
    unsound = ["--env-kwargs", '{"sound": false}']
    assert main(["audit", "Test/Guess-v0", "--strategy", "spray", "--episodes", "2", *unsound]) == 1
    assert "flagged: Test/Guess-v0 spray" in capsys.readouterr().out
