"""MiniWoB-v1's equivalent and defective rewrites of the oracle's episode (:mod:`rewardlab.audit.rewrite`).

The oracle's actions name element ids read off the page; replayed with the oracle's episode seed
the page and its ids are the same, so a rewrite may replay them with one change. The rewrites
read the reset listing (``context.observation``) and, where they need it, the page's instruction
(``context.env.utterance``) and page name: they are test constructions, not policies.

MiniWoB-v1 counts a task as solved only when the page pays its full reward within the task's
minimum number of actions (the system prompt says so), so an equivalent keeps the oracle's number
of actions: an extra scroll or click is, by that contract, not equivalent (it costs ``success``).

Equivalents (each must keep ``is_success`` and all but 0.05 of the reward):

- ``bracketed_ids``: every element id written in brackets, as the listing shows it
  (``click([12])``; the action grammar accepts both);
- ``single_quoted_text``: every typed or selected text in single quotes (``type(12, 'Ann')``);
- ``independent_fields_reordered``: the values set before the final action in reverse order, where
  each sets its own checkbox or textbox (the page reads them all only at Submit);
- ``label_clicked``: each checkbox or radio clicked through its ``<label>`` (the text line of its
  name listed right above it), another element that acts on the same box;
- ``ignored_characters_added``: a typed value with spaces and a full stop around it, on pages whose
  own checker drops them (:func:`~rewardlab.envs.miniwob.problem.checked_form`: ``find-word``);
- ``option_in_other_case``: a selected option written in other case with spaces around it, where
  exactly one option matches it so (the env picks an option by exact text, else case-folded).

Defects (each must lose ``is_success``; the mean loss must reach :data:`DEFECT_DELTA`):

- ``wrong_value``: one typed value with one letter or digit changed (so the page's checker sees
  another value), or one selected option replaced by another option;
- ``wrong_element``: one click moved to another element of the same role that the oracle never
  acts on and that is not named like the target (these pages grade a click by the element's text);
- ``final_action_left_out``: the oracle's last action (the Submit, or the second button of a
  sequence) left out, where it takes more than one;
- ``collateral_tick``: before the final Submit, tick one checkbox that the oracle leaves alone (on
  the checkbox pages, which grade every box).
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Sequence

import numpy as np

from rewardlab.audit.rewrite import RewriteContext, defective, equivalent
from rewardlab.browser.actions import Action, parse_action
from rewardlab.envs.miniwob.oracle import parse_listing
from rewardlab.envs.miniwob.problem import checked_form

DEFECT_DELTA = 0.3
"""The least mean reward a defect must cost. With the oracle at 1, a defect that loses ``success``
(weight 1/3) loses at least 1/3; 0.3 leaves room for round-off."""

_OPTIONS = re.compile(r"options=(\[.*\])")
_SINGLE_QUOTE_ESCAPES = str.maketrans({"\\": "\\\\", "'": "\\'", "\n": "\\n"})


def _parsed(actions: Sequence[str]) -> list[Action | None]:
    return [parse_action(action)[0] for action in actions]


def _listing(context: RewriteContext) -> dict[int, tuple[str, str, str]]:
    """``{id: (role, name, rest of line)}`` of the reset listing."""
    return {element: (role, name, rest) for element, role, name, rest in parse_listing(context.observation)}


def _page(context: RewriteContext) -> str:
    return str(context.env.task.data["page"])


def _options(rest: str) -> list[str]:
    """A combobox's option texts from its listing line (``options=["a", "b"]``); ``[]`` if none."""
    match = _OPTIONS.search(rest)
    if match is None:
        return []
    try:
        options = json.loads(match.group(1))
    except json.JSONDecodeError:
        return []
    return [str(option) for option in options] if isinstance(options, list) else []


def _single_quoted(text: str) -> str:
    return "'" + text.translate(_SINGLE_QUOTE_ESCAPES) + "'"


def _with_text(action: Action, text: str) -> str:
    return str(Action(action.kind, element=action.element, text=text))


