"""Backends drive a page: the fast lxml HTTP client (``http``) or Chromium through Playwright (``browser``).

Both implement :class:`Backend`; :class:`~rewardlab.envs.web.session.WebSession` adds what they
share (history, scrolling, the navigation policy, checks of ids and roles).
"""

from __future__ import annotations

from typing import Literal, Protocol

from rewardlab.envs.web.observation import Node, PageState

BackendName = Literal["http", "browser"]
BACKENDS: tuple[str, ...] = ("http", "browser")


class Backend(Protocol):
    """What :class:`~rewardlab.envs.web.session.WebSession` needs from a page driver."""

    def open(self, origin: str) -> None:
        """Start a session that may reach ``origin`` only."""

    def clear_session(self) -> None:
        """Forget cookies (a new episode starts logged out)."""

    def navigate(self, url: str) -> None:
        """Load ``url``; load problems end up in the next snapshot's ``note``."""

    def click(self, node: Node) -> None: ...

    def type_text(self, node: Node, text: str) -> None: ...

    def select_option(self, node: Node, option: str) -> None: ...

    def scroll(self, direction: str) -> None: ...

    def snapshot(self, limit: int) -> PageState:
        """The current page as :class:`PageState`, walking at most ``limit`` listed elements."""

    def close(self) -> None: ...


__all__ = ["BACKENDS", "Backend", "BackendName"]
