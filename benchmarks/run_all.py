"""The suite-wide speed benchmark: every env, then the peer comparisons, in one run.

Per env: ``reset`` and ``step`` latency (p50, p99) over oracle episodes on the test split,
scoring latency (the episode's final step, where the rubric runs), and steps/s of
``SyncVectorEnv`` and ``AsyncVectorEnv`` with 2 workers under random actions. Each env (and each
vector env) is warmed up first with one untimed reset and step, so that first-use costs (a lazy
import, a model or table loaded on first use, cold caches) stay out of the timings. Then each
env-specific benchmark that compares against a peer installed from PyPI (GEM and TextArena
text games, bfcl-eval's checker, the miniwob package's Selenium env) adds its rows.

Usage: ``python -m benchmarks [--budget SECONDS] [--envs ID ...] [--skip-peers]``.
"""

from __future__ import annotations

import argparse
import importlib
import time

import gymnasium as gym
import numpy as np

import rewardlab
from benchmarks.common import fmt_seconds, median, percentile, stamp, table
from rewardlab.agents import OracleAgent
from rewardlab.errors import RewardLabError

PEER_BENCHMARKS = ("benchmarks.bench_peers_textgames", "benchmarks.bench_bfcl", "benchmarks.bench_web")
"""Modules with ``peer_rows(budget) -> list[tuple[str, str, str, str]]``: (comparison, ours, theirs, ratio)."""


def warm_up(env: gym.Env, oracle: OracleAgent, task_id: str) -> None:
    """One untimed reset and oracle step."""
    observation, info = env.reset(seed=0, options={"task_id": task_id})
    oracle.reset()
    env.step(oracle.act(observation, info))


def time_env(env_id: str, budget: float) -> dict[str, list[float]]:
    """Oracle episodes over test tasks until ``budget`` seconds are spent, after :func:`warm_up`."""
    env = gym.make(env_id)
    oracle = OracleAgent(env)
    task_ids = env.unwrapped.tasks.ids("test")
    warm_up(env, oracle, task_ids[0])
    resets, steps, scoring = [], [], []
    deadline = time.perf_counter() + budget
    episode = 0
    while time.perf_counter() < deadline or episode < 2:
        start = time.perf_counter()
        observation, info = env.reset(seed=episode, options={"task_id": task_ids[episode % len(task_ids)]})
        resets.append(time.perf_counter() - start)
        oracle.reset()
        done = False
        while not done:
            action = oracle.act(observation, info)
            start = time.perf_counter()
            observation, _, terminated, truncated, info = env.step(action)
            elapsed = time.perf_counter() - start
            steps.append(elapsed)
            done = terminated or truncated
        scoring.append(elapsed)
        episode += 1
    env.close()
    return {"reset": resets, "step": steps, "scoring": scoring}


def vector_steps_per_second(env_id: str, mode: str, budget: float) -> float:
    """Steps/s (summed over 2 workers) of random actions through ``gym.make_vec``."""
    # spawn, not fork: a parent that has loaded torch (Slides' sentence model) deadlocks forked workers
    kwargs = {"shared_memory": False, "context": "spawn"} if mode == "async" else {}
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, vector_kwargs=kwargs)
    try:
        base = gym.make(env_id)
        base.reset(seed=0)  # some envs draw well-formed random actions from the current task
        rng = np.random.default_rng(0)
        actions = [base.unwrapped.sample_action(rng) for _ in range(64)]
        base.close()
        envs.reset(seed=0)
        envs.step((actions[0], actions[1]))  # warm-up, untimed
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < budget or count < 4:
            envs.step((actions[count % 64], actions[(count + 1) % 64]))
            count += 1
        return 2 * count / (time.perf_counter() - start)
    finally:
        envs.close()


def env_rows(env_ids: list[str], budget: float) -> list[list[str]]:
    rows = []
    for env_id in env_ids:
        print(f"  timing {env_id} ...", flush=True)
        try:
            t = time_env(env_id, budget)
            sync = vector_steps_per_second(env_id, "sync", budget / 2)
            async_ = vector_steps_per_second(env_id, "async", budget / 2)
        except RewardLabError as exc:  # a missing optional dependency: report, do not stop the suite
            rows.append([env_id, f"skipped: {exc}", "", "", "", "", "", ""])
            continue
        rows.append(
            [
                env_id,
                fmt_seconds(median(t["reset"])),
                fmt_seconds(percentile(t["reset"], 99)),
                fmt_seconds(median(t["step"])),
                fmt_seconds(percentile(t["step"], 99)),
                fmt_seconds(median(t["scoring"])),
                f"{sync:.0f}",
                f"{async_:.0f}",
            ]
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=4.0, help="seconds of timing per env and measure")
    parser.add_argument("--envs", nargs="*", default=None, help="env ids (default: all registered)")
    parser.add_argument("--skip-peers", action="store_true")
    args = parser.parse_args(argv)
    env_ids = args.envs or rewardlab.env_ids()
    print(stamp(("rewardlab", "gymnasium", "playwright", "bfcl-eval", "miniwob", "gem-llm", "textarena")))
    rows = env_rows(env_ids, args.budget)
    headers = ["env", "reset p50", "reset p99", "step p50", "step p99", "scoring p50", "sync steps/s", "async steps/s"]
    print(table(headers, rows))
    if args.skip_peers:
        return
    peer = []
    for name in PEER_BENCHMARKS:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            peer.append([name, f"unavailable: {exc}", "", ""])
            continue
        print(f"  running {name} ...", flush=True)
        peer.extend(list(row) for row in module.peer_rows(args.budget))
    print()
    print(table(["peer comparison", "ours", "theirs", "ours / theirs"], peer))


if __name__ == "__main__":
    main()
