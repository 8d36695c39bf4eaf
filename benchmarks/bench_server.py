"""``rewardlab serve`` under load, next to OpenEnv's own server (``openenv-core``) measured in the same run.

Each server runs in its own process under uvicorn; one client process (asyncio, ``websockets``) drives it
with the same frames. Four measurements:

1. **Added latency, trivial env.** One session, ``--steps`` sequential step round trips of a trivial env
   (ours: the template EchoEnv's draft step; OpenEnv's: its echo template's step); added = p50 round trip
   − p50 in-process step of the same env. Target: ours at most 1.0× OpenEnv's added latency.
2. **Added latency, ToolCall-v3.** The same with ``RewardLab/ToolCall-v3`` (a malformed call, which the env
   answers without ending the episode). Target: p50 added at most 300 µs.
3. **Load.** ``--sessions`` concurrent sessions (default 256): trivial env on both servers, then ToolCall-v3
   oracle episodes (the actions come from the in-process oracle): steps/s, p50/p99 step latency, server RSS,
   errors (must be 0).
4. **Churn.** ``--churn`` sessions (default 10,000) opened, reset and closed one after another: the server's
   RSS, threads and open file descriptors at the start and every quarter (must stay flat).

Run: ``python -m benchmarks.bench_server [--sessions 256] [--churn 10000] [--steps 2000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.common import (
    ServerProcess,
    call,
    fmt_seconds,
    median,
    open_session,
    percentile,
    reset_frame,
    stamp,
    step_frame,
    table,
)

TRIVIAL_ID = "RewardLabBench/Echo-v0"
TOOLCALL_ID = "RewardLab/ToolCall-v3"


# ---------------------------------------------------------------- the servers (run as subprocesses)


def serve_ours(port: int) -> None:
    import gymnasium as gym

    import rewardlab  # noqa: F401
    from rewardlab.serve import ServeConfig, serve

    gym.register(id=TRIVIAL_ID, entry_point="rewardlab.envs.echo.env:EchoEnv")
    serve(ServeConfig((TRIVIAL_ID, TOOLCALL_ID), max_sessions=1024), port=port)


def openenv_echo() -> tuple[Any, Any, Any]:
    """OpenEnv's echo template env (``openenv/cli/templates/openenv_env``), with its action and observation."""
    from uuid import uuid4

    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State

    class EchoAction(Action):
        action: str

    class EchoObservation(Observation):
        echoed_message: str = ""
        message_length: int = 0

    class EchoEnvironment(Environment):
        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self) -> None:
            self._state = State(episode_id=str(uuid4()), step_count=0)

        def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> EchoObservation:
            self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
            return EchoObservation(echoed_message="ready", done=False, reward=0.0)

        def step(self, action: EchoAction, timeout_s: float | None = None, **kwargs: Any) -> EchoObservation:  # type: ignore[override]
            self._state.step_count += 1
            message = action.action
            return EchoObservation(echoed_message=message, message_length=len(message), done=False, reward=0.1)

        @property
        def state(self) -> State:
            return self._state

    return EchoEnvironment, EchoAction, EchoObservation


def serve_openenv(port: int) -> None:
    import uvicorn
    from openenv.core.env_server.http_server import create_app

    env, action, observation = openenv_echo()
    app = create_app(env, action, observation, env_name="echo", max_concurrent_envs=1024)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=32 << 20)


def server_process(which: str) -> ServerProcess:
    """``python -m benchmarks.bench_server --serve {ours,openenv} PORT`` until stopped."""
    return ServerProcess("benchmarks.bench_server", which)


# ---------------------------------------------------------------- the client


async def sequential_latency(url: str, env_id: str | None, action: str, steps: int) -> list[float]:
    ws = await open_session(url)
    times = []
    try:
        await call(ws, reset_frame(env_id))
        for index in range(steps + 50):
            start = time.perf_counter()
            reply = await call(ws, step_frame(action))
            elapsed = time.perf_counter() - start
            if index >= 50:
                times.append(elapsed)
            if reply["data"]["done"]:
                await call(ws, reset_frame(None))
    finally:
        await ws.close()
    return times