def _each_rewritten(context: RewriteContext, rewrite: Callable[[Action], str | None]) -> list[str] | None:
    """The oracle's actions with each one that parses and that ``rewrite`` maps to an action replaced by that
    action (the others kept); None when it replaces none (the rewrite does not apply)."""
    out, changed = [], False
    for action, parsed in zip(context.actions, _parsed(context.actions), strict=True):
        new = None if parsed is None else rewrite(parsed)
        out.append(action if new is None else new)
        changed = changed or new is not None
    return out if changed else None


# ---------------------------------------------------------------------------------- equivalents
@equivalent("bracketed_ids", "every element id written in brackets, as the listing shows it: click([12])")
def bracketed_ids(context: RewriteContext) -> list[str] | None:
    def bracketed(action: Action) -> str | None:
        if action.element is None:
            return None
        return str(action).replace(f"({action.element}", f"([{action.element}]", 1)

    return _each_rewritten(context, bracketed)


@equivalent("single_quoted_text", "every typed or selected text in single quotes: type(12, 'Ann')")
def single_quoted_text(context: RewriteContext) -> list[str] | None:
    def single_quoted(action: Action) -> str | None:
        if action.kind not in ("type", "select"):
            return None
        return f"{action.kind}({action.element}, {_single_quoted(action.text or '')})"

    return _each_rewritten(context, single_quoted)


@equivalent(
    "independent_fields_reordered",
    "the checkboxes ticked or fields typed before the final action, in reverse order",
)
def independent_fields_reordered(context: RewriteContext) -> list[str] | None:
    """Applies where at least two actions precede the last and each ticks its own checkbox or types
    into its own textbox: the page reads them all only when the last action (Submit) runs."""
    body = list(context.actions[:-1])
    if len(body) < 2:
        return None
    listing = _listing(context)
    elements = []
    for parsed in _parsed(body):
        if parsed is None or parsed.element not in listing:
            return None
        role = listing[parsed.element][0]
        if not ((parsed.kind == "click" and role == "checkbox") or (parsed.kind == "type" and role == "textbox")):
            return None
        elements.append(parsed.element)
    if len(set(elements)) != len(elements):
        return None
    return [*reversed(body), context.actions[-1]]


@equivalent("label_clicked", "each checkbox or radio clicked through its label (the text line of its name above it)")
def label_clicked(context: RewriteContext) -> list[str] | None:
    """Applies to clicks on a checkbox or radio listed right after a text line of the same name: the
    pages wrap each box in a ``<label>`` with its name, and a click on a label toggles its box."""
    rows = parse_listing(context.observation)
    label_of = {
        element: rows[index - 1][0]
        for index, (element, role, name, _) in enumerate(rows)
        if role in ("checkbox", "radio") and index and rows[index - 1][1:3] == ("text", name)
    }

    def through_label(action: Action) -> str | None:
        if action.kind != "click" or action.element not in label_of:
            return None
        return f"click({label_of[action.element]})"

    return _each_rewritten(context, through_label)


@equivalent(
    "ignored_characters_added", "a typed value with spaces and a full stop around it, where the page ignores them"
)
def ignored_characters_added(context: RewriteContext) -> list[str] | None:
    """Applies only where the page's own checker compares a form without them
    (:func:`~rewardlab.envs.miniwob.problem.checked_form`)."""
    page = _page(context)

    def padded(action: Action) -> str | None:
        text = action.text or ""
        padded = f" {text}. "
        if action.kind != "type" or checked_form(page, padded) != checked_form(page, text):
            return None
        return _with_text(action, padded)

    return _each_rewritten(context, padded)


@equivalent("option_in_other_case", "a selected option in other case with spaces around it, where only it matches so")
def option_in_other_case(context: RewriteContext) -> list[str] | None:
    """Applies where exactly one option of the combobox equals the variant case-folded and stripped,
    the env's rule for an option not written exactly."""
    listing = _listing(context)

    def other_case(action: Action) -> str | None:
        if action.kind != "select" or action.element not in listing:
            return None
        text = action.text or ""
        variant = f" {text.upper() if text.upper() != text else text.lower()} "
        folded = variant.strip().casefold()
        matches = [o for o in _options(listing[action.element][2]) if o.casefold() == folded]
        if matches != [text] or variant.strip() == text:
            return None
        return _with_text(action, variant)

    return _each_rewritten(context, other_case)


