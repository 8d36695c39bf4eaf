"""``rewardlab serve`` over a real uvicorn server: protocol, sessions, faults, limits and security."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import gymnasium
import pytest
from websockets.sync.client import connect

import rewardlab  # noqa: F401
from rewardlab.errors import ConfigError
from rewardlab.serve import ServeConfig
from rewardlab.serve.client import RemoteEnv, RemoteError
from rewardlab.serve.protocol import OBSERVATION_FIELDS
from rewardlab.serve.runner import BackgroundServer, uvicorn_config
from tests.serve import faulty

FAULTY = faulty.register_faulty()


def request(ws, message):
    ws.send(message if isinstance(message, str | bytes) else json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def active_sessions(server: BackgroundServer) -> int:
    return len(server.app.state.server.sessions)


def wait_until(condition, timeout=30.0):
    """Liveness, not speed: a session ends once its client is gone, however loaded the machine (the NumPy 2 suite
    runs beside two workers of the main one; 10 s was once too little there)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


@pytest.fixture(scope="module")
def server():
    env_ids = (FAULTY, faulty.SLOW_ID, faulty.ASYNC_ID, faulty.ASYNC_LIMITED_ID, "RewardLab/ToolCall-v3")
    config = ServeConfig(env_ids, max_sessions=8)
    with BackgroundServer(config) as running:
        yield running


@pytest.fixture()
def ws(server):
    with connect(server.url + "/ws") as connection:
        yield connection
    wait_until(lambda: active_sessions(server) == 0)


def test_an_episode_reports_every_contract_field(ws):
    reply = request(ws, {"type": "reset", "data": {"env_id": FAULTY, "task_id": "t0"}})
    assert reply["type"] == "observation"
    assert reply["data"]["observation"]["text"] == "say alpha" and reply["data"]["done"] is False
    reply = request(ws, {"type": "step", "data": {"action": "alpha"}})
    data = reply["data"]
    assert list(data["observation"]) == list(OBSERVATION_FIELDS)
    assert data["reward"] == 1.0 and data["done"] is True
    assert data["observation"]["reward_components"] == {"exact": 1.0, "length": 1.0}
    assert data["observation"]["reward_weights"] == {"exact": 0.5, "length": 0.5}
    assert data["observation"]["is_success"] is True
    state = request(ws, {"type": "state"})
    assert state["type"] == "state" and state["data"]["step_count"] == 1 and state["data"]["task_id"] == "t0"
    assert state["data"]["reward_version"] == data["observation"]["reward_version"]
    assert state["data"]["reward_version"].startswith("rv-")


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "INVALID_JSON"),
        (b"\xff\xfe", "INVALID_JSON"),
        ('"a string"', "VALIDATION_ERROR"),
        ('{"type": "teleport"}', "UNKNOWN_TYPE"),
        ('{"type": "step", "data": {"action": 3}}', "VALIDATION_ERROR"),
        ('{"type": "step", "data": []}', "VALIDATION_ERROR"),
        ('{"type": "reset", "data": {"seed": -1}}', "VALIDATION_ERROR"),
        ('{"type": "reset", "data": {"sed": 1}}', "VALIDATION_ERROR"),
        ('{"type": "reset", "data": {"env_id": "RewardLab/Nope-v1"}}', "VALIDATION_ERROR"),
        ("[" * 100_000, "INVALID_JSON"),
    ],
)
def test_bad_frames_get_their_error_code_and_the_session_goes_on(ws, frame, code):
    reply = request(ws, frame)
    assert reply["type"] == "error" and reply["data"]["code"] == code, reply
    assert request(ws, {"type": "reset", "data": {"env_id": FAULTY}})["type"] == "observation"


def test_step_before_reset_an_unknown_task_and_a_misspelt_argument_are_validation_errors(ws):
    assert request(ws, {"type": "step", "data": {"action": "x"}})["data"]["code"] == "VALIDATION_ERROR"
    reply = request(ws, {"type": "reset", "data": {"env_id": FAULTY, "env_kwargs": {"max_turn": 3}}})
    assert reply["data"]["code"] == "VALIDATION_ERROR" and "max_turns" in reply["data"]["message"]
    reply = request(ws, {"type": "reset", "data": {"env_id": FAULTY, "task_id": "no-such-task"}})
    assert reply["data"]["code"] == "VALIDATION_ERROR" and "no-such-task" in reply["data"]["message"]
    reply = request(ws, {"type": "reset", "data": {"env_id": FAULTY, "task_id": "t1"}})
    assert reply["type"] == "observation"
    reply = request(ws, {"type": "reset", "data": {"env_id": "RewardLab/ToolCall-v3"}})
    assert reply["data"]["code"] == "VALIDATION_ERROR" and "fixed" in reply["data"]["message"]


