"""Backends drive a page: the fast lxml HTTP client (``http``) or Chromium through Playwright (``browser``).

Both implement :class:`Backend`; :class:`~rewardlab.browser.session.BrowserSession` adds what they
share (history, scrolling, the navigation policy, checks of ids and roles).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from rewardlab.browser.observation import Node, PageState
from rewardlab.errors import InfrastructureError

if TYPE_CHECKING:
    from rewardlab.browser.backends.browser import Chromium

BackendName = Literal["http", "browser"]
BACKENDS: tuple[str, ...] = ("http", "browser")


class Backend(Protocol):
    """What :class:`~rewardlab.browser.session.BrowserSession` needs from a page driver.

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


@runtime_checkable
class ScriptedBackend(Backend, Protocol):
    """A :class:`Backend` that runs JavaScript in its page: the browser backend (MiniWoB starts its episodes
    and reads each page's own reward through it). ``isinstance`` tells one apart from the HTTP backend."""

    extra: Any
    """The value of the ``extra_js`` expression at the last :meth:`snapshot`; ``None`` without one."""

    def evaluate(self, script: str, arg: Any = None) -> Any:
        """Run ``script`` in the page with ``arg`` and return its (JSON-like) result."""


def make_backend(
    backend: BackendName,
    *,
    timeout: float,
    chromium: Chromium | None = None,
    executable_path: str | None = None,
    **browser_options: Any,
) -> Backend:
    """Build a backend by name; ``chromium``, ``executable_path`` and ``browser_options`` (e.g.
    ``wait_for_navigation``, ``extra_js``) go to the browser backend, which imports Playwright lazily."""
    if backend == "http":
        from rewardlab.browser.backends.http import HttpBackend

        return HttpBackend(timeout=timeout)
    from rewardlab.browser.backends.browser import BrowserBackend

    return BrowserBackend(chromium=chromium, executable_path=executable_path, timeout=timeout, **browser_options)


__all__ = ["BACKENDS", "Backend", "BackendName", "InfrastructureError", "ScriptedBackend", "make_backend"]
