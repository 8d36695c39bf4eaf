"""BFCL crosscheck: bfcl-eval's own ast_checker on the env's decoded calls."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import rewardlab  # noqa: F401  (registers the envs)

pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed (pip install 'rewardlab[bfcl]')")

from rewardlab.crosscheck import crosscheck_env  # noqa: E402
from rewardlab.crosscheck.answers import Answer  # noqa: E402
from rewardlab.crosscheck.bfcl import BFCLASTGrader  # noqa: E402
from rewardlab.envs.bfcl.loader import load_tasks  # noqa: E402


class _Tasks:
    """The attributes of the env that the grader reads."""

    tasks = load_tasks(("simple_python", "irrelevance"))
    underscore_names = False


@pytest.fixture(scope="module")
def grader():
    return BFCLASTGrader()


def _task(category: str):
    return next(t for t in _Tasks.tasks if t.data["category"] == category)


def test_irrelevance_passes_only_without_a_call(grader):
    task = _task("irrelevance")
    function = task.data["functions"][0]["name"]
    assert grader.grade(_Tasks, task.id, ["No function fits."], {}).success is True
    called = grader.grade(_Tasks, task.id, [json.dumps({"name": function, "arguments": {}})], {})
    assert called.success is False and "decoder_success" in called.detail


def test_simple_call_right_and_wrong(grader):
    task = _task("simple_python")
    env = gym.make("RewardLab/BFCL-v1", categories=["simple_python"])
    observation, info = env.reset(seed=0, options={"task_id": task.id})
    oracle = json.loads(env.unwrapped.make_oracle().act(observation, info))
    env.close()
    right = grader.grade(_Tasks, task.id, [json.dumps(oracle)], {})
    assert (right.success, right.score) == (True, 1.0)
    renamed = {**oracle, "name": oracle["name"] + "_x"}
    wrong = grader.grade(_Tasks, task.id, [json.dumps(renamed)], {})
    assert (wrong.success, wrong.score) == (False, 0.0)
    assert "wrong" in wrong.detail.lower()
    assert grader.grade(_Tasks, task.id, ["I would call it."], {}).success is False


def test_explanation_lists_both_checkers(grader):
    answer = Answer("t", "recorded", "x", ["[]"], 1.0, True, {"bfcl_errors": [{"kind": "value_error", "message": "m"}]})
    from rewardlab.crosscheck.grader import ExternalVerdict

    text = grader.explain(answer, ExternalVerdict(False, 0.0, "value_error:others: bad"))
    assert "value_error: m" in text and "bfcl-eval: value_error:others" in text


def test_crosscheck_agrees_on_oracle_and_rewrites():
    report = crosscheck_env("RewardLab/BFCL-v1", episodes=8)
    (bfcl,) = report.graders
    kinds = {row.answer.kind for row in bfcl.rows}
    assert kinds == {"oracle", "equivalent", "defective"}
    for row in bfcl.rows:
        expected = row.answer.kind != "defective"
        assert (row.answer.is_success, row.verdict.success) == (expected, expected), (
            row.answer.task_id,
            row.answer.name,
        )
    assert bfcl.kappa == pytest.approx(1.0) and bfcl.disagreements == []
    assert bfcl.rho is not None and bfcl.rho > 0.9
