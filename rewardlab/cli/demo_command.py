"""``rewardlab demo``: the main job, within a time budget — the leaderboard of every env (oracle, random and
the language model where it is not a foregone 0), the same episodes under other reward weightings, the audit
of degenerate strategies, and a short learning run (SFT, then GRPO, on BFCL's simple tasks).

The budget, the model's record and the learning run live in :mod:`rewardlab.demo`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rewardlab.demo.budget import ModelRecord, PhaseClock
    from rewardlab.leaderboard.catalog import EnvCatalog

HELP = (
    "Within a time budget: the oracle, a random agent and SmolLM2-135M-Instruct (where it is not a foregone 0) on "
    "every env; the episodes rescored under equal, targeted and gated weighting; the audit of degenerate "
    "strategies; SFT then GRPO on BFCL's simple tasks, with the held-out reward before and after."
)

BUDGET_MINUTES = 5.5
"""The default total budget: the demo, model conversion and first-use caches included, ends within 6 minutes
on two CPU cores."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rewardlab.demo.learning import LearningConfig

    learning = LearningConfig()
    parser.add_argument(
        "--budget-minutes",
        type=float,
        default=BUDGET_MINUTES,
        help=f"time budget of the whole demo (default {BUDGET_MINUTES:g}); 0: no limit",
    )
    parser.add_argument("--episodes", type=int, default=3, help="episodes per env for the random agent and the oracle")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=None, help="HF model id or local path (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--no-model", action="store_true", help="no language model: random and oracle, no learning")
    parser.add_argument("--model-episodes", type=int, default=2, help="episodes per env for the language model")
    parser.add_argument("--model-turns", type=int, default=3, help="turn budget per episode for the language model")
    parser.add_argument("--model-tokens", type=int, default=96, help="tokens the language model generates per action")
    parser.add_argument(
        "--model-everywhere",
        action="store_true",
        help="play the model on every env, foregone 0s included, outside the budget, and write its record "
        "(results/demo/model_record.json)",
    )
    parser.add_argument("--audit-tasks", type=int, default=2, help="test tasks per strategy in the audit")
    parser.add_argument(
        "--audit-seconds",
        type=float,
        default=None,
        help="time budget of the audit (default: what the total budget leaves it); 0 skips it",
    )
    parser.add_argument(
        "--learn-updates",
        type=int,
        default=learning.updates,
        help=f"most GRPO updates of the learning run (default {learning.updates}); 0 skips the run",
    )
    parser.add_argument(
        "--learn-sft-steps", type=int, default=learning.sft_steps, help="SFT steps before GRPO (0: none)"
    )
    parser.add_argument(
        "--learn-tasks", type=int, default=learning.held_out_tasks, help="held-out test tasks of each evaluation"
    )
    parser.add_argument("--results-dir", default="results")


def run(args: argparse.Namespace) -> int:
    import json

    import rewardlab
    from rewardlab.demo import sections
    from rewardlab.demo.budget import PHASE_SHARES, PhaseClock
    from rewardlab.errors import ConfigError
    from rewardlab.leaderboard import make_run, to_markdown, write_board, write_run
    from rewardlab.leaderboard.catalog import EnvCatalog
    from rewardlab.leaderboard.runner import run_suite

    if args.budget_minutes < 0:
        raise ConfigError(f"--budget-minutes must be >= 0 (0: no limit), got {args.budget_minutes}")
    skipped = {"model", "learning"} if args.no_model else {"learning"} if args.learn_updates <= 0 else set()
    shares = {phase: share for phase, share in PHASE_SHARES.items() if phase not in skipped}
    clock = PhaseClock(args.budget_minutes * 60 or None, shares)  # a phase not run keeps no share
    env_ids = rewardlab.env_ids()
    directory = Path(args.results_dir) / "demo"
    print(sections.intro(len(env_ids), clock.total_s))
    if not args.no_model:
        _share_busy_cores()

    print(sections.heading(1))
    catalog = EnvCatalog(args.audit_tasks)
    with clock.phase("leaderboard"):
        entries = run_suite(env_ids, ["random", "oracle"], episodes=args.episodes, seed=args.seed, on_env=catalog)
    note = ""
    if not args.no_model:
        with clock.phase("model"):
            model_entries, note, record = _play_model(args, env_ids, clock, catalog)
        entries += model_entries
        if record is not None:
            print(f"the model's record: {record.write(directory / 'model_record.json').resolve()}")
    write_run(make_run("demo", entries), directory)
    board = write_board(entries, directory, title="RewardLab demo leaderboard")
    print("\n" + to_markdown(entries))
    if note:
        print(note)
    print(f"leaderboard page: {board['html'].resolve()}")

    print(sections.heading(2) + sections.heading(3))
    with clock.phase("audit"):
        markdown, report = _design_and_audit(args, entries, catalog, clock)
    (directory / "reward_design.md").write_text(markdown, encoding="utf-8")
    (directory / "reward_design.json").write_text(json.dumps(report, indent=2))
    print("\n" + markdown)
    print(f"reward design and audit: {(directory / 'reward_design.md').resolve()} (+ .json)")

    print(sections.heading(4))
    if args.no_model or args.learn_updates <= 0:
        print("skipped: " + ("--no-model" if args.no_model else "--learn-updates 0"))
    else:
        with clock.phase("learning"):
            _learn(args, clock, directory)
    print("\n" + sections.timing(clock))
    return 0


