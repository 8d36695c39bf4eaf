"""Concurrent sessions of ``rewardlab serve`` and of OpenEnv's own server (``openenv-core``), in OpenEnv's
scaling format, measured side by side in one run.

OpenEnv publishes, per deployment, the largest number of concurrent sessions served with at least 95% of
episodes completing, with P99 latency and requests per second, for an env whose step waits 10 s (2,048
sessions on 8 cores for one uvicorn process). This script measures the same here, in the same shape as
OpenEnv's ``test_scaling.py``: at each load level N, N sessions start at once, and each connects, resets,
plays its episode and closes; every operation has ``--timeout`` seconds (the step of the waiting env
``--timeout`` + ``--wait``). Workloads:

* **wait**: an env whose step waits ``--wait`` seconds (default 10) and ends the episode, OpenEnv's own
  benchmark env. On ours (``RewardLabBench/Wait-v0``, a Gymnasium env) the wait is a blocking
  ``time.sleep`` on the session's own thread: ``rewardlab serve`` runs every env call of a session on that
  session's single worker thread (an env's ``step`` is synchronous). On OpenEnv's server the same blocking
  sleep runs on the session's executor thread (OpenEnv's benchmark env does exactly this: ``openenv`` row);
  OpenEnv also lets an env override ``step_async``, which it awaits on the event loop, so the
  ``openenv-async`` row waits with ``asyncio.sleep`` and needs no thread for the wait; so does ``rewardlab
  serve`` for an env that defines ``step_async`` (:func:`rewardlab.serve.session.async_step`): the
  ``ours-async`` row (``RewardLabBench/WaitAsync-v0``). Targets compare like with like: the blocking rows
  with each other, and each async row with OpenEnv's async one.
* **toolcall**, **web**: oracle episodes of ``RewardLab/ToolCall-v3`` and ``RewardLab/Web-v2`` (HTTP backend;
  each env serves its sites on its own port), the actions played in this process beforehand by the oracle.
  OpenEnv's server hosts them through a 40-line adapter (:func:`openenv_classes`: an OpenEnv ``Environment``
  that makes the Gymnasium env at the first reset and forwards reset and step), so both servers run the
  same env code.

Each server runs in its own process under uvicorn (one worker), started fresh for every load level, so a
crash at one level does not carry to the next and each RSS is that level's peak. Per level and server: sessions,
episodes completed (reached ``done``, and for the oracle workloads ``is_success``), P50/P99 step round
trip, P99 episode (connect to last reply), steps/s (steps of completed episodes / seconds from the start to
the last completed episode), peak server RSS and threads, and what went wrong for the others:
``CAPACITY_REACHED`` (a clean refusal), ``connection refused``, ``timeout``, ``connection closed``, or
``crash`` (the server process died).

Limits: both servers' session caps are set to ``--max-sessions`` (default: the largest level; ours is
``ServeConfig.max_sessions``, the ``--max-sessions`` of ``rewardlab serve``; OpenEnv's is
``max_concurrent_envs``), and this process raises its soft ``RLIMIT_NOFILE`` to the hard limit, which
the servers inherit (each session holds a socket on both sides, and a Web-v2 env two more). uvicorn's
listen backlog is its default (2,048) on both.

``--repeat R`` plays every (level, server) R times, the servers taking turns within each level so that a busy
moment of the machine falls on all of them; the target is then checked on the median over the R runs of the
success rate and of the P99 step (a single P99 of a 10 s wait moves by about 1% between runs of the same server),
and a table lists every run's P99.

Run: ``python -m benchmarks.bench_scaling [--levels 64,256,1024,2048] [--wait 10] [--workloads wait,toolcall,web]
[--repeat 3]``; ``--quick`` for a smoke run (levels 16,64; wait 1 s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from benchmarks.common import (
    ErrorReply,
    ServerProcess,
    fmt_seconds,
    open_session,
    percentile,
    reset_frame,
    stamp,
    step_frame,
    table,
)

MODULE = "benchmarks.bench_scaling"
WAIT_ID = "RewardLabBench/Wait-v0"
WAIT_ASYNC_ID = "RewardLabBench/WaitAsync-v0"
TOOLCALL_ID = "RewardLab/ToolCall-v3"
WEB_ID = "RewardLab/Web-v2"
WORKLOAD_ENVS = {"wait": WAIT_ID, "toolcall": TOOLCALL_ID, "web": WEB_ID}
SUCCESS_RATE = 0.95
SERVER_LABELS = {
    "ours": "RewardLab",
    "ours-async": "RewardLab, step_async",
    "openenv": "OpenEnv",
    "openenv-async": "OpenEnv, step_async",
}


# ---------------------------------------------------------------- the envs


class WaitEnv(gym.Env):
    """Benchmark only: each step sleeps (blocking) for the seconds its action names, then ends the episode."""

    def __init__(self) -> None:
        self.observation_space = gym.spaces.Text(64)
        self.action_space = gym.spaces.Text(64)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        return "ready", {}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        seconds = float(action)
        time.sleep(seconds)
        return f"waited {seconds:g} s", 0.0, True, False, {}


class AsyncWaitEnv(WaitEnv):
    """WaitEnv whose step the server awaits (``step_async``): the wait is an ``asyncio.sleep``, no thread sleeps.
    Its reset and close are microseconds of pure Python, which it declares (``cheap_calls``), so a session of it
    needs no thread at all."""

    cheap_calls = True

    async def step_async(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        seconds = float(action)
        await asyncio.sleep(seconds)
        return f"waited {seconds:g} s", 0.0, True, False, {}


def openenv_classes(workload: str, async_step: bool) -> tuple[Any, Any, Any]:
    """OpenEnv's (environment, action, observation) for ``workload``: the waiting env (blocking sleep, or
    ``asyncio.sleep`` in ``step_async``), or an adapter hosting a RewardLab env."""
    from uuid import uuid4

    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State

    if workload == "wait":

        class WaitAction(Action):
            wait_seconds: float = 0.0

        class WaitObservation(Observation):
            waited_seconds: float = 0.0

        class WaitEnvironment(Environment):
            SUPPORTS_CONCURRENT_SESSIONS = True

            def __init__(self) -> None:
                self._state = State(episode_id=str(uuid4()), step_count=0)

            def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> WaitObservation:
                self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
                return WaitObservation(done=False, reward=0.0)

            def step(self, action: WaitAction, timeout_s: float | None = None, **kwargs: Any) -> WaitObservation:  # type: ignore[override]
                self._state.step_count += 1
                time.sleep(action.wait_seconds)
                return WaitObservation(waited_seconds=action.wait_seconds, done=True, reward=0.0)

            @property
            def state(self) -> State:
                return self._state

        class AsyncWaitEnvironment(WaitEnvironment):
            async def step_async(self, action: WaitAction, timeout_s: float | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
                self._state.step_count += 1
                await asyncio.sleep(action.wait_seconds)
                return WaitObservation(waited_seconds=action.wait_seconds, done=True, reward=0.0)

        return (AsyncWaitEnvironment if async_step else WaitEnvironment), WaitAction, WaitObservation

    class TextAction(Action):
        action: str

    class TextObservation(Observation):
        text: str = ""
        is_success: bool | None = None

    class GymnasiumEnvironment(Environment):
        """A RewardLab env behind OpenEnv's server: made at the first reset (which names ``env_id``)."""

        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self) -> None:
            self.env: gym.Env | None = None
            self._state = State(episode_id=str(uuid4()), step_count=0)

        def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> TextObservation:
            import rewardlab  # noqa: F401 - registers the envs

            if self.env is None:
                self.env = gym.make(kwargs["env_id"])
            options = {"task_id": kwargs["task_id"]} if kwargs.get("task_id") else None
            text, _ = self.env.reset(seed=seed, options=options)
            self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
            return TextObservation(text=text, done=False, reward=0.0)

        def step(self, action: TextAction, timeout_s: float | None = None, **kwargs: Any) -> TextObservation:  # type: ignore[override]
            assert self.env is not None
            self._state.step_count += 1
            text, reward, terminated, truncated, info = self.env.step(action.action)
            done = bool(terminated or truncated)
            return TextObservation(text=text, reward=float(reward), done=done, is_success=info.get("is_success"))

        @property
        def state(self) -> State:
            return self._state

        def close(self) -> None:
            if self.env is not None:
                self.env.close()
                self.env = None

    return GymnasiumEnvironment, TextAction, TextObservation


