"""``rewardlab serve`` as a Ray Serve deployment on a local Ray instance (two replicas of two sessions):
oracle episodes over the wire match in-process ones, sessions are pinned to one replica and spread over
both, a closed session frees its slot and its env, the token passes Serve's proxy, and the CLI's
``--ray`` deploys and stops on Ctrl-C."""

from __future__ import annotations

import collections
import contextlib
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import pytest

import rewardlab  # noqa: F401
from rewardlab.agents import OracleAgent
from rewardlab.cli import main
from rewardlab.core.info import episode_logs
from rewardlab.errors import ConfigError
from rewardlab.serve import ServeConfig
from rewardlab.serve.client import RemoteEnv, RemoteError
from rewardlab.serve.protocol import jsonable
from rewardlab.serve.ray_serve import (
    EXIT_TIMEOUT_S,
    RAY_SHUTDOWN_TIMEOUT_S,
    REPLICA_HEADER,
    SHUTDOWN_TIMEOUT_S,
    _within,
    start,
)

ray = pytest.importorskip("ray")
serve = pytest.importorskip("ray.serve", reason="needs ray[serve] (grpcio-reflection among its extras)")
connect = pytest.importorskip("websockets.sync.client").connect

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # a local Ray instance of its own

ENV_ID = "RewardLab/ToolCall-v3"
REPLICAS = 2
MAX_SESSIONS = 2
TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def task_ids(count: int) -> list[str]:
    env = gym.make(ENV_ID)
    try:
        return env.unwrapped.tasks.ids("test")[:count]
    finally:
        env.close()


def health(port: int) -> tuple[str, dict]:
    """``(replica id, /health answer)`` of whichever replica Serve routes this request to."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as response:
        return response.headers[REPLICA_HEADER], json.load(response)


def wait_until_every_replica_is_idle(port: int, timeout: float = 30.0) -> dict[str, int]:
    """Poll ``/health`` until every replica has answered with no open session; their counts by replica."""
    deadline = time.monotonic() + timeout
    active: dict[str, int] = {}
    while len(active) < REPLICAS or any(active.values()):
        if time.monotonic() > deadline:
            raise AssertionError(f"open sessions by replica: {active}")
        replica, answer = health(port)
        active[replica] = answer["active_sessions"]
        time.sleep(0.05)
    return active


def oracle_episode(url: str, task_id: str, seed: int, barrier: threading.Barrier | None = None) -> tuple[dict, dict]:
    """The oracle's actions, chosen on an in-process env, replayed on a served one step by step;
    every reply must be the in-process step's. ``barrier``: wait there once the session is open.
    Returns both final infos (in-process, served)."""
    local = gym.make(ENV_ID)
    remote = RemoteEnv(url, ENV_ID, token=TOKEN, timeout=60)
    try:
        observation, info = local.reset(seed=seed, options={"task_id": task_id})
        assert remote.reset(seed=seed, options={"task_id": task_id}) == (observation, jsonable(info))
        if barrier is not None:
            barrier.wait()
        agent = OracleAgent(local)
        done = False
        while not done:
            action = agent.act(observation, info)
            observation, reward, terminated, truncated, info = local.step(action)
            served = remote.step(action)
            assert served == (observation, reward, terminated, truncated, jsonable(info))
            done = terminated or truncated
        return info, served[4]
    except BaseException:
        if barrier is not None:
            barrier.abort()
        raise
    finally:
        remote.close()
        local.close()


def test_a_non_loopback_host_needs_a_token_and_the_port_must_be_named():
    with pytest.raises(ConfigError, match="needs --token"):
        start(ServeConfig((ENV_ID,)), host="0.0.0.0", port=8000)
    with pytest.raises(ConfigError, match="explicit port"):
        start(ServeConfig((ENV_ID,)), port=0)


def _fail() -> None:
    raise RuntimeError("no controller")


def test_a_shutdown_that_never_ends_is_waited_for_only_so_long(capsys):
    """Ray's ``serve.shutdown()`` can retry a task on a controller it killed, for ever (seen on a busy machine):
    ``run`` waits a bounded time for it, says so, and exits; an exception it raises still propagates."""
    stuck = threading.Event()
    started = time.monotonic()
    _within(0.2, stuck.wait, "Serve's shutdown")
    assert time.monotonic() - started < 5 and "did not end within" in capsys.readouterr().out
    with pytest.raises(RuntimeError, match="no controller"):
        _within(5, _fail, "Serve's shutdown")
    stuck.set()


def test_an_exit_held_by_a_handler_is_ended_within_its_bound():
    """``end_process_within``: an exit handler that never returns (as Ray's can) holds the process only so long;
    a process that exits at once is not held for the bound."""
    held = (
        "import atexit, threading, time\n"
        "from rewardlab.serve.ray_serve import end_process_within\n"
        "atexit.register(threading.Event().wait)\n"
        "end_process_within(1.0)\n"
    )
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", held], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "exit did not end within 1 s" in result.stdout, result.stderr
    prompt = "from rewardlab.serve.ray_serve import end_process_within\nend_process_within(600.0)\n"
    result = subprocess.run([sys.executable, "-c", prompt], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "" and time.monotonic() - started < 60


def test_replicas_and_ray_address_need_ray(capsys):
    assert main(["serve", ENV_ID, "--replicas", "2"]) == 2
    assert "need --ray" in capsys.readouterr().out


def _as_a_background_job() -> None:
    """What a non-interactive shell does to a command it starts in the background (``cmd &``, as a CI script may
    start the suite): SIGINT ignored, a disposition the child inherits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_the_cli_deploys_on_ray_and_stops_on_ctrl_c(tmp_path):
    """``rewardlab serve ENV --ray --replicas 2`` in a process of its own, on a new local Ray instance. It stops on
    SIGINT also when started with SIGINT ignored (Python then installs no KeyboardInterrupt of its own), as
    ``rewardlab serve`` without Ray (uvicorn) does."""
    port = free_port()
    command = [sys.executable, "-m", "rewardlab", "serve", ENV_ID, "--ray", "--replicas", str(REPLICAS)]
    command += ["--ray-address", "local", "--max-sessions", str(MAX_SESSIONS), "--port", str(port), "--token", TOKEN]
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        child = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, preexec_fn=_as_a_background_job)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert child.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            try:
                health(port)
                break
            except OSError:
                time.sleep(0.5)
        local_info, served_info = oracle_episode(f"ws://127.0.0.1:{port}", task_ids(1)[0], seed=0)
        assert served_info["is_success"] is True and episode_logs(served_info) == episode_logs(jsonable(local_info))
        child.send_signal(signal.SIGINT)
        try:  # every wait of the way out is bounded, so this one is too
            code = child.wait(timeout=SHUTDOWN_TIMEOUT_S + RAY_SHUTDOWN_TIMEOUT_S + EXIT_TIMEOUT_S + 30)
        except subprocess.TimeoutExpired:
            pytest.fail("the server did not exit after Ctrl-C:\n" + log.read_text()[-3000:])
        assert code == 0, log.read_text()[-3000:]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    output = log.read_text()
    assert f"{REPLICAS} replicas x {MAX_SESSIONS} sessions" in output
    assert "Serve's shutdown ended in" in output and "Ray's shutdown ended in" in output, output[-3000:]
    with pytest.raises(OSError):
        health(port)


