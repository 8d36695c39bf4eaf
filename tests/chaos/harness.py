"""The chaos harness: a real ``rewardlab serve`` process, sessions of mixed envs replaying actions
computed in-process, faults injected at a barrier, and the leak counts after each fault.

Shared by ``tests/chaos`` (a few sessions, each fault once) and ``benchmarks/bench_chaos.py``
(the same scenario with many sessions). Everything the server makes is attributable to it:

* its processes (Playwright's driver, Chromium and Chromium's helpers) inherit the environment
  variable :data:`TAG_VARIABLE` with a value of the harness's own, so they are found by
  ``/proc/<pid>/environ`` even after the server died and they were re-parented;
* its temporary directories (``rewardlab-*`` and Playwright's Chromium profiles) are made under a
  ``TMPDIR`` of the harness's own, so every entry left there is a leak;
* its sandbox containers carry ``rewardlab.owner=<host>/<boot>/<pid>/<start>`` naming its pid.

A :class:`Plan` is one episode played in-process first (its actions and per-step rewards); a
session replays the actions on the server and is classed by :func:`classify` as ``completed``
(the same rewards as in-process), ``infra_error``, ``scored_zero`` (an episode that ended without
``infra_error`` with reward 0 where in-process scored more), ``wrong`` (other reward mismatch),
``exception`` or ``killed`` (the client process was killed).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import psutil

import rewardlab  # noqa: F401 - registers the env ids
from rewardlab.agents import OracleAgent
from rewardlab.leases import Owner
from rewardlab.reaper import SANDBOX_LABEL, reap
from tests.docker_engine import dockerd_killable, kill_dockerd, restart_dockerd  # noqa: F401 - the faults, re-exported

TAG_VARIABLE = "REWARDLAB_CHAOS_TAG"
"""Set in the server's environment: every process it starts inherits it."""

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable

MEMORY_HOG = "python\nblock = b'x' * (3 << 30)\nprint(len(block))"
"""A SWE action that writes 3 GiB inside its sandbox, past the container's 2 GiB memory limit."""


# ---------------------------------------------------------------------------------------------- plans
def newest(name: str) -> str:
    """The registered id ``RewardLab/<name>-vN`` with the highest ``N`` (versions are bumped often)."""
    ids = [env_id for env_id in rewardlab.env_ids() if re.fullmatch(rf"RewardLab/{name}-v\d+", env_id)]
    if not ids:
        raise LookupError(f"no RewardLab/{name}-vN is registered")
    return max(ids, key=lambda env_id: int(env_id.rsplit("-v", 1)[1]))


TOOLCALL, BPMN, WEB, SWE = (newest(name) for name in ("ToolCall", "BPMN", "Web", "SWE"))
ENV_IDS = (TOOLCALL, BPMN, WEB, SWE)
"""The env ids the chaos server serves."""


@dataclass(frozen=True)
class Spec:
    """One kind of session: an env id, its arguments, a task, and actions played before the oracle's."""

    env_id: str
    env_kwargs: tuple[tuple[str, Any], ...]
    task_id: str
    prefix: tuple[str, ...] = ()
    pause_after: int = 1
    """Steps played before the fault (at most all but the last): the step after it must need the
    env's infrastructure (a Web task's ``answer`` needs no browser, so browser sessions pause after reset)."""

    @property
    def label(self) -> str:
        backend = dict(self.env_kwargs).get("backend") or dict(self.env_kwargs).get("sandbox") or ""
        name = self.env_id.split("/")[-1]
        return f"{name}[{backend}]" if backend else name


@dataclass(frozen=True)
class Plan:
    """One episode played in-process: the actions, and the reward after each."""

    spec: Spec
    actions: tuple[str, ...]
    rewards: tuple[float, ...]
    observations: tuple[str, ...] = ()
    """The observation after each action."""

    @property
    def pause_after(self) -> int:
        """Steps played before the fault: the spec's, or all but the last for a shorter episode."""
        return min(self.spec.pause_after, len(self.actions) - 1)


