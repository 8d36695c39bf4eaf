"""StaticServer: the ``miniwob`` package's ``html/`` folder over HTTP on 127.0.0.1 (ephemeral port)."""

from __future__ import annotations

import contextlib
import functools
import socket
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _QuietHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".html": "text/html; charset=utf-8"}

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - silence stderr logging
        return


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, directory: Path):
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(directory)))

    def get_request(self) -> tuple[socket.socket, object]:
        conn, address = super().get_request()
        with self.lock:
            self.connections.add(conn)
        return conn, address

    def shutdown_request(self, request: socket.socket) -> None:  # type: ignore[override]
        with self.lock:
            self.connections.discard(request)
        super().shutdown_request(request)


class StaticServer:
    """Serve ``directory`` until :meth:`close` (which also closes open connections; safe to call twice)."""

    def __init__(self, directory: Path):
        self._httpd = _Server(directory)
        self.origin = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="rewardlab-miniwob", daemon=True
        )
        self._thread.start()
        self._closed = False

    @property
    def alive(self) -> bool:
        """True until :meth:`close` or until the serving thread ends (then the env rebuilds the server)."""
        return not self._closed and self._thread.is_alive()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._httpd.shutdown()
        with self._httpd.lock:
            open_connections = list(self._httpd.connections)
        for conn in open_connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        self._thread.join(timeout=5)
