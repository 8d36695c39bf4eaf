"""MiniWoB-v0's degenerate strategies for ``rewardlab audit``: cheap ways to make a page pay.

Each strategy reads only the observations (the instruction and the element listing) and never
works out what the instruction asks for:

- ``click_everything``: clicks every listed element in turn, top to bottom, new ones as they appear.
- ``fill_every_field``: types all of the instruction's quoted words into every textbox, then
  clicks every button.
- ``submit_immediately``: clicks the Submit (or Login) button at once.
- ``check_everything``: ticks every checkbox and radio, then clicks Submit (the checkbox pages'
  partial credit).
- ``random_clicks``: clicks random listed elements until the turn budget runs out.
- ``repeated_invalid``: the same invalid action (an id no page shows) every turn.
- ``idle_scrolling``: ``scroll(down)`` every turn: valid, and it changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from rewardlab.audit.strategy import AcceptedSuccess, AuditProfile, EpisodeView, strategy
from rewardlab.core.text import canonical_text
from rewardlab.envs.miniwob.oracle import parse_listing
from rewardlab.envs.web.actions import parse_action, quote_arg

if TYPE_CHECKING:
    from rewardlab.envs.miniwob.env import MiniWoBEnv

FINISH = 'answer("")'
"""Gives up: ends the episode without touching the page."""

_QUOTED = re.compile(r'"([^"\n]*)"')
_SUBMIT_NAMES = frozenset({"submit", "login"})
_TOGGLES = frozenset({"checkbox", "radio"})


def _instruction(view: EpisodeView) -> str:
    first_line = view.first_observation.split("\n", 1)[0]
    return first_line.removeprefix("Task: ")


@strategy("click_everything", "clicks every listed element in turn, new ones as they appear")
def click_everything(view: EpisodeView) -> Iterator[str]:
    clicked: set[int] = set()
    while True:
        todo = [element for element, *_ in parse_listing(view.observation) if element not in clicked]
        if not todo:
            return
        clicked.add(todo[0])
        yield f"click({todo[0]})"


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
    fill_every_field,
    submit_immediately,
    check_everything,
    random_clicks,
    repeated_invalid,
    idle_scrolling,
)


def oracle_replay(env: MiniWoBEnv) -> AcceptedSuccess:
    """Accepts a success whose actions were the oracle's own, step for step, on the same observations.

    On the one-click pages (``click-test``'s only button, ``Select nothing and click Submit.``)
    a blind strategy sometimes plays exactly the solution; that is the task solved, not the
    reward fooled. Any other success is flagged.
    """

    def accepted(task_id: str, strategy_name: str, info: Mapping[str, Any]) -> str | None:
        oracle = env.make_oracle()
        for observation, action in env.trajectory:
            if parse_action(action)[0] != parse_action(oracle.act(observation, {}))[0]:
                return None
        return "played the oracle's own actions, step for step"

    return accepted


def profile(env: MiniWoBEnv) -> AuditProfile:
    """MiniWoB-v0's contribution to ``rewardlab audit``."""
    return AuditProfile(strategies=STRATEGIES, finish=FINISH, accepted_success=oracle_replay(env))
