"""``rewardlab list``: env ids with their task counts and reward components, read from each env's card."""

from __future__ import annotations

import argparse
from typing import Any

HELP = (
    "List env ids with their task counts, reward versions and reward components (formula, default weight and range "
    "in --json)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def env_row(env_id: str, env: Any) -> dict[str, Any]:
    """What ``rewardlab list`` shows of one made env, from its :class:`~rewardlab.core.EnvCard`: its id, task
    count, ``reward_version``, component names, the one-line summary the README's Environments table repeats,
    and each criterion's role, formula, default weight, range and gate threshold (``None`` when it is no gate)."""
    from rewardlab.core.specs import row_summary

    card = env.unwrapped.card()
    return {
        "id": env_id,
        "tasks": sum(card.task_counts.values()),
        "reward_version": card.reward_version,
        "components": list(card.component_names),
        "summary": row_summary(card.components),
        "criteria": [dict(row) for row in card.components],
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
    print(f"{'env id':<{width}}  tasks  reward version   reward components")
    for row in rows:
        print(f"{row['id']:<{width}}  {row['tasks']:>5}  {row['reward_version']}  {row['summary']}")
    return 0
