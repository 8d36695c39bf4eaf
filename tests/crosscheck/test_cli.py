"""``rewardlab crosscheck``: tables, JSON, recorded episodes, and a clear error when a grader cannot run."""

from __future__ import annotations

import json

import pytest

from rewardlab.agents import RandomAgent
from rewardlab.cli import main
from rewardlab.evaluation import evaluate

pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed (pip install 'rewardlab[bfcl]')")


def test_crosscheck_bfcl_with_recorded_episodes(tmp_path, capsys):
    recorded = tmp_path / "episodes.jsonl"
    evaluate("RewardLab/BFCL-v1", lambda env: RandomAgent(env, seed=3), episodes=3, record=recorded)
    out = tmp_path / "crosscheck.json"
    argv = ["crosscheck", "RewardLab/BFCL-v1", "--episodes", "2", "--recorded", str(recorded), "--json", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "| bfcl-eval |" in printed and "κ (success)" in printed
    (report,) = json.loads(out.read_text())
    (grader,) = report["graders"]
    by_kind = grader["by_kind"]
    assert by_kind["oracle"]["answers"] == 2 and by_kind["recorded"]["answers"] == 3
    assert {row["kind"] for row in grader["answers"]} == {"oracle", "equivalent", "defective", "recorded"}
    assert all(row["explanation"] for row in grader["disagreements"])


def test_crosscheck_without_a_grader_exits_2(capsys):
    assert main(["crosscheck", "RewardLab/Web-v2", "--episodes", "1"]) == 2
    assert "no external grader is registered" in capsys.readouterr().out


def test_crosscheck_without_node_modules_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REWARDLAB_GRADERS_DIR", str(tmp_path))
    assert main(["crosscheck", "RewardLab/BPMN-v2", "--episodes", "1"]) == 2
    assert "setup-graders.sh" in capsys.readouterr().out