def test_a_16_mb_frame_is_refused_and_the_session_goes_on(ws):
    reply = request(ws, json.dumps({"type": "step", "data": {"action": "x" * (16 << 20)}}))
    assert reply["data"]["code"] == "VALIDATION_ERROR" and "over" in reply["data"]["message"]
    assert request(ws, {"type": "reset", "data": {"env_id": FAULTY}})["type"] == "observation"


def test_an_exception_inside_the_env_is_an_infra_error_that_ends_only_its_session(server):
    with connect(server.url + "/ws") as healthy, connect(server.url + "/ws") as doomed:
        request(healthy, {"type": "reset", "data": {"env_id": FAULTY, "task_id": "t0"}})
        request(doomed, {"type": "reset", "data": {"env_id": FAULTY, "task_id": "t0"}})
        reply = request(doomed, {"type": "step", "data": {"action": "crash"}})
        data = reply["data"]
        assert reply["type"] == "observation" and data["done"] is True and data["reward"] is None
        assert "the sandbox engine died" in data["observation"]["infra_error"]
        assert data["observation"]["usable"] is False and data["observation"]["is_success"] is False
        with pytest.raises(Exception):  # noqa: B017 - the server closed the session (code 1011)
            doomed.recv(timeout=10)
        assert doomed.close_code == 1011
        assert request(healthy, {"type": "step", "data": {"action": "alpha"}})["data"]["reward"] == 1.0


def test_a_slow_step_does_not_stall_other_sessions(server):
    with connect(server.url + "/ws") as slow, connect(server.url + "/ws") as fast:
        request(slow, {"type": "reset", "data": {"env_id": faulty.SLOW_ID}})
        request(fast, {"type": "reset", "data": {"env_id": faulty.SLOW_ID}})
        slow.send(json.dumps({"type": "step", "data": {"action": "sleep:2"}}))
        started = time.monotonic()
        for _ in range(20):
            assert request(fast, {"type": "step", "data": {"action": "draft:x"}})["type"] == "observation"
        assert time.monotonic() - started < 1.5  # twenty steps finished while the slow one still sleeps
        assert json.loads(slow.recv(timeout=10))["data"]["observation"]["text"] == "noted"


def test_capacity_refuses_a_thousand_extra_connections_and_keeps_serving(server):
    limit = server.app.state.server.config.max_sessions
    held = [connect(server.url + "/ws", legacy=True) for _ in range(limit)]
    try:
        for connection in held:
            request(connection, {"type": "reset", "data": {"env_id": FAULTY}})
        for _ in range(1000):
            with connect(server.url + "/ws") as extra:
                reply = json.loads(extra.recv(timeout=10))
                assert reply["data"]["code"] == "CAPACITY_REACHED"
                assert reply["data"]["max_sessions"] == limit
        assert active_sessions(server) == limit
        for connection in held:
            assert request(connection, {"type": "step", "data": {"action": "alpha"}})["type"] == "observation"
    finally:
        for connection in held:
            connection.close()
    wait_until(lambda: active_sessions(server) == 0)


CLIENT = """
import json, sys
from websockets.sync.client import connect
ws = connect(sys.argv[1])
ws.send(json.dumps({"type": "reset", "data": {"env_id": sys.argv[2]}}))
ws.recv()
print("ready", flush=True)
ws.send(json.dumps({"type": "step", "data": {"action": "sleep:0.2"}}))
import time; time.sleep(60)
"""


def opened_since(known: set[int]) -> set[int]:
    """The test envs made after ``known`` was taken and not closed yet (earlier tests' envs may still be closing)."""
    with faulty.LOCK:
        return faulty.OPEN - known


