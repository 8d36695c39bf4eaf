"""Core overhead: the template env's reset, non-terminal step and terminal (rubric-scoring) step, next to the
cheapest text env of GEM and of TextArena (GuessTheNumber), measured in one run.

The template env is :class:`~rewardlab.envs.echo.EchoEnv`: its own work is a string comparison and a milestone, so
what it costs is the core's bookkeeping (:class:`~rewardlab.core.TextEnv`: action counts, milestones, progress,
info) and, on the terminal step, its two-criterion :class:`~rewardlab.core.Rubric`. "Core alone" is a step whose
``_act`` returns a fixed turn without milestones. Each figure is the median wall time of one call over ``--repeat``
calls, each step timed on a fresh episode (its reset untimed), as ``benchmarks/bench_peers_textgames.py`` times
its peers. Targets (issue 16): a non-terminal step no slower than GEM's, a reset without a new seed within
5 µs, scoring two criteria within 10 µs.

Run: ``python -m benchmarks.bench_core [--repeat N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from benchmarks.common import fmt_seconds, median, stamp, table
from rewardlab.core import Turn
from rewardlab.envs.echo import EchoEnv, EchoOutcome

TARGETS = {"reset": 5e-6, "rubric": 10e-6}
"""Absolute targets: reset without a new seed, and scoring the two criteria."""


def time_each(call: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None) -> list[float]:
    """Seconds of ``repeat`` calls of ``call``, each after an untimed ``setup()``, after 50 untimed warm-up rounds."""
    times = []
    for index in range(repeat + 50):
        if setup is not None:
            setup()
        start = time.perf_counter()
        call()
        elapsed = time.perf_counter() - start
        if index >= 50:
            times.append(elapsed)
    return times


class CoreOnly(EchoEnv):
    """Echo whose every action is a no-op without milestones: what a step costs in the core alone."""

    def _act(self, action: str) -> Turn:
        return Turn(observation="noted")

    def milestone_names(self) -> tuple[str, ...]:
        return ()


def core_only_step(repeat: int) -> float:
    env = CoreOnly()
    env.reset(seed=0)
    return median(time_each(lambda: env.step("draft:alp"), repeat, lambda: env.reset(options={"task_id": "t0"})))


def ours(repeat: int) -> dict[str, float]:
    env = EchoEnv()
    env.reset(seed=0)

    def fresh_episode() -> None:
        env.reset(options={"task_id": "t0"})

    outcome = EchoOutcome(answer="alpha", target="alpha")
    seeds = iter(range(10**9))
    return {
        "reset": median(time_each(env.reset, repeat)),
        "reset with a new seed": median(time_each(lambda: env.reset(seed=next(seeds)), repeat)),
        "non-terminal step": median(time_each(lambda: env.step("draft:alp"), repeat, fresh_episode)),
        "terminal step": median(time_each(lambda: env.step("alpha"), repeat, fresh_episode)),
        "rubric": median(time_each(lambda: env.rubric.score(outcome), repeat)),
        "core alone": core_only_step(repeat),
    }


def gem_guess(repeat: int) -> dict[str, float]:
    import gem

    env = gem.make("game:GuessTheNumber-v0-easy")
    env.reset(seed=0)
    seeds = iter(range(10**9))
    return {
        "reset": median(time_each(env.reset, repeat)),
        "reset with a new seed": median(time_each(lambda: env.reset(seed=next(seeds)), repeat)),
        "non-terminal step": median(time_each(lambda: env.step("\\boxed{5}"), repeat, env.reset)),
    }


def textarena_guess(repeat: int) -> dict[str, float]:
    import textarena

    env = textarena.make(env_id="GuessTheNumber-v0")
    seeds = iter(range(10**9))

    def reset() -> None:
        env.reset(num_players=1)

    return {
        "reset": median(time_each(reset, repeat)),
        "reset with a new seed": median(time_each(lambda: env.reset(num_players=1, seed=next(seeds)), repeat)),
        "non-terminal step": median(time_each(lambda: env.step("[10]"), repeat, reset)),
    }


def rows(repeat: int) -> list[tuple[str, str, str, str, str, str]]:
    """``(measure, ours, GEM, ours / GEM, TextArena, target)`` rows."""
    mine = ours(repeat)
    peers = {}
    for name, measure in (("GEM", gem_guess), ("TextArena", textarena_guess)):
        try:
            peers[name] = measure(repeat)
        except ImportError:
            peers[name] = {}
    gem, arena = peers["GEM"], peers["TextArena"]
    scoring = mine["terminal step"] - mine["non-terminal step"]

    def ratio(key: str) -> str:
        return f"{mine[key] / gem[key]:.2f}x" if key in gem else "-"

    def peer(values: dict[str, float], key: str) -> str:
        return fmt_seconds(values[key]) if key in values else "-"

    targets = {
        "reset": f"≤ {fmt_seconds(TARGETS['reset'])}",
        "non-terminal step": f"≤ GEM ({peer(gem, 'non-terminal step')})",
        "rubric": f"≤ {fmt_seconds(TARGETS['rubric'])}",
    }
    table_rows = [
        (key, fmt_seconds(mine[key]), peer(gem, key), ratio(key), peer(arena, key), targets.get(key, ""))
        for key in ("reset", "reset with a new seed", "non-terminal step", "terminal step")
    ]
    table_rows.insert(
        3,
        (
            "non-terminal step, core alone",
            fmt_seconds(mine["core alone"]),
            peer(gem, "non-terminal step"),
            f"{mine['core alone'] / gem['non-terminal step']:.2f}x" if gem else "-",
            peer(arena, "non-terminal step"),
            "",
        ),
    )
    table_rows.append(("rubric.score (two criteria)", fmt_seconds(mine["rubric"]), "-", "-", "-", targets["rubric"]))
    table_rows.append(("terminal − non-terminal step", fmt_seconds(scoring), "-", "-", "-", targets["rubric"]))
    return table_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20_000, help="timed calls per figure (default 20000)")
    args = parser.parse_args()
    print(stamp(("rewardlab", "gymnasium", "numpy", "gem-llm", "textarena")))
    print(table(["measure", "ours (Echo)", "GEM", "ours / GEM", "TextArena", "target"], rows(args.repeat)))


if __name__ == "__main__":
    main()
