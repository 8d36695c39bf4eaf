"""OpenAIAgent: any OpenAI-compatible chat endpoint (vLLM, Ollama, hosted APIs) as a RewardLab agent."""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

from rewardlab.agents.chat import ChatState
from rewardlab.errors import ConfigError, require


class OpenAIAgent:
    """Asks ``POST {base_url}/chat/completions`` for each action through the ``openai`` client.

    The request carries the chat (``info["messages"]``, or the history the agent keeps) and, when
    the env has tools, ``tools=info["tools"]``. The action is the reply's text; when the server
    answers with structured ``tool_calls`` instead, they become the JSON action format of the
    tool envs, ``{"name": ..., "arguments": {...}}`` (a list for several calls).

    Example (a local vLLM server)::

        agent = OpenAIAgent("http://127.0.0.1:8000/v1", "Qwen/Qwen2.5-7B-Instruct")

    Args:
        base_url: The API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: The model name the server expects.
        api_key: Defaults to ``$OPENAI_API_KEY``, else ``"EMPTY"`` (local servers ignore it).
        temperature: Sampling temperature (0: greedy, for repeatable evaluations).
        max_tokens: Most tokens per action.
        timeout: Seconds per request.
        extra_body: Extra JSON fields for the server (e.g. vLLM's ``{"top_k": 20}``).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        timeout: float = 120.0,
        extra_body: dict[str, Any] | None = None,
    ):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"base_url must be an http(s) URL such as 'http://127.0.0.1:8000/v1', got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ConfigError(f"model must be the model name the server serves, got {model!r}")
        if not temperature >= 0:
            raise ConfigError(f"temperature must be >= 0, got {temperature!r}")
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise ConfigError(f"max_tokens must be a positive int, got {max_tokens!r}")
        openai = require("openai", "train")
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY", timeout=timeout
        )
        self.chat = ChatState()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        messages = self.chat.turn(observation, info)
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.chat.tools:
            request["tools"] = self.chat.tools
        if self.extra_body:
            request["extra_body"] = self.extra_body
        response = self.client.chat.completions.create(**request)
        action = message_text(response.choices[0].message)
        self.chat.record(action)
        return action

    def reset(self) -> None:
        self.chat.reset()


def message_text(message: Any) -> str:
    """The reply as an action: its tool calls as JSON when it has any, else its text."""
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        arguments = call.function.arguments
        if isinstance(arguments, str):
            with contextlib.suppress(json.JSONDecodeError):  # keep a malformed string: the env scores it
                arguments = json.loads(arguments)
        calls.append({"name": call.function.name, "arguments": arguments})
    if calls:
        return json.dumps(calls[0] if len(calls) == 1 else calls)
    return message.content or ""
