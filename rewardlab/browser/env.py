"""BrowserTextEnv: the base of the envs whose agent acts on web pages the env serves itself (Web-v2, MiniWoB-v1).

It owns what those envs share: the page server, the backend and the :class:`~rewardlab.browser.session.BrowserSession`
driving it, the action language (:mod:`rewardlab.browser.actions`), recovery from infrastructure faults, random
well-formed actions and ``close``. A subclass keeps only its task logic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from rewardlab.browser.actions import Action, parse_action, quote_arg
from rewardlab.browser.backends import BACKENDS, BackendName, InfrastructureError, make_backend
from rewardlab.browser.observation import Node
from rewardlab.browser.server import PageServer
from rewardlab.browser.session import BrowserSession
from rewardlab.core.env import CommonArgs, TextEnv, Turn, Unpack
from rewardlab.core.rubric import Rubric
from rewardlab.core.tasks import Task, TaskSet
from rewardlab.errors import ConfigError, did_you_mean

if TYPE_CHECKING:
    from rewardlab.browser.backends.browser import Chromium

ServerT = TypeVar("ServerT", bound=PageServer)

MIN_OBSERVATION_BUDGET = 400
"""Fewest characters of page listing an observation may be cut to."""
MAX_PAGE_TIMEOUT = 120.0
"""Most seconds a page may be given to load."""


def check_browser_args(backend: str, budget: int, timeout: float) -> None:
    """Raise :class:`~rewardlab.errors.ConfigError` for an unknown backend, an ``observation_budget`` that is not an
    int >= :data:`MIN_OBSERVATION_BUDGET`, or a ``page_timeout`` outside (0, :data:`MAX_PAGE_TIMEOUT`] seconds."""
    if backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {BACKENDS}, got {backend!r}" + did_you_mean(str(backend), BACKENDS))
    if not isinstance(budget, int) or budget < MIN_OBSERVATION_BUDGET:
        raise ConfigError(f"observation_budget must be an int >= {MIN_OBSERVATION_BUDGET} characters, got {budget!r}")
    if not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_PAGE_TIMEOUT:
        raise ConfigError(f"page_timeout must be a number of seconds in (0, {MAX_PAGE_TIMEOUT:g}], got {timeout!r}")


class BrowserTextEnv(TextEnv, Generic[ServerT]):
    """A :class:`~rewardlab.core.TextEnv` on pages of the env's own server, read and acted on through a backend.

    A subclass provides :meth:`_start_server`, :meth:`_begin` (load the task's page, return the reset observation),
    ``_outcome`` and ``_is_success``; it may refine :meth:`_execute`, :meth:`_render`, :meth:`_shown_nodes`,
    :meth:`_page_turn`, :meth:`_answer`, :meth:`_signals` and :meth:`_sample_other`.

    ``answer("text")`` ends the episode (:meth:`_answer`); a page action runs through the session
    (:meth:`_execute`); a malformed action, or a page action that failed, gives an ``action_error``, so the core
    counts it as an invalid action (``actions_taken``, ``valid_actions``). An
    :class:`~rewardlab.browser.backends.InfrastructureError`, or the server found stopped after the action, ends
    the episode through :meth:`~rewardlab.core.TextEnv.infra_failure`, never an exception. Each reset first
    rebuilds what died (:meth:`_restore`) and, when starting the task still meets a fault no check could see
    (Chromium killed between episodes), rebuilds by force and starts it once more.

    Attributes:
        server: The page server (replaced, on a new port, when it stopped).
        backend: The page driver.
        session: Drives ``backend`` on ``server.origin`` (replaced whenever the backend restarts).
    """

    server_stopped: ClassVar[str] = "the page server stopped"
    """The ``infra_error`` when the page server is found stopped after an action."""
    sample_kinds: ClassVar[tuple[str, ...]] = ("click", "click", "click", "type", "select", "scroll")
    """The action kinds :meth:`sample_action` draws from, uniformly (repeat one to weigh it more)."""
    sample_texts: ClassVar[tuple[str, ...]] = ("hello",)
    """The texts a sampled ``type`` action writes."""

    def __init__(
        self,
        *,
        tasks: TaskSet,
        rubric: Rubric,
        backend: BackendName,
        observation_budget: int,
        page_timeout: float,
        chromium: Chromium | None = None,
        executable_path: str | None = None,
        browser_options: Mapping[str, Any] | None = None,
        **common: Unpack[CommonArgs],
    ):
        check_browser_args(backend, observation_budget, page_timeout)
        super().__init__(
            tasks=tasks,
            rubric=rubric,
            **common,
        )
        self.backend_name = backend
        self.server: ServerT = self._start_server()
        try:
            self.backend = make_backend(
                backend,
                timeout=page_timeout,
                chromium=chromium,
                executable_path=executable_path,
                **(browser_options or {}),
            )
            self.backend.open(self.server.origin)
        except BaseException:
            self.server.close()
            raise
        self.session = BrowserSession(self.backend, self.server.origin, budget=observation_budget)
        self._closed = False

    # ------------------------------------------------------------------ subclass hooks
    def _start_server(self) -> ServerT:
        """A new page server on an ephemeral port of 127.0.0.1."""
        raise NotImplementedError

    def _begin(self, task: Task) -> tuple[str, dict[str, Any]]:
        """Load ``task``'s page on a working server and backend; returns the reset observation and info."""
        raise NotImplementedError

    def _execute(self, action: Action) -> str | None:
        """Run a page action (not ``answer``); returns its action error or ``None``."""
        return self.session.execute(action)

    def _shown_nodes(self) -> list[Node]:
        """The page's listed elements with the ids the agent sees."""
        return self.session.state.nodes

    def _render(self) -> str:
        """The page as the agent sees it."""
        return self.session.render()

    def _signals(self) -> dict[str, Any]:
        """Extra :class:`~rewardlab.core.env.Turn` fields (``milestones``, ``info``) of every answer and page turn."""
        return {}

    def _answer(self, text: str) -> Turn:
        """The turn of ``answer(text)``: the episode ends and ``_outcome()`` is scored."""
        return Turn(observation=f"Answer submitted: {quote_arg(text)}", done=True, **self._signals())

    def _page_turn(self, error: str | None) -> Turn:
        """The turn after a page action: the page, after ``action_error: <error>`` when the action failed."""
        page = self._render()
        return Turn(
            observation=f"action_error: {error}\n\n{page}" if error else page, action_error=error, **self._signals()
        )

    def _sample_other(self, kind: str, rng: np.random.Generator) -> str:
        """A sampled action of a kind that names no element, or of an element kind on a page without elements."""
        return "scroll(down)"

    # ------------------------------------------------------------------ episode
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        self._restore()
        try:
            return self._begin(task)
        except InfrastructureError:  # a fault no check could see yet (e.g. Chromium killed between episodes)
            self._restore(force=True)
            return self._begin(task)

    def _restore(self, *, force: bool = False) -> None:
        """Rebuild what died: a stopped server is replaced by :meth:`_start_server` (a new port), and the backend
        is restarted on it, with a new session, when the server was replaced, the backend is dead or ``force``
        is set. Raises :class:`~rewardlab.browser.backends.InfrastructureError` when that fails too."""
        if not self.server.alive:
            self.server.close()
            self.server = self._start_server()
            force = True
        if force or not self.backend.alive():
            self.backend.restart(self.server.origin)
            self.session = BrowserSession(self.backend, self.server.origin, budget=self.session.budget)

    def _act(self, action: str) -> Turn:
        try:
            turn = self._apply(action)
        except InfrastructureError as exc:
            return self.infra_failure(str(exc))
        return turn if self.server.alive else self.infra_failure(self.server_stopped)

    def _apply(self, action: str) -> Turn:
        parsed, error = parse_action(action)
        if parsed is not None and parsed.kind == "answer":
            return self._answer(parsed.text or "")
        if parsed is not None:
            error = self._execute(parsed)
        return self._page_turn(error)

    # ------------------------------------------------------------------ agents
    def sample_action(self, rng: np.random.Generator) -> str:
        """A random well-formed action on the current page: a kind drawn from :attr:`sample_kinds`; ``type``
        writes one of :attr:`sample_texts` into a listed textbox, ``select`` picks an option of a listed
        combobox, and a click (also ``type`` or ``select`` where the page has no such element) names a listed
        element; ``scroll`` goes down or up; any other kind, or an element kind on a page listing nothing,
        is :meth:`_sample_other`'s."""
        nodes = self._shown_nodes()
        kind = str(rng.choice(self.sample_kinds))
        if kind in ("click", "type", "select") and nodes:
            textboxes = [n for n in nodes if n.role == "textbox"]
            comboboxes = [n for n in nodes if n.role == "combobox" and n.options]
            if kind == "type" and textboxes:
                node = textboxes[int(rng.integers(len(textboxes)))]
                return f"type({node.id}, {quote_arg(str(rng.choice(self.sample_texts)))})"
            if kind == "select" and comboboxes:
                node = comboboxes[int(rng.integers(len(comboboxes)))]
                options = node.options or ()  # non-empty: comboboxes keeps those with options
                return f"select({node.id}, {quote_arg(options[int(rng.integers(len(options)))])})"
            return f"click({nodes[int(rng.integers(len(nodes)))].id})"
        if kind == "scroll":
            return f"scroll({rng.choice(['down', 'up'])})"
        return self._sample_other(kind, rng)

    def close(self) -> None:
        """Close the backend (its browser context, and the browser it launched) and the page server. Idempotent."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            self.backend.close()
        finally:
            self.server.close()
            super().close()
