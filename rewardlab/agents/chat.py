"""The chat an LLM agent answers: ``info["messages"]`` when the env keeps one, else its own history."""

from __future__ import annotations

from typing import Any


class ChatState:
    """Builds the message list for each turn of an episode.

    With :class:`~rewardlab.wrappers.ChatHistory` around the env, ``info["messages"]`` is the chat
    and is used as it is. Otherwise the agent keeps the history itself:
    ``[system (info["system_prompt"], when non-empty), user observation, assistant action, user
    observation, ...]``. ``info["tools"]`` (given at reset) is remembered for later turns.
    """

    def __init__(self) -> None:
        self.messages: list[dict[str, str]] = []
        self.tools: list[dict[str, Any]] | None = None

    def reset(self) -> None:
        self.messages = []
        self.tools = None

    def turn(self, observation: str, info: dict[str, Any]) -> list[dict[str, str]]:
        """The messages to answer now, given this turn's observation and info."""
        if info.get("tools") is not None:
            self.tools = info["tools"]
        if info.get("messages"):
            self.messages = [dict(m) for m in info["messages"]]
        elif not self.messages or "system_prompt" in info:  # first turn (reset info carries system_prompt)
            system = info.get("system_prompt") or ""
            self.messages = [{"role": "system", "content": str(system)}] if system else []
            self.messages.append({"role": "user", "content": str(observation)})
        else:
            self.messages.append({"role": "user", "content": str(observation)})
        return list(self.messages)

    def record(self, action: str) -> None:
        """Remember the agent's answer (used when the env keeps no chat)."""
        self.messages.append({"role": "assistant", "content": action})
