"""Infrastructure faults are not agent failures: Web-v2 and MiniWoB-v1 with their Chromium killed
(SIGKILL) or their page server stopped in the middle of an episode.

The step after the fault ends the episode unusable with ``info["infra_error"]`` (reward: the
invalid penalty, -1 here so it cannot pass for an agent's 0), nothing raises, the next reset
rebuilds what died and the oracle then succeeds; after ``close`` nothing is left running.
"""

from __future__ import annotations

import time

import psutil
import pytest

from rewardlab.agents import OracleAgent
from rewardlab.browser.backends.browser import Chromium
from rewardlab.envs.miniwob.env import MiniWoBEnv
from rewardlab.envs.web.env import WebEnv
from rewardlab.evaluation import run_episode
from tests.envs.conftest import NEEDS_CHROMIUM, assert_back_to, process_resources

PENALTY = -1.0
WEB_TASK = "shop-001"
MINIWOB_TASK = "click-checkboxes-0"


def browser_pids() -> set[int]:
    """Pids of the Chromium browser processes (not their renderers or helpers) under this process."""
    pids = set()
    for process in psutil.Process().children(recursive=True):
        try:
            command = process.cmdline()
        except psutil.Error:
            continue
        if command and "chrom" in command[0].rsplit("/", 1)[-1] and not any(a.startswith("--type=") for a in command):
            pids.add(process.pid)
    return pids


def kill_browser(pid: int) -> list[psutil.Process]:
    """SIGKILL the browser process ``pid``; returns it and its descendants, as they were."""
    browser = psutil.Process(pid)
    tree = [browser, *browser.children(recursive=True)]
    browser.kill()
    browser.wait(timeout=10)
    return tree


def assert_all_gone(processes: list[psutil.Process], timeout: float = 10.0) -> None:
    """Every process in ``processes`` has exited (a zombie awaiting its reaper counts as exited)."""

    def running(process: psutil.Process) -> bool:
        try:
            return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    deadline = time.monotonic() + timeout
    while any(running(p) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p.pid for p in processes if running(p)]


def start_episode(env, task_id: str) -> tuple[OracleAgent, str]:
    """Reset on ``task_id`` and take the oracle's first step; returns the oracle and its next action."""
    oracle = OracleAgent(env)
    observation, info = env.reset(seed=0, options={"task_id": task_id})
    oracle.reset()
    observation, _, terminated, truncated, info = env.step(oracle.act(observation, info))
    assert not (terminated or truncated) and info["action_error"] is None
    return oracle, oracle.act(observation, info)


def assert_infra_failure(env, action: str, reason: str) -> None:
    """The step after a fault: terminated, unusable, the invalid penalty, ``infra_error`` naming ``reason``."""
    observation, reward, terminated, truncated, info = env.step(action)
    assert terminated and not truncated
    assert reason in info["infra_error"] and observation == f"infra_error: {info['infra_error']}"
    assert info["usable"] is False and info["is_success"] is False and reward == PENALTY
    assert info["action_error"] is None


def assert_recovers(env, task_id: str) -> None:
    result = run_episode(env, OracleAgent(env), seed=0, task_id=task_id)
    assert result.is_success and result.reward > 0, result.actions


def web_browser(**kwargs) -> WebEnv:
    return WebEnv(backend="browser", **kwargs)


def web_http(**kwargs) -> WebEnv:
    return WebEnv(backend="http", **kwargs)


BROWSER_ENVS = [
    pytest.param(web_browser, WEB_TASK, id="web", marks=NEEDS_CHROMIUM),
    pytest.param(MiniWoBEnv, MINIWOB_TASK, id="miniwob", marks=NEEDS_CHROMIUM),
]
"""The envs that drive Chromium, each with a task to play."""


@pytest.mark.parametrize(("make_env", "task_id"), BROWSER_ENVS)
def test_killed_chromium_ends_the_episode_as_an_infra_error_and_reset_relaunches_it(make_env, task_id):
    before = process_resources()
    existing = browser_pids()
    env = make_env(invalid_penalty=PENALTY)
    try:
        (pid,) = browser_pids() - existing
        _, action = start_episode(env, task_id)
        killed = kill_browser(pid)
        assert_infra_failure(env, action, "Chromium failed")
        assert_recovers(env, task_id)
        (relaunched,) = browser_pids() - existing
        assert relaunched != pid
        killed += kill_browser(relaunched)  # between episodes: no step sees it, the reset must
        assert_recovers(env, task_id)
    finally:
        env.close()
    assert_all_gone(killed)
    assert_back_to(before, timeout=10)


