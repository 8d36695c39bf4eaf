"""Record the episodes an env's own degenerate strategies play, for ``rewardlab crosscheck --recorded``.

    python -m benchmarks.record_audit_episodes RewardLab/SWE-v2 results/swe_audit.jsonl [--split test]

Each of the env's audit strategies (``audit_profile().strategies``) plays every task of the split once
(seed 0), through :class:`~rewardlab.wrappers.RecordEpisodes`; an independent grader then judges the same
episodes (``rewardlab crosscheck ENV --recorded PATH``): where it disagrees with the env, the cheat fooled one.
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import rewardlab  # noqa: F401 - registers the env ids
from rewardlab.audit.episode import play_episode
from rewardlab.wrappers import RecordEpisodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("output", help="JSONL file of recorded episodes")
    parser.add_argument("--split", default="test", choices=["train", "test"])
    args = parser.parse_args(argv)
    env = RecordEpisodes(gym.make(args.env_id), args.output, flush_interval_s=0)
    try:
        profile = env.unwrapped.audit_profile()
        for task_id in env.unwrapped.tasks.ids(args.split):
            for strategy in profile.strategies:
                play_episode(env, strategy, task_id, 0, profile, {})
    finally:
        env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
