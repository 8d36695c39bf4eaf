"""SiteServer: the package's sites over real HTTP on 127.0.0.1, one ephemeral port per env.

A :class:`~rewardlab.browser.server.PageServer` (a daemon thread, silent in normal runs). HTTP/1.1
with keep-alive (the fast client reuses one connection), ``Cache-Control: no-store`` on every answer
(so a browser's back/forward refetches pages exactly as the HTTP client does), and one lock around
the sites so a task check never sees a half-applied request. ``close()`` stops the thread,
closes the listening socket and every open connection, and may be called twice.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from urllib.parse import parse_qs, urlsplit

from rewardlab.browser.server import PageServer, QuietHandler
from rewardlab.envs.web.sites.base import Goal, Request, Response, Site, Snapshot, esc, not_found, page


class _Handler(QuietHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    timeout = 30  # idle keep-alive connections end after this many seconds

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_HEAD(self) -> None:
        self._serve("HEAD")

    def _serve(self, method: str) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
        cookies = {}
        for item in (self.headers.get("Cookie") or "").split(";"):
            name, _, value = item.strip().partition("=")
            if name:
                cookies[name] = value
        response = self.server.owner.dispatch(
            method,
            parts.path,
            parse_qs(parts.query, keep_blank_values=True),
            parse_qs(body, keep_blank_values=True) if method == "POST" else {},
            cookies,
        )
        self.send_response(response.status)
        self.send_header("Cache-Control", "no-store")
        for key, value in response.headers:
            self.send_header(key, value)
        if response.stream is not None:
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for chunk in response.stream():
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:
                pass
            return
        data = response.body.encode("utf-8")
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(data)


class SiteServer(PageServer):
    """Serve ``sites`` under ``/<site.name>/`` on ``http://127.0.0.1:<ephemeral port>/``.

    Example:
        >>> from rewardlab.envs.web.sites import make_sites
        >>> server = SiteServer(make_sites())
        >>> server.origin.startswith("http://127.0.0.1:")
        True
        >>> server.close(); server.close()
    """

    def __init__(self, sites: Sequence[Site], *, stopping: threading.Event | None = None):
        self.sites: dict[str, Site] = {site.name: site for site in sites}
        self.lock = threading.RLock()
        self.stopping = stopping or threading.Event()
        super().__init__(_Handler, name="rewardlab-web")

    def dispatch(
        self,
        method: str,
        path: str,
        query: Mapping[str, list[str]],
        form: Mapping[str, list[str]],
        cookies: Mapping[str, str],
    ) -> Response:
        """Route a request to its site (the first path segment) and call it under the lock."""
        head, _, rest = path.lstrip("/").partition("/")
        if head == "":
            return Response(self._index())
        site = self.sites.get(head)
        if site is None:
            return not_found("site")
        if not rest and not path.endswith("/"):
            return Response(status=301, headers=[("Location", f"/{head}/")])
        request = Request(method, "/" + rest, query, form, cookies)
        with self.lock:
            return site.handle(request)

    def _index(self) -> str:
        links = "".join(
            f"<li><a href='/{esc(s.name)}/'>{esc(s.title)}</a></li>" for s in self.sites.values() if s.title
        )
        return page("Start page", f"<h1>Start page</h1><ul>{links}</ul>")

    def reset(self) -> None:
        """Restore every site's initial state."""
        with self.lock:
            for site in self.sites.values():
                site.restore()

    def check(self, site: str, name: str, args: Mapping[str, object]) -> bool:
        """Evaluate a site's named check under the lock."""
        with self.lock:
            return self.sites[site].check(name, args)

    def goals(self, goal: Sequence | None = None) -> dict[str, Goal]:
        """Every site's :class:`Goal`: ``goal`` (``[site, name, args]``) for its site, "unchanged" for the rest."""
        with self.lock:
            goals = {name: site.expect({}) for name, site in self.sites.items()}
            if goal is not None:
                site, name, args = goal
                goals[site] = self.sites[site].goal(name, args)
            return goals

    def snapshot(self) -> dict[str, Snapshot]:
        """Every site's state, taken under the lock."""
        with self.lock:
            return {name: site.snapshot() for name, site in self.sites.items()}

    def close(self) -> None:
        """Tell streaming pages to stop, then stop serving and close every connection. Safe to call twice."""
        self.stopping.set()
        super().close()