# ---------------------------------------------------------------- the servers (run as subprocesses)


def serve_ours(port: int, max_sessions: int) -> None:
    import rewardlab  # noqa: F401
    from rewardlab.serve import ServeConfig, serve

    gym.register(id=WAIT_ID, entry_point=f"{MODULE}:WaitEnv", disable_env_checker=True)
    gym.register(id=WAIT_ASYNC_ID, entry_point=f"{MODULE}:AsyncWaitEnv", disable_env_checker=True)
    serve(ServeConfig((WAIT_ID, WAIT_ASYNC_ID, TOOLCALL_ID, WEB_ID), max_sessions=max_sessions), port=port)


def serve_openenv(port: int, max_sessions: int, workload: str, async_step: bool) -> None:
    import uvicorn
    from openenv.core.env_server.http_server import create_app

    env, action, observation = openenv_classes(workload, async_step)
    app = create_app(env, action, observation, env_name=f"bench-{workload}", max_concurrent_envs=max_sessions)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=32 << 20)


def start_server(which: str, workload: str, max_sessions: int) -> ServerProcess:
    return ServerProcess(MODULE, which, ["--workloads", workload, "--max-sessions", str(max_sessions)])


def raise_fd_limit() -> int:
    """Raise this process's soft ``RLIMIT_NOFILE`` to its hard limit (servers started later inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---------------------------------------------------------------- episodes


@dataclass(frozen=True)
class Episode:
    """The frames of one episode: a reset, then steps; ``needs_success`` asks for ``is_success`` at the end."""

    reset: dict[str, Any]
    steps: tuple[dict[str, Any], ...]
    needs_success: bool


def oracle_episodes(env_id: str, count: int) -> list[tuple[dict[str, Any], list[str]]]:
    """``count`` oracle episodes of ``env_id``'s test tasks, played here: (reset data, actions)."""
    import rewardlab  # noqa: F401
    from rewardlab.agents import OracleAgent

    env = gym.make(env_id)
    episodes = []
    for task_id in env.unwrapped.tasks.ids("test")[:count]:
        observation, info = env.reset(seed=0, options={"task_id": task_id})
        agent, actions, done = OracleAgent(env), [], False
        while not done:
            action = agent.act(observation, info)
            actions.append(action)
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        if info.get("is_success"):
            episodes.append(({"task_id": task_id, "seed": 0}, actions))
    env.close()
    return episodes


