"""``rewardlab audit`` over every registered env, all three batteries: no degenerate strategy, equivalent
rewrite or defective rewrite may be flagged, and every env plays rewrites of both kinds.

Each env is audited on tasks evenly spread over its test split (all of them where episodes are
cheap); the closing figures of ``rewardlab audit ENV --split test`` cover every test task.
"""

from __future__ import annotations

import os

import pytest

import rewardlab
from rewardlab.browser.backends.browser import find_chromium
from rewardlab.errors import MissingDependencyError

SPREAD: dict[str, int] = {
    "RewardLab/BFCL-v1": 60,
    "RewardLab/MiniWoB-v1": 6,
    "RewardLab/SWE-v2": 3,
    "RewardLab/SWERepo-v1": 2,
}
"""Test tasks audited, for the envs whose episodes are too dear to audit the whole test split (every other
registered env is audited on all of it: a new env needs no entry)."""

BROWSER_ENVS = {"RewardLab/MiniWoB-v1", "RewardLab/Web-v2"}
CHROMIUM = find_chromium()


def test_the_spread_names_registered_envs():
    assert set(SPREAD) <= set(rewardlab.env_ids())


@pytest.mark.slow
@pytest.mark.parametrize("env_id", rewardlab.env_ids())
def test_no_degenerate_strategy_is_flagged(env_id, shared_audit):
    if env_id in BROWSER_ENVS and (CHROMIUM is None or not os.path.exists(CHROMIUM)):
        pytest.skip("no Chromium binary found: apt-get install chromium")
    try:
        report = shared_audit(env_id, SPREAD.get(env_id))
    except MissingDependencyError as exc:
        pytest.skip(f"{env_id}: {exc}")
    assert not report.flagged, report.format_table()
    assert report.oracle.successes == len(report.task_ids)
    assert len(report.rows) >= 12, "the env registers too few strategies of its own"
    for battery in ("equivalent", "defective"):
        played = [row for row in report.rewrites if row.battery == battery and row.applicable]
        assert played, f"no {battery} rewrite applies to the audited tasks\n{report.format_table()}"
