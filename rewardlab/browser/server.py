"""PageServer: a browser env's own HTTP server on an ephemeral port of 127.0.0.1, quiet in normal runs.

Web-v2's site server and MiniWoB-v1's file server are both one: a stdlib
:class:`~http.server.ThreadingHTTPServer` in a daemon thread, each connection in a daemon thread of its own.

Quiet: nothing is written to stdout or stderr while pages are served. Request log lines go to
``logger.debug``; a client that drops its connection (a reset, a broken pipe, half a request, a timeout:
browsers do this all the time) ends its handler silently, at DEBUG level; any other error of a handler
is logged with its traceback by ``logger.exception``, and the server goes on serving.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

logger = logging.getLogger(__name__)

DROPPED_CONNECTION: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError)
"""What a handler raises when its client went away (``ConnectionError`` covers broken pipes and resets)."""

HandlerFactory = Callable[..., BaseHTTPRequestHandler]
"""What serves one request: a handler class, or a :func:`functools.partial` of one (as :mod:`socketserver` takes)."""


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler whose request log lines and protocol errors go to ``logger.debug``, not stderr.
    It reaches its :class:`PageServer` as ``self.server.owner``."""

    server: _QuietHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's parameter name
        logger.debug("%s: " + format, self.client_address[0], *args)


class _QuietHTTPServer(ThreadingHTTPServer):
    """Tracks its open connections (so that :meth:`PageServer.close` can end them) and logs handler errors."""

    daemon_threads = True

    def __init__(self, handler: HandlerFactory, owner: PageServer):
        self.owner: Any = owner  # the PageServer subclass its handlers talk to
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, address = super().get_request()
        with self.connections_lock:
            self.connections.add(conn)
        return conn, address

    def shutdown_request(self, request: socket.socket) -> None:  # type: ignore[override]
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Called by :mod:`socketserver` inside ``except``: a dropped connection is no error (see the module)."""
        error = sys.exc_info()[1]
        if isinstance(error, DROPPED_CONNECTION):
            logger.debug("%s dropped its connection (%r)", client_address, error)
            return
        logger.exception("error while serving a request from %s", client_address)


class PageServer:
    """Serve requests with ``handler`` on ``http://127.0.0.1:<ephemeral port>`` until :meth:`close`.

    A :class:`QuietHandler` reaches this object as ``self.server.owner``. ``close()`` stops the serving thread,
    closes the listening socket and every open connection, and may be called twice.

    Attributes:
        port: The port the server listens on.
        origin: ``http://127.0.0.1:<port>``.
    """

    def __init__(self, handler: HandlerFactory, *, name: str):
        self._httpd = _QuietHTTPServer(handler, self)
        self.port: int = self._httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=f"{name}:{self.port}", daemon=True
        )
        self._thread.start()
        self._closed = False

    @property
    def alive(self) -> bool:
        """True until :meth:`close` or until the serving thread ends (then the env rebuilds the server)."""
        return not self._closed and self._thread.is_alive()

    @property
    def open_connections(self) -> int:
        """Connections accepted whose handler has not finished yet."""
        with self._httpd.connections_lock:
            return len(self._httpd.connections)

    def close(self) -> None:
        """Stop serving, close the listening socket and every open connection. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._httpd.shutdown()
        with self._httpd.connections_lock:
            open_connections = list(self._httpd.connections)
        for conn in open_connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        self._thread.join(timeout=5)
