"""Backends drive a page: the fast lxml HTTP client (``http``) or Chromium through Playwright (``browser``).

Both implement :class:`Backend`; :class:`~rewardlab.envs.web.session.WebSession` adds what they
share (history, scrolling, the navigation policy, checks of ids and roles).
"""

from __future__ import annotations

from typing import Literal, Protocol

from rewardlab.envs.web.observation import Node, PageState
from rewardlab.errors import RewardLabError

BackendName = Literal["http", "browser"]
BACKENDS: tuple[str, ...] = ("http", "browser")


class InfrastructureError(RewardLabError, RuntimeError):
    """The browser or the env's own page server failed, not the agent (Chromium killed or crashed,
    its context or page closed, the site server stopped). Envs end the episode with
    ``info["infra_error"]`` instead of letting it escape, and rebuild what died at the next reset."""


class Backend(Protocol):
    """What :class:`~rewardlab.envs.web.session.WebSession` needs from a page driver.

    Every method but ``alive`` and ``close`` raises :class:`InfrastructureError` when the driver
    itself died; a page's own load problems are notes of the next snapshot instead.
    """

    def open(self, origin: str) -> None:
        """Start a session that may reach ``origin`` only."""

    def alive(self) -> bool:
        """False once the driver can no longer work (for the browser: Chromium gone, page closed or crashed)."""

    def restart(self, origin: str) -> None:
        """Drop the session and open a fresh one on ``origin``, relaunching whatever died."""

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


__all__ = ["BACKENDS", "Backend", "BackendName", "InfrastructureError"]
