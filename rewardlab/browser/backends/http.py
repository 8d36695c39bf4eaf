"""HttpBackend: a fast in-process client that fetches HTML over HTTP and follows links and forms with lxml.

No JavaScript. One keep-alive connection to the env's server; cookies for the one origin;
redirects followed up to :data:`MAX_REDIRECTS`; a page that does not finish within ``timeout``
seconds is shown as far as it arrived, with a note. Form submission follows the HTML standard's
``application/x-www-form-urlencoded`` rules (successful controls in tree order, the clicked
submit button's name/value), so the server sees what Chromium would send.
"""

from __future__ import annotations

import http.client
import time
from urllib.parse import quote_plus, urljoin, urlsplit

from lxml import html as lxml_html

from rewardlab.browser.observation import (
    Node,
    PageState,
    extract_nodes,
    page_title,
    parse_html,
)

MAX_REDIRECTS = 20
MAX_BODY_BYTES = 20_000_000


def form_encode(pairs: list[tuple[str, str]]) -> str:
    """``application/x-www-form-urlencoded`` as browsers write it (``*`` kept, ``~`` escaped)."""

    def enc(text: str) -> str:
        return quote_plus(text.replace("\r\n", "\n").replace("\n", "\r\n"), safe="*").replace("~", "%7E")

    return "&".join(f"{enc(k)}={enc(v)}" for k, v in pairs)


