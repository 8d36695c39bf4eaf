"""MiniWoBOracle: scripted solvers, one per task page, that read the page's instruction and the listing.

Each solver sees what an agent sees (the instruction and the ``[id] role "name"`` lines) and
returns the next action; none reads the page's hidden answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rewardlab.browser.actions import quote_arg
from rewardlab.envs.miniwob.problem import checkbox_names, list_choice, quoted

if TYPE_CHECKING:  # the env imports this module: a runtime import would be circular
    from rewardlab.envs.miniwob.env import MiniWoBEnv

_LINE = re.compile(r'^\[(\d+)\] (\S+) ("(?:[^"\\]|\\.)*")(.*)$', re.MULTILINE)
ORDINALS = {"1st": 1, "2nd": 2, "3rd": 3}


def parse_listing(observation: str) -> list[tuple[int, str, str, str]]:
    """``(id, role, name, rest of line)`` for every listed element."""
    return [(int(m.group(1)), m.group(2), json.loads(m.group(3)), m.group(4)) for m in _LINE.finditer(observation)]


def _ordinal(word: str) -> int:
    return ORDINALS.get(word) or int(re.sub(r"\D", "", word) or 1)


class _Listing:
    def __init__(self, observation: str):
        self.rows = parse_listing(observation)

    def find(self, role: str | None = None, name: str | None = None) -> list[int]:
        return [i for i, r, n, _ in self.rows if (role is None or r == role) and (name is None or n == name)]

    def first(self, role: str | None = None, name: str | None = None) -> int | None:
        found = self.find(role, name)
        return found[0] if found else None


Solver = Callable[[str, _Listing, int], "str | None"]


def _click(element: int | None) -> str | None:
    return None if element is None else f"click({element})"


def _click_named(role: str) -> Solver:
    return lambda u, page, step: _click(page.first(role, quoted(u)))


def _sequence(u: str, page: _Listing, step: int) -> str | None:
    return _click(page.first("button", "ONE" if step == 0 else "TWO"))


def _dialog2(u: str, page: _Listing, step: int) -> str | None:
    label = quoted(u)
    return _click(page.first("button", "Close" if label == "x" else label))  # the "x" button is named Close


def _checkboxes(u: str, page: _Listing, step: int) -> str | None:
    names = checkbox_names(u)
    if step < len(names):
        return _click(page.first("checkbox", names[step]))
    return _click(page.first("button", "Submit"))


def _tab2(u: str, page: _Listing, step: int) -> str | None:
    target = page.first("text", quoted(u))
    if target is not None:
        return _click(target)
    tabs = page.find("tab")  # the first tab is open at the start: search the others in order
    return _click(tabs[(step + 1) % len(tabs)]) if tabs else None


def _type_then_submit(transform: Callable[[str, str], list[str]], submit: str = "Submit") -> Solver:
    def solve(u: str, page: _Listing, step: int) -> str | None:
        texts = transform(u, quoted(u))
        boxes = page.find("textbox")
        if step < len(texts):
            return f"type({boxes[step]}, {quote_arg(texts[step])})" if step < len(boxes) else None
        return _click(page.first("button", submit))

    return solve


def _case(u: str, q: str) -> list[str]:
    return [q.upper() if "upper case" in u else q.lower()]


def _login(u: str, q: str) -> list[str]:
    return re.findall(r'"([^"]*)"', u)[:2]


def _focus2(u: str, page: _Listing, step: int) -> str | None:
    match = re.search(r"the (\w+) input textbox", u)
    boxes = page.find("textbox")
    index = _ordinal(match.group(1)) - 1 if match else 0
    return _click(boxes[index]) if index < len(boxes) else None


def _collapsible(u: str, page: _Listing, step: int) -> str | None:
    if step == 0:
        return _click(next((i for i, r, n, _ in page.rows if r == "tab" and n.startswith("Section")), None))
    return _click(page.first(None, "Submit"))


def _choose_list(u: str, page: _Listing, step: int) -> str | None:
    wanted = list_choice(u)
    box = next((row for row in page.rows if row[1] == "combobox"), None)
    if step == 0 and box is not None and f"value={json.dumps(wanted, ensure_ascii=False)}" not in box[3]:
        return f"select({box[0]}, {quote_arg(wanted)})"
    return _click(page.first("button", "Submit"))


def _option(u: str, page: _Listing, step: int) -> str | None:
    if step == 0:
        return _click(page.first("radio", re.sub(r"^Select (.*) and click Submit\.$", r"\1", u)))
    return _click(page.first("button", "Submit"))


def _find_word(u: str, page: _Listing, step: int) -> str | None:
    if step == 0:
        position = re.search(r"Find the (\w+) word", u)
        paragraph = max((n for i, r, n, _ in page.rows[1:] if r == "text"), key=len, default="")
        words = paragraph.split()
        index = _ordinal(position.group(1)) - 1 if position else 0
        box = page.first("textbox")
        if box is None or index >= len(words):
            return None
        return f"type({box}, {quote_arg(words[index].strip('.,;:'))})"
    return _click(page.first("button", "Submit"))


SOLVERS: dict[str, Solver] = {
    "click-button": _click_named("button"),
    "unicode-test": _click_named("button"),
    "click-button-sequence": _sequence,
    "click-link": _click_named("text"),
    "click-dialog": lambda u, page, step: _click(page.first("button", "Close")),
    "click-dialog-2": _dialog2,
    "click-checkboxes": _checkboxes,
    "click-checkboxes-large": _checkboxes,
    "click-checkboxes-transfer": _checkboxes,
    "click-tab": lambda u, page, step: _click(page.first("tab", re.sub(r"^Click on (.*)\.$", r"\1", u))),
    "click-tab-2": _tab2,
    "click-test": lambda u, page, step: _click(page.first("button")),
    "click-test-2": lambda u, page, step: _click(page.first("button", re.sub(r"^Click button (\w+)\.$", r"\1", u))),
    "enter-text": _type_then_submit(lambda u, q: [q]),
    "enter-text-2": _type_then_submit(_case),
    "enter-password": _type_then_submit(lambda u, q: [q, q]),
    "login-user": _type_then_submit(_login, submit="Login"),
    "focus-text": lambda u, page, step: _click(page.first("textbox")),
    "focus-text-2": _focus2,
    "click-collapsible-nodelay": _collapsible,
    "choose-list": _choose_list,
    "click-option": _option,
    "find-word": _find_word,
}


class MiniWoBOracle:
    """Runs the page's solver; gives up with ``answer("")`` when a solver finds nothing to do."""

    def __init__(self, env: MiniWoBEnv):
        self.env = env
        self.step = 0

    def reset(self) -> None:
        self.step = 0

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if "utterance" in info:
            self.step = 0
        solver = SOLVERS[self.env.current_task.data["page"]]
        action = solver(self.env.utterance, _Listing(observation), self.step)
        self.step += 1
        return action if action is not None else 'answer("")'
