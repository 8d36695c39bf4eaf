"""The three audit batteries over every registered env: one row of rates per env.

    python -m benchmarks.audit_rates [--split test] [--episodes-cap N] [--json PATH]

Per env (test split; envs whose episodes are slow are audited on ``--episodes-cap`` tasks evenly
spread, as in ``tests/audit/test_audit_envs.py``): the oracle's successes, the false-positive rate
(degenerate episodes that succeed), the false-negative rate (equivalent rewrites that fail or lose more
than 0.05), the defect acceptance (defective rewrites that still succeed), the smallest margin of a
degenerate strategy below the oracle, the smallest mean loss of a defect and the env's ``defect_delta``,
and the rows flagged.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import rewardlab
from rewardlab.audit import audit_env

SLOW = {"RewardLab/SWE-v2": 6, "RewardLab/SWERepo-v1": 6, "RewardLab/MiniWoB-v1": 8, "RewardLab/BFCL-v1": 60}
"""Envs audited on a spread sample of their test tasks (an episode takes seconds there)."""


def _rate(count: int, episodes: int) -> str:
    return f"{count}/{episodes}" if episodes else "—"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test", choices=["train", "test"])
    parser.add_argument("--json", default=None)
    parser.add_argument("env", nargs="*", help="env ids (default: every registered env)")
    args = parser.parse_args(argv)
    rows = []
    print("| env | tasks | oracle | false positive | false negative | defect acceptance "
          "| min degenerate margin | min defect loss (δ) | flagged | s |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for env_id in args.env or rewardlab.env_ids():
        start = time.perf_counter()
        report = audit_env(env_id, split=args.split, episodes=SLOW.get(env_id))
        seconds = time.perf_counter() - start
        rates = report.rates()
        margin = min((row.margin for row in report.rows), default=float("nan"))
        defects = [row for row in report.rewrites if row.battery == "defective" and row.applicable]
        loss = min((row.mean_loss for row in defects), default=float("nan"))
        delta = report_delta(env_id)
        flagged = ", ".join(report.flagged_names) or "none"
        print(
            f"| {env_id} | {len(report.task_ids)} | {report.oracle.successes}/{len(report.task_ids)} "
            f"| {_rate(*rates['false_positive'])} | {_rate(*rates['false_negative'])} "
            f"| {_rate(*rates['defect_acceptance'])} | {margin:+.3f} | {loss:.3f} ({delta}) "
            f"| {flagged} | {seconds:.0f} |",
            flush=True,
        )
        rows.append({"env_id": env_id, "seconds": seconds, **report.to_json()})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


def report_delta(env_id: str) -> float:
    """The env's ``defect_delta``."""
    import gymnasium as gym

    env = gym.make(env_id)
    try:
        return env.unwrapped.audit_profile().defect_delta
    finally:
        env.close()


if __name__ == "__main__":
    raise SystemExit(main())
