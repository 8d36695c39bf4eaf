"""Helpers shared by the benchmark scripts: timing, tables, and the stamp every table carries."""

from __future__ import annotations

import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any


def time_calls(fn: Callable[[], object], *, repeat: int = 200, warmup: int = 5) -> list[float]:
    """Wall-clock seconds of ``repeat`` calls of ``fn`` after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def median(times: Sequence[float]) -> float:
    return statistics.median(times)


def percentile(times: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    ordered = sorted(times)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def fmt_seconds(seconds: float) -> str:
    """Seconds as µs, ms or s with three significant figures."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)) + " |"

    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, cells)])


def stamp(packages: Sequence[str] = ("rewardlab", "gymnasium")) -> str:
    """Commit, Python and package versions, printed above every table."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parent,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    versions = []
    for name in packages:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    return f"commit {commit or 'unknown'} · Python {platform.python_version()} · " + " · ".join(versions)


# ---------------------------------------------------------------- servers under test, and a WebSocket client for them


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """``python -m MODULE --serve WHICH PORT [ARGS...]`` until stopped (the benchmark module runs its own servers).

    The server's stderr goes to a temporary file, not a pipe: a server logging thousands of lines under load
    would otherwise block on a full pipe and look hung.
    """

    def __init__(self, module: str, which: str, args: Sequence[str] = ()):
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, "--serve", which, str(self.port), *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    raise RuntimeError(f"{which} server did not start: {self._read_log()!r}") from None
                time.sleep(0.1)

    def _read_log(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def resources(self) -> dict[str, float]:
        import psutil

        process = psutil.Process(self.process.pid)
        return {"rss_mb": process.memory_info().rss / 2**20, "threads": process.num_threads(), "fds": process.num_fds()}

    def stop(self, timeout: float = 30) -> str:
        """Terminate the server (killed after ``timeout`` seconds); its stderr."""
        self.process.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        text = self._read_log()
        self.log.close()
        return text


class ErrorReply(RuntimeError):
    """The server answered with an ``error`` frame; ``code`` is its error code (``CAPACITY_REACHED``, ...)."""

    def __init__(self, data: dict[str, Any]):
        super().__init__(data)
        self.code = str(data.get("code", ""))


async def open_session(url: str, open_timeout: float = 60) -> Any:
    from websockets.asyncio.client import connect

    return await connect(url, max_size=None, compression=None, open_timeout=open_timeout)


async def call(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and read the reply; raises :class:`ErrorReply` for an ``error`` frame."""
    await ws.send(json.dumps(message))
    reply = json.loads(await ws.recv())
    if reply.get("type") == "error":
        raise ErrorReply(reply["data"])
    return reply


def reset_frame(env_id: str | None, **data: Any) -> dict[str, Any]:
    return {"type": "reset", "data": {**({"env_id": env_id} if env_id else {}), **data}}


def step_frame(action: str) -> dict[str, Any]:
    return {"type": "step", "data": {"action": action}}