def test_a_client_killed_mid_episode_frees_its_env(server):
    known = set(faulty.OPEN)
    child = subprocess.Popen([sys.executable, "-c", CLIENT, server.url + "/ws", FAULTY], stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    assert len(opened_since(known)) == 1  # the reset was answered: its env is made
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    wait_until(lambda: active_sessions(server) == 0 and not opened_since(known))


def test_an_idle_session_is_closed_and_its_env_freed():
    known = set(faulty.OPEN)
    with BackgroundServer(ServeConfig((FAULTY,), idle_timeout=0.5)) as server, connect(server.url + "/ws") as ws:
        request(ws, {"type": "reset", "data": {}})  # one env served: env_id may be left out
        assert len(opened_since(known)) == 1
        reply = json.loads(ws.recv(timeout=10))
        assert reply["data"]["code"] == "SESSION_ERROR" and "idle" in reply["data"]["message"]
        wait_until(lambda: active_sessions(server) == 0 and not opened_since(known))


def test_a_session_counts_until_its_env_is_closed(server):
    """Health and capacity count a session whose env is still being freed (a container being removed holds
    resources): when ``active_sessions`` reaches 0, every env the sessions made is closed."""
    known = set(faulty.OPEN)
    for _ in range(3):
        with connect(server.url + "/ws") as connection:
            request(connection, {"type": "reset", "data": {"env_id": faulty.SLOW_ID}})
            request(connection, {"type": "step", "data": {"action": "linger:0.5"}})
    wait_until(lambda: active_sessions(server) == 0)
    assert not opened_since(known)


def test_sessions_end_without_a_logged_traceback(server, caplog):
    with caplog.at_level(logging.DEBUG):
        for polite in (True, False) * 5:
            connection = connect(server.url + "/ws", legacy=True)
            request(connection, {"type": "reset", "data": {"env_id": FAULTY}})
            if polite:
                connection.send(json.dumps({"type": "close"}))
            connection.close()
        wait_until(lambda: active_sessions(server) == 0)
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert not noisy, [r.getMessage() for r in noisy]


def get(url, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=60) as response:
        return json.loads(response.read())


def test_health_schema_and_metadata(server):
    health = get(server.http_url + "/health")
    assert health["status"] == "healthy" and health["max_sessions"] == 8
    schema = get(server.http_url + "/schema")
    assert schema["action"]["required"] == ["action"]
    assert list(schema["observation"]["properties"]) == list(OBSERVATION_FIELDS)
    metadata = get(server.http_url + "/metadata")
    toolcall = metadata["envs"]["RewardLab/ToolCall-v3"]
    names = [row["name"] for row in toolcall["components"]]
    assert names == ["format", "schema", "execution", "state", "answer", "efficiency"]
    assert abs(sum(row["default_weight"] for row in toolcall["components"]) - 1.0) < 1e-9
    assert toolcall["task_counts"]["train"] > 0 and toolcall["task_counts"]["test"] > 0


def test_a_token_is_required_on_every_connection_and_request():
    config = ServeConfig((FAULTY,), token="s3cret")
    with BackgroundServer(config) as server:
        with connect(server.url + "/ws") as ws:
            reply = json.loads(ws.recv(timeout=10))
            assert reply["data"]["code"] == "UNAUTHORIZED"
        with pytest.raises(RemoteError, match="UNAUTHORIZED"):
            RemoteEnv(server.url, FAULTY, token="wrong").reset()
        env = RemoteEnv(server.url, FAULTY, token="s3cret")
        assert env.reset(options={"task_id": "t0"})[0] == "say alpha"
        env.close()
        with pytest.raises(urllib.error.HTTPError) as refused:
            get(server.http_url + "/metadata")
        assert refused.value.code == 401
        assert get(server.http_url + "/schema", token="s3cret")["action"]["required"] == ["action"]
        assert get(server.http_url + "/health")["status"] == "healthy"


def test_a_non_loopback_host_needs_a_token():
    with pytest.raises(ConfigError, match="token"):
        uvicorn_config(ServeConfig((FAULTY,)), host="0.0.0.0")
    uvicorn_config(ServeConfig((FAULTY,), token="t"), host="0.0.0.0")


def test_many_concurrent_sessions_each_get_their_own_env(server):
    results: list[float] = []

    def play(task_id):
        env = RemoteEnv(server.url, FAULTY)
        env.reset(options={"task_id": task_id})
        results.append(env.step("alpha" if task_id == "t0" else "wrong")[1])
        env.close()

    threads = [threading.Thread(target=play, args=("t0" if i % 2 else "t1",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results)[-4:] == [1.0] * 4 and all(r < 1.0 for r in sorted(results)[:4])


def test_later_resets_may_leave_out_the_env_id_when_several_envs_are_served(ws):
    assert request(ws, {"type": "reset", "data": {"env_id": FAULTY, "task_id": "t0"}})["type"] == "observation"
    reply = request(ws, {"type": "reset", "data": {"task_id": "t1"}})
    assert reply["type"] == "observation" and reply["data"]["observation"]["task_id"] == "t1"


def session_threads() -> int:
    return sum(thread.name.startswith("rewardlab-session-") for thread in threading.enumerate())


def test_sessions_of_a_cheap_env_share_a_small_pool_instead_of_a_thread_each(server):
    """ToolCall declares ``cheap_calls``: its envs are made, and its calls over the inline budget run, on the
    server's shared pool of CHEAP_CALL_WORKERS threads; FaultyEchoEnvSlow (not cheap) has a thread per session."""
    from rewardlab.serve.session import CHEAP_CALL_WORKERS, declares_cheap_calls

    assert declares_cheap_calls("RewardLab/ToolCall-v3") and not declares_cheap_calls(faulty.SLOW_ID)
    assert not declares_cheap_calls("NoSuch/Env-v0")
    before = session_threads()
    connections = [connect(server.url + "/ws") for _ in range(6)]
    try:
        for index, connection in enumerate(connections):
            reply = request(connection, {"type": "reset", "data": {"env_id": "RewardLab/ToolCall-v3", "seed": index}})
            assert reply["type"] == "observation" and reply["data"]["observation"]["task_id"]
            reply = request(connection, {"type": "step", "data": {"action": "not a tool call"}})
            assert reply["type"] == "observation"
        assert session_threads() == before
        cheap = [t for t in threading.enumerate() if t.name.startswith("rewardlab-cheap")]
        assert 1 <= len(cheap) <= CHEAP_CALL_WORKERS
        with connect(server.url + "/ws") as other:
            assert request(other, {"type": "reset", "data": {"env_id": faulty.SLOW_ID}})["type"] == "observation"
            assert session_threads() == before + 1
    finally:
        for connection in connections:
            connection.close()
    wait_until(lambda: active_sessions(server) == 0)


def test_a_surprise_slow_step_of_a_cheap_env_sends_its_later_calls_off_the_event_loop(server):
    assert faulty.FaultyEchoEnv.cheap_calls  # inherited from EchoEnv: steps run on the event loop
    with connect(server.url + "/ws") as slow, connect(server.url + "/ws") as fast:
        request(slow, {"type": "reset", "data": {"env_id": FAULTY}})
        request(fast, {"type": "reset", "data": {"env_id": FAULTY}})
        request(slow, {"type": "step", "data": {"action": "sleep:0.3"}})  # inline: stalls the loop once
        slow.send(json.dumps({"type": "step", "data": {"action": "sleep:2"}}))  # now on the session's thread
        started = time.monotonic()
        for _ in range(20):
            assert request(fast, {"type": "step", "data": {"action": "draft:x"}})["type"] == "observation"
        assert time.monotonic() - started < 1.5
        assert json.loads(slow.recv(timeout=10))["data"]["observation"]["text"] == "noted"


def test_an_env_with_step_async_is_awaited_on_the_event_loop_and_holds_no_thread_while_it_waits(server):
    """Four sessions' steps that each wait 1 s all run on the server's event loop thread (none on a session's
    thread), score as ``step`` does, and an exception inside ``step_async`` is an infra_error like any other."""
    faulty.STEP_THREADS.clear()
    with contextlib.ExitStack() as stack:
        connections = [stack.enter_context(connect(server.url + "/ws")) for _ in range(4)]
        for connection in connections:
            request(connection, {"type": "reset", "data": {"env_id": faulty.ASYNC_ID, "task_id": "t0"}})
        for connection in connections:
            connection.send(json.dumps({"type": "step", "data": {"action": "wait:1"}}))
        for connection in connections:
            reply = json.loads(connection.recv(timeout=30))
            assert reply["data"]["observation"]["text"] == "noted" and reply["data"]["done"] is False
        assert request(connections[0], {"type": "step", "data": {"action": "alpha"}})["data"]["reward"] == 1.0
        crashed = request(connections[1], {"type": "step", "data": {"action": "crash"}})["data"]
        assert crashed["reward"] is None and "the sandbox engine died" in crashed["observation"]["infra_error"]
    assert faulty.STEP_THREADS and set(faulty.STEP_THREADS) == {server.thread.name}
    wait_until(lambda: active_sessions(server) == 0)


def test_step_async_is_not_awaited_through_a_wrapper_whose_step_it_would_skip(server):
    """Behind a TimeLimit the server calls ``step`` (on the session's thread), so the limit still truncates."""
    from rewardlab.serve.session import async_step

    for env_id, awaited in ((faulty.ASYNC_ID, True), (faulty.ASYNC_LIMITED_ID, False), (faulty.SLOW_ID, False)):
        with contextlib.closing(gymnasium.make(env_id)) as env:
            assert (async_step(env) is not None) is awaited, env_id
    faulty.STEP_THREADS.clear()
    with connect(server.url + "/ws") as connection:
        request(connection, {"type": "reset", "data": {"env_id": faulty.ASYNC_LIMITED_ID, "task_id": "t0"}})
        replies = [request(connection, {"type": "step", "data": {"action": "draft:x"}})["data"] for _ in range(3)]
    assert [reply["done"] for reply in replies] == [False, False, True]
    assert len(faulty.STEP_THREADS) == 3
    assert all(name.startswith("rewardlab-session-") for name in faulty.STEP_THREADS)
    wait_until(lambda: active_sessions(server) == 0)
