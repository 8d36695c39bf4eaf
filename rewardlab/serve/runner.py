"""Run the app under uvicorn, refusing to expose an unauthenticated server beyond loopback."""

from __future__ import annotations

import ipaddress
from typing import Any

from rewardlab.errors import ConfigError, require
from rewardlab.serve.app import ServeConfig, create_app

__all__ = ["WS_MAX_BYTES", "is_loopback", "serve", "uvicorn_config"]

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


def uvicorn_config(config: ServeConfig, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> Any:
    """The ``uvicorn.Config`` serving ``config``; raises ``ConfigError`` for a non-loopback host without a token."""
    uvicorn = require("uvicorn", "serve")
    if not is_loopback(host) and not config.token:
        raise ConfigError(f"serving on {host} (not loopback) needs --token: anyone who can reach it could run envs")
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