@pytest.mark.parametrize(("make_env", "task_id"), BROWSER_ENVS)
def test_a_crashed_page_ends_the_episode_as_an_infra_error_and_reset_reopens_it(make_env, task_id):
    before = process_resources()
    existing = browser_pids()
    env = make_env(invalid_penalty=PENALTY)
    try:
        (pid,) = browser_pids() - existing
        _, action = start_episode(env, task_id)
        renderers = [p for p in psutil.Process(pid).children(recursive=True) if "--type=renderer" in p.cmdline()]
        for renderer in renderers:
            renderer.kill()
        psutil.wait_procs(renderers, timeout=10)
        assert_infra_failure(env, action, "Chromium failed: its page crashed")
        assert_recovers(env, task_id)
        assert browser_pids() - existing == {pid}  # the browser itself was fine: no relaunch
    finally:
        env.close()
    assert_back_to(before, timeout=10)


def needs_chromium(test):
    """Give one test :data:`NEEDS_CHROMIUM`'s marks (one test of this module runs without a browser)."""
    for mark in NEEDS_CHROMIUM:
        test = mark(test)
    return test


@needs_chromium
def test_a_killed_shared_chromium_is_relaunched_in_place_for_every_env():
    before = process_resources()
    existing = browser_pids()
    chromium = Chromium()
    envs = [WebEnv(backend="browser", chromium=chromium, invalid_penalty=PENALTY) for _ in range(2)]
    try:
        (pid,) = browser_pids() - existing
        actions = [start_episode(env, WEB_TASK)[1] for env in envs]
        killed = kill_browser(pid)
        for env, action in zip(envs, actions, strict=True):
            assert_infra_failure(env, action, "Chromium failed")
        for env in envs:
            assert_recovers(env, WEB_TASK)
        assert chromium.browser.is_connected() and len(browser_pids() - existing - {pid}) == 1
    finally:
        for env in envs:
            env.close()
        chromium.close()
    assert_all_gone(killed)
    assert_back_to(before, timeout=10)


@pytest.mark.parametrize(
    ("make_env", "task_id", "reason"),
    [
        pytest.param(web_http, WEB_TASK, "the site server stopped", id="web-http"),
        pytest.param(web_browser, WEB_TASK, "the site server stopped", id="web-browser", marks=NEEDS_CHROMIUM),
        pytest.param(MiniWoBEnv, MINIWOB_TASK, "the file server stopped", id="miniwob", marks=NEEDS_CHROMIUM),
    ],
)
def test_a_stopped_page_server_ends_the_episode_as_an_infra_error_and_reset_restarts_it(make_env, task_id, reason):
    before = process_resources()
    env = make_env(invalid_penalty=PENALTY)
    try:
        stopped = env.server
        _, action = start_episode(env, task_id)
        stopped.close()  # the server's own shutdown: its thread ends and its port refuses connections
        assert_infra_failure(env, action, reason)
        assert_recovers(env, task_id)
        assert env.server is not stopped and env.server.alive
        env.reset(seed=0, options={"task_id": task_id})
        _, reward, terminated, _, info = env.step("click(99999)")  # the agent's mistakes stay its own
        assert not terminated and reward == 0.0 and info["action_error"] and "infra_error" not in info
    finally:
        env.close()
    assert_back_to(before, timeout=10)


OWNER = """
import sys
import rewardlab.envs.{module} as module

env = module.{cls}({kwargs})
env.reset(seed=0, options={{"task_id": "{task_id}"}})
print("ready", flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("victim", ["owner", "driver"])
@pytest.mark.parametrize(
    ("module", "cls", "kwargs", "task_id"),
    [
        pytest.param("web.env", "WebEnv", "backend='browser'", WEB_TASK, id="web", marks=NEEDS_CHROMIUM),
        pytest.param("miniwob.env", "MiniWoBEnv", "", MINIWOB_TASK, id="miniwob", marks=NEEDS_CHROMIUM),
    ],
)
def test_the_browser_goes_when_its_owner_or_driver_is_killed(module, cls, kwargs, task_id, victim):
    """Nothing outlives its owner: SIGKILL of the process that drives Chromium (no close, no atexit), or of
    Playwright's node driver between them, takes every Chromium process with it (Chromium exits when its
    driver's pipe closes; the driver when its owner's does)."""
    import subprocess
    import sys

    code = OWNER.format(module=module, cls=cls, kwargs=kwargs, task_id=task_id)
    owner = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None and owner.stdout.readline().strip() == "ready"
        tree = psutil.Process(owner.pid).children(recursive=True)
        names = {p.pid: p.name() for p in tree}
        chromium = [p for p in tree if "chrom" in names[p.pid]]
        assert chromium, names
        if victim == "owner":
            owner.kill()
            owner.wait(timeout=10)
        else:
            (driver,) = [p for p in psutil.Process(owner.pid).children() if names.get(p.pid, "").startswith("node")]
            driver.kill()
        assert_all_gone(tree if victim == "owner" else chromium, timeout=15)
    finally:
        owner.kill()
        owner.wait(timeout=10)