def workload_episodes(workload: str, which: str, wait: float, count: int = 32) -> list[Episode]:
    """The episodes a session of ``which`` plays for ``workload`` (session ``i`` plays ``episodes[i % len]``)."""
    if workload == "wait":
        if which in ("ours", "ours-async"):
            env_id = WAIT_ASYNC_ID if which == "ours-async" else WAIT_ID
            return [Episode(reset_frame(env_id), (step_frame(f"{wait:g}"),), False)]
        return [Episode(reset_frame(None), ({"type": "step", "data": {"wait_seconds": wait}},), False)]
    env_id = WORKLOAD_ENVS[workload]
    return [
        Episode(reset_frame(env_id, **data), tuple(step_frame(action) for action in actions), True)
        for data, actions in oracle_episodes(env_id, count)
    ]


# ---------------------------------------------------------------- the client


@dataclass
class SessionResult:
    completed: bool = False
    failure: str | None = None
    step_latencies: list[float] = field(default_factory=list)
    episode_s: float = 0.0
    finished_at: float = 0.0


def classify(exc: BaseException) -> str:
    """What went wrong, in the table's words."""
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    if isinstance(exc, ErrorReply):
        return exc.code or "error reply"
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "timeout"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionClosed):
        if exc.rcvd is None and exc.sent is not None and exc.sent.code == 1011:
            return "keepalive ping timeout"  # the server answered no ping for 20 s: its event loop was starved
        return "connection closed" + (f" by the server ({exc.rcvd.code})" if exc.rcvd is not None else "")
    if isinstance(exc, InvalidHandshake):
        return "handshake refused"
    if isinstance(exc, OSError):
        return f"OSError {exc.errno}"
    return type(exc).__name__


