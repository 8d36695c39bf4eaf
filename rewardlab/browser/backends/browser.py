"""BrowserBackend: Playwright's sync API driving a real headless Chromium.

Which Chromium: the ``executable_path`` argument, else the ``REWARDLAB_CHROMIUM`` environment
variable, else the Debian/Ubuntu ``chromium`` package (``/usr/bin/chromium``), else the browser
that ``playwright install chromium`` downloaded. Chromium starts headless with
:data:`CHROMIUM_FLAGS` and a fresh temporary profile (Playwright's default for ``launch``), with
``TMPDIR`` set to a directory of its own, ``rewardlab-chromium-*``, made by
:func:`~rewardlab.leases.owned_tempdir`: Chromium leaves its ``org.chromium.Chromium.*`` scratch
files there when it is killed, and the directory goes when the :class:`Chromium` is closed or
relaunched, or, when its owner process died, when the reaper runs. The profile directory
Playwright's driver makes (``playwright_chromiumdev_profile-*``) is removed by the driver when the
browser exits; when a killed browser's helpers still write into it, that removal fails, so
:class:`Chromium` removes it too once the browser is gone (it reads the path from the browser
process's command line, found through the DevTools ``SystemInfo.getProcessInfo`` call).

Speed: each step costs a handful of DevTools round trips and no Playwright auto-waiting. One
``page.evaluate`` walks the DOM and returns the listing (:data:`~rewardlab.browser.observation.WALK_JS`);
a click scrolls the element into view and clicks its centre with ``page.mouse`` (about 2 ms,
where ``locator.click()`` spends about 34 ms on readiness checks); typing and selecting set the
value and fire ``input``/``change`` events in one ``evaluate``.

Containment: a context-wide route aborts every request that does not go to the env's own origin
(other hosts, other local ports), service workers are blocked, and the session layer refuses
such navigations before they reach the browser.

Faults: when Chromium dies (killed, crashed) or the page or context is closed or crashes, every
call raises :class:`~rewardlab.errors.InfrastructureError` instead of Playwright's
error (a Playwright error with the browser and page still alive is re-raised unchanged), and
:meth:`BrowserBackend.restart` relaunches Chromium when it is gone, a shared one included (in
place: the other envs sharing it reopen their own contexts on it at their next reset).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rewardlab.browser.observation import Node, PageState, walk_js
from rewardlab.errors import InfrastructureError, MissingDependencyError, require
from rewardlab.leases import owned_tempdir, remove_owned_tempdir

PROFILE_PREFIX = "playwright_chromiumdev_profile-"
"""The name Playwright's driver gives a launched browser's temporary profile directory."""

CHROMIUM_ENV_VAR = "REWARDLAB_CHROMIUM"
DEBIAN_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

_CLICK_JS = """(id) => {
  const el = document.querySelector('[data-rlid="' + id + '"]');
  if (!el) return null;
  if (el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true); else el.scrollIntoView({block: "center"});
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (r.width > 0 && r.height > 0 && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) return [x, y];
  el.click();
  return [];
}"""
_TYPE_JS = """([id, text]) => {
  const el = document.querySelector('[data-rlid="' + id + '"]');
  if (!el) return false;
  el.focus();
  el.value = text;
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return true;
}"""
_SELECT_JS = """([id, index]) => {
  const el = document.querySelector('[data-rlid="' + id + '"]');
  if (!el) return false;
  el.focus();
  el.selectedIndex = index;
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return true;
}"""
_SCROLL_JS = "(sign) => window.scrollBy(0, sign * Math.round(window.innerHeight * 0.8))"


def find_chromium(executable_path: str | None = None) -> str | None:
    """The Chromium binary to use: the argument, ``$REWARDLAB_CHROMIUM``, or the distribution's package.

    ``None`` means: let Playwright use its own downloaded browser (``playwright install chromium``).
    """
    for candidate in (executable_path, os.environ.get(CHROMIUM_ENV_VAR)):
        if candidate:
            return candidate
    for candidate in DEBIAN_CHROMIUM:
        if os.path.exists(candidate):
            return candidate
    return shutil.which("chromium")


_local = threading.local()


def _acquire_playwright() -> Any:
    """The thread's Playwright driver, started on first use and shared (the sync API allows one per thread)."""
    state = getattr(_local, "playwright", None)
    if state is None:
        sync_api = require("playwright.sync_api", "web")
        state = _local.playwright = [sync_api.sync_playwright().start(), 0]
    state[1] += 1
    return state[0]


