"""Run the app under uvicorn, refusing to expose an unauthenticated server beyond loopback."""

from __future__ import annotations

import ipaddress
import threading
import time
from typing import Any

from rewardlab.errors import ConfigError, require
from rewardlab.serve.app import create_app
from rewardlab.serve.config import ServeConfig

__all__ = ["WS_MAX_BYTES", "BackgroundServer", "is_loopback", "refuse_open_exposure", "serve", "uvicorn_config"]

WS_MAX_BYTES = 32 << 20
"""Largest frame the WebSocket layer reads (closed with 1009 above it); frames between
``max_frame_bytes`` and this get a ``VALIDATION_ERROR`` and the session goes on."""


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refuse_open_exposure(config: ServeConfig, host: str) -> None:
    """Raise ``ConfigError`` for a non-loopback ``host`` without a token: anyone who can reach it could run envs."""
    if not is_loopback(host) and not config.token:
        raise ConfigError(f"serving on {host} (not loopback) needs --token: anyone who can reach it could run envs")


def uvicorn_config(config: ServeConfig, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> Any:
    """The ``uvicorn.Config`` serving ``config``; raises ``ConfigError`` for a non-loopback host without a token."""
    uvicorn = require("uvicorn", "serve")
    refuse_open_exposure(config, host)
    settings: dict[str, Any] = {
        "host": host,
        "port": port,
        "ws_max_size": max(WS_MAX_BYTES, 2 * config.max_frame_bytes),
        "log_level": "warning",
        "access_log": False,
        "lifespan": "on",
    }
    settings.update(options)
    return uvicorn.Config(create_app(config), **settings)


def serve(config: ServeConfig, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Serve ``config`` until interrupted (uvicorn's ``Server.run``)."""
    uvicorn = require("uvicorn", "serve")
    uvicorn.Server(uvicorn_config(config, host, port, **options)).run()


class BackgroundServer:
    """The server on a daemon thread of this process, for notebooks, tests and benchmarks::

        with BackgroundServer(ServeConfig(("RewardLab/ToolCall-v3",))) as server:
            env = RemoteEnv(server.url, "RewardLab/ToolCall-v3")

    ``port=0`` (the default) takes a free port; :attr:`url` is ``ws://host:port``.
    """

    def __init__(self, config: ServeConfig, host: str = "127.0.0.1", port: int = 0, **options: Any):
        uvicorn = require("uvicorn", "serve")
        self.server = uvicorn.Server(uvicorn_config(config, host, port, **options))
        self.thread = threading.Thread(target=self.server.run, name="rewardlab-serve", daemon=True)
        self.host = host
        self.port = port

    @property
    def app(self) -> Any:
        """The Starlette app (``app.state.server`` holds the open sessions)."""
        return self.server.config.app

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 30.0) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self, timeout: float = 30.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
