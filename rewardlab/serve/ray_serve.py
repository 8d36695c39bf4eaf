"""``rewardlab serve`` on a Ray cluster: the same app (:func:`~rewardlab.serve.create_app`) as a Ray Serve
deployment of ``num_replicas`` replicas behind Serve's HTTP proxies.

How a session is placed (Ray Serve 2.x, ``ray/serve/_private/proxy.py``): the proxy of each node
passes every HTTP request or WebSocket connection to one replica as one streaming
``DeploymentHandle`` call, and relays that connection's frames both ways until either side
closes. A session therefore stays on the replica that accepted it, with its env, for its whole
life; nothing is shared between replicas.

Capacity: a replica takes at most ``max_ongoing_requests`` requests at once, here
``config.max_sessions``, so the deployment holds ``num_replicas × max_sessions`` sessions. Serve's
router sends a new connection to a replica with a free slot (power of two choices on ongoing
requests); when every replica is full it waits in the proxy's queue until a session closes
(HTTP requests to ``/health``, ``/schema`` and ``/metadata`` take a slot while they run), so a
replica's own ``CAPACITY_REACHED`` refusal is not reached.

Frames: Serve's proxy reads WebSocket frames up to 16 MiB (uvicorn's default) and closes the
connection with 1009 above that; a frame over ``max_frame_bytes`` but under 16 MiB gets
``VALIDATION_ERROR`` and the session goes on, as in one process.

Every HTTP response and WebSocket handshake carries ``x-rewardlab-replica: <replica id>``, so a
client (or an operator) can tell which replica holds a session.

Shutting down waits for open sessions (Serve's ``graceful_shutdown_timeout_s``, 20 s by default);
replicas still holding sessions after it are killed without closing their envs. Close the
clients first. :func:`run` waits at most :data:`SHUTDOWN_TIMEOUT_S` for Serve to shut down (Ray's
``serve.shutdown()`` can retry a graceful-shutdown task on a controller it already killed, for ever,
on a busy machine), then shuts down a local Ray instance it started, waiting at most
:data:`RAY_SHUTDOWN_TIMEOUT_S`; when either wait runs out it leaves at once (``os._exit``), so Ctrl-C always ends
the process (a shutdown left running in a thread, or Ray's own exit handler, could otherwise hold it for ever).
While serving, the main thread wakes every :data:`WAKE_PERIOD_S`, so Ctrl-C is seen even when the kernel hands the
signal to one of Ray's threads; ``rewardlab serve --ray`` bounds its own exit after :func:`run`
(:func:`end_process_within`). Each step of the way out is printed with the time it took.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rewardlab.errors import ConfigError, require
from rewardlab.serve.app import create_app
from rewardlab.serve.config import ServeConfig
from rewardlab.serve.runner import refuse_open_exposure

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "APP_NAME",
    "REPLICA_HEADER",
    "ReplicaHeader",
    "check_exposure",
    "deployment",
    "end_process_within",
    "run",
    "start",
]

APP_NAME = "rewardlab"
"""The Serve application's name (deploying again under it replaces the running one)."""

REPLICA_HEADER = "x-rewardlab-replica"

SHUTDOWN_TIMEOUT_S = 60.0
"""The longest :func:`run` waits for Serve to shut down after Ctrl-C: Serve's graceful shutdown (20 s) and more."""
RAY_SHUTDOWN_TIMEOUT_S = 30.0
"""How long :func:`run` waits for ``ray.shutdown()`` of the Ray instance it started (after Serve's shutdown): the
whole exit after Ctrl-C stays under 90 s."""
EXIT_TIMEOUT_S = 20.0
"""How long a process may take to exit after :func:`end_process_within` (Ray's exit handlers and the threads it
leaves behind can hold an interpreter's exit for ever): ``rewardlab serve --ray`` ends at most this long after
:func:`run` returns."""
WAKE_PERIOD_S = 1.0
"""How often :func:`run`'s main thread wakes while it serves. Python runs a signal's handler in the main thread, but
the kernel may hand the signal to any thread that does not block it (Ray's own threads among them), and then a main
thread asleep for an hour would not see Ctrl-C for an hour: woken this often, it sees it within a second."""