def _release_playwright() -> None:
    state = getattr(_local, "playwright", None)
    if state is None:
        return
    state[1] -= 1
    if state[1] <= 0:
        _local.playwright = None
        state[0].stop()


class Chromium:
    """A headless Chromium process that several envs may share (pass it as ``chromium=``).

    Example (not run here; needs a Chromium binary)::

        chromium = Chromium()
        env = gym.make("RewardLab/Web-v2", backend="browser", chromium=chromium)
        ...
        env.close(); chromium.close()
    """

    def __init__(self, *, executable_path: str | None = None, headless: bool = True):
        self.executable_path = find_chromium(executable_path)
        if self.executable_path is not None and not os.path.exists(self.executable_path):
            raise MissingDependencyError(
                f"no Chromium at {self.executable_path!r}; install Debian's chromium (apt-get install chromium), "
                f"set {CHROMIUM_ENV_VAR} or pass executable_path=..."
            )
        self.headless = headless
        self._playwright = _acquire_playwright()
        self._tmp = owned_tempdir("rewardlab-chromium-")
        self._profile: Path | None = None
        try:
            self.browser = self._launch()
        except Exception as exc:
            _release_playwright()
            remove_owned_tempdir(self._tmp)
            raise MissingDependencyError(
                f"could not start Chromium ({str(exc).splitlines()[0]}); install Debian's chromium "
                f"(apt-get install chromium), set {CHROMIUM_ENV_VAR}, pass executable_path=..., "
                "or run `playwright install chromium`"
            ) from exc
        self._closed = False

    def _launch(self) -> Any:
        self._tmp.mkdir(mode=0o700, exist_ok=True)
        browser = self._playwright.chromium.launch(
            executable_path=self.executable_path,
            headless=self.headless,
            args=list(CHROMIUM_FLAGS),
            env={**os.environ, "TMPDIR": str(self._tmp)},
        )
        self._profile = _profile_directory(browser)
        return browser

    def _remove_profile(self) -> None:
        """Remove the (dead or closed) browser's profile directory if the driver could not."""
        profile, self._profile = self._profile, None
        if profile is not None:
            shutil.rmtree(profile, ignore_errors=True)

    def _clear_tmp(self) -> None:
        """Empty Chromium's ``TMPDIR`` (what a killed browser left there); the directory stays."""
        for entry in list(self._tmp.iterdir()) if self._tmp.is_dir() else []:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    entry.unlink()

    def relaunch_if_dead(self) -> None:
        """Start a new browser process in place of one that died (killed or crashed); no-op while it runs."""
        if self.browser.is_connected():
            return
        errors = require("playwright.sync_api", "web")
        with contextlib.suppress(errors.Error):  # the dead browser's bookkeeping only
            self.browser.close()
        self._remove_profile()
        self._clear_tmp()
        try:
            self.browser = self._launch()
        except errors.Error as exc:
            raise InfrastructureError(f"could not relaunch Chromium ({str(exc).splitlines()[0]})") from exc

    def close(self) -> None:
        """Stop the browser process. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            self.browser.close()
        finally:
            self._remove_profile()
            remove_owned_tempdir(self._tmp)
            _release_playwright()


def _profile_directory(browser: Any) -> Path | None:
    """The temporary profile directory of ``browser``'s process (``--user-data-dir``), when it is one
    Playwright's driver made under the temporary directory; ``None`` when it cannot be read."""
    try:
        cdp = browser.new_browser_cdp_session()
        try:
            processes = cdp.send("SystemInfo.getProcessInfo")["processInfo"]
        finally:
            cdp.detach()
        pid = next(int(p["id"]) for p in processes if p.get("type") == "browser")
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except Exception:  # noqa: BLE001 - no DevTools answer or no /proc: the driver's own cleanup only
        return None
    for argument in arguments:
        if argument.startswith("--user-data-dir="):
            path = Path(argument.split("=", 1)[1])
            if path.name.startswith(PROFILE_PREFIX) and path.parent == Path(tempfile.gettempdir()):
                return path
    return None


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _infrastructure_guard(method: _Method) -> _Method:
    """Turn a Playwright error raised because the browser or page died into :class:`InfrastructureError`."""

    @functools.wraps(method)
    def guarded(self: BrowserBackend, *args: Any) -> Any:
        try:
            return method(self, *args)
        except self._errors.Error as exc:
            self._raise_if_dead(exc)
            raise

    return guarded  # type: ignore[return-value]