class HttpBackend:
    """The ``backend="http"`` driver. ``timeout``: seconds a page may take to arrive."""

    def __init__(self, *, timeout: float = 5.0):
        self.timeout = timeout
        self.origin = ""
        self.cookies: dict[str, str] = {}
        self._conn: http.client.HTTPConnection | None = None
        self._root = parse_html("")
        self._url = "about:blank"
        self._note: str | None = None
        self._fresh = False
        self._elements: list[lxml_html.HtmlElement] = []

    # ------------------------------------------------------------------ session
    def open(self, origin: str) -> None:
        self.origin = origin
        self._reconnect()

    def _reconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
        parts = urlsplit(self.origin)
        if parts.hostname is None:
            raise ValueError(f"origin {self.origin!r} names no host; expected one like 'http://127.0.0.1:8000'")
        self._conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)

    def alive(self) -> bool:
        """Always True: the client lives in this process (the server's health is the env's to check)."""
        return True

    def restart(self, origin: str) -> None:
        """Forget cookies and connect to ``origin`` afresh."""
        self.cookies.clear()
        self.open(origin)

    def clear_session(self) -> None:
        self.cookies.clear()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ------------------------------------------------------------------ fetching
    def _request(self, method: str, url: str, body: str | None) -> tuple[int, dict[str, str], bytes, bool]:
        """One request: ``(status, headers, body, complete)``; ``complete`` is False after a timeout."""
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"Host": parts.netloc, "Accept": "text/html"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in (0, 1):
            try:
                conn = self._conn
                if conn is None:
                    raise RuntimeError("the http backend is not open: open(origin) comes first")
                conn.request(method, target, body=body, headers=headers)
                response = conn.getresponse()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self._reconnect()  # the server closed an idle keep-alive connection
                if attempt:
                    raise
        for value in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0].strip()
        chunks, size, complete = [], 0, True
        deadline = time.monotonic() + self.timeout
        try:
            while size < MAX_BODY_BYTES:
                chunk = response.read1(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if time.monotonic() > deadline:
                    complete = False
                    break
        except TimeoutError:
            complete = False
        response.close()  # marks the response done so the keep-alive connection can be reused
        if not complete or response.will_close:
            self._reconnect()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, b"".join(chunks), complete

    def navigate(self, url: str, *, method: str = "GET", body: str | None = None) -> None:
        self._note = None
        self._fresh = True
        requested = url
        try:
            for _ in range(MAX_REDIRECTS + 1):
                status, headers, data, complete = self._request(method, url, body)
                if status in (301, 302, 303, 307, 308) and "location" in headers:
                    url = urljoin(url, headers["location"])
                    if status in (301, 302, 303):
                        method, body = "GET", None
                    continue
                break
            else:
                self._show_error(requested, "navigation failed: too many redirects (redirect loop)")
                return
        except (OSError, http.client.HTTPException) as exc:
            self._reconnect()
            self._show_error(requested, f"navigation failed: {type(exc).__name__}")
            return
        self._url = url
        self._root = parse_html(data.decode("utf-8", errors="replace"))
        if not complete:
            self._note = f"the page did not finish loading within {self.timeout:g} s; showing what arrived"

    def _show_error(self, url: str, note: str) -> None:
        self._url = url
        self._root = parse_html("")
        self._note = note

    # ------------------------------------------------------------------ actions
    def click(self, node: Node) -> None:
        el = self._elements[node.id - 1]
        if node.role == "link" and node.target is not None:
            href = node.target.strip()
            if href.startswith("#") or href.lower().startswith("javascript:"):
                return
            self.navigate(urljoin(self._url, href))
        elif el.tag == "input" and node.role in ("checkbox", "radio"):
            self._toggle(el)
        elif node.submits:
            self._submit(el)
        elif el.tag == "label":
            control = self._labelled_control(el)
            if control is not None and (control.get("type") or "").lower() in ("checkbox", "radio"):
                self._toggle(control)

    def _labelled_control(self, label: lxml_html.HtmlElement) -> lxml_html.HtmlElement | None:
        target = label.get("for")
        if target:
            return self._root.get_element_by_id(target, None)
        return next(iter(label.iter("input")), None)

    def _toggle(self, el: lxml_html.HtmlElement) -> None:
        if el.get("disabled") is not None:
            return
        if (el.get("type") or "").lower() == "radio":
            form = next(el.iterancestors("form"), None)
            scope = form if form is not None else self._root
            for other in scope.iter("input"):
                if (other.get("type") or "").lower() == "radio" and other.get("name") == el.get("name"):
                    other.attrib.pop("checked", None)
            el.set("checked", "")
        elif el.get("checked") is not None:
            del el.attrib["checked"]
        else:
            el.set("checked", "")

    def _submit(self, submitter: lxml_html.HtmlElement) -> None:
        form_id = submitter.get("form")
        form = self._root.get_element_by_id(form_id, None) if form_id else next(submitter.iterancestors("form"), None)
        if form is None:
            return
        pairs: list[tuple[str, str]] = []
        for el in form.iter("input", "select", "textarea", "button"):
            name = el.get("name")
            if not name or el.get("disabled") is not None:
                continue
            kind = (el.get("type") or ("submit" if el.tag == "button" else "text")).lower()
            if el.tag in ("button",) or kind in ("submit", "image", "button", "reset"):
                if el is submitter and kind in ("submit", "image"):
                    pairs.append((name, el.get("value") or ""))
                continue
            if el.tag == "select":
                options = list(el.iter("option"))
                chosen = next((o for o in options if o.get("selected") is not None), options[0] if options else None)
                if chosen is not None:
                    value = chosen.get("value")
                    pairs.append((name, value if value is not None else chosen.text_content().strip()))
            elif el.tag == "textarea":
                pairs.append((name, el.text or ""))
            elif kind in ("checkbox", "radio"):
                if el.get("checked") is not None:
                    pairs.append((name, el.get("value") or "on"))
            elif kind != "file":
                pairs.append((name, el.get("value") or ""))
        action = urljoin(self._url, form.get("action") or self._url)
        encoded = form_encode(pairs)
        if (form.get("method") or "get").lower() == "post":
            self.navigate(action, method="POST", body=encoded)
        else:
            self.navigate(action.split("#", 1)[0].split("?", 1)[0] + "?" + encoded)

    def type_text(self, node: Node, text: str) -> None:
        el = self._elements[node.id - 1]
        if el.tag == "textarea":
            el.text = text
        else:
            el.set("value", text.replace("\r", "").replace("\n", ""))

    def select_option(self, node: Node, option: str) -> None:
        el = self._elements[node.id - 1]
        for index, opt in enumerate(el.iter("option")):
            if node.options is not None and node.options[index] == option:
                opt.set("selected", "")
            else:
                opt.attrib.pop("selected", None)

    def scroll(self, direction: str) -> None:
        """Scrolling moves the listing window only; there is no viewport without a browser."""

    def snapshot(self, limit: int) -> PageState:
        nodes, self._elements, more = extract_nodes(self._root, limit=limit)
        fresh, self._fresh = self._fresh, False
        return PageState(self._url, page_title(self._root), nodes, more, self._note, fresh)
