"""Chaos under load (issue #27): ``rewardlab serve`` with many concurrent sessions of mixed envs, one fault at a time.

The scenario of ``tests/chaos`` (whose harness, :mod:`tests.chaos.harness`, this script drives) with
``--sessions`` sessions spread evenly over ToolCall, BPMN, Web over HTTP, Web over Chromium and SWE on
Docker (the newest version of each), every session replaying the actions of the same task played
in-process first. One server takes, in turn, with every session mid-episode:

1. ``dockerd``: SIGKILL of the Docker engine, then its restart (touched: the SWE sessions);
2. ``chromium``: SIGKILL of every Chromium process of the server (touched: the Web-over-Chromium sessions);
3. ``client``: SIGKILL of a client process holding one SWE and one Web-over-Chromium session (its sessions
   have no outcome to count: the row counts the others, and the leaks say whether the server freed them);
4. ``memory``: one more SWE session writes 3 GiB in its 2 GiB sandbox (its own action: counted as
   untouched, it must be scored exactly as in-process);
5. ``server``: SIGKILL of the server itself (touched: every session); leaks are counted once the reaper
   has run, then ``server restarted`` is a full round on a server restarted on the same port.

Per fault: sessions touched and untouched; untouched ones completed with the in-process rewards (target:
all); touched ones ended with ``infra_error`` (target: all) and scored zeros (target: 0); leaks once the
server closed the sessions, or, after the server's death, once the reaper ran (target: 0 containers, 0
Chromium processes, 0 entries in the server's private ``TMPDIR``); the server's RSS, threads and fds
against the baseline taken after a warm-up round (tolerances: :class:`tests.chaos.harness.Usage`).

Run: ``python -m benchmarks.bench_chaos [--sessions 64]`` (root, a local dockerd it may kill, Chromium).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from benchmarks.common import stamp, table
from tests.chaos import harness
from tests.chaos.harness import MEMORY_SPEC, Outcome, Plan, ServerProcess, Usage

HEADERS = (
    "fault",
    "touched",
    "untouched",
    "untouched completed",
    "touched infra_error",
    "scored zeros",
    "other",
    "containers",
    "chromium",
    "temp entries",
    "RSS MiB (base)",
    "threads (base)",
    "fds (base)",
    "seconds",
)


def row(
    fault: str, outcomes: Sequence[Outcome], leaks: harness.Leaks, usage: Usage | None, baseline: Usage, seconds: float
) -> list[object]:
    touched = [o for o in outcomes if o.touched]
    untouched = [o for o in outcomes if not o.touched]
    other = [o for o in outcomes if o.kind not in ("completed", "infra_error", "scored_zero")]
    other += [o for o in touched if o.kind == "completed"] + [o for o in untouched if o.kind == "infra_error"]
    usage_cells = (
        ["(server dead)"] * 3
        if usage is None
        else [
            f"{usage.rss / 2**20:.0f} ({baseline.rss / 2**20:.0f})",
            f"{usage.threads} ({baseline.threads})",
            f"{usage.fds} ({baseline.fds})",
        ]
    )
    return [
        fault,
        len(touched),
        len(untouched),
        f"{sum(o.kind == 'completed' for o in untouched)}/{len(untouched)}",
        f"{sum(o.kind == 'infra_error' for o in touched)}/{len(touched)}",
        sum(o.kind == "scored_zero" for o in outcomes),
        len(other),
        leaks.containers,
        leaks.browser_processes,
        leaks.temp_entries,
        *usage_cells,
        f"{seconds:.1f}",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=64, help="concurrent sessions, spread over the 5 env kinds")
    parser.add_argument(
        "--leak-timeout", type=float, default=60.0, help="seconds leaks may take to go (one reaper period)"
    )
    args = parser.parse_args(argv)
    if harness.dockerd_killable():
        print(f"cannot run: {harness.dockerd_killable()}")
        return 2
    per_env = max(1, round(args.sessions / 5))
    specs = harness.default_specs(per_env)
    print(stamp(("rewardlab", "uvicorn", "websockets", "playwright", "docker")))
    print(f"{len(specs)} sessions ({per_env} per env kind), env ids {', '.join(harness.ENV_IDS)}\n")
    cache: dict[harness.Spec, Plan] = {}
    started = time.perf_counter()
    plans = harness.plans_for([*specs, MEMORY_SPEC], cache)[:-1]
    print(f"in-process plans: {len(cache)} distinct tasks in {time.perf_counter() - started:.1f} s")

    server = ServerProcess(harness.ENV_IDS, max_sessions=len(specs) + 8)
    rows: list[list[object]] = []
    problems: list[str] = []
    try:
        server.start()
        warm = harness.run_round(server, plans)
        problems += [f"warm-up: {line}" for line in harness.failures(warm)]
        server.wait_idle(120)
        harness.wait_for_no_leaks(server, args.leak_timeout)
        baseline = server.usage()

        def fault_round(
            name: str,
            round_plans: Sequence[Plan],
            touched: Callable[[Plan], bool] = lambda plan: False,
            fault: Callable[[], object] | None = None,
            after: Callable[[], None] | None = None,
        ) -> None:
            start = time.perf_counter()
            try:
                outcomes = harness.run_round(server, round_plans, touched, fault, timeout=600)
            finally:
                if after is not None:
                    after()
            server.wait_idle(300)
            leaks = harness.wait_for_no_leaks(server, args.leak_timeout)
            usage = harness.wait_for_usage(server, baseline)
            rows.append(row(name, outcomes, leaks, usage, baseline, time.perf_counter() - start))
            problems.extend(f"{name}: {line}" for line in harness.failures(outcomes))
            if leaks.total:
                problems.append(f"{name}: left {leaks.details}")

        fault_round(
            "dockerd", plans, lambda p: p.spec.env_id == harness.SWE, harness.kill_dockerd, harness.restart_dockerd
        )
        fault_round(
            "chromium",
            plans,
            lambda p: dict(p.spec.env_kwargs).get("backend") == "browser",
            lambda: harness.kill_chromium(server.tag, server.pids),
        )
        victims = [
            next(p for p in plans if p.spec.env_id == harness.SWE),
            next(p for p in plans if dict(p.spec.env_kwargs).get("backend") == "browser"),
        ]
        client = harness.start_client(server.url, victims)
        try:
            harness.wait_ready(client)
            fault_round("client", plans, fault=client.kill)
        finally:
            client.kill()
            client.wait(10)
        fault_round("memory", [*plans, cache[MEMORY_SPEC]])

        start = time.perf_counter()
        outcomes = harness.run_round(server, plans, lambda plan: True, server.kill, timeout=600)
        leaks = harness.wait_for_no_leaks(server, args.leak_timeout, reaper=True)
        rows.append(row("server", outcomes, leaks, None, baseline, time.perf_counter() - start))
        problems.extend(f"server: {line}" for line in harness.failures(outcomes))
        if leaks.total:
            problems.append(f"server: left {leaks.details}")
        server.start()
        fault_round("server restarted", plans)
    finally:
        server.cleanup()
    print()
    print(table(HEADERS, rows))
    print()
    print("\n".join(problems) if problems else "every target met")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
