"""A fix to the Docker SDK's Unix-socket transport: a connection that fails closes its socket.

``docker.transport.unixconn.UnixHTTPConnection.connect`` (docker 7.x) makes a socket and connects
it; when the connect fails (the engine is down or restarting) the socket is left to the frames of
the exception's traceback, which requests and urllib3 keep in reference cycles, so it stays open
until the next garbage collection. A long-lived owner that retries an engine that is down (a
server's sandboxes, :class:`~rewardlab.sandbox.docker._Undertaker` every two seconds) then carries
one open file descriptor per try. The same fix is proposed upstream (docker/docker-py#3356).
"""

from __future__ import annotations

import socket
import threading
from typing import Any

_installed = False
_lock = threading.Lock()


def _connect_or_close(connection: Any) -> None:
    """The SDK's ``connect``, closing the socket when the connect fails."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(connection.timeout)
        sock.connect(connection.unix_socket)
    except BaseException:
        sock.close()
        raise
    connection.sock = sock


def close_failed_connects() -> None:
    """Install :func:`_connect_or_close` as the SDK's Unix-socket ``connect`` (once per process)."""
    global _installed
    with _lock:
        if _installed:
            return
        from docker.transport import unixconn

        unixconn.UnixHTTPConnection.connect = _connect_or_close
        _installed = True


__all__ = ["close_failed_connects"]