class ReplicaHeader:
    """ASGI middleware: adds ``x-rewardlab-replica: <replica>`` to every HTTP response and WebSocket accept."""

    def __init__(self, app: ASGIApp, replica: str):
        self.app = app
        self.header = (REPLICA_HEADER.encode(), replica.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def tagged(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = {**message, "headers": [*message.get("headers", ()), self.header]}
            await send(message)

        await self.app(scope, receive, tagged)


def deployment(config: ServeConfig, num_replicas: int = 1, ray_actor_options: dict[str, Any] | None = None) -> Any:
    """The bound Ray Serve application serving ``config`` on ``num_replicas`` replicas.

    Each replica builds its own app with :func:`~rewardlab.serve.create_app` (its responses tagged
    with the replica's id) and holds up to ``config.max_sessions`` sessions (its
    ``max_ongoing_requests``); ``ray_actor_options`` (e.g. ``{"num_cpus": 2}``) go to each replica's actor.
    """
    serve = require("ray.serve", "dist")
    if not isinstance(num_replicas, int) or num_replicas < 1:
        raise ConfigError(f"num_replicas must be a positive int, got {num_replicas!r}")

    def build_app() -> ASGIApp:  # called inside each replica
        app = create_app(config)
        app.add_middleware(ReplicaHeader, replica=serve.get_replica_context().replica_tag)
        return app

    options: dict[str, Any] = {
        "name": "RewardLab",
        "num_replicas": num_replicas,
        "max_ongoing_requests": config.max_sessions,
    }
    if ray_actor_options is not None:
        options["ray_actor_options"] = ray_actor_options
    return serve.deployment(serve.ingress(build_app)(), **options).bind()


def check_exposure(config: ServeConfig, host: str, port: int) -> None:
    """Raise ``ConfigError`` for a non-loopback host without a token
    (:func:`~rewardlab.serve.runner.refuse_open_exposure`), or port 0 (every node's proxy binds the same
    port, so it must be named)."""
    refuse_open_exposure(config, host)
    if port == 0:
        raise ConfigError("Ray Serve needs an explicit port: the proxy of every node binds the same one")


def start(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    num_replicas: int = 1,
    address: str | None = None,
    ray_actor_options: dict[str, Any] | None = None,
) -> str:
    """Deploy :func:`deployment` and return the ``ws://`` URL once every replica is running.

    Checks :func:`check_exposure`, then connects to Ray unless this process already is
    (``ray.init(address=address)``; ``None``: ``RAY_ADDRESS`` or a new local instance, ``"auto"``:
    the cluster this node belongs to) and starts Serve with its proxies on ``host:port`` (on every
    node with a replica). Serve's HTTP options are fixed when Serve first starts on a cluster: a
    Serve already running there keeps its own host and port.
    """
    check_exposure(config, host, port)
    ray = require("ray", "dist")
    serve = require("ray.serve", "dist")
    if not ray.is_initialized():
        ray.init(address=address)
    serve.start(http_options={"host": host, "port": port})
    serve.run(deployment(config, num_replicas, ray_actor_options), name=APP_NAME, route_prefix="/")
    return f"ws://{host}:{port}/ws"


def run(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    num_replicas: int = 1,
    address: str | None = None,
    ray_actor_options: dict[str, Any] | None = None,
) -> None:
    """:func:`start`, then serve until interrupted (Ctrl-C, or SIGTERM, which Ray's driver turns into an
    exit), also while deploying. On the way out Serve is shut down if this call started it, or
    else only the application is deleted (other applications on the cluster keep running).

    SIGINT interrupts it also in a process that started with SIGINT ignored (a non-interactive shell's
    background job: Python then installs no KeyboardInterrupt), as uvicorn's server stops on it there too;
    the handler it replaced is put back on the way out."""
    check_exposure(config, host, port)
    ray = require("ray", "dist")
    serve = require("ray.serve", "dist")
    started_serve = started_ray = False
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous_handler = signal.signal(signal.SIGINT, signal.default_int_handler) if on_main_thread else None
    try:
        if not ray.is_initialized():
            ray.init(address=address)
            started_ray = True
        started_serve = not serve.status().proxies
        start(config, host, port, num_replicas, address, ray_actor_options)
        while True:
            time.sleep(WAKE_PERIOD_S)
    except KeyboardInterrupt:
        pass
    finally:
        print("shutting down", flush=True)
        ended = True
        if started_serve:
            ended = _within(SHUTDOWN_TIMEOUT_S, serve.shutdown, "Serve's shutdown")
        elif ray.is_initialized() and APP_NAME in serve.status().applications:
            ended = _within(
                SHUTDOWN_TIMEOUT_S, lambda: serve.delete(APP_NAME), f"deleting the application {APP_NAME!r}"
            )
        if started_ray:  # here, bounded, rather than in Ray's own exit handler, which can wait for ever
            ended = _within(RAY_SHUTDOWN_TIMEOUT_S, ray.shutdown, "Ray's shutdown") and ended
        if not ended:  # a shutdown still running in a thread would hold the interpreter's exit
            sys.stdout.flush()
            os._exit(0)
        if previous_handler is not None:
            signal.signal(signal.SIGINT, previous_handler)


def _within(timeout: float, call: Callable[[], object], what: str) -> bool:
    """Run ``call`` in a daemon thread and wait for it at most ``timeout`` seconds; say how long it took, or that
    it did not end (and return False: the caller leaves without it). An exception it raises propagates."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # handed to the caller
            failure.append(exc)

    worker = threading.Thread(target=target, name="rewardlab-serve-shutdown", daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        print(f"{what} did not end within {timeout:.0f} s; exiting without it", flush=True)
        return False
    if failure:
        raise failure[0]
    print(f"{what} ended in {time.monotonic() - started:.1f} s", flush=True)
    return True


def end_process_within(timeout: float = EXIT_TIMEOUT_S) -> None:
    """For a process about to exit: a daemon thread ends it (``os._exit(0)``, output flushed) if it is still exiting
    ``timeout`` seconds from now. Python runs its exit handlers and waits for other threads while daemon threads
    still run, so this bounds both; a process that exits sooner is not touched."""

    def end() -> None:
        time.sleep(timeout)
        print(f"exit did not end within {timeout:.0f} s; ending the process", flush=True)
        sys.stderr.flush()
        os._exit(0)

    threading.Thread(target=end, name="rewardlab-exit-bound", daemon=True).start()
