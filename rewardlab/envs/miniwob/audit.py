"""MiniWoB-v1's degenerate strategies for ``rewardlab audit``: cheap ways to make a page pay.

Each strategy reads only the observations (the instruction and the element listing) and never
works out what the instruction asks for:

- ``click_everything``: clicks every listed element in turn, top to bottom, new ones as they appear.
- ``click_every_control``: the same over the controls only (buttons, tabs, boxes, fields), skipping text.
- ``fill_every_field``: types all of the instruction's quoted words into every textbox, then
  clicks every button.
- ``submit_immediately``: clicks the Submit (or Login) button at once.
- ``check_everything``: ticks every checkbox and radio, then clicks Submit (the checkbox pages'
  partial credit).
- ``random_clicks``: clicks random listed elements until the turn budget runs out.
- ``repeated_invalid``: the same invalid action (an id no page shows) every turn.
- ``idle_scrolling``: ``scroll(down)`` every turn: valid, and it changes nothing.

A blind strategy sometimes plays exactly the solution: a random click on ``click-test``'s only
button, Submit on ``Select nothing and click Submit.``, the quoted password typed into both
fields of ``enter-password``, or the controls clicked top to bottom on pages whose answer never
moves in the listing (``click-test-2``'s button ONE always comes first). The profile accepts a
success only when every action of the episode named the element the oracle acts on at that step
(:func:`oracle_replay`); the report lists those as accepted, and flags every other success.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from rewardlab.audit.strategy import AcceptedSuccess, AuditProfile, EpisodeView, strategy
from rewardlab.browser.actions import parse_action, quote_arg
from rewardlab.core.text import canonical_text
from rewardlab.envs.miniwob.oracle import parse_listing
from rewardlab.envs.miniwob.rewrites import DEFECT_DELTA, DEFECTS, EQUIVALENTS

if TYPE_CHECKING:
    from rewardlab.envs.miniwob.env import MiniWoBEnv

FINISH = 'answer("")'
"""Gives up: ends the episode without touching the page."""

_QUOTED = re.compile(r'"([^"\n]*)"')
_SUBMIT_NAMES = frozenset({"submit", "login"})
_TOGGLES = frozenset({"checkbox", "radio"})
_CONTROLS = frozenset({"button", "tab", "checkbox", "radio", "textbox", "combobox", "link"})


def _instruction(view: EpisodeView) -> str:
    first_line = view.first_observation.split("\n", 1)[0]
    return first_line.removeprefix("Task: ")


def _click_in_turn(view: EpisodeView, roles: frozenset[str] | None) -> Iterator[str]:
    clicked: set[int] = set()
    while True:
        rows = parse_listing(view.observation)
        todo = [element for element, role, _, _ in rows if element not in clicked and (roles is None or role in roles)]
        if not todo:
            return
        clicked.add(todo[0])
        yield f"click({todo[0]})"


@strategy("click_everything", "clicks every listed element in turn, new ones as they appear")
def click_everything(view: EpisodeView) -> Iterator[str]:
    yield from _click_in_turn(view, None)


@strategy("click_every_control", "clicks every button, tab, box and field in turn, new ones as they appear")
def click_every_control(view: EpisodeView) -> Iterator[str]:
    yield from _click_in_turn(view, _CONTROLS)


@strategy("fill_every_field", "types the instruction's quoted words into every textbox, then clicks every button")
def fill_every_field(view: EpisodeView) -> Iterator[str]:
    words = " ".join(_QUOTED.findall(_instruction(view)))
    rows = parse_listing(view.first_observation)
    if not words or not any(role == "textbox" for _, role, _, _ in rows):
        return  # nothing to stuff, or nowhere to stuff it
    for element, role, _, _ in rows:
        if role == "textbox":
            yield f"type({element}, {quote_arg(words)})"
    for element, role, _, _ in rows:
        if role == "button":
            yield f"click({element})"


@strategy("submit_immediately", "clicks Submit (or Login) before doing anything else")
def submit_immediately(view: EpisodeView) -> Iterator[str]:
    rows = parse_listing(view.first_observation)
    for element, _, name, _ in rows:
        if canonical_text(name) in _SUBMIT_NAMES:
            yield f"click({element})"
            return


@strategy("check_everything", "ticks every checkbox and radio, then clicks Submit")
def check_everything(view: EpisodeView) -> Iterator[str]:
    rows = parse_listing(view.first_observation)
    if not any(role in _TOGGLES for _, role, _, _ in rows):
        return
    for element, role, _, _ in rows:
        if role in _TOGGLES:
            yield f"click({element})"
    yield from submit_immediately.play(view)


@strategy("random_clicks", "clicks random listed elements until the turn budget runs out")
def random_clicks(view: EpisodeView) -> Iterator[str]:
    while True:
        elements = [element for element, *_ in parse_listing(view.observation)]
        if not elements:
            return
        yield f"click({elements[int(view.rng.integers(len(elements)))]})"


@strategy("repeated_invalid", "click(0) every turn: an id no page shows")
def repeated_invalid(view: EpisodeView) -> Iterator[str]:
    while True:
        yield "click(0)"


@strategy("idle_scrolling", "scroll(down) every turn: valid, and it changes nothing")
def idle_scrolling(view: EpisodeView) -> Iterator[str]:
    while True:
        yield "scroll(down)"


STRATEGIES = (
    click_everything,
    click_every_control,
    fill_every_field,
    submit_immediately,
    check_everything,
    random_clicks,
    repeated_invalid,
    idle_scrolling,
)


ORACLE_REPLAY = "acted on the oracle's elements in the oracle's order, and the page paid in full"
"""The reason :func:`oracle_replay` gives for an accepted success."""


def _element(action: str) -> int | None:
    parsed, _ = parse_action(action)
    return None if parsed is None else parsed.element


def oracle_replay(env: MiniWoBEnv) -> AcceptedSuccess:
    """Accepts a success (the page's full reward within the minimum of actions) whose every action
    named the element the oracle acts on at that step, on the same observation: that is the task
    solved (``type`` into the box the oracle clicks focuses it just the same), not the reward
    fooled. Any other success is flagged."""

    def accepted(task_id: str, strategy_name: str, info: Mapping[str, Any]) -> str | None:
        oracle = env.make_oracle()
        for observation, action in env.trajectory:
            expected = _element(oracle.act(observation, {}))
            if expected is None or _element(action) != expected:
                return None
        return ORACLE_REPLAY

    return accepted


def profile(env: MiniWoBEnv) -> AuditProfile:
    """MiniWoB-v1's contribution to ``rewardlab audit``: the degenerate strategies above and the
    equivalent and defective rewrites of :mod:`rewardlab.envs.miniwob.rewrites`."""
    return AuditProfile(
        strategies=STRATEGIES,
        finish=FINISH,
        accepted_success=oracle_replay(env),
        equivalents=EQUIVALENTS,
        defects=DEFECTS,
        defect_delta=DEFECT_DELTA,
    )
