"""ChatHistory: the episode as OpenAI-style chat messages in ``info["messages"]``."""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from rewardlab.core.chat import Conversation, Message


class ChatHistory(gym.Wrapper[str, str, str, str]):
    """Keep the episode so far as chat messages, ready for ``tokenizer.apply_chat_template``.

    After ``reset`` and after every ``step``, ``info["messages"]`` is a new list of
    ``{"role": ..., "content": ...}`` dicts::

        [{"role": "system", "content": info["system_prompt"]},   # only when the prompt is non-empty
         {"role": "user", "content": <reset observation>},
         {"role": "assistant", "content": <action 1>},
         {"role": "user", "content": <observation after action 1>},
         ...]

    The list is built by :class:`~rewardlab.core.chat.Conversation`: every observation, tool
    results included, is a ``user`` message, so after the optional system message the roles
    strictly alternate user/assistant and start and end with ``user``: every Hugging Face chat
    template accepts the list (:mod:`rewardlab.core.chat` says why), and the list is the prompt for
    the next action as it stands. At the end of the episode the last message is the env's final
    observation.

    Where the env has tools, ``info["tools"]`` (the OpenAI function-calling schema given at
    reset) is repeated in every step's ``info`` too, so that a chat template can render the
    tool list at any turn. Actions that are not ``str`` (the env reports them in
    ``info["action_error"]``) are recorded as their ``str()``.

    Attributes:
        conversation: The current episode as a :class:`~rewardlab.core.chat.Conversation`.
        messages: Its messages (the wrapper's own list; ``info`` gets copies).
        tools: ``info["tools"]`` of the last reset, or ``None``.

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> env = ChatHistory(EchoEnv())
        >>> _, info = env.reset(seed=0, options={"task_id": "t0"})
        >>> _, _, _, _, info = env.step("alpha")
        >>> [(m["role"], m["content"]) for m in info["messages"]]
        [('system', 'Repeat the target.'), ('user', 'say alpha'), ('assistant', 'alpha'), ('user', 'done')]

    Version History:
        v0: initial version.
    """

    def __init__(self, env: gym.Env[str, str]):
        super().__init__(env)
        self.conversation = Conversation()

    @property
    def messages(self) -> list[Message]:
        return self.conversation.messages

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        return self.conversation.tools

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.conversation.start(observation, info)
        info["messages"] = list(self.messages)
        return observation, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.conversation.act(action)
        self.conversation.observe(observation)
        info["messages"] = list(self.messages)
        if self.tools is not None and "tools" not in info:
            info["tools"] = self.tools
        return observation, reward, terminated, truncated, info
