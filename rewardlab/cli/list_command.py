"""``rewardlab list``: env ids with their reward components."""

from __future__ import annotations

import argparse

HELP = "List env ids with their reward component names."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    import json

    import gymnasium as gym

    import rewardlab

    rows = []
    for env_id in rewardlab.env_ids():
        env = gym.make(env_id)
        try:
            rows.append((env_id, list(env.unwrapped.reward_component_names), len(env.unwrapped.tasks)))
        finally:
            env.close()
    if args.json:
        print(json.dumps([{"id": i, "components": c, "tasks": n} for i, c, n in rows], indent=2))
        return 0
    width = max(len(r[0]) for r in rows)
    print(f"{'env id':<{width}}  tasks  components")
    for env_id, components, n_tasks in rows:
        print(f"{env_id:<{width}}  {n_tasks:>5}  {', '.join(components)}")
    return 0
