"""StaticServer: the ``miniwob`` package's ``html/`` folder over HTTP on 127.0.0.1 (ephemeral port).

A :class:`~rewardlab.browser.server.PageServer`: silent in normal runs, even when Chromium drops a connection.
"""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

from rewardlab.browser.server import PageServer, QuietHandler


class _FileHandler(QuietHandler, SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".html": "text/html; charset=utf-8"}


class StaticServer(PageServer):
    """Serve ``directory`` until :meth:`close` (which also closes open connections; safe to call twice)."""

    def __init__(self, directory: Path):
        super().__init__(functools.partial(_FileHandler, directory=str(directory)), name="rewardlab-miniwob")