class BrowserBackend:
    """The ``backend="browser"`` driver: one browser context and page per env.

    Args:
        chromium: A shared :class:`Chromium`; by default the backend launches (and later closes) its own.
        executable_path: The Chromium binary when the backend launches its own (see :func:`find_chromium`).
        timeout: Seconds a page may take to load.
        wait_for_navigation: Wait for the page a link or submit button opens (off for single-page apps).
        extra_js: A JavaScript expression evaluated with every snapshot; its value is :attr:`extra`.
    """

    def __init__(
        self,
        *,
        chromium: Chromium | None = None,
        executable_path: str | None = None,
        timeout: float = 5.0,
        wait_for_navigation: bool = True,
        extra_js: str = "null",
    ):
        self._owns_chromium = chromium is None
        self.chromium = chromium if chromium is not None else Chromium(executable_path=executable_path)
        self.timeout = timeout
        self.wait_for_navigation = wait_for_navigation
        self._walk = walk_js(extra_js)
        self._errors = require("playwright.sync_api", "web")
        self.context: Any = None
        self.page: Any = None
        self.extra: Any = None
        self._note: str | None = None
        self._failed_url: str | None = None
        self._fresh = False
        self._crashed = False

    def open(self, origin: str) -> None:
        self.context = self.chromium.browser.new_context(
            viewport={"width": 1280, "height": 800}, service_workers="block"
        )
        self.context.route(re.compile("^(?!" + re.escape(origin) + "/)"), lambda route: route.abort("blockedbyclient"))
        self.page = self.context.new_page()
        self.page.set_default_timeout(self.timeout * 1000)
        self._crashed = False
        self.page.on("crash", self._on_crash)

    def _on_crash(self, _page: Any) -> None:
        self._crashed = True

    def alive(self) -> bool:
        """True while Chromium runs and this backend's page is open and has not crashed."""
        return (
            self.page is not None
            and not self._crashed
            and not self.page.is_closed()
            and self.chromium.browser.is_connected()
        )

    def _raise_if_dead(self, exc: Exception) -> None:
        """Raise :class:`InfrastructureError` from ``exc`` when the browser or page is gone."""
        if not self.alive():
            reason = "its page crashed" if self._crashed else "the browser or page is gone"
            raise InfrastructureError(f"Chromium failed: {reason} ({str(exc).splitlines()[0][:200]})") from exc

    def restart(self, origin: str) -> None:
        """Close the context, relaunch Chromium if it died (even a shared one) and open a new context."""
        self._close_context()
        self.chromium.relaunch_if_dead()
        self._note, self._failed_url, self._fresh = None, None, False
        self.open(origin)

    @_infrastructure_guard
    def clear_session(self) -> None:
        self.context.clear_cookies()

    def _close_context(self) -> None:
        if self.context is not None:
            context, self.context, self.page = self.context, None, None
            with contextlib.suppress(self._errors.Error):
                context.close()

    def close(self) -> None:
        """Close the context (and the browser when this backend launched it). Safe to call twice."""
        self._close_context()
        if self._owns_chromium:
            self.chromium.close()

    # ------------------------------------------------------------------ navigation
    def _load_failed(self, exc: Exception, url: str) -> None:
        self._raise_if_dead(exc)  # a dead browser is no page load problem
        message = str(exc)
        if isinstance(exc, self._errors.TimeoutError):
            self._note = f"the page did not finish loading within {self.timeout:g} s; showing what arrived"
            with contextlib.suppress(self._errors.Error):  # stop loading, as the HTTP client stops reading
                self.page.evaluate("() => window.stop()")
            if not self.page.url.startswith("chrome-error:"):
                return
            # the navigation failed while we waited: read Chromium's error code from its error page
            with contextlib.suppress(self._errors.Error):
                message = self.page.evaluate("() => document.body ? document.body.innerText : ''")
        if "ERR_TOO_MANY_REDIRECTS" in message:
            self._note = "navigation failed: too many redirects (redirect loop)"
        elif "ERR_BLOCKED_BY_CLIENT" in message:
            self._note = "navigation refused: only the env's own site can be reached"
        else:
            error = re.search(r"(ERR_[A-Z_]+)", message)
            self._note = f"navigation failed: {error.group(1) if error else type(exc).__name__}"
        self._failed_url = url
        with contextlib.suppress(self._errors.Error):  # leave Chromium's error page for a clean one
            self.page.goto("about:blank", wait_until="load", timeout=self.timeout * 1000)
        with contextlib.suppress(self._errors.Error):  # and let a late commit of the error page settle
            self.page.wait_for_load_state("load", timeout=self.timeout * 1000)

    @_infrastructure_guard
    def navigate(self, url: str) -> None:
        self._note, self._failed_url, self._fresh = None, None, True
        with contextlib.suppress(self._errors.Error):  # never start while an earlier navigation is loading
            self.page.wait_for_load_state("load", timeout=self.timeout * 1000)
        for attempt in (0, 1):
            try:
                self.page.goto(url, wait_until="load", timeout=self.timeout * 1000)
                return
            except self._errors.Error as exc:
                # Chromium may restart a navigation (e.g. after an error page): wait for it instead
                if attempt == 0 and "interrupted by another navigation" in str(exc):
                    with contextlib.suppress(self._errors.Error):
                        self.page.wait_for_load_state("load", timeout=self.timeout * 1000)
                    if self.page.url.split("#")[0] == url.split("#")[0]:
                        return
                    continue
                self._load_failed(exc, url)
                return

    @_infrastructure_guard
    def click(self, node: Node) -> None:
        target = (node.target or "").strip().lower()
        navigates = self.wait_for_navigation and (
            node.submits or (node.role == "link" and not target.startswith(("#", "javascript:")))
        )
        point = self.page.evaluate(_CLICK_JS, node.id)
        if not point:
            return
        if not navigates:
            self.page.mouse.click(point[0], point[1])
            return
        self._note, self._failed_url, self._fresh = None, None, True
        try:
            with self.page.expect_navigation(wait_until="load", timeout=self.timeout * 1000):
                self.page.mouse.click(point[0], point[1])
        except self._errors.Error as exc:
            self._load_failed(exc, self.page.url)

    @_infrastructure_guard
    def type_text(self, node: Node, text: str) -> None:
        self.page.evaluate(_TYPE_JS, [node.id, text])

    @_infrastructure_guard
    def select_option(self, node: Node, option: str) -> None:
        index = node.options.index(option) if node.options and option in node.options else -1
        self.page.evaluate(_SELECT_JS, [node.id, index])

    @_infrastructure_guard
    def scroll(self, direction: str) -> None:
        self.page.evaluate(_SCROLL_JS, 1 if direction == "down" else -1)

    @_infrastructure_guard
    def evaluate(self, script: str, arg: Any = None) -> Any:
        """Run JavaScript in the page (used by MiniWoB to start episodes)."""
        return self.page.evaluate(script, arg)

    @_infrastructure_guard
    def snapshot(self, limit: int) -> PageState:
        if self._failed_url is not None:
            fresh, self._fresh = self._fresh, False
            return PageState(self._failed_url, "", [], False, self._note, fresh)
        for attempt in (0, 1):
            try:
                result = json.loads(self.page.evaluate(self._walk, limit))
                break
            except self._errors.Error as exc:
                self._raise_if_dead(exc)
                if attempt:
                    return PageState(self.page.url, "", [], False, "the page could not be read", True)
                with contextlib.suppress(self._errors.Error):
                    self.page.wait_for_load_state("domcontentloaded", timeout=self.timeout * 1000)
        self.extra = result["extra"]
        nodes = [Node.from_json(row) for row in result["nodes"]]
        fresh = self._fresh or result["fresh"]
        self._fresh = False
        return PageState(result["url"], result["title"], nodes, result["more"], self._note, fresh)
