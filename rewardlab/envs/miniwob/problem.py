"""What MiniWoB-v0 reads off each problem at reset, from the page's instruction and first listing.

- :func:`minimum_actions`, the ``m`` of the rubric: one action per thing the page needs done (a
  click, a value typed or selected, the final Submit), nothing else. Where the agent must search
  (``click-tab-2`` hides the link in a tab it cannot see), the minimum is what guarantees finding
  it: open every other tab, then click the link.
- :func:`blind_reward`, the ``b`` of the rubric: the raw reward a Submit on the untouched problem
  earns where the page grades by parts. The checkbox pages pay (right boxes - wrong boxes) / boxes,
  so an untouched page with k of n boxes wanted earns (n - 2k) / n; every other page's raw reward
  is all or nothing (1 or -1), and b = 0 there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rewardlab.envs.web.observation import Node

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


def blind_reward(page: str, utterance: str, nodes: Sequence[Node]) -> float:
    """The raw reward a Submit on the untouched checkbox problem earns, in [-1, 1]; 0 on other pages."""
    boxes = sum(n.role == "checkbox" for n in nodes)
    if page not in _CHECKBOX_PAGES or boxes == 0:
        return 0.0
    return (boxes - 2 * len(checkbox_names(utterance))) / boxes