async def load(
    url: str, env_id: str | None, sessions: int, episodes: Sequence[tuple[dict[str, Any], Sequence[str]]], rounds: int
) -> tuple[list[float], int, float]:
    """Open ``sessions`` sessions one after another, then let all of them play ``rounds`` episodes (reset data,
    actions) at once. Returns the step latencies, the errors and the wall seconds from the first step to the
    last (the closing handshakes after it are not timed)."""
    latencies: list[float] = []
    errors = 0
    connections = []
    for index in range(sessions):
        try:
            ws = await open_session(url)
            await call(ws, reset_frame(env_id, **episodes[index % len(episodes)][0]))
            connections.append(ws)
        except Exception:  # noqa: BLE001 - counted
            errors += 1

    finished: list[float] = []

    async def session(index: int, ws: Any) -> None:
        nonlocal errors
        try:
            for round_index in range(rounds):
                data, actions = episodes[(index + round_index) % len(episodes)]
                if round_index:
                    await call(ws, reset_frame(None, **data))
                for action in actions:
                    start = time.perf_counter()
                    await call(ws, step_frame(action))
                    latencies.append(time.perf_counter() - start)
            finished.append(time.perf_counter())
        except Exception:  # noqa: BLE001 - counted
            errors += 1

    start = time.perf_counter()
    await asyncio.gather(*(session(i, ws) for i, ws in enumerate(connections)))
    wall = max(finished, default=start) - start  # to the last step: closing is not serving
    await asyncio.gather(*(ws.close() for ws in connections))
    return latencies, errors, wall


