"""What a browser env needs from its own page server (Web-v1's site server, MiniWoB-v1's file server)."""

from __future__ import annotations

from typing import Protocol


class PageServer(Protocol):
    """An HTTP server on 127.0.0.1 that serves the env's pages at ``origin`` until :meth:`close`."""

    origin: str

    @property
    def alive(self) -> bool:
        """True until :meth:`close` or until the serving thread ends (then the env rebuilds the server)."""
        ...

    def close(self) -> None:
        """Stop serving and close every connection. Safe to call twice."""
        ...
