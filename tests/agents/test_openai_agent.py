"""OpenAIAgent against a small OpenAI-compatible server started by the test (stdlib http.server)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rewardlab.agents import OpenAIAgent
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode
from tests.conftest import EchoEnv


class ChatServer:
    """Answers ``POST /v1/chat/completions``; the reply is produced by ``respond(request_json)``."""

    def __init__(self, respond):
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                message = respond(body)
                payload = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def echo_target(body: dict) -> dict:
    """Answers EchoEnv: the word after 'say' in the last user message."""
    last = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return {"role": "assistant", "content": last.split()[-1]}


def test_solves_echo_through_a_local_server_and_sends_the_chat():
    with ChatServer(echo_target) as server:
        agent = OpenAIAgent(server.url, "tiny-model", api_key="secret")
        result = run_episode(EchoEnv(), agent, seed=0, task_id="t2")
    assert result.is_success and result.actions == ["gamma"]
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer secret"
    assert request["model"] == "tiny-model" and request["temperature"] == 0.0
    assert request["messages"] == [
        {"role": "system", "content": "Repeat the target."},
        {"role": "user", "content": "say gamma"},
    ]
    assert "tools" not in request


def test_multi_turn_history_and_tools_are_sent():
    replies = iter([{"role": "assistant", "content": "draft:x"}, {"role": "assistant", "content": "alpha"}])
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    with ChatServer(lambda body: next(replies)) as server:
        agent = OpenAIAgent(server.url, "m")
        env = EchoEnv()
        observation, info = env.reset(seed=0, options={"task_id": "t0"})
        info["tools"] = tools
        action = agent.act(observation, info)
        observation, *_ = env.step(action)
        agent.act(observation, {})
    second = server.requests[1]
    assert second["tools"] == tools
    assert [m["content"] for m in second["messages"]] == ["Repeat the target.", "say alpha", "draft:x", "noted"]


def test_tool_calls_become_the_json_action_format():
    def respond(body):
        calls = [
            {"id": "1", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": "O1"}'}},
            {"id": "2", "type": "function", "function": {"name": "bad", "arguments": "{not json"}},
        ]
        return {"role": "assistant", "content": None, "tool_calls": calls}

    with ChatServer(respond) as server:
        action = OpenAIAgent(server.url, "m").act("q", {"system_prompt": ""})
    assert json.loads(action) == [
        {"name": "get_order", "arguments": {"order_id": "O1"}},
        {"name": "bad", "arguments": "{not json"},
    ]


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("localhost:8000", "m"), {}, "base_url"),
        (("http://x/v1", ""), {}, "model"),
        (("http://x/v1", "m"), {"temperature": -1}, "temperature"),
    ],
)
def test_rejects_bad_arguments(args, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        OpenAIAgent(*args, **kwargs)