def _share_busy_cores() -> None:
    """One torch thread when other processes already keep every core busy, else torch's default (all cores).
    Torch's threads wait for each other by spinning, so on a shared machine two of them crawl: sampling on two
    busy cores ran 63 tokens/s on one thread and 22 on two (``benchmarks/grpo_learning.py``)."""
    import os

    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if cores > 1 and load >= cores:
        try:
            import torch
        except ImportError:  # the model's phases say which extra to install
            return
        torch.set_num_threads(1)
        print(f"(the cores are busy, load {load:.1f} on {cores}: torch runs on one thread)")


def _play_model(
    args: argparse.Namespace, env_ids: list[str], clock: PhaseClock, catalog: EnvCatalog
) -> tuple[list[dict], str, ModelRecord | None]:
    """The model's entries within its allowance, the note on where it played, and, with ``--model-everywhere``
    and the default model, the new record (else ``None``)."""
    import datetime as dt
    import math

    from rewardlab.demo import sections
    from rewardlab.demo.budget import ModelRecord, plan_model
    from rewardlab.demo.learning import plural
    from rewardlab.leaderboard.audit_budget import run_within
    from rewardlab.leaderboard.results import git_commit
    from rewardlab.leaderboard.runner import ModelBudget, agent_factory, model_name, play_entry

    budget = ModelBudget(args.model_episodes, args.model_turns, args.model_tokens)
    shipped = ModelRecord.load()
    record = (
        shipped
        if shipped is not None and shipped.describes(args.model, budget.max_turns, budget.max_new_tokens)
        else None
    )
    plan = plan_model(env_ids, record, budget.episodes, everywhere=args.model_everywhere)
    agent: list = []  # the model, loaded on the first env it plays

    def play(env_id: str) -> dict:
        if not agent:
            agent.append(agent_factory("model", seed=args.seed, model=args.model, max_new_tokens=budget.max_new_tokens))
        return play_entry(
            env_id,
            "model",
            agent[0],
            episodes=budget.episodes,
            seed=args.seed,
            model=args.model,
            model_budget=budget,
            on_env=catalog,
        )

    allowance = math.inf if args.model_everywhere else clock.allowance("model")
    print(f"== the language model: {plural(len(plan.play), 'env')} to play, {len(plan.skipped)} foregone")
    played = run_within(plan.play, allowance, play)
    entries = [entry for entry, _ in played.done.values()]
    name = model_name("model", args.model) or ""
    note = "\n" + sections.model_note(name, budget.max_turns, budget.max_new_tokens, plan.skipped, played, shipped)
    new_record = None
    if args.model_everywhere and args.model in (None, "smollm2"):
        new_record = ModelRecord.from_entries(
            entries,
            model="smollm2",
            max_turns=budget.max_turns,
            max_new_tokens=budget.max_new_tokens,
            seed=args.seed,
            commit=git_commit(),
            created=dt.date.today().isoformat(),
        )
    return entries, note, new_record


def _design_and_audit(
    args: argparse.Namespace, entries: list[dict], catalog: EnvCatalog, clock: PhaseClock
) -> tuple[str, dict]:
    """The reward-design section (every env's episodes rescored: :mod:`rewardlab.demo.design`) and the audit
    within its allowance."""
    from rewardlab.audit import audit_env
    from rewardlab.demo.design import rescore_entries, section_json, section_markdown
    from rewardlab.leaderboard.audit_budget import audits_within, seconds_per_episode

    reports = rescore_entries(entries)
    estimates = {
        env_id: seconds_per_episode(entries, env_id) * count for env_id, count in catalog.audit_episodes.items()
    }
    audit_budget = clock.allowance("audit") if args.audit_seconds is None else args.audit_seconds
    audits = audits_within(
        estimates,
        max(audit_budget, 0.0),
        lambda env_id: audit_env(env_id, episodes=args.audit_tasks, seed=args.seed),
        tasks=args.audit_tasks,
    )
    return section_markdown(reports, catalog.choices, audits), section_json(reports, catalog.choices, audits)


def _learn(args: argparse.Namespace, clock: PhaseClock, directory: Path) -> None:
    """The learning run, written to ``learning.md`` and ``learning.json``; skipped with the reason when a
    dependency is missing."""
    import json

    from rewardlab.demo.learning import LearningConfig, run_learning
    from rewardlab.errors import MissingDependencyError

    config = LearningConfig(
        model=args.model or "smollm2",
        held_out_tasks=args.learn_tasks,
        sft_steps=args.learn_sft_steps,
        updates=args.learn_updates,
        seed=args.seed,
    )
    try:
        run = run_learning(config, time_left=clock.left, output_dir=directory / "learning")
    except MissingDependencyError as exc:
        print(f"skipped: {exc}")
        return
    markdown = run.markdown()
    (directory / "learning.md").write_text(markdown, encoding="utf-8")
    (directory / "learning.json").write_text(json.dumps(run.to_json(), indent=2))
    print("\n" + markdown)
    print(f"learning run: {(directory / 'learning.md').resolve()} (+ .json; GRPO's curves in learning/)")
