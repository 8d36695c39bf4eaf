"""What MiniWoB-v1 reads off each problem at reset, from the page's instruction and first listing.

- :func:`minimum_actions`, the ``m`` of the rubric: one action per thing the page needs done (a
  click, a value typed or selected, the final Submit), nothing else. Where the agent must search
  (``click-tab-2`` hides the link in a tab it cannot see), the minimum is what guarantees finding
  it: open every other tab, then click the link.
- :func:`tally_boxes`, on the checkbox pages (the only ones that grade by parts): how many of the
  wanted and of the unwanted boxes are ticked when the page ends, the same per-box comparison the
  page's raw reward (right boxes - wrong boxes) / boxes is made of.
- :func:`checked_form`: the form of a typed value that the page's own checker compares with its
  answer (``find-word`` keeps only letters and digits; every other page compares the text as typed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rewardlab.browser.observation import Node

FIXED: dict[str, int] = {
    "click-button-sequence": 2,
    "click-collapsible-nodelay": 2,
    "click-option": 2,
    "enter-text": 2,
    "enter-text-2": 2,
    "find-word": 2,
    "enter-password": 3,
    "login-user": 3,
}
"""Pages whose problems all take the same number of actions; every page not listed here or in
:func:`minimum_actions`'s rules takes one click."""

_NOT_ALPHANUMERIC = re.compile(r"[^a-zA-Z0-9]")
_CHECKER_KEEPS_ALPHANUMERICS = frozenset({"find-word"})
"""Pages whose checker drops every character outside [a-zA-Z0-9] before comparing (find-word's
``ans.replace(/[^a-zA-Z0-9]/g, '')``: "don't penalize for whitespace or punctuation")."""

_CHECKBOX_PAGES = frozenset({"click-checkboxes", "click-checkboxes-large", "click-checkboxes-transfer"})


def quoted(utterance: str) -> str:
    """The instruction's quoted text (``Click on the "Ok" button.`` -> ``Ok``), or ``""``."""
    match = re.search(r'"(.*)"', utterance)
    return match.group(1) if match else ""


def checkbox_names(utterance: str) -> list[str]:
    """The boxes ``Select A, B and click Submit.`` asks for (none for ``Select nothing ...``)."""
    wanted = re.sub(r"^Select (.*) and click Submit\.$", r"\1", utterance)
    return [] if wanted == "nothing" else [name.strip() for name in wanted.split(",")]


def list_choice(utterance: str) -> str:
    """The option ``Select X from the list and click Submit.`` asks for."""
    return re.sub(r"^Select (.*) from the list and click Submit\.$", r"\1", utterance)


def checked_form(page: str, text: str) -> str:
    """``text`` as the page's own checker compares it: letters and digits only on ``find-word``,
    exactly as typed on every other page (they compare with ``===``, no trimming or case folding).

    Example:
        >>> checked_form("find-word", " vestibulum. "), checked_form("enter-text", " Ann ")
        ('vestibulum', ' Ann ')
    """
    return _NOT_ALPHANUMERIC.sub("", text) if page in _CHECKER_KEEPS_ALPHANUMERICS else text


def minimum_actions(page: str, utterance: str, nodes: Sequence[Node]) -> int:
    """The fewest actions that earn the page's full reward on this problem (at least 1)."""
    if page in _CHECKBOX_PAGES:
        return len(checkbox_names(utterance)) + 1
    if page == "choose-list":
        box = next((n for n in nodes if n.role == "combobox"), None)
        return 1 if box is not None and box.value == list_choice(utterance) else 2
    if page == "click-tab-2":
        target = quoted(utterance)
        if any(n.role == "text" and n.name == target for n in nodes):
            return 1
        return sum(n.role == "tab" for n in nodes)  # the other tabs, then the link
    return FIXED.get(page, 1)


@dataclass(frozen=True)
class BoxTally:
    """The checkbox pages' boxes when the page ended: wanted and unwanted, and how many of each are ticked."""

    wanted: int
    unwanted: int
    ticked_wanted: int
    ticked_unwanted: int

    @property
    def informedness(self) -> float:
        """Ticked share of the wanted boxes minus ticked share of the unwanted ones (Youden's J), in
        [-1, 1]: 1 for exactly the wanted boxes; 0 for none, all, or any choice made blind of the
        instruction (in expectation). A share over no boxes counts as right (1 wanted, 0 unwanted)."""
        hits = self.ticked_wanted / self.wanted if self.wanted else 1.0
        false_alarms = self.ticked_unwanted / self.unwanted if self.unwanted else 0.0
        return hits - false_alarms


def tally_boxes(page: str, utterance: str, nodes: Sequence[Node]) -> BoxTally | None:
    """The boxes of a checkbox page, by the instruction's names; ``None`` on every other page."""
    if page not in _CHECKBOX_PAGES:
        return None
    names = set(checkbox_names(utterance))
    boxes = [n for n in nodes if n.role == "checkbox"]
    wanted = [n for n in boxes if n.name in names]
    unwanted = [n for n in boxes if n.name not in names]
    return BoxTally(
        len(wanted), len(unwanted), sum(bool(n.checked) for n in wanted), sum(bool(n.checked) for n in unwanted)
    )