def make_plan(spec: Spec, env: gym.Env | None = None) -> Plan:
    """Play ``spec``'s task in-process (its prefix, then the env's oracle) and record it; ``env``: an
    env of ``spec``'s id and arguments to use (by default one made, and closed, here)."""
    own = env is None
    env = gym.make(spec.env_id, **dict(spec.env_kwargs)) if env is None else env
    try:
        observation, info = env.reset(options={"task_id": spec.task_id})
        oracle = OracleAgent(env)
        oracle.reset()
        actions, rewards, observations = [], [], []
        for step in range(200):
            action = spec.prefix[step] if step < len(spec.prefix) else oracle.act(observation, info)
            observation, reward, terminated, truncated, info = env.step(action)
            if info.get("infra_error"):
                raise RuntimeError(f"the in-process run of {spec} hit an infra_error: {info['infra_error']}")
            actions.append(action)
            rewards.append(float(reward))
            observations.append(observation)
            if terminated or truncated:
                return Plan(spec, tuple(actions), tuple(rewards), tuple(observations))
        raise RuntimeError(f"the in-process run of {spec} did not end in 200 steps")
    finally:
        if own:
            env.close()


def default_specs(per_env: int = 2) -> list[Spec]:
    """``per_env`` sessions of each env of the scenario (tasks cycle through short ones)."""
    kinds = [
        (TOOLCALL, (), ("retail-order_status-000", "retail-order_status-001"), ()),
        (BPMN, (), ("gen-coffee", "gen-password-reset"), ()),
        (WEB, (("backend", "http"),), ("forum-015", "forum-016", "mail-019"), ()),
        (WEB, (("backend", "browser"),), ("forum-019", "forum-020", "mail-020"), (), 0),
        (SWE, (("sandbox", "docker"),), ("textkit-1", "textkit-2", "textkit-3"), ("test",)),
    ]
    specs = []
    for env_id, kwargs, tasks, prefix, *pause in kinds:
        specs += [Spec(env_id, kwargs, tasks[i % len(tasks)], prefix, *pause) for i in range(per_env)]
    return specs


MEMORY_SPEC = Spec(SWE, (("sandbox", "docker"),), "textkit-4", ("test", MEMORY_HOG))
"""The session that allocates past its sandbox's memory limit (its own action: scored like in-process)."""


def plans_for(specs: Iterable[Spec], cache: dict[Spec, Plan] | None = None) -> list[Plan]:
    """The plan of every spec, each distinct spec played in-process once (on one env per env id and
    arguments: a Chromium or a Docker client is started once, not once per task)."""
    cache = {} if cache is None else cache
    specs = list(specs)
    missing: dict[tuple[str, tuple[tuple[str, Any], ...]], list[Spec]] = {}
    for spec in dict.fromkeys(specs):
        if spec not in cache:
            missing.setdefault((spec.env_id, spec.env_kwargs), []).append(spec)
    for (env_id, env_kwargs), group in missing.items():
        env = gym.make(env_id, **dict(env_kwargs))
        try:
            for spec in group:
                cache[spec] = make_plan(spec, env)
        finally:
            env.close()
    return [cache[spec] for spec in specs]


