"""An episode as OpenAI-style chat messages, the one way every consumer builds them.

The ChatHistory and ProcessReward wrappers, the LLM agents, the baselines' rollouts and every
trainer adapter show an episode to a chat model as::

    [{"role": "system", "content": info["system_prompt"]},   # only when the prompt is non-empty
     {"role": "user", "content": <reset observation>},
     {"role": "assistant", "content": <action 1>},
     {"role": "user", "content": <observation after action 1>},
     ...]

Every observation, tool results included, is a ``user`` message, so after the optional system
message the roles strictly alternate user/assistant: every Hugging Face chat template accepts the
list, including those that raise on anything else (Llama 2, Mistral). A ``tool`` role is not used:
it needs the structured ``tool_calls`` of the assistant message it answers, which a text action does
not carry. Observations and actions that are not ``str`` are recorded as their ``str()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Conversation", "Message", "opening_messages"]

Message = dict[str, str]
"""``{"role": ..., "content": ...}``."""


def opening_messages(observation: Any, info: Mapping[str, Any]) -> list[Message]:
    """The chat of a reset: the env's system prompt (when it has one), then the observation as the user.

    Example:
        >>> opening_messages("say alpha", {"system_prompt": "Repeat the target."})
        [{'role': 'system', 'content': 'Repeat the target.'}, {'role': 'user', 'content': 'say alpha'}]
        >>> opening_messages("say alpha", {"system_prompt": ""})
        [{'role': 'user', 'content': 'say alpha'}]
    """
    system = info.get("system_prompt") or ""
    return ([{"role": "system", "content": str(system)}] if system else []) + [
        {"role": "user", "content": str(observation)}
    ]


class Conversation:
    """The messages of one episode so far (the module docstring's list) and the env's tools.

    :meth:`start` opens an episode from its reset, :meth:`act` records an action, :meth:`observe`
    the env's answer. :meth:`adopt` takes the chat an env keeps itself (``info["messages"]``, which
    :class:`~rewardlab.wrappers.ChatHistory` adds) instead.

    Attributes:
        messages: The episode's messages, the conversation's own list (copy it to keep a snapshot).
        tools: ``info["tools"]`` of the reset (OpenAI function schemas), or ``None``.

    Example:
        >>> chat = Conversation()
        >>> chat.start("say alpha", {"system_prompt": "Repeat the target."})
        >>> chat.act("alpha")
        >>> chat.observe("done")
        >>> [(m["role"], m["content"]) for m in chat.messages]
        [('system', 'Repeat the target.'), ('user', 'say alpha'), ('assistant', 'alpha'), ('user', 'done')]
    """

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.tools: list[dict[str, Any]] | None = None

    def start(self, observation: Any, info: Mapping[str, Any]) -> None:
        """Open a new episode: :func:`opening_messages` of its reset, and the reset's tools."""
        self.messages = opening_messages(observation, info)
        self.tools = info.get("tools")

    def act(self, action: Any) -> None:
        """Record the agent's action as an assistant message."""
        self.messages.append({"role": "assistant", "content": str(action)})

    def observe(self, observation: Any) -> None:
        """Record the env's observation as a user message."""
        self.messages.append({"role": "user", "content": str(observation)})

    def adopt(self, info: Mapping[str, Any]) -> bool:
        """Take ``info["messages"]`` (copied) when the env keeps the chat itself; True when it did."""
        if not info.get("messages"):
            return False
        self.messages = [dict(message) for message in info["messages"]]
        return True
