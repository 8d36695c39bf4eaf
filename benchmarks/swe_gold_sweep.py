"""Gold patches and their honest variants on every SWE task: ``python -m benchmarks.swe_gold_sweep``.

For each task: the gold patch (played with the oracle's actions) and, with ``--variants``, each
honest variant of it (:mod:`rewardlab.envs.swe.variants`, written with ``create`` and submitted)
must resolve with reward 1. Prints per env the resolved count, the false-negative rate of the
variants (target 0) and every reason seen for a miss. ``--split`` and ``--sample N`` (a seeded
random sample) or ``--tasks ID ...`` choose the tasks; ``--sandbox docker`` runs on the Docker backend.
"""

from __future__ import annotations

import argparse
import collections
import random
import time
from typing import Any

import gymnasium as gym

import rewardlab  # noqa: F401  (registers the envs)
from rewardlab.envs.swe.oracle import gold_actions
from rewardlab.envs.swe.patch import apply_patch, changed_files
from rewardlab.envs.swe.tasks import base_tree
from rewardlab.envs.swe.variants import honest_variants


def resolved(reward: float, info: dict[str, Any]) -> bool:
    return bool(info.get("is_success")) and abs(reward - 1.0) < 1e-9


def play_tree(env: Any, task_id: str, base: dict[str, str], tree: dict[str, str]) -> tuple[Any, dict[str, Any]]:
    """Write the files of ``tree`` that differ from ``base`` with ``create`` and submit."""
    env.reset(options={"task_id": task_id})
    for path, text in tree.items():
        if base.get(path) != text:
            env.step(f"create {path}\n{text}")
    _, reward, _, _, info = env.step("submit")
    return reward, info


def sweep(env_id: str, tasks: list[Any], sandbox: str, variants: bool) -> dict[str, Any]:
    """``{"gold": (resolved, total), "variants": (resolved, total), "misses": Counter}`` over ``tasks``."""
    env = gym.make(env_id, sandbox=sandbox)
    misses: collections.Counter = collections.Counter()
    gold_ok = variant_ok = variant_total = 0
    for task in tasks:
        env.reset(options={"task_id": task.id})
        reward: Any = 0.0
        info: dict[str, Any] = {}
        for action in gold_actions(task.data["patch"]):
            _, reward, *_, info = env.step(action)
        if resolved(reward, info):
            gold_ok += 1
        else:
            misses.update(f"{task.id} gold: {why}" for why in info.get("tampering") or [f"reward {reward:.3f}"])
        if not variants:
            continue
        base = base_tree(task.data)
        gold = apply_patch(base, task.data["patch"])
        for name, tree in honest_variants(base, gold, changed_files(task.data["patch"])).items():
            reward, info = play_tree(env, task.id, base, tree)
            variant_total += 1
            if resolved(reward, info):
                variant_ok += 1
            else:
                misses.update(f"{task.id} {name}: {why}" for why in info.get("tampering") or [f"reward {reward:.3f}"])
    env.close()
    return {"gold": (gold_ok, len(tasks)), "variants": (variant_ok, variant_total), "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", nargs="+", default=["RewardLab/SWE-v2", "RewardLab/SWERepo-v1"])
    parser.add_argument("--split", default=None)
    parser.add_argument("--tasks", nargs="+", default=None, help="only these task ids")
    parser.add_argument("--sample", type=int, default=None, help="a random sample of this many tasks")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sandbox", default="local")
    parser.add_argument("--variants", action="store_true", help="also play the honest variants of each gold patch")
    args = parser.parse_args()
    print("| env | split | sandbox | tasks | gold resolved | variants resolved | variant false negatives |")
    print("|-----|-------|---------|-------|---------------|-------------------|-------------------------|")
    all_misses = {}
    for env_id in args.env:
        probe = gym.make(env_id, sandbox=args.sandbox)
        tasks = [t for t in probe.unwrapped.tasks if args.split is None or t.split == args.split]  # type: ignore[attr-defined]
        tasks = [t for t in tasks if args.tasks is None or t.id in args.tasks]
        probe.close()
        if args.sample is not None and args.sample < len(tasks):
            tasks = sorted(random.Random(args.seed).sample(tasks, args.sample), key=lambda t: t.id)
        start = time.perf_counter()
        found = sweep(env_id, tasks, args.sandbox, args.variants)
        (gold_ok, total), (variant_ok, variant_total) = found["gold"], found["variants"]
        rate = f"{(variant_total - variant_ok) / variant_total:.3f}" if variant_total else "-"
        print(
            f"| {env_id} | {args.split or 'all'} | {args.sandbox} | {total} | {gold_ok}/{total} | "
            f"{variant_ok}/{variant_total} | {rate} |  ({time.perf_counter() - start:.0f} s)"
        )
        all_misses[env_id] = found["misses"]
    for env_id, misses in all_misses.items():
        for reason, count in misses.most_common():
            print(f"  {env_id}: {count:4d}  {reason}")


if __name__ == "__main__":
    main()
