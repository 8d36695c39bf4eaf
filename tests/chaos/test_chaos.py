"""Chaos under load (issue #27, bounded for CI): ``rewardlab serve`` as a real process with two
concurrent sessions of each of ToolCall, BPMN, Web over HTTP, Web over Chromium and SWE on
Docker (the newest version of each), each fault injected once while every session is mid-episode.

After each fault: the sessions it did not touch finish with exactly the rewards of the same
actions played in-process; the touched ones end with ``infra_error`` (never a scored 0); no
container, browser process or temporary directory of the server is left (once the server has
closed the touched sessions, or, when the server itself died, once the reaper has run); and the
server's RSS, threads and fds are back within :class:`~tests.chaos.harness.Usage`'s tolerance of
the baseline taken after a warm-up round. ``benchmarks/bench_chaos.py`` runs the same scenario
with many sessions.
"""

from __future__ import annotations

import pytest

from tests.chaos import harness
from tests.chaos.harness import MEMORY_SPEC, ServerProcess, Usage
from tests.conftest import docker_or_skip

pytestmark = [pytest.mark.serial, pytest.mark.slow, pytest.mark.docker, pytest.mark.browser, pytest.mark.timeout(300)]

ENV_IDS = harness.ENV_IDS


def _skip_without_chromium() -> None:
    from rewardlab.browser.backends.browser import find_chromium

    if find_chromium() is None:
        pytest.skip("no Chromium binary (apt-get install chromium)")


@pytest.fixture(scope="module")
def plans() -> dict[harness.Spec, harness.Plan]:
    """Every spec of the scenario played in-process once (the rewards the served sessions must match)."""
    docker_or_skip()
    _skip_without_chromium()
    cache: dict[harness.Spec, harness.Plan] = {}
    harness.plans_for([*harness.default_specs(2), MEMORY_SPEC], cache)
    return cache


def _started(plans: dict[harness.Spec, harness.Plan]) -> tuple[ServerProcess, Usage]:
    """A server after a clean warm-up round (every session completes), and its usage then."""
    server = ServerProcess(ENV_IDS)
    try:
        server.start()
        outcomes = harness.run_round(server, harness.plans_for(harness.default_specs(2), plans))
        assert not harness.failures(outcomes), harness.failures(outcomes)
        server.wait_idle()
        assert harness.wait_for_no_leaks(server).total == 0
    except BaseException:
        server.cleanup()
        raise
    return server, server.usage()


@pytest.fixture(scope="module")
def served(plans):
    """One server for the faults it survives; its usage baseline is taken after the warm-up round."""
    server, baseline = _started(plans)
    yield server, baseline
    server.cleanup()


def _check_after(server: ServerProcess, baseline: Usage) -> None:
    server.wait_idle()
    leaks = harness.wait_for_no_leaks(server)
    assert leaks.total == 0, f"left behind: {leaks}"
    usage = harness.wait_for_usage(server, baseline)
    assert usage.within(baseline), usage.versus(baseline)


def test_dockerd_killed_ends_only_the_docker_sessions_with_infra_error(served, plans):
    """SIGKILL of dockerd mid-episode: the SWE sessions end with infra_error, every other session
    completes with its in-process rewards, and once dockerd is back no container of the server remains."""
    problem = harness.dockerd_killable()
    if problem:
        pytest.skip(problem)
    server, baseline = served
    round_plans = harness.plans_for(harness.default_specs(2), plans)
    try:
        outcomes = harness.run_round(
            server, round_plans, touched=lambda plan: plan.spec.env_id == harness.SWE, fault=harness.kill_dockerd
        )
    finally:
        harness.restart_dockerd()
    assert not harness.failures(outcomes), harness.failures(outcomes)
    _check_after(server, baseline)


def test_chromium_killed_ends_only_the_browser_sessions_with_infra_error(served, plans):
    """SIGKILL of every Chromium process mid-episode: the Web browser sessions end with infra_error,
    the others (Web over HTTP included) complete, and no browser process or profile is left."""
    server, baseline = served
    round_plans = harness.plans_for(harness.default_specs(2), plans)
    killed: list[int] = []
    outcomes = harness.run_round(
        server,
        round_plans,
        touched=lambda plan: dict(plan.spec.env_kwargs).get("backend") == "browser",
        fault=lambda: killed.append(harness.kill_chromium(server.tag, server.pids)),
    )
    assert killed and killed[0] >= 2, f"expected a Chromium per browser session, killed {killed}"
    assert not harness.failures(outcomes), harness.failures(outcomes)
    _check_after(server, baseline)


def test_a_killed_client_frees_its_sessions_and_the_others_complete(served, plans):
    """SIGKILL of a client process holding a SWE (Docker) and a Web (Chromium) session mid-episode:
    the server closes both envs (no container, no Chromium left) and every other session completes."""
    server, baseline = served
    victim_plans = [
        plans[spec]
        for spec in harness.default_specs(2)
        if spec.env_id == harness.SWE or dict(spec.env_kwargs).get("backend") == "browser"
    ][::2]
    client = harness.start_client(server.url, victim_plans)
    try:
        harness.wait_ready(client)
        assert server.health()["active_sessions"] == len(victim_plans)
        outcomes = harness.run_round(server, harness.plans_for(harness.default_specs(2), plans), fault=client.kill)
    finally:
        client.kill()
        client.wait(10)
    assert not harness.failures(outcomes), harness.failures(outcomes)
    _check_after(server, baseline)


def test_a_session_allocating_past_its_memory_limit_is_scored_as_in_process(served, plans):
    """A SWE session writes 3 GiB in its 2 GiB sandbox: the sandbox kills the command (its own
    action, so the episode goes on and is scored exactly as in-process, not an infra_error), the
    server's RSS does not grow, and every other session completes."""
    server, baseline = served
    memory_plan = plans[MEMORY_SPEC]
    round_plans = [*harness.plans_for(harness.default_specs(2), plans), memory_plan]
    outcomes = harness.run_round(server, round_plans)
    assert not harness.failures(outcomes), harness.failures(outcomes)
    hog = outcomes[-1]
    assert hog.observations[1] == memory_plan.observations[1] and "memory_limit" in hog.observations[1]
    _check_after(server, baseline)


def test_the_server_killed_and_restarted_leaves_nothing_once_reaped(plans):
    """SIGKILL of the server mid-episode: every session ends with infra_error (none raises, none is
    scored); its containers, Chromium processes and temp dirs are gone once the reaper has run; a
    server restarted on the same port serves a full round with the in-process rewards."""
    server, baseline = _started(plans)
    try:
        round_plans = harness.plans_for(harness.default_specs(2), plans)
        outcomes = harness.run_round(server, round_plans, touched=lambda plan: True, fault=server.kill)
        assert not harness.failures(outcomes), harness.failures(outcomes)
        leaks = harness.wait_for_no_leaks(server, reaper=True)
        assert leaks.total == 0, f"left behind once the owner died and the reaper ran: {leaks}"
        server.start()
        outcomes = harness.run_round(server, round_plans)
        assert not harness.failures(outcomes), harness.failures(outcomes)
        server.wait_idle()
        assert harness.wait_for_no_leaks(server).total == 0
    finally:
        server.cleanup()