async def play(url: str, episode: Episode, timeout: float, step_timeout: float) -> SessionResult:
    """One session, OpenEnv's way: connect, reset, the episode's steps, close."""
    result = SessionResult()
    start = time.perf_counter()
    ws = None
    try:
        ws = await asyncio.wait_for(open_session(url, open_timeout=timeout), timeout)
        reply = await exchange(ws, episode.reset, timeout)
        for frame in episode.steps:
            step_start = time.perf_counter()
            reply = await exchange(ws, frame, step_timeout)
            result.step_latencies.append(time.perf_counter() - step_start)
        data = reply["data"]
        if not data.get("done"):
            result.failure = "episode not done"
        elif episode.needs_success and not data["observation"].get("is_success"):
            result.failure = "oracle episode failed"
        else:
            result.completed = True
            result.finished_at = time.perf_counter()
            result.episode_s = result.finished_at - start
    except Exception as exc:  # noqa: BLE001 - classified and counted
        result.failure = classify(exc)
    finally:
        if ws is not None:
            with contextlib.suppress(Exception):  # the session is over either way
                await asyncio.wait_for(ws.send(json.dumps({"type": "close"})), 5)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 10)
    return result


async def exchange(ws: Any, frame: dict[str, Any], timeout: float) -> dict[str, Any]:
    await ws.send(json.dumps(frame))
    reply = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    if reply.get("type") == "error":
        raise ErrorReply(reply["data"])
    return reply


async def drive(
    url: str, episodes: Sequence[Episode], sessions: int, timeout: float, wait: float
) -> tuple[list[SessionResult], float]:
    """Start ``sessions`` sessions at once; their results and the start time."""
    start = time.perf_counter()
    results = await asyncio.gather(
        *(play(url, episodes[i % len(episodes)], timeout, timeout + wait) for i in range(sessions))
    )
    return list(results), start


class PeakSampler:
    """Peak RSS and threads of a process, sampled every ``interval`` seconds on a thread."""

    def __init__(self, pid: int, interval: float = 0.2):
        import psutil

        self.process = psutil.Process(pid)
        self.interval = interval
        self.rss_mb = 0.0
        self.threads = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self.stopping.is_set():
            try:
                self.rss_mb = max(self.rss_mb, self.process.memory_info().rss / 2**20)
                self.threads = max(self.threads, self.process.num_threads())
            except psutil.Error:
                return
            self.stopping.wait(self.interval)

    def __enter__(self) -> PeakSampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join()


@dataclass
class LevelResult:
    server: str
    workload: str
    sessions: int
    completed: int
    step_latencies: list[float]
    episode_latencies: list[float]
    steps_per_s: float
    rss_mb: float
    threads: int
    failures: Counter[str]
    crashed: str | None
    tracebacks: int

    @property
    def rate(self) -> float:
        return self.completed / self.sessions

    @property
    def ok(self) -> bool:
        return self.rate >= SUCCESS_RATE and self.crashed is None

    def failure_text(self) -> str:
        parts = [f"{count} {reason}" for reason, count in self.failures.most_common()]
        if self.crashed:
            parts.insert(0, self.crashed)
        return ", ".join(parts) or "none"

    def p99_step(self) -> float | None:
        return percentile(self.step_latencies, 99) if self.step_latencies else None


