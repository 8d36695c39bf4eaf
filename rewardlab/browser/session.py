"""BrowserSession: what both backends share — history, the scroll window, the navigation policy and
the checks that turn a bad id, role or URL into an ``action_error`` instead of an exception.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from rewardlab.browser.actions import Action
from rewardlab.browser.backends import Backend
from rewardlab.browser.observation import Node, PageState, render_page


class BrowserSession:
    """Drive ``backend`` on the site at ``origin`` and render the page within ``budget`` characters.

    Navigation policy: only ``http`` URLs of exactly ``origin`` (same host and port) are loaded;
    anything else (the internet, other local ports, ``file:``) is refused with an action error.
    Observations show URLs as paths of the site, so they do not depend on the ephemeral port.
    ``navigated`` says whether the current document was reached by a click (a link or a form
    submission) rather than by ``goto``, ``back`` or the episode's start.
    """

    def __init__(self, backend: Backend, origin: str, *, budget: int):
        self.backend = backend
        self.origin = origin
        self.budget = budget
        self.history: list[str] = []
        self.offset = 0
        self.shown = 0
        self.state = PageState(url="about:blank")
        self.navigated = False
        self._origin_parts = urlsplit(origin)

    # ------------------------------------------------------------------ policy
    def allowed(self, url: str) -> bool:
        """True when ``url`` points at the env's own origin."""
        try:
            parts = urlsplit(url)
            return (
                parts.scheme == "http"
                and parts.hostname == self._origin_parts.hostname
                and (parts.port or 80) == self._origin_parts.port
            )
        except ValueError:
            return False

    def resolve(self, url: str) -> str:
        url = url.strip()
        base = self.state.url if self.allowed(self.state.url) else self.origin + "/"
        return urljoin(base, url)

    # ------------------------------------------------------------------ episode
    def start(self, path: str) -> None:
        """Forget cookies and history, then open ``path`` of the site."""
        self.backend.clear_session()
        self.history = []
        self.offset = 0
        self._load(self.origin + path)

    def _load(self, url: str) -> None:
        self.backend.navigate(url)
        self.refresh()

    def refresh(self, *, clicked: bool = False) -> PageState:
        """Take a new snapshot, keep the history and reset the scroll window on a new document
        (which ``clicked`` says was reached by a click)."""
        limit = self.offset + self.budget // 12 + 1
        self.state = self.backend.snapshot(limit)
        if self.state.fresh:
            self.offset = 0
            self.navigated = clicked
            if not self.history or self.history[-1] != self.state.url:
                self.history.append(self.state.url)
        return self.state

    def display_url(self) -> str:
        """The page's URL as the agent sees it: a path of the site (the ephemeral port never shows),
        or the full URL of a page elsewhere."""
        url = self.state.url
        if self.allowed(url):
            parts = urlsplit(url)
            return (
                (parts.path or "/")
                + (f"?{parts.query}" if parts.query else "")
                + (f"#{parts.fragment}" if parts.fragment else "")
            )
        return url

    def render(self) -> str:
        text, self.shown = render_page(self.state, offset=self.offset, budget=self.budget, url=self.display_url())
        return text

    def node(self, element: int) -> Node | None:
        return next((n for n in self.state.nodes if n.id == element), None)

    # ------------------------------------------------------------------ actions
    def execute(self, action: Action) -> str | None:
        """Apply a page action (not ``answer``); returns an error message or ``None``."""
        if action.kind == "goto":
            url = self.resolve(action.text or "")
            if not self.allowed(url):
                return f"navigation to {url[:200]!r} refused: only this site can be reached"
            self._load(url)
            return None
        if action.kind == "back":
            if len(self.history) < 2:
                return "back(): there is no previous page"
            self.history.pop()
            previous = self.history.pop()
            self._load(previous)
            return None
        if action.kind == "scroll":
            return self._scroll(action.text or "down")
        node = self.node(action.element or 0)
        if node is None:
            return f"no element [{action.element}] on this page; use an id shown in brackets"
        if node.disabled:
            return f"element [{node.id}] is disabled"
        if action.kind == "click":
            return self._click(node)
        if action.kind == "type":
            if node.role != "textbox":
                return f"type() needs a textbox; [{node.id}] is a {node.role}"
            self.backend.type_text(node, action.text or "")
        else:
            if node.role != "combobox" or node.options is None:
                return f"select() needs a combobox; [{node.id}] is a {node.role}"
            option = self._match_option(node, action.text or "")
            if option is None:
                shown = ", ".join(repr(o) for o in node.options[:20])
                return f"[{node.id}] has no option {(action.text or '')[:80]!r}; options are {shown}"
            self.backend.select_option(node, option)
        self.refresh()
        return None

    @staticmethod
    def _match_option(node: Node, wanted: str) -> str | None:
        options = node.options or ()
        if wanted in options:
            return wanted
        folded = wanted.strip().casefold()
        return next((o for o in options if o.casefold() == folded), None)

    def _click(self, node: Node) -> str | None:
        if node.target is not None and (node.role == "link" or node.submits):
            target = node.target.strip()
            local = target.startswith("#") or target.lower().startswith("javascript:")
            if not local and not self.allowed(self.resolve(target or self.state.url)):
                return f"navigation to {self.resolve(target)[:200]!r} refused: only this site can be reached"
        self.backend.click(node)
        self.refresh(clicked=True)
        return None

    def _scroll(self, direction: str) -> str | None:
        self.backend.scroll(direction)
        if direction == "down":
            if self.offset + self.shown < len(self.state.nodes) or self.state.more:
                self.offset += max(1, self.shown)
        else:
            self.offset = max(0, self.offset - max(1, self.shown))
        self.refresh()
        return None