@pytest.fixture(scope="module")
def deployed():
    """``(ws URL, port)`` of the deployment on a local Ray instance; everything is shut down after."""
    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)  # never a running cluster
    try:
        port = free_port()
        config = ServeConfig((ENV_ID,), max_sessions=MAX_SESSIONS, token=TOKEN)
        url = start(config, port=port, num_replicas=REPLICAS, ray_actor_options={"num_cpus": 0.5})
        assert url == f"ws://127.0.0.1:{port}/ws"
        yield url, port
    finally:
        serve.shutdown()
        ray.shutdown()


def test_concurrent_oracle_episodes_match_in_process_ones(deployed):
    url, port = deployed
    sessions = REPLICAS * MAX_SESSIONS
    tasks = task_ids(sessions)
    # all four sessions open at once (the barrier): each replica admits two, so both replicas hold two
    barrier = threading.Barrier(sessions, timeout=60)
    with ThreadPoolExecutor(sessions) as pool:
        futures = [pool.submit(oracle_episode, url, task, seed, barrier) for seed, task in enumerate(tasks)]
        finals = [future.result() for future in futures]
    env = gym.make(ENV_ID)
    components = set(env.unwrapped.reward_component_names)
    env.close()
    for local_info, served_info in finals:
        assert served_info["is_success"] is True and not served_info.get("infra_error")
        assert served_info["reward_components"] == local_info["reward_components"]
        logs = episode_logs(served_info)
        assert logs == episode_logs(jsonable(local_info))
        assert {f"reward/{name}" for name in components} <= set(logs)
    assert len(wait_until_every_replica_is_idle(port)) == REPLICAS


def test_sessions_are_pinned_spread_and_a_closed_one_frees_its_slot(deployed):
    url, port = deployed
    tasks = task_ids(REPLICAS * MAX_SESSIONS + 1)

    def state(ws) -> dict:
        ws.send(json.dumps({"type": "state"}))
        return json.loads(ws.recv(timeout=60))["data"]

    with contextlib.ExitStack() as stack:

        def open_session(task_id: str):
            ws = stack.enter_context(connect(url, additional_headers=AUTH, open_timeout=60))
            ws.send(json.dumps({"type": "reset", "data": {"seed": 0, "task_id": task_id}}))
            assert json.loads(ws.recv(timeout=60))["type"] == "observation"
            return ws

        sockets = [open_session(task) for task in tasks[:-1]]
        replicas = [ws.response.headers[REPLICA_HEADER] for ws in sockets]
        assert sorted(collections.Counter(replicas).values()) == [MAX_SESSIONS] * REPLICAS
        # every frame of a connection reaches the replica holding its session: each still knows its task
        for _ in range(3):
            assert [state(ws)["task_id"] for ws in sockets] == tasks[:-1]

        fifth: dict = {}
        waiting = threading.Thread(target=lambda: fifth.update(ws=open_session(tasks[-1])))
        waiting.start()
        time.sleep(2.0)
        assert not fifth, "a fifth session was admitted while both replicas held their maximum"
        sockets[0].close()
        waiting.join(60)
        assert fifth["ws"].response.headers[REPLICA_HEADER] == replicas[0]
        assert state(fifth["ws"])["task_id"] == tasks[-1]
    assert set(wait_until_every_replica_is_idle(port)) == set(replicas)


def test_the_token_is_checked_behind_serves_proxy(deployed):
    url, _ = deployed
    env = RemoteEnv(url, ENV_ID, timeout=60)
    try:
        with pytest.raises(RemoteError) as refused:
            env.reset(seed=0)
        assert refused.value.code == "UNAUTHORIZED"
    finally:
        env.close()


def test_a_frame_over_max_frame_bytes_is_refused_behind_the_proxy_and_the_session_goes_on(deployed):
    url, _ = deployed
    with connect(url, additional_headers=AUTH, open_timeout=60, max_size=None) as ws:
        ws.send("x" * (2 << 20))
        assert json.loads(ws.recv(timeout=60))["data"]["code"] == "VALIDATION_ERROR"
        ws.send(json.dumps({"type": "state"}))
        assert json.loads(ws.recv(timeout=60))["type"] == "state"
