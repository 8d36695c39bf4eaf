"""Env-step overhead of RewardLab envs next to other text-env suites (GEM, TextArena) and a bare
Gymnasium env, measured in one run.

Each figure is the median wall time of one ``step`` (resets excluded). GEM's and TextArena's
GuessTheNumber step is the cheapest text step those suites have: string parsing and a comparison.
Ours is the first step of an oracle episode of each single-turn-capable env. Ratios are ours / theirs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import gymnasium as gym

import rewardlab
from benchmarks.common import fmt_seconds, median, stamp, table
from rewardlab.agents import OracleAgent

OUR_ENVS = ("RewardLab/ToolCall-v3", "RewardLab/BFCL-v1", "RewardLab/BPMN-v2")


def time_steps(make_episode: Callable[[], Callable[[], object]], budget: float) -> list[float]:
    """``make_episode()`` resets (untimed) and returns the step to time; repeat until the budget."""
    times, deadline = [], time.perf_counter() + budget
    while time.perf_counter() < deadline or len(times) < 20:
        step = make_episode()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def gymnasium_bare(budget: float) -> list[float]:
    env = gym.make("CartPole-v1")

    def episode():
        env.reset(seed=0)
        return lambda: env.step(0)

    return time_steps(episode, budget)


def gem_guess(budget: float) -> list[float]:
    import gem

    env = gem.make("game:GuessTheNumber-v0-easy")

    def episode():
        env.reset(seed=0)
        return lambda: env.step("\\boxed{5}")

    return time_steps(episode, budget)


def textarena_guess(budget: float) -> list[float]:
    import textarena

    env = textarena.make(env_id="GuessTheNumber-v0")

    def episode():
        env.reset(num_players=1)
        return lambda: env.step("[10]")

    return time_steps(episode, budget)


def ours(env_id: str, budget: float) -> list[float]:
    env = gym.make(env_id)
    oracle = OracleAgent(env)
    task_ids = env.unwrapped.tasks.ids("test")
    count = [0]

    def episode():
        observation, info = env.reset(seed=0, options={"task_id": task_ids[count[0] % len(task_ids)]})
        count[0] += 1
        oracle.reset()
        action = oracle.act(observation, info)
        return lambda: env.step(action)

    try:
        return time_steps(episode, budget)
    finally:
        env.close()


def peer_rows(budget: float = 2.0) -> list[tuple[str, str, str, str]]:
    """Rows (comparison, ours, theirs, ratio) for the suite-wide table."""
    peers = {"bare Gymnasium (CartPole)": gymnasium_bare(budget)}
    for name, fn in (("GEM GuessTheNumber", gem_guess), ("TextArena GuessTheNumber", textarena_guess)):
        try:
            peers[name] = fn(budget)
        except ImportError:
            continue
    rows = []
    for env_id in OUR_ENVS:
        if env_id not in rewardlab.env_ids():
            continue
        our = median(ours(env_id, budget))
        for name, times in peers.items():
            theirs = median(times)
            rows.append((f"{env_id} step vs {name}", fmt_seconds(our), fmt_seconds(theirs), f"{our / theirs:.1f}x"))
    return rows


if __name__ == "__main__":
    print(stamp(("rewardlab", "gymnasium", "gem-llm", "textarena")))
    print(table(["comparison", "ours", "theirs", "ours / theirs"], peer_rows()))