# ---------------------------------------------------------------------------------------------- server
class ServerProcess:
    """``python -m rewardlab serve`` as a subprocess of its own session, with a private ``TMPDIR``."""

    def __init__(self, env_ids: Sequence[str], *, max_sessions: int = 256, tag: str | None = None):
        self.env_ids = tuple(env_ids)
        self.max_sessions = max_sessions
        self.tag = tag or uuid.uuid4().hex
        self.tmpdir = Path(tempfile.mkdtemp(prefix="chaos-tmp-"))
        self.log_path = self.tmpdir.with_suffix(".log")
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.pids: list[int] = []
        """Every server pid this harness started (a restart adds one)."""

    def start(self, timeout: float = 60.0) -> ServerProcess:
        env = {**os.environ, TAG_VARIABLE: self.tag, "TMPDIR": str(self.tmpdir), "PYTHONUNBUFFERED": "1"}
        command = [PYTHON, "-m", "rewardlab", "serve", *self.env_ids, "--port", str(self.port)]
        command += ["--max-sessions", str(self.max_sessions), "--idle-timeout", "120"]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.pids.append(self.process.pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log()[-3000:]}")
            found = re.findall(r"Uvicorn running on http://127\.0\.0\.1:(\d+)", self.log())
            if found and self.healthy():
                self.port = int(found[-1]) if not self.port else self.port
                return self
            if found and not self.port:
                self.port = int(found[-1])
            time.sleep(0.1)
        self.process.kill()
        self.process.wait(10)
        raise RuntimeError(f"the server did not start in {timeout} s:\n{self.log()[-3000:]}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def health(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=5) as response:
            return json.loads(response.read())

    def healthy(self) -> bool:
        try:
            return self.port > 0 and self.health()["status"] == "healthy"
        except OSError:
            return False

    def wait_idle(self, timeout: float = 60.0) -> None:
        """Wait until the server holds no session."""
        deadline = time.monotonic() + timeout
        while self.health()["active_sessions"]:
            if time.monotonic() > deadline:
                raise AssertionError(f"sessions still open after {timeout} s: {self.health()}")
            time.sleep(0.1)

    def kill(self) -> None:
        """``SIGKILL`` the server process (only it: its children are left as a crash leaves them)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        """Stop the server the way Ctrl-C does, and wait for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def cleanup(self) -> None:
        """Stop the server, kill whatever of it is left (after a failed test) and remove its TMPDIR."""
        self.stop()
        for process in tagged_processes(self.tag):
            with contextlib.suppress(psutil.Error):
                process.kill()
        remove_containers(sandbox_containers(self.pids))
        shutil.rmtree(self.tmpdir, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.log_path.unlink()

    def usage(self) -> Usage:
        """The server process's RSS, threads and open file descriptors now."""
        assert self.process is not None
        process = psutil.Process(self.process.pid)
        return Usage(process.memory_info().rss, process.num_threads(), process.num_fds())


@dataclass(frozen=True)
class Usage:
    rss: int
    threads: int
    fds: int

    RSS_SLACK = 96 << 20
    """RSS may stay above its baseline by this much: CPython and glibc keep freed memory mapped."""
    THREAD_SLACK = 1
    """Threads may exceed the baseline by one: uvicorn's and asyncio's pools start threads lazily."""
    FD_SLACK = 4
    """File descriptors may exceed the baseline by four (lazily opened pools, the Docker SDK's socket)."""

    def within(self, baseline: Usage) -> bool:
        return (
            self.rss <= baseline.rss + self.RSS_SLACK
            and self.threads <= baseline.threads + self.THREAD_SLACK
            and self.fds <= baseline.fds + self.FD_SLACK
        )

    def versus(self, baseline: Usage) -> str:
        return (
            f"RSS {self.rss / 2**20:.0f} MiB (baseline {baseline.rss / 2**20:.0f}), "
            f"threads {self.threads} ({baseline.threads}), fds {self.fds} ({baseline.fds})"
        )


def wait_for_usage(server: ServerProcess, baseline: Usage, timeout: float = 20.0) -> Usage:
    """The server's usage once within the baseline's tolerance, or the last one seen after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        usage = server.usage()
        if usage.within(baseline) or time.monotonic() > deadline:
            return usage
        time.sleep(0.25)


# ---------------------------------------------------------------------------------------------- leaks
def tagged_processes(tag: str) -> list[psutil.Process]:
    """Every live (not zombie) process whose environment carries ``TAG_VARIABLE=tag``."""
    found = []
    for process in psutil.process_iter(["pid"]):
        with contextlib.suppress(psutil.Error):
            if process.environ().get(TAG_VARIABLE) == tag and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
    return found


def browser_processes(tag: str, exclude: Iterable[int] = ()) -> list[psutil.Process]:
    """The tagged processes but the servers: Playwright's drivers, Chromium and its helpers."""
    skip = set(exclude)
    return [process for process in tagged_processes(tag) if process.pid not in skip]


def docker_client() -> Any:
    from rewardlab.sandbox.image import docker_client as make

    return make(timeout=30)


def sandbox_containers(owner_pids: Iterable[int], *, records: list[str] | None = None) -> list[str]:
    """Ids of the sandbox containers (any state) whose owner label names one of ``owner_pids``.

    A container the engine lists as ``dead`` but no longer knows (``inspect`` answers "no such container") is no
    container: dockerd killed in the middle of a removal keeps such a record, which ``docker rm`` refuses and the
    engine's next restart drops. Those ids go to ``records`` (when given), not to the result."""
    pids = set(owner_pids)
    try:
        client = docker_client()
    except Exception:  # noqa: BLE001 - no engine: nothing to count (the dockerd test restarts it first)
        return []
    try:
        listed = client.api.containers(all=True, filters={"label": f"{SANDBOX_LABEL}=1"})
        found = []
        for entry in listed:
            owner = Owner.parse((entry.get("Labels") or {}).get("rewardlab.owner", ""))
            if owner is None or owner.pid not in pids:
                continue
            if entry.get("State") == "dead" and not _engine_knows(client, entry["Id"]):
                if records is not None:
                    records.append(entry["Id"])
                continue
            found.append(entry["Id"])
    finally:
        client.close()
    return found


def _engine_knows(client: Any, container_id: str) -> bool:
    import docker.errors

    try:
        client.api.inspect_container(container_id)
    except docker.errors.NotFound:
        return False
    return True


def remove_containers(ids: Iterable[str]) -> None:
    ids = list(ids)
    if not ids:
        return
    with contextlib.suppress(Exception):
        client = docker_client()
        try:
            for container_id in ids:
                with contextlib.suppress(Exception):
                    client.api.remove_container(container_id, force=True)
        finally:
            client.close()


@dataclass(frozen=True)
class Leaks:
    containers: int
    browser_processes: int
    temp_entries: int
    details: str = ""

    @property
    def total(self) -> int:
        return self.containers + self.browser_processes + self.temp_entries


def count_leaks(server: ServerProcess) -> Leaks:
    """What the server's sessions left: containers, browser processes, entries of its TMPDIR."""
    records: list[str] = []
    containers = sandbox_containers(server.pids, records=records)
    browsers = browser_processes(server.tag, server.pids)
    entries = sorted(path.name for path in server.tmpdir.iterdir()) if server.tmpdir.exists() else []
    details = (
        f"containers={[c[:12] for c in containers]} "
        + (f"engine records of removed containers={[c[:12] for c in records]} " if records else "")
        + f"processes={[(p.pid, p.name()) for p in browsers if p.is_running()]} temp={entries[:8]}"
    )
    return Leaks(len(containers), len(browsers), len(entries), details)


def wait_for_no_leaks(server: ServerProcess, timeout: float = 30.0, *, reaper: bool = False) -> Leaks:
    """The leak count once zero, or the last one after ``timeout``; ``reaper``: run the reaper
    (``rewardlab sandbox gc``'s ``reap``) on the server's TMPDIR between two counts."""
    deadline = time.monotonic() + timeout
    while True:
        if reaper:
            reap(temp_root=server.tmpdir)
        leaks = count_leaks(server)
        if leaks.total == 0 or time.monotonic() > deadline:
            return leaks
        time.sleep(0.5)


# ---------------------------------------------------------------------------------------------- sessions
@dataclass
class Outcome:
    """What one session ended with."""

    plan: Plan
    touched: bool
    kind: str = "running"
    """``completed``, ``infra_error``, ``scored_zero``, ``wrong``, ``exception`` or ``killed``."""
    rewards: list[float] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    detail: str = ""


def classify(plan: Plan, rewards: Sequence[float], infra_error: str | None, ended: bool) -> tuple[str, str]:
    """The outcome kind of a session that played ``rewards`` (see the module docstring)."""
    if infra_error:
        return "infra_error", infra_error[:200]
    if not ended:
        return "exception", "the episode did not end"
    if len(rewards) == len(plan.rewards) and all(
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(rewards, plan.rewards, strict=True)
    ):
        return "completed", ""
    if rewards and rewards[-1] == 0.0 and plan.rewards[-1] != 0.0:
        return "scored_zero", f"rewards {rewards} where in-process {list(plan.rewards)}"
    return "wrong", f"rewards {rewards} where in-process {list(plan.rewards)}"


def drive(url: str, outcome: Outcome, at_pause: Callable[[], None], timeout: float = 120.0) -> None:
    """Replay ``outcome.plan`` on the server: reset, ``pause_after`` steps, ``at_pause()``, the rest."""
    from rewardlab.serve.client import RemoteEnv

    plan = outcome.plan
    env = RemoteEnv(url, plan.spec.env_id, dict(plan.spec.env_kwargs), timeout=timeout)
    paused = False
    try:
        _, info = env.reset(options={"task_id": plan.spec.task_id})
        if info.get("infra_error"):
            outcome.kind, outcome.detail = "infra_error", str(info["infra_error"])[:200]
            return
        ended, infra = False, None
        for index, action in enumerate(plan.actions):
            if index == plan.pause_after:
                paused = True
                at_pause()
            observation, reward, terminated, truncated, info = env.step(action)
            outcome.rewards.append(reward)
            outcome.observations.append(observation)
            if info.get("infra_error"):
                infra = str(info["infra_error"])
                break
            if terminated or truncated:
                ended = True
                break
        outcome.kind, outcome.detail = classify(plan, outcome.rewards, infra, ended)
    except Exception as exc:  # noqa: BLE001 - recorded: an exception is a failed session, not a harness error
        outcome.kind, outcome.detail = "exception", f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if not paused:
            at_pause()
        with contextlib.suppress(Exception):
            env.close()


def run_round(
    server: ServerProcess,
    plans: Sequence[Plan],
    touched: Callable[[Plan], bool] = lambda plan: False,
    fault: Callable[[], None] | None = None,
    *,
    timeout: float = 180.0,
) -> list[Outcome]:
    """Run every plan as one session at once; when all reached their pause, call ``fault()``, then let
    them finish. ``touched(plan)`` says which sessions the fault is meant to reach."""
    outcomes = [Outcome(plan, touched(plan)) for plan in plans]
    arrived = threading.Semaphore(0)
    go = threading.Event()

    def pause() -> None:
        arrived.release()
        go.wait(timeout)

    threads = [
        threading.Thread(target=drive, args=(server.url, outcome, pause), name=f"chaos-{i}", daemon=True)
        for i, outcome in enumerate(outcomes)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for _ in threads:
        if not arrived.acquire(timeout=max(0.0, deadline - time.monotonic())):
            go.set()
            raise AssertionError("the sessions did not all reach their pause in time")
    try:
        if fault is not None:
            fault()
    finally:
        go.set()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    for outcome, thread in zip(outcomes, threads, strict=True):
        if thread.is_alive():
            outcome.kind, outcome.detail = "exception", "the session hung"
    return outcomes


def tally(outcomes: Sequence[Outcome]) -> dict[str, Counter[str]]:
    """Outcome kinds counted separately for touched and untouched sessions."""
    table: dict[str, Counter[str]] = {"touched": Counter(), "untouched": Counter()}
    for outcome in outcomes:
        table["touched" if outcome.touched else "untouched"][outcome.kind] += 1
    return table


def failures(outcomes: Sequence[Outcome], touched_kind: str = "infra_error") -> list[str]:
    """One line per session that broke the rule: untouched ones complete with the in-process rewards,
    touched ones end with ``touched_kind``."""
    lines = []
    for outcome in outcomes:
        expected = touched_kind if outcome.touched else "completed"
        if outcome.kind != expected:
            lines.append(
                f"{outcome.plan.spec.label} {outcome.plan.spec.task_id} "
                f"({'touched' if outcome.touched else 'untouched'}): {outcome.kind} {outcome.detail}"
            )
    return lines


# ---------------------------------------------------------------------------------------------- faults
def kill_chromium(tag: str, server_pids: Iterable[int]) -> int:
    """``SIGKILL`` every Chromium process the server started (not Playwright's driver); how many."""
    killed = 0
    for process in browser_processes(tag, server_pids):
        with contextlib.suppress(psutil.Error):
            if "chrom" in process.name().lower() or "chrom" in " ".join(process.cmdline()[:1]).lower():
                process.send_signal(signal.SIGKILL)
                killed += 1
    return killed


# ---------------------------------------------------------------------------------------------- a client to kill
CLIENT_READY = "ready"


def start_client(url: str, plans: Sequence[Plan]) -> subprocess.Popen[str]:
    """A client process holding one session per plan, each paused after its first step; it prints
    :data:`CLIENT_READY` when all are, then waits to be killed."""
    payload = json.dumps(
        [
            {
                "env_id": p.spec.env_id,
                "env_kwargs": dict(p.spec.env_kwargs),
                "task_id": p.spec.task_id,
                "actions": list(p.actions[: max(1, p.pause_after)]),
            }
            for p in plans
        ]
    )
    return subprocess.Popen(
        [PYTHON, "-m", "tests.chaos.harness", url, payload],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_ready(client: subprocess.Popen[str], timeout: float = 120.0) -> None:
    assert client.stdout is not None
    deadline = time.monotonic() + timeout
    lines = []
    while time.monotonic() < deadline:
        line = client.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.strip() == CLIENT_READY:
            return
    raise RuntimeError(f"the client process did not get ready: {''.join(lines)[-2000:]}")


def _client_main(url: str, payload: str) -> None:
    from rewardlab.serve.client import RemoteEnv

    envs = []
    for entry in json.loads(payload):
        env = RemoteEnv(url, entry["env_id"], entry["env_kwargs"], timeout=120)
        env.reset(options={"task_id": entry["task_id"]})
        for action in entry["actions"]:
            env.step(action)
        envs.append(env)
    print(CLIENT_READY, flush=True)
    time.sleep(600)


if __name__ == "__main__":
    _client_main(sys.argv[1], sys.argv[2])
