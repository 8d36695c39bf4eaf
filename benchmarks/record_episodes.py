"""Record episodes for ``rewardlab crosscheck --recorded``: the audit's strategies, or a real model.

    python -m benchmarks.record_episodes RewardLab/SWE-v2 results/swe_audit.jsonl --agent strategies
    python -m benchmarks.record_episodes RewardLab/BFCL-v1 results/bfcl_model.jsonl --agent model --episodes 40

``strategies``: each of the env's own degenerate strategies (``audit_profile().strategies``) plays every
task of the split once (seed 0). ``model``: the default policy model (SmolLM2-135M-Instruct, greedy,
:class:`~rewardlab.agents.TransformersAgent`) plays ``--episodes`` tasks evenly spread over the split.
Episodes go through :class:`~rewardlab.wrappers.RecordEpisodes`; an independent grader then judges the
same episodes (``rewardlab crosscheck ENV --recorded PATH``).
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import rewardlab  # noqa: F401 - registers the env ids
from rewardlab.audit.episode import play_episode
from rewardlab.audit.runner import spread
from rewardlab.evaluation import run_episode
from rewardlab.wrappers import RecordEpisodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("output", help="JSONL file of recorded episodes")
    parser.add_argument("--agent", default="strategies", choices=["strategies", "model"])
    parser.add_argument("--episodes", type=int, default=None, help="model: tasks played (default: the whole split)")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--split", default="test", choices=["train", "test"])
    args = parser.parse_args(argv)
    env = RecordEpisodes(gym.make(args.env_id), args.output, flush_interval_s=0)
    try:
        task_ids = env.unwrapped.tasks.ids(args.split)
        if args.agent == "model":
            from rewardlab.agents import TransformersAgent

            agent = TransformersAgent.from_pretrained("smollm2", max_new_tokens=args.max_new_tokens)
            for task_id in spread(task_ids, args.episodes):
                run_episode(env, agent, seed=0, task_id=task_id)
        else:
            profile = env.unwrapped.audit_profile()
            for task_id in task_ids:
                for strategy in profile.strategies:
                    play_episode(env, strategy, task_id, 0, profile, {})
    finally:
        env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
