"""RewardLab/MiniWoB-v0: MiniWoB++ tasks of the PyPI ``miniwob`` package in Chromium, with Web-v0's interface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from rewardlab.core.env import TextEnv, Turn
from rewardlab.core.rubric import Aggregate, RubricResult
from rewardlab.core.tasks import Task
from rewardlab.envs.miniwob.oracle import MiniWoBOracle
from rewardlab.envs.miniwob.rubric import MiniWoBOutcome, make_rubric
from rewardlab.envs.miniwob.server import StaticServer
from rewardlab.envs.miniwob.tasks import load_tasks
from rewardlab.envs.web.actions import parse_action, quote_arg
from rewardlab.envs.web.env import check_backend_args, make_backend
from rewardlab.envs.web.session import WebSession
from rewardlab.errors import require

SYSTEM_PROMPT = (
    "You operate a web page to complete a short MiniWoB++ task. Each observation shows the instruction "
    "and a listing of the page's elements, each with a numeric id in brackets. Reply with exactly one action "
    'per turn: click(id), type(id, "text"), select(id, "option"), scroll(down) or scroll(up); '
    'answer("text") gives up and ends the episode. The page decides when the task is done.'
)
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
    return Path(package.__file__).parent / "html"


class MiniWoBEnv(TextEnv):
    """MiniWoB++ web tasks (the ``miniwob`` package's own pages) through the browser backend.

    ## Description
    The external check of the browser backend on pages nobody here wrote: the HTML/JavaScript
    tasks of MiniWoB++ are served from the installed ``miniwob`` package on 127.0.0.1 and run in
    headless Chromium. 23 task pages x 5 seeds = 115 tasks (seeds 0-3 train, seed 4 test). The
    page generates its problem from ``Math.seedrandom(seed)`` and computes its own reward; the
    episode timer is disabled (LLM agents think slowly), so episodes are reproducible.

    ## Spaces
    Same as Web-v0: the observation is ``Task: <the page's instruction>``, then ``URL:``,
    ``Title:``, ``Page:`` and one ``[id] role "name"`` line per element; actions are
    ``click(id)``, ``type(id, "text")``, ``select(id, "option")``, ``scroll(down|up)`` and
    ``answer("text")`` (gives up). ``goto`` and ``back`` are action errors here (the task lives on
    one page).

    ## Rewards
    Paid when the page ends the episode (or on ``answer``/truncation). Components, equal weights:

    - ``success`` = 1 if the page's raw reward is > 0 (MiniWoB's success criterion), else 0.
    - ``page_reward`` = max(0, raw reward), the page's own score (partial credit on some tasks).
    - ``validity`` = valid actions / actions.

    ## Starting State
    The task page loaded (once per env and page), the problem generated from the task's seed.

    ## Episode End
    Terminated when the page reports ``WOB_DONE_GLOBAL`` or on ``answer``; truncated after
    ``max_turns`` steps (default 20).

    ## Arguments
    ``observation_budget`` (default 6000), ``page_timeout`` (default 10 s), ``chromium`` (a shared
    :class:`~rewardlab.envs.web.backends.browser.Chromium`), ``executable_path`` (see Web-v0), and the
    common ``reward_weights``, ``aggregate``, ``gates``, ``invalid_penalty``, ``max_turns``, ``render_mode``.

    ## Version History
    - v0: initial release (miniwob 1.1.0 pages).
    """

    system_prompt: ClassVar[str] = SYSTEM_PROMPT
    default_max_turns: ClassVar[int | None] = 20

    def __init__(
        self,
        *,
        observation_budget: int = 6000,
        page_timeout: float = 10.0,
        chromium: Any = None,
        executable_path: str | None = None,
        reward_weights: Mapping[str, float] | None = None,
        aggregate: Aggregate | None = None,
        gates: Sequence[str] | Mapping[str, float] | None = None,
        invalid_penalty: float | None = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ):
        check_backend_args("browser", observation_budget, page_timeout)
        super().__init__(
            tasks=load_tasks(),
            rubric=make_rubric(),
            reward_weights=reward_weights,
            aggregate=aggregate,
            gates=gates,
            invalid_penalty=invalid_penalty,
            max_turns=max_turns,
            render_mode=render_mode,
        )
        self.server = StaticServer(miniwob_html_dir())
        try:
            self.backend = make_backend(
                "browser",
                timeout=page_timeout,
                chromium=chromium,
                executable_path=executable_path,
                wait_for_navigation=False,
                extra_js=REWARD_JS,
            )
            self.backend.open(self.server.origin)
        except BaseException:
            self.server.close()
            raise
        self.session = WebSession(self.backend, self.server.origin, budget=observation_budget)
        self.utterance = ""
        self.page_done = False
        self.raw_reward = 0.0
        self.actions = self.valid_actions = 0
        self._loaded_page: str | None = None
        self._closed = False

    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        page = task.data["page"]
        if self._loaded_page != page:
            self.session.start(f"/miniwob/{page}.html")
            self._loaded_page = page
        self.utterance = self.backend.evaluate(START_JS, task.data["seed"])
        self.session.refresh()
        self.session.offset = 0
        self.page_done, self.raw_reward = False, 0.0
        self.actions = self.valid_actions = 0
        return f"Task: {self.utterance}\n\n{self.session.render()}", {"utterance": self.utterance}

    def _act(self, action: str) -> Turn:
        self.actions += 1
        parsed, error = parse_action(action)
        if parsed is not None and parsed.kind == "answer":
            self.valid_actions += 1
            outcome, _ = self._outcome()
            return Turn(observation=f"Answer submitted: {quote_arg(parsed.text or '')}", done=True, outcome=outcome)
        if parsed is not None and parsed.kind in ("goto", "back"):
            error = f"{parsed.kind}() is not available in MiniWoB: the task lives on this page"
        elif parsed is not None:
            error = self.session.execute(parsed)
        if error is None:
            self.valid_actions += 1
        reward = self.backend.extra
        if reward is not None and reward[0]:
            self.page_done, self.raw_reward = True, float(reward[1])
            outcome, _ = self._outcome()
            return Turn(observation="The page ended the episode.", done=True, outcome=outcome, action_error=error)
        page = self.session.render()
        return Turn(observation=f"action_error: {error}\n\n{page}" if error else page, action_error=error)

    def _outcome(self) -> tuple[MiniWoBOutcome, bool]:
        return MiniWoBOutcome(self.page_done, self.raw_reward, self.valid_actions, self.actions), True

    def _is_success(self, outcome: MiniWoBOutcome, result: RubricResult) -> bool:
        return outcome.done and outcome.raw_reward > 0

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random well-formed action on the current page."""
        nodes = self.session.state.nodes
        kind = rng.choice(["click", "click", "click", "type", "select", "scroll"])
        textboxes = [n for n in nodes if n.role == "textbox"]
        comboboxes = [n for n in nodes if n.role == "combobox" and n.options]
        if kind == "type" and textboxes:
            node = textboxes[int(rng.integers(len(textboxes)))]
            return f"type({node.id}, {quote_arg(str(rng.choice(['hello', 'abc', '42'])))})"
        if kind == "select" and comboboxes:
            node = comboboxes[int(rng.integers(len(comboboxes)))]
            return f"select({node.id}, {quote_arg(node.options[int(rng.integers(len(node.options)))])})"
        if kind == "scroll":
            return f"scroll({rng.choice(['down', 'up'])})"
        return f"click({nodes[int(rng.integers(len(nodes)))].id})" if nodes else "scroll(down)"

    def make_oracle(self) -> MiniWoBOracle:
        return MiniWoBOracle(self)

    def close(self) -> None:
        """Close the browser context (and the browser it launched) and the file server. Idempotent."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            self.backend.close()
        finally:
            self.server.close()
            super().close()
