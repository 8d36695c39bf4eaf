"""``rewardlab eval ENV --agent oracle|random``: per-component mean table and a JSON file."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rewardlab.cli.env_arguments import env_id_or_all

if TYPE_CHECKING:
    from collections.abc import Callable

    import gymnasium as gym

    from rewardlab.core.agent import Agent

HELP = "Evaluate an agent on an env: per-component means with 95%% CIs, written as JSON."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", nargs="+", type=env_id_or_all, help="env ids, or 'all'")
    parser.add_argument("--agent", default="oracle", choices=["oracle", "random"])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--split", default="test", choices=["train", "test"])
    parser.add_argument("--output", default="results/eval.json", help="where to write the JSON results")
    parser.add_argument("--record", default=None, help="also append every episode to this JSONL file")


def format_table(summaries: dict[str, dict]) -> str:
    """One block per env: reward, success rate and each component's mean ± CI."""
    lines = []
    for env_id, summary in summaries.items():
        lines.append(
            f"{env_id}  reward {summary['reward']['mean']:.3f} ± {summary['reward']['ci95']:.3f}"
            f"  success {summary['success_rate']:.2f}  ({summary['episodes']} episodes)"
        )
        for name, stats in summary["components"].items():
            lines.append(f"    {name:<18} {stats['mean']:.3f} ± {stats['ci95']:.3f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import json
    from functools import partial
    from pathlib import Path

    from tqdm import tqdm

    import rewardlab
    from rewardlab.agents import OracleAgent, RandomAgent
    from rewardlab.evaluation import evaluate, summarize

    env_ids = rewardlab.env_ids() if args.env == ["all"] else args.env
    makers: dict[str, Callable[[gym.Env], Agent]] = {
        "oracle": OracleAgent,
        "random": lambda env: RandomAgent(env, seed=args.seed),
    }
    summaries = {}
    for env_id in env_ids:
        results = evaluate(
            env_id,
            makers[args.agent],
            episodes=args.episodes,
            seed=args.seed,
            split=args.split,
            progress=partial(tqdm, desc=f"{args.agent} on {env_id}", unit="ep"),
            record=args.record,
            label=args.agent,
        )
        summaries[env_id] = {"agent": args.agent, "seed": args.seed, "split": args.split, **summarize(results)}
    print(format_table(summaries))
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(summaries, indent=2))
    print(f"results written to {output}")
    return 0
