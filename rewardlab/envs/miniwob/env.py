"""RewardLab/MiniWoB-v1: the MiniWoB++ pages of the PyPI ``miniwob`` package (spec sheet: :class:`MiniWoBEnv`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from rewardlab.browser.actions import Action
from rewardlab.browser.backends import ScriptedBackend
from rewardlab.browser.env import BrowserTextEnv
from rewardlab.browser.observation import Node, render_page
from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, Turn, Unpack
from rewardlab.core.rubric import RubricResult
from rewardlab.core.tasks import Task
from rewardlab.envs.miniwob.oracle import MiniWoBOracle
from rewardlab.envs.miniwob.problem import BoxTally, minimum_actions, tally_boxes
from rewardlab.envs.miniwob.rubric import MiniWoBOutcome, is_success, make_rubric
from rewardlab.envs.miniwob.server import StaticServer
from rewardlab.envs.miniwob.tasks import load_tasks
from rewardlab.errors import MissingDependencyError, require

if TYPE_CHECKING:
    from rewardlab.audit.strategy import AuditProfile
    from rewardlab.browser.backends.browser import Chromium

SYSTEM_PROMPT = (
    "You operate a web page to complete a short MiniWoB++ task. Each observation shows the instruction "
    "and a listing of the page's elements, each with a numeric id in brackets. Reply with exactly one action "
    'per turn: click(id), type(id, "text"), select(id, "option"), scroll(down) or scroll(up); '
    'answer("text") gives up and ends the episode. The page decides when the task is done. Use as few actions '
    "as the task needs: every extra, invalid or idle action (type() needs no click first) costs reward, and the "
    "task counts as solved only when the page's full reward comes within the task's minimum number of actions."
)
ID_RANGE = 1000
"""Element ids are drawn per episode from 1..ID_RANGE-1, so no id can be guessed without reading the page."""
REWARD_JS = "(typeof WOB_DONE_GLOBAL === 'undefined') ? null : [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL]"
START_JS = """(seed) => {
  if (core.EP_TIMER !== null) core.endEpisode(0);
  for (const el of document.querySelectorAll('[data-rlid]')) el.removeAttribute('data-rlid');
  window.__rlNext = undefined;
  core.EPISODE_MAX_TIME = 2147483647;
  Math.seedrandom(seed);
  core.startEpisodeReal();
  for (const id of ['reward-display', 'click-canvas']) {
    const el = document.getElementById(id);
    if (el) el.style.display = 'none';
  }
  return core.getUtterance();
}"""


def miniwob_html_dir() -> Path:
    """The ``html/`` folder shipped inside the ``miniwob`` package."""
    package = require("miniwob", "web")
    if package.__file__ is None:  # a namespace package: no html/ folder of its own
        raise MissingDependencyError(
            f"the installed miniwob package has no __init__.py (found at {list(package.__path__)}), so no html/ "
            "folder; reinstall it with `pip install 'rewardlab[web]'`"
        )
    return Path(package.__file__).parent / "html"


class MiniWoBEnv(BrowserTextEnv[StaticServer]):
    """RewardLab/MiniWoB-v1: MiniWoB++ web tasks (the ``miniwob`` package's own pages) through the browser backend.

    ## Description

    The external check of the browser backend on pages nobody here wrote: the HTML/JavaScript
    tasks of MiniWoB++ are served from the installed ``miniwob`` package on 127.0.0.1 and run in
    headless Chromium. 23 task pages x 5 seeds = 115 tasks (seeds 0-3 train, seed 4 test). The
    page generates its problem from ``Math.seedrandom(seed)`` and computes its own reward; the
    episode timer is disabled (LLM agents think slowly), so episodes are reproducible. Each reset
    loads the task page (once per env and page) and generates the problem from the task's seed.

    The observation is as in Web-v2: ``Task: <the page's instruction>``, then ``URL:``, ``Title:``,
    ``Page:`` and one ``[id] role "name"`` line per element. Element ids are distinct random numbers
    below 1000, drawn per episode from the env's ``np_random`` (an element keeps its id for the
    episode).

    ## Action format

    ``click(id)``, ``type(id, "text")``, ``select(id, "option")``, ``scroll(down|up)`` and
    ``answer("text")`` (gives up), as in Web-v2; ``goto`` and ``back`` are action errors here (the
    task lives on one page).

    ## Components

    Paid when the page ends the episode (or on ``answer``/truncation); equal default weights, mean
    aggregate. With ``raw`` the page's raw reward in [-1, 1] (counted only when the page ended the
    episode), ``n`` the actions taken (invalid ones included; the core counts them) and ``m`` the
    task's minimum number of actions (one per click, value or Submit the problem needs;
    :mod:`rewardlab.envs.miniwob.problem`); formulas in :mod:`rewardlab.envs.miniwob.rubric`:

    | name          | role       | formula                                                           | weight | range  |
    |---------------|------------|-------------------------------------------------------------------|--------|--------|
    | `success`     | outcome    | [raw = 1 and n ≤ m]                                               | 1/3    | {0, 1} |
    | `page_reward` | outcome    | 1 if raw = 1, else Youden's J on checkbox pages, else max(0, raw) | 1/3    | [0, 1] |
    | `efficiency`  | efficiency | page_reward · min(1, m / n)                                       | 1/3    | [0, 1] |

    On the checkbox pages Youden's J is max(0, ticked wanted boxes / wanted boxes - ticked unwanted
    boxes / unwanted boxes), read off the boxes when the page ended (a share over no boxes counts as
    right); every other page pays 1 or -1, so there max(0, raw) is 0 or 1. ``is_success`` is
    ``success``. The reward is in [0, 1]: 1 for a minimal solution, (1 + m/n)/3 for the page's full
    reward reached with n > m actions, 0 when the page paid nothing. ``info["metrics"]`` adds
    ``efficiency/invalid_fraction``, the share of actions that gave an action error.

    ## Milestones

    None: the page alone decides when the task is done (``progress`` stays 0).

    ## Episode end

    Terminated when the page reports ``WOB_DONE_GLOBAL`` or on ``answer``; truncated after
    ``max_turns`` steps (default 20). Terminated on an infrastructure fault (Chromium killed or
    crashed, its page closed, the file server stopped) with ``infra_error: ...``,
    ``info["infra_error"]``, ``info["usable"]`` and ``is_success`` False, reward ``invalid_penalty``,
    never an exception; the next ``reset`` rebuilds what died (as in Web-v2: Chromium relaunched, a
    shared one in place; :class:`~rewardlab.browser.backends.InfrastructureError` if that fails).

    Replay: exact. The page draws its problem from ``Math.seedrandom`` of the task's seed and the element ids
    come from the env's seed; its episode timer is disabled and the env reads the page's raw reward, not the
    time-scaled one, so no clock reaches the reward: a record's seed and actions re-score the episode bit for
    bit (:mod:`rewardlab.core.replay`; all 46 oracle and random test episodes replayed equal, also with the
    two cores saturated).

    ## Arguments

    ``observation_budget`` (default 6000), ``page_timeout`` (default 10 s), ``chromium`` (a shared
    :class:`~rewardlab.browser.backends.browser.Chromium`), ``executable_path`` (see Web-v2), and the
    common ones, :class:`~rewardlab.core.CommonArgs`.

    ## Known hack classes defended

    Each class is played by ``rewardlab audit`` (:mod:`rewardlab.envs.miniwob.audit`):

    - Clicking every element in turn, or random elements until something works: wrong clicks
      cost, since success needs the minimum number of actions and efficiency falls as m / n; the
      pages themselves end with raw -1 on most wrong clicks.
    - Typing the instruction's quoted words into every field and pressing every button, or
      submitting at once: the page's own check of the values decides; a wrong value is raw -1.
    - Partial credit for nothing, and hedging: the checkbox pages' raw reward (right boxes - wrong
      boxes) / boxes pays a blind Submit (n - 2k) / n with k of n boxes wanted and ticking every box
      (2k - n) / n. ``page_reward`` uses the share of wanted boxes ticked minus the share of
      unwanted ones instead (Youden's J), 0 for ticking none, all, or any choice made blind of the
      instruction; only raw = 1 counts as success.
    - Repeated invalid or idle actions (``click(999)``, scrolling): they count as actions, and no
      component pays anything until the page does.
    - Replaying a memorised trajectory (constant ids): ids are random per episode, so an action
      that was not read off the page names no element.

    Not defended (the task set, not the reward): MiniWoB randomises where elements sit on the
    screen, which the listing does not show, so six pages have the same answer in the same place
    of the listing on every seed (``click-test``, ``click-test-2``, ``click-dialog``,
    ``click-button-sequence``, ``focus-text``, ``click-collapsible-nodelay``); clicking the
    controls top to bottom solves them, and the reward rightly pays a solution.

    ## Version history

    - v0: initial release (miniwob 1.1.0 pages).
    - v1: success within the minimum of actions; efficiency replaces validity; checkbox credit: Youden's J; random ids.
    """

    system_prompt: str = SYSTEM_PROMPT
    default_max_turns: ClassVar[int | None] = 20
    multi_turn = True
    replay: ClassVar[ReplayFidelity] = "exact"
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "success",
        "page_reward",
        "the page's full reward in the minimum of actions: the task's success",
        "no validity component: the page's own reward, which efficiency is built on",
    )
    server_stopped: ClassVar[str] = "the file server stopped"
    sample_texts: ClassVar[tuple[str, ...]] = ("hello", "abc", "42")

    def __init__(
        self,
        *,
        observation_budget: int = 6000,
        page_timeout: float = 10.0,
        chromium: Chromium | None = None,
        executable_path: str | None = None,
        **common: Unpack[CommonArgs],
    ):
        super().__init__(
            tasks=load_tasks(),
            rubric=make_rubric(),
            backend="browser",
            observation_budget=observation_budget,
            page_timeout=page_timeout,
            chromium=chromium,
            executable_path=executable_path,
            browser_options={"wait_for_navigation": False, "extra_js": REWARD_JS},
            **common,
        )
        self.utterance = ""
        self.page_done = False
        self.raw_reward = 0.0
        self.minimum = 0
        self.boxes: BoxTally | None = None
        # the page's own element ids (document order) -> the random ids the agent sees this episode
        self.element_ids: dict[int, int] = {}
        # this episode's (observation acted on, action) pairs
        self.trajectory: list[tuple[str, str]] = []
        self._page_ids: dict[int, int] = {}
        self._free_ids: list[int] = []
        self._loaded_page: str | None = None

    # ------------------------------------------------------------------ hooks
    def _start_server(self) -> StaticServer:
        return StaticServer(miniwob_html_dir())

    def _restore(self, *, force: bool = False) -> None:
        session = self.session
        super()._restore(force=force)
        if self.session is not session:
            self._loaded_page = None  # the new context holds no page yet

    @property
    def scripted_backend(self) -> ScriptedBackend:
        """:attr:`backend`, which is always the browser backend here: MiniWoB runs JavaScript in its pages."""
        backend = self.backend
        if not isinstance(backend, ScriptedBackend):
            raise TypeError(f"MiniWoB needs a backend that runs JavaScript, got {type(backend).__name__}")
        return backend

    def _begin(self, task: Task) -> tuple[str, dict[str, Any]]:
        page = task.data["page"]
        if self._loaded_page != page:
            self.session.start(f"/miniwob/{page}.html")
            self._loaded_page = page
        self.utterance = self.scripted_backend.evaluate(START_JS, task.data["seed"])
        self.session.refresh()
        self.session.offset = 0
        self.page_done, self.raw_reward = False, 0.0
        self.minimum = minimum_actions(page, self.utterance, self.session.state.nodes)
        self.boxes = None
        self.element_ids, self._page_ids, self.trajectory = {}, {}, []
        self._free_ids = [int(i) for i in self.np_random.permutation(np.arange(1, ID_RANGE))]
        return f"Task: {self.utterance}\n\n{self._render()}", {"utterance": self.utterance}

    def _shown_id(self, page_id: int) -> int:
        """The random id the agent sees for the page's element ``page_id`` (drawn on first sight)."""
        if page_id not in self.element_ids:
            shown = self._free_ids.pop() if self._free_ids else ID_RANGE + len(self.element_ids)
            self.element_ids[page_id], self._page_ids[shown] = shown, page_id
        return self.element_ids[page_id]

    def _shown_nodes(self) -> list[Node]:
        return [replace(n, id=self._shown_id(n.id)) for n in self.session.state.nodes]

    def _render(self) -> str:
        shown = replace(self.session.state, nodes=self._shown_nodes())
        text, self.session.shown = render_page(
            shown, offset=self.session.offset, budget=self.session.budget, url=self.session.display_url()
        )
        return text

    def _execute(self, action: Action) -> str | None:
        """Run a page action whose element id is the agent's (random) one; errors name that id.
        ``goto`` and ``back`` are refused: the task lives on one page."""
        if action.kind in ("goto", "back"):
            return f"{action.kind}() is not available in MiniWoB: the task lives on this page"
        if action.element is None:
            return self.session.execute(action)
        page_id = self._page_ids.get(action.element)
        if page_id is None:
            return f"no element [{action.element}] on this page; use an id shown in brackets"
        error = self.session.execute(replace(action, element=page_id))
        return None if error is None else error.replace(f"[{page_id}]", f"[{action.element}]")

    def _apply(self, action: str) -> Turn:
        self.trajectory.append((self.last_observation, action))
        return super()._apply(action)

    def _page_turn(self, error: str | None) -> Turn:
        """The page's own end of the episode (``WOB_DONE_GLOBAL`` set, its raw reward read), else the page."""
        reward = self.scripted_backend.extra
        if reward is not None and reward[0]:
            self.page_done, self.raw_reward = True, float(reward[1])
            self.boxes = tally_boxes(self.current_task.data["page"], self.utterance, self.session.state.nodes)
            return Turn(observation="The page ended the episode.", done=True, action_error=error)
        return super()._page_turn(error)

    def _outcome(self) -> tuple[MiniWoBOutcome, bool]:
        outcome = MiniWoBOutcome(
            self.page_done, self.raw_reward, self.boxes, self.actions_taken, self.minimum, self.valid_actions
        )
        return outcome, True

    def _is_success(self, outcome: MiniWoBOutcome, result: RubricResult) -> bool:
        return is_success(outcome)

    def audit_profile(self) -> AuditProfile:
        """The MiniWoB strategies of :mod:`rewardlab.envs.miniwob.audit` (click everything, fill every field, ...)."""
        from rewardlab.envs.miniwob.audit import profile

        return profile(self)

    def make_oracle(self) -> MiniWoBOracle:
        return MiniWoBOracle(self)
