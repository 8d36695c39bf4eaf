"""``rewardlab demo``: the main job — random, oracle and the default model on every env."""

from __future__ import annotations

import argparse

HELP = "Run the random agent, the oracle and SmolLM2-135M-Instruct on every env; print the leaderboard."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--episodes", type=int, default=3, help="episodes per agent and env")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=None, help="HF model id or local path (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--no-model", action="store_true", help="skip the language model (random and oracle only)")
    parser.add_argument("--model-episodes", type=int, default=2, help="episodes per env for the language model")
    parser.add_argument("--model-turns", type=int, default=3, help="turn budget per episode for the language model")
    parser.add_argument("--model-tokens", type=int, default=96, help="tokens the language model generates per action")
    parser.add_argument("--results-dir", default="results")


def run(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    import rewardlab
    from rewardlab.leaderboard import make_run, to_markdown, write_board, write_run
    from rewardlab.leaderboard.runner import ModelBudget, run_suite

    start = time.monotonic()
    agents = ["random", "oracle"] if args.no_model else ["random", "oracle", "model"]
    env_ids = rewardlab.env_ids()
    budget = ModelBudget(args.model_episodes, args.model_turns, args.model_tokens)
    print(f"RewardLab demo: {', '.join(agents)} on {len(env_ids)} envs, {args.episodes} test episodes each")
    if not args.no_model:
        print(
            f"the language model plays {budget.episodes} episodes per env, at most {budget.max_turns} turns of "
            f"{budget.max_new_tokens} tokens each, so that the demo fits in minutes on a CPU"
        )
    entries = run_suite(env_ids, agents, episodes=args.episodes, seed=args.seed, model=args.model, model_budget=budget)
    directory = Path(args.results_dir) / "demo"
    write_run(make_run("demo", entries), directory)
    board = write_board(entries, directory, title="RewardLab demo leaderboard")
    print("\n" + to_markdown(entries))
    print(f"leaderboard page: {board['html'].resolve()}")
    print(f"done in {time.monotonic() - start:.0f} s")
    return 0
