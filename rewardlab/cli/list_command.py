"""``rewardlab list``: env ids with their task counts and reward components, written from each env's rubric."""

from __future__ import annotations

import argparse
from typing import Any

HELP = "List env ids with their task counts and reward components (formula, default weight and range in --json)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def env_row(env_id: str, env: Any) -> dict[str, Any]:
    """What ``rewardlab list`` shows of one made env: its id, task count, component names, the one-line
    summary the README's Environments table repeats, and each criterion's formula, default weight, range and gate
    threshold (``None`` when it is no gate)."""
    from rewardlab.core.specs import component_summary, criterion_rows

    base = env.unwrapped
    return {
        "id": env_id,
        "tasks": len(base.tasks),
        "components": list(base.reward_component_names),
        "summary": component_summary(base.rubric),
        "criteria": criterion_rows(base.rubric),
    }


def run(args: argparse.Namespace) -> int:
    import json

    import gymnasium as gym

    import rewardlab

    rows = []
    for env_id in rewardlab.env_ids():
        env = gym.make(env_id)
        try:
            rows.append(env_row(env_id, env))
        finally:
            env.close()
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    width = max(len(row["id"]) for row in rows)
    print(f"{'env id':<{width}}  tasks  reward components")
    for row in rows:
        print(f"{row['id']:<{width}}  {row['tasks']:>5}  {row['summary']}")
    return 0
