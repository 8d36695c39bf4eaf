"""rewardlab.leaderboard.design_report: the reward-design section in Markdown and JSON."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from rewardlab.leaderboard.audit_budget import AuditRun
from rewardlab.leaderboard.design_report import report_json, report_markdown
from rewardlab.leaderboard.rescoring import design_env
from rewardlab.leaderboard.schemes import default_schemes, design_choice, env_schemes
from tests.leaderboard.episodes import TOOLCALL, known_episodes, report


def test_the_report_in_markdown_and_json():
    env = gym.make(TOOLCALL)
    try:
        schemes = env_schemes(env, default_schemes(env))
        result = design_env(TOOLCALL, known_episodes(), schemes, choice=design_choice(env))
    finally:
        env.close()
    audits = AuditRun(3.0, 2, reports={TOOLCALL: (report(TOOLCALL), 0.4)}, skipped={"X-v0": "too slow"})
    text = report_markdown([result], audits)
    assert text.startswith("## Reward design: the same episodes under equal, targeted and gated weighting")
    assert "- targeted: the agent ranking changes on 1 of 1 envs (RewardLab/ToolCall-v3); 1 episode pairs flip." in text
    assert f"| {TOOLCALL} | 0.600 | 1 | **yes** | 1.000 | 0 | no |" in text
    assert "## Audit: each degenerate strategy against the oracle" in text and report(TOOLCALL).format_table() in text
    assert "Audited in 0.40 s." in text and "- X-v0: too slow" in text and "No strategy flagged." in text
    document = json.loads(json.dumps(report_json([result], audits), allow_nan=False))
    targeted = document["envs"][0]["schemes"][1]
    assert targeted["kendall_tau_b"] == pytest.approx(0.6) and targeted["ranking_changed"] is True
    assert document["audit"]["reports"][0]["seconds"] == 0.4 and document["audit"]["skipped"] == {"X-v0": "too slow"}
