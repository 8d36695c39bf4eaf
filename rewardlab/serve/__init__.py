"""``rewardlab serve``: every RewardLab env over OpenEnv's WebSocket protocol, one env per session.

:func:`create_app` builds the ASGI app (Starlette) for :class:`ServeConfig`; :func:`serve` runs it
under uvicorn; :mod:`rewardlab.serve.protocol` states the messages and encodes and decodes them.
Clients: OpenEnv's own (``openenv-core``) or :class:`rewardlab.serve.client.RemoteEnv`, a
``gymnasium.Env``.

The names below load on first use (PEP 562), so ``import rewardlab.serve.protocol`` or
``rewardlab.serve.client`` does not import Starlette or uvicorn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rewardlab.serve.app import create_app
    from rewardlab.serve.client import RemoteEnv, RemoteError
    from rewardlab.serve.config import ServeConfig
    from rewardlab.serve.runner import BackgroundServer, serve

__all__ = ["BackgroundServer", "RemoteEnv", "RemoteError", "ServeConfig", "create_app", "serve"]

_HOMES = {
    "BackgroundServer": "rewardlab.serve.runner",
    "RemoteEnv": "rewardlab.serve.client",
    "RemoteError": "rewardlab.serve.client",
    "ServeConfig": "rewardlab.serve.config",
    "create_app": "rewardlab.serve.app",
    "serve": "rewardlab.serve.runner",
}
"""The module each public name lives in."""


def __getattr__(name: str) -> Any:
    """Import ``name`` from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)


def __dir__() -> list[str]:
    """The module's names, with the ones that load on first use."""
    return sorted([*globals(), *__all__])