def run_level(
    which: str, workload: str, sessions: int, args: argparse.Namespace, episodes: Sequence[Episode]
) -> LevelResult:
    server = start_server(which, workload, args.max_sessions)
    try:
        with PeakSampler(server.process.pid) as sampler:
            results, start = asyncio.run(drive(server.url, episodes, sessions, args.timeout, args.wait))
        exit_code = server.process.poll()
    finally:
        log = server.stop(timeout=15)
    crashed = f"crash (exit code {exit_code})" if exit_code is not None else None
    done = [r for r in results if r.completed]
    steps = sum(len(r.step_latencies) for r in done)
    wall = max((r.finished_at for r in done), default=start) - start
    return LevelResult(
        server=which,
        workload=workload,
        sessions=sessions,
        completed=len(done),
        step_latencies=[t for r in done for t in r.step_latencies],
        episode_latencies=[r.episode_s for r in done],
        steps_per_s=steps / wall if wall > 0 else 0.0,
        rss_mb=sampler.rss_mb,
        threads=sampler.threads,
        failures=Counter(r.failure for r in results if r.failure),
        crashed=crashed,
        tracebacks=log.count("Traceback"),
    )


# ---------------------------------------------------------------- the tables


def level_rows(results: Sequence[LevelResult]) -> list[list[object]]:
    rows: list[list[object]] = []
    for r in results:
        has = bool(r.step_latencies)
        rows.append(
            [
                SERVER_LABELS[r.server],
                r.workload,
                f"{r.sessions:,}",
                f"{r.completed:,} ({100 * r.rate:.1f}%)",
                fmt_seconds(percentile(r.step_latencies, 50)) if has else "-",
                fmt_seconds(percentile(r.step_latencies, 99)) if has else "-",
                fmt_seconds(percentile(r.episode_latencies, 99)) if has else "-",
                f"{r.steps_per_s:,.0f}" if r.steps_per_s >= 10 else f"{r.steps_per_s:.1f}",
                f"{r.rss_mb:,.0f} MB",
                r.threads,
                r.failure_text(),
            ]
        )
    return rows


LEVEL_HEADERS = [
    "server",
    "env",
    "sessions",
    "completed",
    "P50 step",
    "P99 step",
    "P99 episode",
    "steps/s",
    "peak RSS",
    "peak threads",
    "failures",
]


def summary_rows(results: Sequence[LevelResult]) -> list[list[object]]:
    """Per server and workload: max sessions at >= 95% and the P99 step and steps/s there (medians over repeated
    runs, :class:`Runs`), and where and how it first failed."""
    rows: list[list[object]] = []
    groups = grouped(results)
    for server, workload in dict.fromkeys((server, workload) for server, workload, _ in groups):
        levels = sorted((sessions, runs) for (s, w, sessions), runs in groups.items() if (s, w) == (server, workload))
        best = next((level for level in reversed(levels) if level[1].ok), None)
        failing = next((runs for _, runs in levels if not runs.ok), None)
        first_fail = next((r for r in failing.results if not r.ok), failing.results[0]) if failing else None
        p99 = best[1].p99_step() if best else None
        rows.append(
            [
                SERVER_LABELS[server],
                workload,
                f"{best[0]:,}" if best else "none",
                fmt_seconds(p99) if p99 is not None else "-",
                f"{statistics.median(r.steps_per_s for r in best[1].results):,.1f}" if best else "-",
                f"{first_fail.sessions:,}: {100 * first_fail.rate:.1f}% ({first_fail.failure_text()})"
                if first_fail
                else "did not fail",
                clean_or_not(first_fail) if first_fail else "",
            ]
        )
    return rows


def clean_or_not(result: LevelResult) -> str:
    """A refusal with CAPACITY_REACHED is a clean failure; anything else (a hang, a crash) is not."""
    if result.crashed:
        return "not clean (crash)"
    reasons = set(result.failures)
    if reasons <= {"CAPACITY_REACHED"}:
        return "clean (CAPACITY_REACHED)"
    return "not clean (" + ", ".join(sorted(reasons - {"CAPACITY_REACHED"})) + ")"


TARGET_PAIRS = (("ours", "openenv"), ("ours", "openenv-async"), ("ours-async", "openenv-async"))
"""(our row, their row) pairs the target is checked on: blocking against blocking, and each against OpenEnv's
async row."""


