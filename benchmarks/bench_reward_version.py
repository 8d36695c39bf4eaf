"""What ``reward_version`` costs (issue 29): the first computation per env, and every access after it.

Per registered env (made with ``gym.make``, BFCL on its ``simple_python`` category): the time of the first
``env.reward_version`` in a fresh env (its :meth:`~rewardlab.core.TextEnv.reward_parts` and the SHA-256 of
them; code digests are cached per file across envs, so the first env of a run also pays for digesting
:mod:`rewardlab.core`), and the median time of one access after it over ``--repeat`` accesses (what every
reset and step pays to put the stamp in ``info``). Then the same access on a wrapper that changes rewards
(:class:`~rewardlab.wrappers.MilestoneReward`) and its per-step cost, :meth:`RewardStamp.stamped` of a new
step's ``info`` (the making of that one-key dict included). Target: an
access after the first under 1 µs.

Run: ``python -m benchmarks.bench_reward_version [--repeat N]``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium as gym

import rewardlab
from benchmarks.common import fmt_seconds, median, stamp, table
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import MissingDependencyError
from rewardlab.wrappers import MilestoneReward

TARGET_S = 1e-6
CHEAP_KWARGS: dict[str, dict[str, Any]] = {"RewardLab/BFCL-v1": {"categories": ["simple_python"]}}


def access_times(read: Any, repeat: int) -> list[float]:
    """Seconds per call of ``read()``, over ``repeat`` rounds of 100 calls each (a single call is below the
    clock's resolution)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(100):
            read()
        times.append((time.perf_counter() - start) / 100)
    return times


def env_row(env_id: str, repeat: int) -> tuple[str, str, str, str, str]:
    try:
        env = gym.make(env_id, **CHEAP_KWARGS.get(env_id, {}))
    except MissingDependencyError as exc:
        return env_id, "-", "-", "-", f"skipped: {exc}"
    try:
        base: Any = env.unwrapped
        start = time.perf_counter()
        version = base.reward_version
        first = time.perf_counter() - start
        after = median(access_times(lambda: base.reward_version, repeat))
    finally:
        env.close()
    return env_id, version, fmt_seconds(first), fmt_seconds(after), "yes" if after < TARGET_S else "**no**"


def wrapper_rows(repeat: int) -> list[tuple[str, str, str, str, str]]:
    start = time.perf_counter()
    env = MilestoneReward(EchoEnv(), per_milestone=0.2)
    first = time.perf_counter() - start
    after = median(access_times(lambda: env.reward_version, repeat))
    inner = EchoEnv().reward_version
    stamped = median(access_times(lambda: env.stamped({"reward_version": inner}), repeat))
    return [
        ("MilestoneReward(Echo).reward_version", env.reward_version, fmt_seconds(first), fmt_seconds(after), "-"),
        (
            "MilestoneReward.stamped(info), per step",
            "-",
            "-",
            fmt_seconds(stamped),
            "yes" if stamped < TARGET_S else "**no**",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="rounds of 100 accesses per env")
    args = parser.parse_args()
    rows = [env_row(env_id, args.repeat) for env_id in rewardlab.env_ids()]
    rows += wrapper_rows(args.repeat)
    print(stamp())
    print()
    print(
        table(
            ["env", "reward_version", "first computation", "access after the first (median)", "< 1 µs"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
