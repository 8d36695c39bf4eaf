"""``rewardlab serve``: every RewardLab env over OpenEnv's WebSocket protocol, one env per session.

:func:`create_app` builds the ASGI app (Starlette) for :class:`ServeConfig`; :func:`serve` runs it
under uvicorn; :mod:`rewardlab.serve.protocol` states the messages. Clients: OpenEnv's own
(``openenv-core``) or :class:`rewardlab.remote.RemoteEnv`, a ``gymnasium.Env``.
"""

from rewardlab.serve.app import ServeConfig, create_app
from rewardlab.serve.runner import BackgroundServer, serve

__all__ = ["BackgroundServer", "ServeConfig", "create_app", "serve"]
