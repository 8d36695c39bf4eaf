"""Web-v2 and MiniWoB-v1: step and reset speed, the miniwob package's Selenium env side by side,
observation time on a 100,000-node page, leaks over 200 episodes, and agent scores.

Run: ``python -m benchmarks.bench_web`` (needs Chromium; chromedriver for the Selenium comparison).
Options: ``--episodes N`` (leak runs, default 200), ``--steps N`` (timed steps per MiniWoB task, default 60).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import threading
import time
from collections.abc import Callable

import psutil

from benchmarks.common import fmt_seconds, median, percentile, stamp, table
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.browser.backends.browser import Chromium, find_chromium
from rewardlab.envs.miniwob.env import MiniWoBEnv
from rewardlab.envs.miniwob.oracle import parse_listing
from rewardlab.envs.web.env import WebEnv
from rewardlab.evaluation import run_episode, summarize

COMPARED_TASKS = ("click-checkboxes", "enter-text", "click-collapsible-nodelay")


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# ---------------------------------------------------------------------- Web-v2 step speed
def web_speed(env: WebEnv, tasks: int) -> tuple[list[float], list[float]]:
    """Replay the oracle on the first ``tasks`` tasks; every step and reset is timed."""
    steps, resets = [], []
    oracle = OracleAgent(env)
    for task_id in env.tasks.ids()[:tasks]:
        start = time.perf_counter()
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        resets.append(time.perf_counter() - start)
        oracle.reset()
        done = False
        while not done:
            action = oracle.act(obs, info)
            start = time.perf_counter()
            obs, _, terminated, truncated, info = env.step(action)
            steps.append(time.perf_counter() - start)
            done = terminated or truncated
    return steps, resets


# ---------------------------------------------------------------------- MiniWoB: ours vs the package's Selenium env
def ours_action(task: str, obs: str, step: int) -> str:
    rows = parse_listing(obs)
    if task == "click-checkboxes":
        boxes = [element for element, role, _, _ in rows if role == "checkbox"]
        return f"click({boxes[step % len(boxes)]})"
    if task == "enter-text":
        box = next(element for element, role, _, _ in rows if role == "textbox")
        return f'type({box}, "text {step}")'
    return f"click({next(element for element, role, _, _ in rows if role == 'tab')})"


def miniwob_ours(env: MiniWoBEnv, steps: int) -> tuple[list[float], list[float]]:
    step_times, reset_times = [], []
    for task in COMPARED_TASKS:
        for seed in range(3):
            start = time.perf_counter()
            obs, _ = env.reset(seed=seed, options={"task_id": f"{task}-{seed}"})
            reset_times.append(time.perf_counter() - start)
            for step in range(steps // 3):
                action = ours_action(task, obs, step)
                start = time.perf_counter()
                obs, _, terminated, truncated, _ = env.step(action)
                step_times.append(time.perf_counter() - start)
                if terminated or truncated:
                    break
    return step_times, reset_times


def miniwob_selenium(steps: int) -> tuple[list[float], list[float]] | str:
    """The ``miniwob`` package's own gymnasium env (Selenium + chromedriver) on the same tasks and actions."""
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    chromium = find_chromium()
    if chromium is None or not os.path.exists(chromedriver):
        return "skipped: needs chromium and chromedriver"
    os.environ.setdefault("MINIWOB_CHROME_BINARY", chromium)
    os.environ.setdefault("MINIWOB_CHROMEDRIVER", chromedriver)
    import gymnasium as gym
    import miniwob  # noqa: F401  (registers miniwob/* ids)
    from miniwob.action import ActionTypes

    step_times, reset_times = [], []
    for task in COMPARED_TASKS:
        env = gym.make(f"miniwob/{task}-v1")
        try:
            env.reset(seed=0)  # the first reset starts the driver: not timed
            for seed in range(3):
                start = time.perf_counter()
                obs, _ = env.reset(seed=seed)
                reset_times.append(time.perf_counter() - start)
                for step in range(steps // 3):
                    elements = obs["dom_elements"]
                    if task == "click-checkboxes":
                        refs = [e["ref"] for e in elements if e["tag"] == "input_checkbox"]
                        action = env.unwrapped.create_action(ActionTypes.CLICK_ELEMENT, ref=refs[step % len(refs)])
                    elif task == "enter-text":
                        ref = next(e["ref"] for e in elements if e["tag"] == "input_text")
                        action = env.unwrapped.create_action(
                            ActionTypes.FOCUS_ELEMENT_AND_TYPE_TEXT, ref=ref, text=f"text {step}"
                        )
                    else:
                        ref = next(e["ref"] for e in elements if e["tag"] == "h3")
                        action = env.unwrapped.create_action(ActionTypes.CLICK_ELEMENT, ref=ref)
                    start = time.perf_counter()
                    obs, _, terminated, truncated, _ = env.step(action)
                    step_times.append(time.perf_counter() - start)
                    if terminated or truncated:
                        break
        finally:
            env.close()
    return step_times, reset_times


def peer_rows(budget: float = 2.0) -> list[tuple[str, str, str, str]]:
    """Rows for the suite-wide table: MiniWoB step and reset, ours (Playwright) vs the miniwob
    package's Selenium env, same tasks and actions."""
    steps = 30
    chromium = Chromium()
    try:
        env = MiniWoBEnv(chromium=chromium)
        our_steps, our_resets = miniwob_ours(env, steps)
        env.close()
    finally:
        chromium.close()
    theirs = miniwob_selenium(steps)
    if isinstance(theirs, str):
        return [("MiniWoB step (Playwright vs Selenium)", fmt_seconds(median(our_steps)), theirs, "")]
    their_steps, their_resets = theirs
    return [
        (
            "MiniWoB step (Playwright vs miniwob's Selenium env)",
            fmt_seconds(median(our_steps)),
            fmt_seconds(median(their_steps)),
            f"{median(our_steps) / median(their_steps):.2f}",
        ),
        (
            "MiniWoB reset (Playwright vs miniwob's Selenium env)",
            fmt_seconds(median(our_resets)),
            fmt_seconds(median(their_resets)),
            f"{median(our_resets) / median(their_resets):.2f}",
        ),
    ]


# ---------------------------------------------------------------------- leaks
def resources() -> dict[str, int]:
    me = psutil.Process()
    return {
        "processes": len(me.children(recursive=True)),
        "open files": me.num_fds(),
        "inet sockets": len(me.net_connections(kind="inet")),
        "threads": threading.active_count(),
    }


def settled(before: dict[str, int], timeout: float = 10.0) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    after = resources()
    while after != before and time.monotonic() < deadline:
        time.sleep(0.1)
        after = resources()
    return after


def leak_run(
    make_env: Callable[[], object], episodes: int, short: bool
) -> tuple[dict[str, int], dict[str, int], float]:
    """``episodes`` episodes in a row (oracle and random alternating), then close; resources before/after."""
    before = resources()
    start = time.perf_counter()
    env = make_env()
    oracle = OracleAgent(env)
    ids = env.tasks.ids()
    for episode in range(episodes):
        agent = oracle if episode % 2 else RandomAgent(env, seed=episode)
        task_id = ids[(episode * 7) % len(ids)]
        if short:  # answer tasks (short oracle runs) keep the browser run affordable
            short_ids = [t for t in ids if "answer" in env.tasks.get(t).data["success"]]
            task_id = short_ids[episode % len(short_ids)]
        run_episode(env, agent, seed=episode, task_id=task_id)
    env.close()
    env.close()
    return before, settled(before), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    print(stamp(("rewardlab", "gymnasium", "playwright", "selenium", "miniwob", "lxml")))
    print(f"Chromium: {find_chromium()} · CPUs: {os.cpu_count()} · load average: {os.getloadavg()[0]:.1f}\n")

    chromium = Chromium()
    try:
        http_env, browser_env = WebEnv(backend="http"), WebEnv(backend="browser", chromium=chromium)
        http_steps, http_resets = web_speed(http_env, tasks=67)
        browser_steps, browser_resets = web_speed(browser_env, tasks=20)
        rows = []
        for name, steps, resets in (("http", http_steps, http_resets), ("browser", browser_steps, browser_resets)):
            rows.append(
                [
                    name,
                    len(steps),
                    fmt_seconds(median(steps)),
                    fmt_seconds(percentile(steps, 90)),
                    fmt_seconds(median(resets)),
                ]
            )
        print("## Web-v2: oracle trajectories, per step\n")
        print(table(["backend", "steps", "step median", "step p90", "reset median"], rows))
        print(
            f"\nhttp step median target < 2 ms: {'met' if median(http_steps) < 2e-3 else 'NOT met'}; "
            f"browser/http step ratio {median(browser_steps) / median(http_steps):.1f}x\n"
        )

        huge_rows = []
        for name, env in (("http", http_env), ("browser", browser_env)):
            env.reset(seed=0, options={"task_id": "shop-001"})
            env.backend.timeout = 60
            load = timed(lambda env=env: env.step('goto("/lab/huge?n=100000")'))
            build = [timed(lambda env=env: (env.session.refresh(), env.session.render())) for _ in range(5)]
            huge_rows.append([name, fmt_seconds(load), fmt_seconds(median(build)), fmt_seconds(max(build))])
        print("## 100,000-node page: load, then observation build (walk + render)\n")
        print(table(["backend", "load", "build median", "build max"], huge_rows))
        http_env.close()
        browser_env.close()

        ours = MiniWoBEnv(chromium=chromium)
        our_steps, our_resets = miniwob_ours(ours, args.steps)
        ours.close()
    finally:
        chromium.close()
    theirs = miniwob_selenium(args.steps)
    print("\n## MiniWoB step and reset: RewardLab/MiniWoB-v1 (Playwright) vs miniwob's Selenium env\n")
    print(
        f"Tasks: {', '.join(COMPARED_TASKS)} · seeds 0-2 · same actions (click a checkbox, type text, "
        "click the section header)\n"
    )
    rows = [
        [
            "RewardLab MiniWoB-v1 (Playwright)",
            len(our_steps),
            fmt_seconds(median(our_steps)),
            fmt_seconds(percentile(our_steps, 90)),
            fmt_seconds(median(our_resets)),
        ]
    ]
    if isinstance(theirs, str):
        print(theirs)
    else:
        their_steps, their_resets = theirs
        rows.append(
            [
                "miniwob package (Selenium)",
                len(their_steps),
                fmt_seconds(median(their_steps)),
                fmt_seconds(percentile(their_steps, 90)),
                fmt_seconds(median(their_resets)),
            ]
        )
        rows.append(
            [
                "ratio ours / theirs",
                "",
                f"{median(our_steps) / median(their_steps):.2f}",
                "",
                f"{median(our_resets) / median(their_resets):.2f}",
            ]
        )
    print(table(["env", "steps", "step median", "step p90", "reset median"], rows))

    print(f"\n## Leaks: {args.episodes} episodes in a row, then close() twice\n")
    rows = []
    runs = (
        ("Web-v2 http", lambda: WebEnv(backend="http"), False),
        ("Web-v2 browser", lambda: WebEnv(backend="browser"), True),
        ("MiniWoB-v1", lambda: MiniWoBEnv(), False),
    )
    for name, make, short in runs:
        before, after, seconds = leak_run(make, args.episodes, short)
        leaked = {k: after[k] - before[k] for k in before if after[k] != before[k]}
        rows.append(
            [
                name,
                args.episodes,
                " · ".join(f"{k} {v}" for k, v in before.items()),
                " · ".join(f"{k} {v}" for k, v in after.items()),
                "none" if not leaked else str(leaked),
                fmt_seconds(seconds),
            ]
        )
    print(table(["env", "episodes", "before", "after", "leaked", "time"], rows))

    print("\n## Agents (test split)\n")
    rows = []
    for name, make in (("Web-v2 http", lambda: WebEnv(backend="http")), ("MiniWoB-v1", lambda: MiniWoBEnv())):
        env = make()
        try:
            ids = env.tasks.ids("test")
            for agent_name, agent in (("oracle", OracleAgent(env)), ("random", None)):
                results = [
                    run_episode(env, agent or RandomAgent(env, seed=i), seed=i, task_id=task_id)
                    for i, task_id in enumerate(ids)
                ]
                summary = summarize(results)
                rows.append(
                    [
                        name,
                        agent_name,
                        len(results),
                        f"{summary['success_rate']:.2f}",
                        f"{summary['reward']['mean']:.3f}",
                        f"{statistics.fmean(r.steps for r in results):.1f}",
                    ]
                )
        finally:
            env.close()
    print(table(["env", "agent", "episodes", "success rate", "mean reward", "mean steps"], rows))


if __name__ == "__main__":
    main()
