"""``rewardlab demo``: the main job — random, oracle and the default model on every env, then the same
episodes under other reward weightings and the audit of degenerate strategies."""

from __future__ import annotations

import argparse

HELP = (
    "Run the random agent, the oracle and SmolLM2-135M-Instruct on every env; print the leaderboard, the episodes "
    "rescored under equal, targeted and gated weighting, and the audit of degenerate strategies."
)

AUDIT_SHARE = 0.15
"""The audit's default time budget, as a share of the time the leaderboard took."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--episodes", type=int, default=3, help="episodes per agent and env")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=None, help="HF model id or local path (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--no-model", action="store_true", help="skip the language model (random and oracle only)")
    parser.add_argument("--model-episodes", type=int, default=2, help="episodes per env for the language model")
    parser.add_argument("--model-turns", type=int, default=3, help="turn budget per episode for the language model")
    parser.add_argument("--model-tokens", type=int, default=96, help="tokens the language model generates per action")
    parser.add_argument("--audit-tasks", type=int, default=2, help="test tasks per strategy in the audit")
    parser.add_argument(
        "--audit-seconds",
        type=float,
        default=None,
        help=f"time budget of the audit (default: {AUDIT_SHARE * 100:.0f}%% of the leaderboard's time); 0 skips it",
    )
    parser.add_argument("--results-dir", default="results")


def run(args: argparse.Namespace) -> int:
    import json
    import time
    from pathlib import Path

    import rewardlab
    from rewardlab.audit import audit_env
    from rewardlab.leaderboard import make_run, to_markdown, write_board, write_run
    from rewardlab.leaderboard import reward_design as design
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
    catalog = design.EnvCatalog(args.audit_tasks)
    entries = run_suite(
        env_ids, agents, episodes=args.episodes, seed=args.seed, model=args.model, model_budget=budget, on_env=catalog
    )
    directory = Path(args.results_dir) / "demo"
    write_run(make_run("demo", entries), directory)
    board = write_board(entries, directory, title="RewardLab demo leaderboard")
    print("\n" + to_markdown(entries))
    print(f"leaderboard page: {board['html'].resolve()}")
    played_s = time.monotonic() - start

    section_start = time.monotonic()
    designs = []
    for env_id in catalog.schemes:
        episodes, dropped = design.entry_episodes(entries, env_id)
        if episodes:
            choice = design.design_choice(env_id)
            designs.append(design.design_env(env_id, episodes, catalog.schemes[env_id], dropped=dropped, choice=choice))
    estimates = {
        env_id: design.seconds_per_episode(entries, env_id) * count for env_id, count in catalog.audit_episodes.items()
    }
    audit_budget = AUDIT_SHARE * played_s if args.audit_seconds is None else args.audit_seconds
    audits = design.audits_within(
        estimates,
        audit_budget,
        lambda env_id: audit_env(env_id, episodes=args.audit_tasks, seed=args.seed),
        tasks=args.audit_tasks,
    )
    markdown = design.report_markdown(designs, audits)
    (directory / "reward_design.md").write_text(markdown, encoding="utf-8")
    (directory / "reward_design.json").write_text(json.dumps(design.report_json(designs, audits), indent=2))
    print("\n" + markdown)
    print(f"reward design: {(directory / 'reward_design.md').resolve()} (+ .json)")
    print(
        f"done in {time.monotonic() - start:.0f} s (leaderboard {played_s:.1f} s, reward design and audit "
        f"{time.monotonic() - section_start:.1f} s)"
    )
    return 0
