"""A tiny server-side web framework for the package's own sites.

Each :class:`Site` is mounted under ``/<name>/`` by :class:`~rewardlab.envs.web.sites.server.SiteServer`,
renders plain HTML (no JavaScript), follows the POST-redirect-GET pattern (every POST answers
``303 See Other``), and keeps its state in Python objects that a task's hidden check reads.
``restore()`` brings back the initial state, so every episode starts from the same data.

Hidden checks compare whole states. :meth:`Site.snapshot` is the site's state as records
(``"message/5" -> (...)``), free text in :func:`~rewardlab.core.text.canonical_text` form; a task's
:class:`Goal` is the snapshot the site must end in, so a check sees every record, not only the
target: starring every mail, a second order or a post with an appended payload all differ from it.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Snapshot = Mapping[str, object]
"""A site's state: record key -> a plain, comparable value."""

STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:1em auto}nav a{margin-right:1em}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}.flash{background:#efe}"
)


def esc(value: object) -> str:
    """HTML-escape any value (quotes too)."""
    return html.escape(str(value), quote=True)


@dataclass
class Request:
    """One HTTP request as a site sees it; ``path`` is relative to the site's mount point."""

    method: str
    path: str
    query: Mapping[str, list[str]]
    form: Mapping[str, list[str]]
    cookies: Mapping[str, str]

    def arg(self, name: str, default: str = "") -> str:
        """The first value of ``name`` in the form (POST) or the query string, stripped."""
        values = self.form.get(name) or self.query.get(name)
        return values[0].replace("\r\n", "\n").strip() if values else default


@dataclass
class Response:
    """What a site returns. ``stream`` (if set) yields body chunks written without holding the site lock."""

    body: str = ""
    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    stream: Callable[[], Iterator[bytes]] | None = None


def redirect(location: str, status: int = 303) -> Response:
    return Response(status=status, headers=[("Location", location)])


def not_found(what: str = "page") -> Response:
    return Response(page("Not found", f"<h1>Not found</h1><p>No such {esc(what)}.</p>"), status=404)


def page(title: str, body: str, nav: str = "") -> str:
    """A complete HTML document with the shared style sheet inlined (one request per page)."""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{STYLE}</style></head><body>{nav}<main>{body}</main></body></html>"
    )


def labelled_input(name: str, label: str, value: str = "", kind: str = "text") -> str:
    """``<label for>`` + ``<input>``: the label text becomes the textbox's accessible name."""
    return (
        f"<p><label for='{esc(name)}'>{esc(label)}</label> "
        f"<input type='{kind}' id='{esc(name)}' name='{esc(name)}' value='{esc(value)}'></p>"
    )


def labelled_select(name: str, label: str, options: list[tuple[str, str]], selected: str = "") -> str:
    """A ``<select>`` of ``(value, text)`` options with ``selected`` preselected."""
    opts = "".join(
        f"<option value='{esc(v)}'{' selected' if v == selected else ''}>{esc(t)}</option>" for v, t in options
    )
    return (
        f"<p><label for='{esc(name)}'>{esc(label)}</label> "
        f"<select id='{esc(name)}' name='{esc(name)}'>{opts}</select></p>"
    )


def labelled_textarea(name: str, label: str, value: str = "") -> str:
    return (
        f"<p><label for='{esc(name)}'>{esc(label)}</label> "
        f"<textarea id='{esc(name)}' name='{esc(name)}' rows='4' cols='50'>{esc(value)}</textarea></p>"
    )


@dataclass(frozen=True)
class Goal:
    """The state a task must leave a site in.

    Attributes:
        initial: The site's snapshot at reset.
        expected: The snapshot once the task is done (``initial`` with the task's records changed).
        scratch: Working records the task may change freely (the cart, on the way to an order);
            neither :meth:`met` nor :meth:`damage` reads them.
    """

    initial: Snapshot
    expected: Snapshot
    scratch: frozenset[str] = frozenset()

    def _keys(self, state: Snapshot) -> set[str]:
        return (set(state) | set(self.initial) | set(self.expected)) - self.scratch

    def targets(self) -> list[str]:
        """The records the task changes."""
        return sorted(k for k in self._keys(self.initial) if self.expected.get(k) != self.initial.get(k))

    def met(self, state: Snapshot) -> bool:
        """Every record (but scratch) equals its expected value: the target changed, nothing else."""
        return all(state.get(k) == self.expected.get(k) for k in self._keys(state))

    def achieved(self, state: Snapshot) -> bool:
        """The target records hold their expected values (what else changed is :meth:`damage`'s business)."""
        targets = self.targets()
        return bool(targets) and all(state.get(k) == self.expected.get(k) for k in targets)

    def damage(self, state: Snapshot) -> list[str]:
        """Records that are neither as they were nor as the task wants them: collateral changes,
        extra records, and target records written with wrong values."""
        return sorted(
            k for k in self._keys(state) if state.get(k) != self.initial.get(k) and state.get(k) != self.expected.get(k)
        )


Route = Callable[[Request, list[str]], Response]
"""A page handler: the request and the path's segments after the one that named it."""


class Site:
    """Base class of a mounted site: ``name`` is the mount point, ``handle`` answers requests.

    Subclasses define ``reset()`` (the initial state), ``snapshot()``, ``routes()`` (or ``handle(request)``),
    ``goals``: named builders of the :class:`Goal` a task sets (``goal(name, args)``), and
    ``checks``: named predicates over the state that milestones use. ``check(name, args)``
    answers a predicate, or for a goal's name whether the goal's target records are reached.
    """

    name: str = ""
    title: str = ""

    def __init__(self) -> None:
        self.restore()

    def restore(self) -> None:
        """The initial state, remembered as :attr:`initial`."""
        self.reset()
        self.initial: Snapshot = self.snapshot()

    def reset(self) -> None:
        raise NotImplementedError

    def snapshot(self) -> Snapshot:
        """The state as records; the default is a site without state."""
        return {}

    def expect(self, changes: Mapping[str, object], scratch: tuple[str, ...] = ()) -> Goal:
        """The goal of ending in :attr:`initial` with ``changes`` applied."""
        return Goal(self.initial, {**self.initial, **changes}, frozenset(scratch))

    def goals(self) -> Mapping[str, Callable[..., Goal]]:
        return {}

    def goal(self, name: str, args: Mapping[str, Any]) -> Goal:
        return self.goals()[name](**args)

    def routes(self) -> Mapping[str, Route]:
        """Page handlers by the first segment of the path below the mount point (``""``: the site's home)."""
        return {}

    def handle(self, request: Request) -> Response:
        """The handler of :meth:`routes` named by the path's first segment, given the segments after it."""
        first, *rest = request.path.strip("/").split("/")
        route = self.routes().get(first)
        return route(request, rest) if route else not_found()

    def checks(self) -> Mapping[str, Callable[..., bool]]:
        return {}

    def check(self, name: str, args: Mapping[str, Any]) -> bool:
        if name in self.goals():
            return self.goal(name, args).achieved(self.snapshot())
        return bool(self.checks()[name](**args))