async def churn(url: str, env_id: str, count: int, server: ServerProcess) -> list[tuple[int, dict[str, float]]]:
    samples = [(0, server.resources())]
    for index in range(1, count + 1):
        ws = await open_session(url)
        await call(ws, reset_frame(env_id))
        await ws.send(json.dumps({"type": "close"}))
        await ws.close()
        if index % (count // 4) == 0:
            await asyncio.sleep(0.2)  # let the last session's thread end
            samples.append((index, server.resources()))
    return samples


# ---------------------------------------------------------------- in-process reference


def in_process_step(env_id: str, action: str, repeat: int) -> list[float]:
    import gymnasium as gym

    import rewardlab  # noqa: F401

    if env_id not in gym.registry:
        gym.register(id=env_id, entry_point="rewardlab.envs.echo.env:EchoEnv")
    env = gym.make(env_id)
    env.reset(seed=0)
    times = []
    for index in range(repeat + 50):
        start = time.perf_counter()
        _, _, terminated, truncated, _ = env.step(action)
        elapsed = time.perf_counter() - start
        if index >= 50:
            times.append(elapsed)
        if terminated or truncated:
            env.reset()
    env.close()
    return times


def openenv_in_process_step(repeat: int) -> list[float]:
    env_class, action_class, _ = openenv_echo()
    env = env_class()
    env.reset()
    action = action_class(action="draft:x")
    times = []
    for index in range(repeat + 50):
        start = time.perf_counter()
        env.step(action)
        elapsed = time.perf_counter() - start
        if index >= 50:
            times.append(elapsed)
    return times


def toolcall_episodes(count: int) -> list[tuple[dict[str, Any], list[str]]]:
    """``count`` oracle episodes of ToolCall-v3 test tasks: (reset data, actions)."""
    import gymnasium as gym

    import rewardlab  # noqa: F401
    from rewardlab.agents import OracleAgent

    env = gym.make(TOOLCALL_ID)
    episodes = []
    for task_id in env.unwrapped.tasks.ids("test")[:count]:
        observation, info = env.reset(seed=0, options={"task_id": task_id})
        agent, actions, done = OracleAgent(env), [], False
        while not done:
            action = agent.act(observation, info)
            actions.append(action)
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        episodes.append(({"task_id": task_id, "seed": 0}, actions))
    env.close()
    return episodes


def in_process_rate(episodes: Sequence[tuple[dict[str, Any], Sequence[str]]], rounds: int = 3) -> float:
    """Steps per second of playing ``episodes`` in this process, resets included (the load rows include them)."""
    import gymnasium as gym

    env = gym.make(TOOLCALL_ID)
    steps, start = 0, time.perf_counter()
    for _ in range(rounds):
        for data, actions in episodes:
            env.reset(seed=data["seed"], options={"task_id": data["task_id"]})
            for action in actions:
                env.step(action)
                steps += 1
    env.close()
    return steps / (time.perf_counter() - start)


MALFORMED_CALL = '{"name": "no_such_tool", "arguments": {}}'


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3, help="episodes per session under load")
    parser.add_argument("--steps", type=int, default=2000, help="sequential steps for the latency rows")
    parser.add_argument("--churn", type=int, default=10_000)
    parser.add_argument("--serve", nargs=2, metavar=("WHICH", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        (serve_ours if args.serve[0] == "ours" else serve_openenv)(int(args.serve[1]))
        return 0

    print(stamp(("rewardlab", "openenv-core", "uvicorn", "starlette", "websockets")))
    trivial_local = median(in_process_step(TRIVIAL_ID, "draft:x", args.steps))
    openenv_local = median(openenv_in_process_step(args.steps))
    toolcall_local = median(in_process_step(TOOLCALL_ID, MALFORMED_CALL, args.steps))
    episodes = toolcall_episodes(32)
    trivial_episode = [({}, ["draft:x"] * 10)]

    ours, theirs = server_process("ours"), server_process("openenv")
    failures = []
    try:
        ours_trivial = median(asyncio.run(sequential_latency(ours.url, TRIVIAL_ID, "draft:x", args.steps)))
        theirs_trivial = median(asyncio.run(sequential_latency(theirs.url, None, "draft:x", args.steps)))
        ours_toolcall = median(asyncio.run(sequential_latency(ours.url, TOOLCALL_ID, MALFORMED_CALL, args.steps)))
        added_ours, added_theirs = ours_trivial - trivial_local, theirs_trivial - openenv_local
        added_toolcall = ours_toolcall - toolcall_local
        print("\n## Added latency per step round trip (p50, one session, loopback)\n")
        rows = [
            [
                "RewardLab, EchoEnv (trivial)",
                fmt_seconds(trivial_local),
                fmt_seconds(ours_trivial),
                fmt_seconds(added_ours),
            ],
            [
                "OpenEnv, echo template (trivial)",
                fmt_seconds(openenv_local),
                fmt_seconds(theirs_trivial),
                fmt_seconds(added_theirs),
            ],
            [
                "RewardLab, ToolCall-v3",
                fmt_seconds(toolcall_local),
                fmt_seconds(ours_toolcall),
                fmt_seconds(added_toolcall),
            ],
        ]
        print(table(["server, env", "in-process step", "round trip", "added"], rows))
        ratio = added_ours / added_theirs
        print(
            f"\nours / OpenEnv added latency: {ratio:.2f}× (target ≤ 1.0×); ToolCall-v3 added p50 "
            f"{fmt_seconds(added_toolcall)} (target ≤ 300 µs)"
        )
        if ratio > 1.0:
            failures.append(f"added latency {ratio:.2f}× OpenEnv's")
        if added_toolcall > 300e-6:
            failures.append(f"ToolCall-v3 added latency {fmt_seconds(added_toolcall)}")

        print(f"\n## {args.sessions} concurrent sessions, {args.rounds} episodes each\n")
        rows = []
        for label, server, env_id, plays in (
            ("RewardLab, EchoEnv (10 steps/episode)", ours, TRIVIAL_ID, trivial_episode),
            ("OpenEnv, echo template (10 steps/episode)", theirs, None, trivial_episode),
            ("RewardLab, ToolCall-v3 oracle episodes", ours, TOOLCALL_ID, episodes),
        ):
            latencies, errors, wall = asyncio.run(load(server.url, env_id, args.sessions, plays, args.rounds))
            resources = server.resources()
            rows.append(
                [
                    label,
                    f"{len(latencies) / wall:,.0f}",
                    fmt_seconds(median(latencies)),
                    fmt_seconds(percentile(latencies, 99)),
                    f"{resources['rss_mb']:.0f} MB",
                    errors,
                ]
            )
            if errors:
                failures.append(f"{label}: {errors} errors")
        rows.append(
            [
                "(reference) ToolCall-v3, the same episodes in-process, one thread",
                f"{in_process_rate(episodes):,.0f}",
                "",
                "",
                "",
                "",
            ]
        )
        print(table(["server, env", "steps/s", "p50", "p99", "server RSS", "errors"], rows))

        print(f"\n## {args.churn:,} sessions opened and closed in a row (RewardLab, EchoEnv)\n")
        samples = asyncio.run(churn(ours.url, TRIVIAL_ID, args.churn, ours))
        print(
            table(
                ["sessions so far", "RSS", "threads", "fds"],
                [[f"{n:,}", f"{r['rss_mb']:.1f} MB", int(r["threads"]), int(r["fds"])] for n, r in samples],
            )
        )
        first, last = samples[0][1], samples[-1][1]
        if (
            last["threads"] > first["threads"] + 2
            or last["fds"] > first["fds"] + 4
            or last["rss_mb"] > first["rss_mb"] + 30
        ):
            failures.append("resources grew over the churn")
    finally:
        ours_log, theirs_log = ours.stop(), theirs.stop()
    print(
        f"\nserver log lines with a traceback: RewardLab {ours_log.count('Traceback')}, "
        f"OpenEnv {theirs_log.count('Traceback')}"
    )
    if "Traceback" in ours_log:
        failures.append("our server logged a traceback")
    print("\nall targets met" if not failures else "\nmissed: " + "; ".join(failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
