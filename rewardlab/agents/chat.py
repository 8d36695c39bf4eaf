"""The chat an LLM agent answers: ``info["messages"]`` when the env keeps one, else its own history."""

from __future__ import annotations

from typing import Any

from rewardlab.core.chat import Conversation, Message


class ChatState(Conversation):
    """Builds the message list for each turn of an episode, seeing only each turn's ``(observation, info)``.

    With :class:`~rewardlab.wrappers.ChatHistory` around the env, ``info["messages"]`` is the chat
    and is used as it is. Otherwise the agent keeps the history itself, as
    :class:`~rewardlab.core.chat.Conversation` builds it; a turn whose info carries
    ``system_prompt`` (a reset's) opens a new episode. ``info["tools"]``, whenever an info has it, is
    remembered for later turns.
    """

    def reset(self) -> None:
        self.messages = []
        self.tools = None

    def turn(self, observation: str, info: dict[str, Any]) -> list[Message]:
        """The messages to answer now, given this turn's observation and info."""
        if self.adopt(info):
            pass  # the env keeps the chat
        elif not self.messages or "system_prompt" in info:  # first turn (reset info carries system_prompt)
            self.start(observation, info)
        else:
            self.observe(observation)
        if info.get("tools") is not None:
            self.tools = info["tools"]
        return list(self.messages)

    def record(self, action: str) -> None:
        """Remember the agent's answer (used when the env keeps no chat)."""
        self.act(action)
