"""Resolve every task with its gold patch and report what failed: ``python -m benchmarks.swe_gold_sweep``.

Prints, per env, how many gold patches resolve with reward 1, and every tampering reason or
failure seen (an honest patch must never be tampering). ``--split``, ``--limit`` and ``--env``
choose the tasks; ``--sandbox docker`` runs on the Docker backend.
"""

from __future__ import annotations

import argparse
import collections
import time

import gymnasium as gym

import rewardlab  # noqa: F401  (registers the envs)
from rewardlab.envs.swe.oracle import gold_actions


def sweep(env_id: str, split: str | None, limit: int | None, sandbox: str) -> tuple[int, int, collections.Counter]:
    """``(resolved, tasks, reasons)`` of the gold patches of ``env_id``."""
    env = gym.make(env_id, sandbox=sandbox)
    tasks = [t for t in env.unwrapped.tasks if split is None or t.split == split][:limit]
    reasons: collections.Counter = collections.Counter()
    resolved = 0
    for task in tasks:
        env.reset(options={"task_id": task.id})
        info: dict = {}
        reward = 0.0
        for action in gold_actions(task.data["patch"]):
            _, reward, *_, info = env.step(action)
        if info.get("is_success") and abs(reward - 1.0) < 1e-9:
            resolved += 1
        else:
            reasons.update(info.get("tampering") or [f"{task.id}: not resolved (reward {reward:.2f})"])
    env.close()
    return resolved, len(tasks), reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", nargs="+", default=["RewardLab/SWE-v1", "RewardLab/SWERepo-v0"])
    parser.add_argument("--split", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--sandbox", default="local")
    args = parser.parse_args()
    for env_id in args.env:
        start = time.perf_counter()
        resolved, total, reasons = sweep(env_id, args.split, args.limit, args.sandbox)
        print(f"{env_id}: {resolved}/{total} gold patches resolve ({time.perf_counter() - start:.0f} s)")
        for reason, count in reasons.most_common():
            print(f"  {count:4d}  {reason}")


if __name__ == "__main__":
    main()
