"""``RemoteEnv``: a RewardLab env served by ``rewardlab serve`` (or any server speaking its
protocol), as a ``gymnasium.Env``.

::

    env = RemoteEnv("ws://127.0.0.1:8000", "RewardLab/ToolCall-v3", max_turns=8)
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step("...")

or ``gym.make("RewardLabClient/Remote-v0", url=..., env_id=..., env_kwargs={...})``. Observations,
rewards and ``info`` (every key, as JSON data: tuples come back as lists) are the served env's,
decoded by :mod:`rewardlab.serve.protocol`, the module the server encodes them with.
A session the server ended on an infrastructure fault comes back as a truncated step with
``info["infra_error"]`` and reward 0.0; so does a step whose connection was lost (the server
killed or restarted, the network cut) or that got no reply within ``timeout``: the episode
cannot be scored, and a trainer drops it instead of crashing or learning from a false 0. The next
``reset`` opens a new session. Server errors (an unknown task id, capacity reached, a bad token)
raise :class:`RemoteError` with the code.
"""

from __future__ import annotations

import contextlib
import inspect
import json
from typing import Any

import gymnasium as gym

from rewardlab.core.spaces import text_space
from rewardlab.errors import RewardLabError, require
from rewardlab.serve.protocol import read_observation

__all__ = ["RemoteEnv", "RemoteError"]


class RemoteError(RewardLabError, RuntimeError):
    """The server answered with an error frame; ``code`` is its error code."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{message} ({code})")
        self.code = code


LOST = ("SESSION_CLOSED", "NO_REPLY")
"""The :class:`RemoteError` codes of a connection lost mid-request (not an error frame of the server)."""


def _ws_url(url: str) -> str:
    """``url`` as the ``/ws`` endpoint: ``http(s)://`` becomes ``ws(s)://``, ``/ws`` is appended once."""
    for http, ws in (("http://", "ws://"), ("https://", "wss://")):
        if url.startswith(http):
            url = ws + url[len(http) :]
    if "://" not in url:
        url = "ws://" + url
    base, _, query = url.partition("?")
    base = base.rstrip("/")
    if not base.endswith("/ws"):
        base += "/ws"
    return f"{base}?{query}" if query else base


class RemoteEnv(gym.Env[str, str]):
    """One session of a served env.

    Args:
        url: The server (``ws://host:port``, ``http://host:port`` or the ``/ws`` URL itself).
        env_id: The served env to make.
        env_kwargs: Its arguments (fixed for the session); extra keyword arguments join them.
        token: Sent as ``Authorization: Bearer <token>`` when the server requires one.
        timeout: Seconds to wait for a connection or a reply.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        url: str,
        env_id: str,
        env_kwargs: dict[str, Any] | None = None,
        *,
        token: str | None = None,
        timeout: float = 300.0,
        **extra_kwargs: Any,
    ):
        self.url = _ws_url(url)
        self.env_id = env_id
        self.env_kwargs = {**(env_kwargs or {}), **extra_kwargs}
        self.token = token
        self.timeout = timeout
        self.observation_space = text_space()
        self.action_space = text_space()
        self._connection: Any = None
        self._fresh = True
        self._task_id: str | None = None

    def _connect(self) -> Any:
        if self._connection is None:
            client = require("websockets.sync.client", "serve")
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
            options = {"legacy": True} if "legacy" in inspect.signature(client.connect).parameters else {}
            self._connection = client.connect(
                self.url,
                additional_headers=headers,
                open_timeout=self.timeout,
                max_size=None,
                compression=None,
                **options,
            )
            self._fresh = True
        return self._connection

    def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        closed = require("websockets.exceptions", "serve").ConnectionClosed
        connection = self._connect()
        with contextlib.suppress(closed):  # a server that refused the session has sent why: read it
            connection.send(json.dumps(message))
        try:
            reply = json.loads(connection.recv(timeout=self.timeout))
        except closed as exc:
            self._connection = None
            raise RemoteError("SESSION_CLOSED", f"the server closed the session: {exc}") from None
        except TimeoutError:
            self._disconnect()  # the server closes the session's env when the connection goes
            raise RemoteError("NO_REPLY", f"the server sent no reply within {self.timeout:g} s") from None
        if reply.get("type") == "error":
            data = reply.get("data") or {}
            raise RemoteError(str(data.get("code", "UNKNOWN")), str(data.get("message", "")))
        return reply.get("data") or {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode on the server; ``options``: ``task_id``, ``split``."""
        super().reset(seed=seed)
        message: dict[str, Any] = {"seed": seed, **(options or {})}
        self._connect()
        if self._fresh:
            message.update(env_id=self.env_id, env_kwargs=self.env_kwargs)
        data = self._request({"type": "reset", "data": message})
        self._fresh = False
        text, _, _, _, info = read_observation(data)
        self._task_id = info.get("task_id")
        if info.get("infra_error"):  # the server ended the session; the next reset opens a new one
            self._disconnect()
        return text, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play ``action`` on the server; a lost connection ends the episode with ``infra_error``."""
        try:
            data = self._request({"type": "step", "data": {"action": action}})
        except RemoteError as exc:
            if exc.code not in LOST:
                raise
            self._disconnect()
            reason = f"the connection to the server was lost mid-episode: {exc}"
            info = {"task_id": self._task_id, "infra_error": reason, "usable": False, "is_success": False}
            return f"infra_error: {reason}", 0.0, False, True, info
        text, reward, terminated, truncated, info = read_observation(data)
        if info.get("infra_error"):  # the server ended the session; the next reset opens a new one
            self._disconnect()
        return text, float(reward or 0.0), terminated, truncated, info

    def state(self) -> dict[str, Any]:
        """The server's view of the session: episode id, step count, env id, task id."""
        return self._request({"type": "state"})

    def _disconnect(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):  # the server may have closed it already
                connection.send(json.dumps({"type": "close"}))
            connection.close()

    def close(self) -> None:
        """End the session (the server closes the env at once)."""
        self._disconnect()
        super().close()
