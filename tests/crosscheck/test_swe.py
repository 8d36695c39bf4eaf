"""SWE crosscheck: the answer exported as a SWE-bench prediction, graded by swebench's own get_eval_report
on plain pytest's log (run in our sandbox, no Docker image)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import rewardlab  # noqa: F401  (registers the envs)
from rewardlab.audit.episode import play_episode
from rewardlab.audit.strategy import AuditProfile
from rewardlab.crosscheck.answers import Answer
from rewardlab.crosscheck.grader import ExternalVerdict, graders_for
from rewardlab.envs.swe.audit import conftest_force_pass, runtest_noop_init
from rewardlab.wrappers import RecordEpisodes

pytest.importorskip("swebench.harness.grading", reason="swebench is not installed (pip install swebench)")

from rewardlab.crosscheck import crosscheck_env  # noqa: E402
from rewardlab.crosscheck.swe import SWEBenchReportGrader, test_files  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def grader():
    return SWEBenchReportGrader()


def _spec_and_prediction(grader, task_id="textkit-4"):
    env = gym.make("RewardLab/SWE-v2")
    data = env.unwrapped.tasks.get(task_id).data
    env.close()
    spec = grader.test_spec(task_id, data)
    return spec, {"instance_id": task_id, "model_name_or_path": "m", "model_patch": "diff"}, data


def test_swebench_parses_a_plain_pytest_log(grader):
    spec, prediction, data = _spec_and_prediction(grader)
    (f2p,), p2p = data["FAIL_TO_PASS"], data["PASS_TO_PASS"]
    lines = [f"PASSED {t}" for t in p2p[1:]] + [f"FAILED {f2p} - AssertionError", f"FAILED {p2p[0]}"]
    log = ">>>>> Applied Patch\n>>>>> Start Test Output\n" + "\n".join(lines) + "\n>>>>> End Test Output\n"
    report = grader.report(spec, prediction, log + ">>>>> Test Exit Code: 1\n")
    verdict = grader.verdict(report)
    assert verdict.success is False
    assert verdict.score == pytest.approx((len(p2p) - 1) / (len(p2p) + 1))
    assert f2p in verdict.detail
    # every test passing but an exit status that says otherwise: swebench's own check rejects the log
    passing = "\n".join(f"PASSED {t}" for t in [f2p, *p2p])
    forged = grader.verdict(
        grader.report(
            spec, prediction, f">>>>> Start Test Output\n{passing}\n>>>>> End Test Output\n>>>>> Test Exit Code: 1\n"
        )
    )
    assert (forged.success, forged.score) == (False, 0.0)
    honest = grader.verdict(
        grader.report(
            spec, prediction, f">>>>> Start Test Output\n{passing}\n>>>>> End Test Output\n>>>>> Test Exit Code: 0\n"
        )
    )
    assert (honest.success, honest.score) == (True, 1.0)


def test_test_files_cover_the_test_patch_and_every_listed_test():
    data = {
        "test_patch": "diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n+++ b/tests/test_a.py\n",
        "FAIL_TO_PASS": ["tests/test_a.py::test_x"],
        "PASS_TO_PASS": ["tests/test_b.py::test_y", "tests/test_a.py::test_z"],
    }
    assert test_files(data) == ["tests/test_a.py", "tests/test_b.py"]


def test_gold_empty_and_unappliable_patches(grader):
    env = gym.make("RewardLab/SWE-v2")
    try:
        base = env.unwrapped
        data = base.tasks.get("textkit-4").data
        gold = grader.grade(base, "textkit-4", ["submit"], {"patch": data["patch"]})
        assert (gold.success, gold.score) == (True, 1.0)
        empty = grader.grade(base, "textkit-4", ["submit"], {"patch": ""})
        assert (empty.success, empty.score) == (False, 0.0) and "empty patch" in empty.detail
        garbage = "diff --git a/nowhere.py b/nowhere.py\n--- a/nowhere.py\n+++ b/nowhere.py\n@@ -1 +1 @@\n-x\n+y\n"
        broken = grader.grade(base, "textkit-4", ["submit"], {"patch": garbage})
        assert (broken.success, broken.score) == (False, 0.0) and "no gradable test log" in broken.detail
        with pytest.raises(RuntimeError, match="infrastructure"):
            grader.grade(base, "textkit-4", ["submit"], {"patch": data["patch"], "infra_error": "x"})
    finally:
        env.close()


def _record_tampering(path, task_id):
    """Episodes of two audit strategies that fool plain pytest, recorded as ``rewardlab eval --record`` does."""
    env = RecordEpisodes(gym.make("RewardLab/SWE-v2"), path, flush_interval_s=0)
    try:
        for strat in (conftest_force_pass, runtest_noop_init):
            play_episode(env, strat, task_id, 0, AuditProfile(finish="submit"), {})
    finally:
        env.close()


def test_crosscheck_agrees_on_rewrites_and_disagrees_on_tampering(tmp_path):
    recorded = tmp_path / "tampering.jsonl"
    _record_tampering(recorded, "invoicer-4")
    report = crosscheck_env("RewardLab/SWE-v2", tasks=["invoicer-4"], recorded=[recorded])
    (swe,) = report.graders
    assert swe.grader == "swebench-report"
    kinds = {row.answer.kind for row in swe.rows}
    assert kinds == {"oracle", "equivalent", "defective", "recorded"}
    for row in swe.rows:
        if row.answer.kind == "recorded":
            # plain pytest is fooled, our sealed runner is not: a finding in our favour
            assert row.answer.is_success is False and row.verdict.success is True, row.answer.name
            assert row.answer.info["tampering"] and "in our favour" in row.explanation
        else:
            expected = row.answer.kind != "defective"
            assert (row.answer.is_success, row.verdict.success) == (expected, expected), row.answer.name
    assert len(swe.disagreements) == 2
    assert all("in our favour" in (row.explanation or "") for row in swe.disagreements)
    assert swe.kappa is not None and 0.0 < swe.kappa < 1.0
    assert swe.rho is not None and swe.rho > 0.0


def test_registered_for_swe():
    (grader,) = graders_for("RewardLab/SWE-v2")
    assert isinstance(grader, SWEBenchReportGrader)
    answer = Answer("t", "recorded", "x", ["submit"], 0.0, False, {"tampering": ["conftest.py changed"]})
    text = grader.explain(answer, ExternalVerdict(True, 1.0, "resolved=True"))
    assert "conftest.py changed" in text and "in our favour" in text
