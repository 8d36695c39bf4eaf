"""Wrapper overhead per step: the median, per wrapper, against the bare env's step.

Method, per env:

1. Play random and oracle episodes on the real env for ``--budget`` seconds (at least two
   episodes), timing each ``step``: the bare step median. Every step's return values and
   action are recorded.
2. Replay the recorded steps through :class:`ReplayEnv` (a ``gym.Env`` that returns them, with
   the env's public attributes), bare and under each wrapper, ``--steps`` times. A wrapper's
   overhead is ``median(wrapped replay step) − median(bare replay step)``: the real env's
   own cost and noise drop out.

The budget of the issue: overhead median under 20 µs or 5% of the bare step, whichever is
larger ("p50 within"). "per-step p50" is the median over steps of (wrapped − bare replay time)
/ the real env's time for that same step: on envs whose steps differ a lot in cost (a short
random answer against a 40 kB BPMN model), it says how much a wrapper adds to the step it
wraps. The mean column includes the episode-end steps, where the outcome wrappers, the monitor
and the recorder do their work, and RecordEpisodes' periodic write (JSON encoding, then one
atomic file replace per second by default) to a fresh temp file; the ``atomic=False`` row
appends in place instead.

Usage: ``python -m benchmarks.bench_wrappers [--envs ID ...] [--steps N] [--budget SECONDS]``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym

import rewardlab
from benchmarks.common import fmt_seconds, median, stamp, table
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.errors import RewardLabError
from rewardlab.wrappers import (
    ChatHistory,
    DynamicRubric,
    HackingMonitor,
    MilestoneReward,
    PotentialShaping,
    ProcessReward,
    RecordEpisodes,
    ReweightRubric,
    VectorReward,
)

# action, observation, reward, terminated, truncated, info, seconds the real env took for this step
Step = tuple[str, str, float, bool, bool, dict[str, Any], float]


class ReplayEnv(gym.Env):
    """Returns recorded episodes step by step, cycling; carries the source env's public attributes."""

    def __init__(self, source: gym.Env, episodes: list[tuple[str, dict[str, Any], list[Step]]]):
        base = source.unwrapped
        self.observation_space, self.action_space = base.observation_space, base.action_space
        self.reward_component_names, self.reward_space = base.reward_component_names, base.reward_space
        self.rubric, self.max_turns = base.rubric, base.max_turns
        self.episodes = itertools.cycle(episodes)
        self.steps: list[Step] = []
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        observation, info, self.steps = next(self.episodes)
        self.t = 0
        return observation, dict(info)

    def step(self, action: str):
        _, observation, reward, terminated, truncated, info, _ = self.steps[self.t]
        self.t += 1
        return observation, reward, terminated, truncated, dict(info)


def record(env_id: str, budget: float) -> tuple[gym.Env, float, list]:
    """Random and oracle episodes on the real env: ``(env, bare step median, episodes)``."""
    env = gym.make(env_id)
    agents = [RandomAgent(env, seed=0), OracleAgent(env)]
    episodes, times = [], []
    deadline = time.perf_counter() + budget
    for n in itertools.count():
        if time.perf_counter() > deadline and n >= 2:
            break
        agent = agents[n % 2]
        agent.reset()
        observation, info = env.reset(seed=n)
        first, steps = (observation, info), []
        done = False
        while not done:
            action = agent.act(observation, info)
            start = time.perf_counter()
            observation, reward, terminated, truncated, info = env.step(action)
            times.append(time.perf_counter() - start)
            steps.append((action, observation, reward, terminated, truncated, info, times[-1]))
            done = terminated or truncated
        episodes.append((*first, steps))
    return env, median(times), episodes


def replay_step_times(env: gym.Env, steps: int) -> tuple[list[float], list[float]]:
    """Per-step seconds of ``steps`` replayed steps (resets not timed), and the real env's seconds
    for each of those steps. Every replay starts at the same recorded step, so two replays pair up."""
    base = env.unwrapped
    times, real = [], []
    env.reset()
    for _ in range(steps):
        action, *_, real_seconds = base.steps[base.t]
        start = time.perf_counter()
        _, _, terminated, truncated, _ = env.step(action)
        times.append(time.perf_counter() - start)
        real.append(real_seconds)
        if terminated or truncated:
            env.reset()
    return times, real


def first_component(env: gym.Env) -> str:
    return env.get_wrapper_attr("reward_component_names")[0]


def wrappers(directory: Path) -> dict[str, Callable[[gym.Env], gym.Env]]:
    return {
        "ReweightRubric(equal)": partial(ReweightRubric, scheme="equal"),
        "PotentialShaping": PotentialShaping,
        "MilestoneReward": partial(MilestoneReward, per_milestone=0.1, budget=0.5),
        "ProcessReward(len heuristic)": partial(ProcessReward, scorer=lambda h, a, o: len(a) % 10, normalize="running"),
        "DynamicRubric": DynamicRubric,
        "VectorReward": VectorReward,
        "ChatHistory": ChatHistory,
        "RecordEpisodes": lambda env: RecordEpisodes(env, directory / "atomic.jsonl"),
        "RecordEpisodes(atomic=False)": lambda env: RecordEpisodes(env, directory / "append.jsonl", atomic=False),
        "HackingMonitor": lambda env: HackingMonitor(env, gold=first_component(env)),
    }


def env_rows(env_id: str, steps: int, budget: float) -> list[list[str]]:
    env, bare_step, episodes = record(env_id, budget)
    env.close()
    with tempfile.TemporaryDirectory() as directory:
        bare_times, real_times = replay_step_times(ReplayEnv(env, episodes), steps)
        rows = []
        for name, make in wrappers(Path(directory)).items():
            times, _ = replay_step_times(make(ReplayEnv(env, episodes)), steps)
            overhead = median(times) - median(bare_times)
            mean_overhead = statistics.fmean(times) - statistics.fmean(bare_times)
            paired = median([(w - b) / r for w, b, r in zip(times, bare_times, real_times, strict=True)])
            limit = max(20e-6, 0.05 * bare_step)
            rows.append(
                [
                    env_id,
                    name,
                    fmt_seconds(bare_step),
                    fmt_seconds(max(overhead, 0.0)),
                    f"{overhead / bare_step:.2%}",
                    f"{paired:.2%}",
                    fmt_seconds(max(mean_overhead, 0.0)),
                    fmt_seconds(limit),
                    "yes" if overhead < limit else "NO",
                ]
            )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="*", default=None, help="env ids (default: all registered)")
    parser.add_argument("--steps", type=int, default=2000, help="replayed steps per wrapper")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds of real episodes recorded per env")
    args = parser.parse_args(argv)
    print(stamp())
    rows = []
    for env_id in args.envs or rewardlab.env_ids():
        print(f"  {env_id} ...", flush=True)
        try:
            rows.extend(env_rows(env_id, args.steps, args.budget))
        except RewardLabError as exc:  # a missing optional dependency: report it, go on
            rows.append([env_id, f"skipped: {exc}", "", "", "", "", "", "", ""])
    headers = [
        "env",
        "wrapper",
        "bare step p50",
        "overhead p50",
        "p50 / step",
        "per-step p50",
        "overhead mean",
        "budget",
        "p50 within",
    ]
    print(table(headers, rows))


if __name__ == "__main__":
    main()
