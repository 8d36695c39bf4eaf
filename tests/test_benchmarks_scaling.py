"""``benchmarks/bench_scaling.py`` at tiny settings: both servers serve every session, and failures are sorted
into clean (``CAPACITY_REACHED``) and not clean. Speed is never asserted (house rule 14)."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks import bench_scaling
from benchmarks.common import ErrorReply


def level(
    server: str, completed: int, failures: dict[str, int], crashed: str | None = None
) -> bench_scaling.LevelResult:
    return bench_scaling.LevelResult(
        server=server,
        workload="wait",
        sessions=8,
        completed=completed,
        step_latencies=[0.2] * completed,
        episode_latencies=[0.3] * completed,
        steps_per_s=1.0,
        rss_mb=50.0,
        threads=10,
        failures=Counter(failures),
        crashed=crashed,
        tracebacks=0,
    )


def test_refusals_at_capacity_are_clean_and_timeouts_or_crashes_are_not():
    assert bench_scaling.clean_or_not(level("ours", 4, {"CAPACITY_REACHED": 4})) == "clean (CAPACITY_REACHED)"
    assert bench_scaling.clean_or_not(level("ours", 4, {"timeout": 4})) == "not clean (timeout)"
    crashed = level("ours", 4, {"connection closed": 4}, crashed="crash (exit code -9)")
    assert bench_scaling.clean_or_not(crashed) == "not clean (crash)"
    assert bench_scaling.classify(ErrorReply({"code": "CAPACITY_REACHED", "message": "full"})) == "CAPACITY_REACHED"
    assert bench_scaling.classify(TimeoutError()) == "timeout"
    assert bench_scaling.classify(ConnectionRefusedError(111, "refused")) == "connection refused"


def test_target_compares_success_and_p99_level_by_level():
    ours, theirs = level("ours", 8, {}), level("openenv", 8, {})
    assert bench_scaling.compare([ours, theirs], "ours", "openenv") == []
    ours_failing = level("ours", 4, {"timeout": 4})
    assert "ours 50.0% completed" in bench_scaling.compare([ours_failing, theirs], "ours", "openenv")[0]
    slower = level("ours", 8, {})
    slower.step_latencies = [0.3] * 8
    assert "P99 step" in bench_scaling.compare([slower, theirs], "ours", "openenv")[0]
    assert bench_scaling.compare([slower, theirs], "ours-async", "openenv") == []  # only the named row is judged


def test_repeated_runs_are_compared_by_their_medians():
    """One slow run of three does not miss the target, two do; a failing run counts in the median rate."""

    def run(server: str, p99: float, failed: int = 0) -> bench_scaling.LevelResult:
        result = level(server, 8 - failed, {"timeout": failed} if failed else {})
        result.step_latencies = [p99] * (8 - failed)
        return result

    theirs = [run("openenv", 0.2), run("openenv", 0.2), run("openenv", 0.2)]
    assert (
        bench_scaling.compare([run("ours", 0.1), run("ours", 0.3), run("ours", 0.1), *theirs], "ours", "openenv") == []
    )
    missed = bench_scaling.compare([run("ours", 0.3), run("ours", 0.3), run("ours", 0.1), *theirs], "ours", "openenv")
    assert len(missed) == 1 and "P99 step" in missed[0]
    failing = [run("ours", 0.1, failed=4), run("ours", 0.1, failed=4), run("ours", 0.1)]
    assert "completed" in bench_scaling.compare([*failing, *theirs], "ours", "openenv")[0]
    rows = bench_scaling.repeat_rows([run("ours", 0.1), run("ours", 0.3), run("ours", 0.2)])
    assert rows == [["RewardLab", "wait", "8", "100.00 ms, 300.00 ms, 200.00 ms", "200.00 ms", "100.0%"]]


@pytest.mark.slow
def test_tiny_run_serves_every_session_on_both_servers():
    lines: list[str] = []
    results = bench_scaling.main(
        ["--levels", "4,8", "--wait", "0.2", "--workloads", "wait,toolcall", "--openenv", "openenv"],
        emit=lines.append,
    )
    assert {(r.server, r.workload, r.sessions) for r in results} == {
        (server, workload, sessions)
        for workload, servers in (("wait", ("ours", "ours-async", "openenv")), ("toolcall", ("ours", "openenv")))
        for server in servers
        for sessions in (4, 8)
    }
    for result in results:
        assert result.completed == result.sessions, (result.server, result.workload, result.failure_text())
        assert result.crashed is None
        assert result.rss_mb > 0
    text = "\n".join(lines)
    assert "| RewardLab " in text and "| RewardLab, step_async " in text and "| OpenEnv " in text
    assert text.count("(100.0%)") == len(results)
    assert "did not fail" in text
    assert not any(r.tracebacks for r in results if r.server.startswith("ours"))
