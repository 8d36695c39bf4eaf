"""NeMo-Gym adapter against the real NeMo-Gym 0.7, which needs Python >= 3.13.14.

Not collected by the suite on this machine's Python (the file name is not ``test_*``):
tests/integrations/test_nemo_gym_real.py runs it inside the ``rewardlab/nemo-gym`` image
(scripts/setup-nemo-gym.sh) with this checkout mounted. Each episode goes over HTTP to the server's own
FastAPI app (``GymnasiumServer.setup_webserver``: NeMo-Gym's session middleware and request models), with
the bodies NeMo-Gym's ``gymnasium_agent`` sends: ``/reset`` with the dataset row, then ``/step`` with the row
and a ``NeMoGymResponse`` whose message is the reply, each with the session's cookie. Every expected value
comes from playing the same actions in process (tests/integrations/test_nemo_gym.py runs the same cases
against a stand-in on any Python).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any
from unittest.mock import MagicMock

import gymnasium as gym
import pytest
from fastapi.testclient import TestClient
from nemo_gym.config_types import ResourcesServerTypeConfig, ResponsesAPIAgentServerTypeConfig
from nemo_gym.openai_utils import NeMoGymResponse
from nemo_gym.server_utils import ServerClient, _server_uses_ray
from resources_servers.gymnasium import EnvResetRequest

from rewardlab.core.info import episode_logs
from rewardlab.integrations.nemo_gym import RewardLabServer, RewardLabServerConfig, nemo_gym_rows
from tests.integrations.test_nemo_gym import COUNTED_ECHO, GARBAGE, TOOLCALL, CloseCounter, FaultyEcho, in_process


@pytest.fixture(scope="module", autouse=True)
def counted_echo():
    if COUNTED_ECHO not in gym.registry:
        gym.register(id=COUNTED_ECHO, entry_point=lambda **kw: CloseCounter(FaultyEcho(**kw)))


def served(env_id: str) -> tuple[RewardLabServer, TestClient]:
    """The server for ``env_id`` and an HTTP client of its app (one client: one session cookie)."""
    config = RewardLabServerConfig(host="", port=0, entrypoint="", name="rewardlab", env_id=env_id)
    server = RewardLabServer(config=config, server_client=MagicMock(spec=ServerClient))
    return server, TestClient(server.setup_webserver(), raise_server_exceptions=False)


def response(text: str) -> dict[str, Any]:
    """A Responses API response whose one message says ``text``, as the model server returns it."""
    message = {"id": "msg", "type": "message", "content": [{"type": "output_text", "text": text, "annotations": []}]}
    made = NeMoGymResponse(
        id="resp", created_at=0.0, model="scripted", object="response", output=[message],
        parallel_tool_calls=True, tool_choice="auto", tools=[],
    )  # fmt: skip
    return made.model_dump()


def play(client: TestClient, row: dict[str, Any], actions: list[str], max_steps: int = 64) -> list[dict[str, Any]]:
    """What ``gymnasium_agent`` does: ``/reset`` with the row, then ``/step`` with each reply until the episode
    ends. The reset's JSON, then each step's."""
    replies = [client.post("/reset", json=row).json()]
    for step in range(max_steps):
        answer = client.post("/step", json=row | {"response": response(actions[step % len(actions)])})
        assert answer.status_code == 200, answer.text
        replies.append(answer.json())
        if replies[-1]["terminated"] or replies[-1]["truncated"]:
            break
    return replies


def test_oracle_episodes_over_http_match_in_process_play():
    server, client = served(TOOLCALL)
    for row in nemo_gym_rows(TOOLCALL, limit=2, agent_name="rewardlab_agent"):
        actions, rewards, final_info = in_process(TOOLCALL, row["task_id"])
        reset, *steps = play(client, row, actions)
        assert reset["info"] == {"task_id": row["task_id"], "reward_version": row["reward_version"]}
        assert [step["reward"] for step in steps] == pytest.approx(rewards)
        assert steps[-1]["terminated"] and final_info["is_success"]
        logs = {"task_id": row["task_id"], "reward_version": final_info["reward_version"], **episode_logs(final_info)}
        assert steps[-1]["info"] == pytest.approx(logs)
    assert server.session_state == {}  # every episode's env closed after its terminal step


def test_a_garbage_reply_is_scored_not_a_crash():
    _, client = served(TOOLCALL)
    row = nemo_gym_rows(TOOLCALL, limit=1)[0]
    _, rewards, _ = in_process(TOOLCALL, row["task_id"], actions=[GARBAGE])
    steps = play(client, row, [GARBAGE])[1:]
    assert [step["reward"] for step in steps] == pytest.approx(rewards)


def test_an_infra_fault_fails_the_step_and_closes_the_env_once():
    server, client = served(COUNTED_ECHO)
    closes = CloseCounter.closes
    row = {"responses_create_params": {"input": []}, "task_id": None, "split": "train"}
    client.post("/reset", json=row)
    failed = client.post("/step", json=row | {"response": response("crash")})
    assert failed.status_code == 500  # the rollout fails: not collected, never scored 0
    assert CloseCounter.closes == closes + 1 and server.session_state == {}


def test_sessions_stay_apart_and_a_reset_on_a_live_one_starts_over():
    server, first = served(TOOLCALL)
    second = TestClient(first.app, raise_server_exceptions=False)
    rows = nemo_gym_rows(TOOLCALL, limit=2)
    for client, row in ((first, rows[0]), (second, rows[1])):
        assert client.post("/reset", json=row).json()["info"]["task_id"] == row["task_id"]
    assert len(server.session_state) == 2
    assert first.post("/reset", json=rows[1]).json()["info"]["task_id"] == rows[1]["task_id"]
    assert len(server.session_state) == 2  # the live session's env was closed and replaced
    for client, row in ((first, rows[1]), (second, rows[1])):
        actions, rewards, _ = in_process(TOOLCALL, row["task_id"])
        steps = [client.post("/step", json=row | {"response": response(a)}).json() for a in actions]
        assert [step["reward"] for step in steps] == pytest.approx(rewards)
    assert server.session_state == {}


def test_the_server_declares_it_needs_no_ray():
    assert _server_uses_ray(RewardLabServer) is False  # what NeMo-Gym's launcher asks before it starts Ray


def test_the_example_writes_rows_and_a_config_nemo_gym_reads(tmp_path):
    import yaml

    rows, config = tmp_path / "train.jsonl", tmp_path / "rewardlab.yaml"
    example = [sys.executable, "examples/nemo_gym_server.py", "--rows", TOOLCALL, "--limit", "2"]
    done = subprocess.run(
        [*example, "--output", str(rows), "--config", str(config)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    written = [json.loads(line) for line in rows.read_text().splitlines()]
    assert [row["task_id"] for row in written] == [row["task_id"] for row in nemo_gym_rows(TOOLCALL, limit=2)]
    for row in written:
        EnvResetRequest.model_validate(row)  # the body of /reset, as NeMo-Gym reads it
    loaded = yaml.safe_load(config.read_text())
    server = ResourcesServerTypeConfig.model_validate(loaded["rewardlab"]).resources_servers["rewardlab"]
    agent = ResponsesAPIAgentServerTypeConfig.model_validate(loaded["rewardlab_agent"]).responses_api_agents
    assert server.model_extra["env_id"] == TOOLCALL and agent["gymnasium_agent"].datasets[0].jsonl_fpath == str(rows)
