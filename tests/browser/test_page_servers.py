"""The envs' page servers stay silent when clients misbehave, and keep serving.

A client that resets its connection at once, sends half a request, or goes away in the middle of a
large response leaves nothing on stdout or stderr (no request log line, no ``BrokenPipeError`` or
``ConnectionResetError`` traceback); the next request is answered. A handler's own error is logged
through :mod:`logging` instead.
"""

from __future__ import annotations

import http.client
import logging
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rewardlab.browser.server import PageServer
from rewardlab.envs.miniwob.server import StaticServer
from rewardlab.envs.web.sites import make_sites, start_server
from rewardlab.envs.web.sites.base import Request, Response, Site
from rewardlab.envs.web.sites.server import SiteServer

BIG_FILE_BYTES = 20_000_000
"""Far more than the socket buffers hold, so the server is still writing when the client goes away."""


def connect(server: PageServer) -> socket.socket:
    """A client socket with a small receive buffer (a large response cannot all be buffered)."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect(("127.0.0.1", server.port))
    return client


def reset(client: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), as a browser that drops a connection does."""
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()


def reset_at_once(server: PageServer, path: str) -> None:
    reset(connect(server))


def half_request_then_reset(server: PageServer, path: str) -> None:
    client = connect(server)
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
    reset(client)


def half_request_then_close(server: PageServer, path: str) -> None:
    client = connect(server)
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: te".encode())
    client.close()


def reset_mid_response(server: PageServer, path: str) -> None:
    client = connect(server)
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    assert client.recv(1024).startswith(b"HTTP/1.")  # the response has begun
    time.sleep(0.1)  # the server fills the buffers and blocks on the next write
    reset(client)


MISBEHAVIOURS: list[Callable[[PageServer, str], None]] = [
    reset_at_once,
    half_request_then_reset,
    half_request_then_close,
    reset_mid_response,
]


def get(server: PageServer, path: str) -> tuple[int, bytes]:
    """A well-behaved request on a connection of its own, closed after the answer."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("GET", path, headers={"Connection": "close"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def wait_for_handlers(server: PageServer, timeout: float = 10.0) -> None:
    """Wait until every accepted connection's handler has finished (the earlier ones were accepted first)."""
    deadline = time.monotonic() + timeout
    while server.open_connections and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.open_connections == 0


@pytest.fixture(params=["sites", "files"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[PageServer, str, str]]:
    """``(server, path of a small page, path of a large response)`` for Web's sites and MiniWoB's file server."""
    if request.param == "sites":
        server: PageServer = start_server()
        pages = ("/shop/", "/lab/huge?n=200000")
    else:
        (tmp_path / "page.html").write_text("<!DOCTYPE html><title>Page</title><p>hello</p>")
        (tmp_path / "big.bin").write_bytes(b"x" * BIG_FILE_BYTES)
        server = StaticServer(tmp_path)
        pages = ("/page.html", "/big.bin")
    try:
        yield server, *pages
    finally:
        server.close()


@pytest.mark.parametrize("misbehave", MISBEHAVIOURS, ids=lambda f: f.__name__)
def test_a_misbehaving_client_leaves_no_output_and_the_server_keeps_serving(served, misbehave, capfd):
    server, small, large = served
    capfd.readouterr()
    for _ in range(3):
        misbehave(server, large if misbehave is reset_mid_response else small)
    status, body = get(server, small)
    wait_for_handlers(server)
    assert status == 200 and body
    assert server.alive
    assert capfd.readouterr() == ("", "")


class _BrokenSite(Site):
    name = "broken"

    def reset(self) -> None:
        """No state."""

    def handle(self, request: Request) -> Response:
        raise RuntimeError("a bug in a site")


def test_a_handler_error_is_logged_not_printed_and_the_server_keeps_serving(capfd, caplog):
    server = SiteServer([_BrokenSite(), *make_sites()])
    try:
        capfd.readouterr()
        with (
            caplog.at_level(logging.ERROR, logger="rewardlab.browser.server"),
            pytest.raises(http.client.HTTPException),
        ):
            get(server, "/broken/")
        assert get(server, "/shop/")[0] == 200
        wait_for_handlers(server)
    finally:
        server.close()
    (record,) = [r for r in caplog.records if r.name == "rewardlab.browser.server"]
    assert record.levelno == logging.ERROR and record.exc_info and "a bug in a site" in str(record.exc_info[1])
    assert capfd.readouterr() == ("", "")