# ---------------------------------------------------------------------------------- defects
def typo(text: str, rng: np.random.Generator) -> str:
    """``text`` with one letter or digit replaced by another of its kind (a lower-case letter by a
    lower-case letter, ...); ``text + "x"`` when it has none.

    Example:
        >>> typo("ab", np.random.default_rng(0)) != "ab"
        True
    """
    positions = [i for i, ch in enumerate(text) if ch.isascii() and ch.isalnum()]
    if not positions:
        return text + "x"
    index = positions[int(rng.integers(len(positions)))]
    kinds = (string.ascii_lowercase, string.ascii_uppercase, string.digits)
    alphabet = next(kind for kind in kinds if text[index] in kind).replace(text[index], "")
    return text[:index] + alphabet[int(rng.integers(len(alphabet)))] + text[index + 1 :]


@defective("wrong_value", "one typed value with one character changed, or one selected option replaced by another")
def wrong_value(context: RewriteContext) -> list[str] | None:
    page, listing = _page(context), _listing(context)
    parsed = enumerate(_parsed(context.actions))
    candidates = [(i, p) for i, p in parsed if p is not None and p.kind in ("type", "select")]
    if not candidates:
        return None
    index, action = candidates[int(context.rng.integers(len(candidates)))]
    text = action.text or ""
    if action.kind == "type":
        wrong = typo(text, context.rng)
        if checked_form(page, wrong) == checked_form(page, text):
            return None
    else:
        rest = listing.get(action.element or -1, ("", "", ""))[2]
        others = [o for o in _options(rest) if o.casefold() != text.strip().casefold()]
        if not others:
            return None
        wrong = others[int(context.rng.integers(len(others)))]
    out = list(context.actions)
    out[index] = _with_text(action, wrong)
    return out


@defective("wrong_element", "one click moved to another element of the same role, named otherwise")
def wrong_element(context: RewriteContext) -> list[str] | None:
    """The last click that has such an alternative in the reset listing is moved to one of them
    (an element the oracle never acts on, of the target's role, and not sharing its non-empty name)."""
    listing = _listing(context)
    parsed = _parsed(context.actions)
    acted = {p.element for p in parsed if p is not None and p.element is not None}
    for index in range(len(parsed) - 1, -1, -1):
        action = parsed[index]
        if action is None or action.kind != "click" or action.element not in listing:
            continue
        role, name, _ = listing[action.element]
        others = [
            element
            for element, (other_role, other_name, _) in listing.items()
            if other_role == role and element not in acted and not (name and other_name == name)
        ]
        if others:
            out = list(context.actions)
            out[index] = f"click({others[int(context.rng.integers(len(others)))]})"
            return out
    return None


@defective("final_action_left_out", "the oracle's last action (the Submit) left out, where it takes more than one")
def final_action_left_out(context: RewriteContext) -> list[str] | None:
    return list(context.actions[:-1]) if len(context.actions) >= 2 else None


@defective("collateral_tick", "ticks one checkbox the oracle leaves alone, before the final Submit")
def collateral_tick(context: RewriteContext) -> list[str] | None:
    """Applies on pages with checkboxes (which the page grades box by box): one unchecked box that the
    oracle neither ticks nor shares a name with is ticked before the oracle's last action."""
    listing = _listing(context)
    parsed = _parsed(context.actions)
    acted = {p.element for p in parsed if p is not None and p.element is not None}
    ticked_names = {listing[e][1] for e in acted if e in listing and listing[e][0] == "checkbox"}
    spare = [
        element
        for element, (role, name, rest) in listing.items()
        if role == "checkbox" and element not in acted and name not in ticked_names and "unchecked" in rest
    ]
    if not spare or not context.actions:
        return None
    extra = f"click({spare[int(context.rng.integers(len(spare)))]})"
    return [*context.actions[:-1], extra, context.actions[-1]]


EQUIVALENTS = (
    bracketed_ids,
    single_quoted_text,
    independent_fields_reordered,
    label_clicked,
    ignored_characters_added,
    option_in_other_case,
)
DEFECTS = (wrong_value, wrong_element, final_action_left_out, collateral_tick)