@dataclass(frozen=True)
class Runs:
    """Every run of one (server, workload, level): the success rate and P99 step the target reads are medians."""

    results: tuple[LevelResult, ...]

    @property
    def rate(self) -> float:
        return statistics.median(r.rate for r in self.results)

    @property
    def ok(self) -> bool:
        return self.rate >= SUCCESS_RATE and not any(r.crashed for r in self.results)

    def p99_step(self) -> float | None:
        """The median over the runs that completed at least 95% of their episodes of each one's P99 step."""
        values = [p for r in self.results if r.ok and (p := r.p99_step()) is not None]
        return statistics.median(values) if values else None


def grouped(results: Sequence[LevelResult]) -> dict[tuple[str, str, int], Runs]:
    """``results`` by (server, workload, sessions), in the order first seen."""
    groups: dict[tuple[str, str, int], list[LevelResult]] = {}
    for r in results:
        groups.setdefault((r.server, r.workload, r.sessions), []).append(r)
    return {key: Runs(tuple(runs)) for key, runs in groups.items()}


def compare(results: Sequence[LevelResult], ours: str, theirs: str) -> list[str]:
    """Where the ``ours`` row misses the target against ``theirs``: success at every level where theirs
    succeeds, and a P99 step at most theirs at every level both serve (medians over repeated runs, :class:`Runs`)."""
    groups = grouped(results)
    misses = []
    for (server, workload, sessions), mine in groups.items():
        other = groups.get((theirs, workload, sessions))
        if server != ours or other is None:
            continue
        label = f"{workload} at {sessions:,}"
        if other.ok and not mine.ok:
            misses.append(f"{label}: ours {100 * mine.rate:.1f}% completed, theirs {100 * other.rate:.1f}%")
        ours_p99, their_p99 = mine.p99_step(), other.p99_step()
        if mine.ok and other.ok and ours_p99 is not None and their_p99 is not None and ours_p99 > their_p99:
            misses.append(
                f"{label}: P99 step {fmt_seconds(ours_p99)} > {fmt_seconds(their_p99)} "
                f"({100 * (ours_p99 / their_p99 - 1):+.1f}%)"
            )
    return misses


def repeat_rows(results: Sequence[LevelResult]) -> list[list[object]]:
    """Per (server, workload, level): every run's P99 step and their median."""
    rows: list[list[object]] = []
    for (server, workload, sessions), runs in grouped(results).items():
        each = [r.p99_step() for r in runs.results]
        median = runs.p99_step()
        rows.append(
            [
                SERVER_LABELS[server],
                workload,
                f"{sessions:,}",
                ", ".join(fmt_seconds(p) if p is not None else "-" for p in each),
                fmt_seconds(median) if median is not None else "-",
                f"{100 * runs.rate:.1f}%",
            ]
        )
    return rows


# ---------------------------------------------------------------- main


def parse_levels(text: str) -> list[int]:
    levels = [int(part) for part in text.split(",") if part.strip()]
    if not levels or min(levels) < 1:
        raise argparse.ArgumentTypeError(f"levels are positive integers separated by commas, got {text!r}")
    return levels


def main(argv: Sequence[str] | None = None, emit: Callable[[str], None] = print) -> list[LevelResult]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=parse_levels, default=None, help="concurrent sessions per level")
    parser.add_argument("--wait", type=float, default=None, help="seconds the waiting env's step waits")
    parser.add_argument("--workloads", default="wait,toolcall,web", help="of wait, toolcall, web")
    parser.add_argument("--openenv", default="openenv,openenv-async", help="OpenEnv rows: openenv, openenv-async")
    parser.add_argument("--ours", default="ours,ours-async", help="our rows for the waiting env: ours, ours-async")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per operation (OpenEnv's default)")
    parser.add_argument("--max-sessions", type=int, default=None, help="both servers' cap (default: largest level)")
    parser.add_argument("--quick", action="store_true", help="levels 16,64 and a 1 s wait")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each (level, server); medians are compared")
    parser.add_argument("--serve", nargs=2, metavar=("WHICH", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.levels = args.levels or ([16, 64] if args.quick else [64, 256, 1024, 2048])
    args.wait = args.wait if args.wait is not None else (1.0 if args.quick else 10.0)
    args.max_sessions = args.max_sessions or max(args.levels)
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = sorted(set(workloads) - set(WORKLOAD_ENVS))
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: {', '.join(WORKLOAD_ENVS)}")
    openenv_rows = [w.strip() for w in args.openenv.split(",") if w.strip()]
    if set(openenv_rows) - {"openenv", "openenv-async"}:
        parser.error(f"--openenv takes openenv and/or openenv-async, got {args.openenv!r}")
    our_rows = [w.strip() for w in args.ours.split(",") if w.strip()]
    if not our_rows or set(our_rows) - {"ours", "ours-async"}:
        parser.error(f"--ours takes ours and/or ours-async, got {args.ours!r}")

    if args.serve:
        which, port = args.serve[0], int(args.serve[1])
        if which in ("ours", "ours-async"):
            serve_ours(port, args.max_sessions)
        else:
            serve_openenv(port, args.max_sessions, workloads[0], which == "openenv-async")
        return []

    fd_limit = raise_fd_limit()
    emit(stamp(("rewardlab", "openenv-core", "uvicorn", "starlette", "websockets")))
    emit(
        f"levels {', '.join(f'{n:,}' for n in args.levels)} · wait {args.wait:g} s · timeout {args.timeout:g} s per "
        f"operation · max sessions {args.max_sessions:,} on both servers · RLIMIT_NOFILE {fd_limit:,} · "
        f"one uvicorn process per server, started fresh per level"
    )
    results: list[LevelResult] = []
    for workload in workloads:
        servers = [*our_rows, *openenv_rows] if workload == "wait" else ["ours", "openenv"]
        episodes = {which: workload_episodes(workload, which, args.wait) for which in servers}
        for run in range(1, max(1, args.repeat) + 1):
            for sessions in args.levels:
                for which in servers:
                    result = run_level(which, workload, sessions, args, episodes[which])
                    results.append(result)
                    p99 = result.p99_step()
                    print(
                        f"  run {run} {SERVER_LABELS[which]:22} {workload:8} {sessions:6,}: {100 * result.rate:.1f}% "
                        f"P99 {fmt_seconds(p99) if p99 is not None else '-'} ({result.failure_text()})",
                        file=sys.stderr,
                        flush=True,
                    )
    emit(f"\n## Per load level (waiting env: step waits {args.wait:g} s)\n")
    emit(table(LEVEL_HEADERS, level_rows(results)))
    emit(f"\n## OpenEnv's format: max concurrent sessions with >= {SUCCESS_RATE:.0%} of episodes completing\n")
    emit(
        table(
            ["server", "env", "max sessions ≥95%", "P99 step there", "steps/s there", "first failing level", "how"],
            summary_rows(results),
        )
    )
    if args.repeat > 1:
        emit(f"\n## P99 step of each of {args.repeat} runs, and the median the target reads\n")
        emit(
            table(
                ["server", "env", "sessions", "P99 step of each run", "median", "median completed"],
                repeat_rows(results),
            )
        )
    tracebacks = {SERVER_LABELS[r.server]: 0 for r in results}
    for r in results:
        tracebacks[SERVER_LABELS[r.server]] += r.tracebacks
    emit("\nserver log tracebacks: " + ", ".join(f"{name} {count}" for name, count in tracebacks.items()))
    served = {r.server for r in results}
    for ours, theirs in TARGET_PAIRS:
        if {ours, theirs} <= served:
            misses = compare(results, ours, theirs)
            verdict = "met" if not misses else "missed: " + "; ".join(misses)
            emit(
                f"target, {SERVER_LABELS[ours]} vs {SERVER_LABELS[theirs]} (≥95% wherever theirs is, P99 step ≤ "
                f"theirs): {verdict}"
            )
    return results


if __name__ == "__main__":
    main()
    sys.exit(0)
