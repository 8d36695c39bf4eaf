"""Env spec sheets: the sections every env's class docstring has, and the component table written from its rubric.

An env's class docstring (what ``help(env.unwrapped)`` shows) is its spec sheet, in the sections of
:data:`SPEC_SECTIONS`, each a ``## <name>`` heading, in that order. Its ``## Components`` section holds
:func:`component_table` of the env's default rubric, verbatim: every row comes from a
:class:`~rewardlab.core.Criterion` (name, role, formula, default weight, range), so the docstring, the README's
Environments table (:func:`component_summary`) and ``rewardlab list`` cannot drift from the code;
:func:`spec_problems` says where they do (``tests/test_specs.py`` runs it on every registered env).

Example:
    >>> from rewardlab.core.rubric import Criterion, Rubric
    >>> rubric = Rubric(
    ...     [
    ...         Criterion("valid", float, formula="[the answer parses]", range="{0, 1}", role="validity"),
    ...         Criterion("size", float, role="quality"),
    ...     ],
    ...     gates=["valid"],
    ... )
    >>> print(component_table(rubric))
    | name           | role     | formula             | weight | range  |
    |----------------|----------|---------------------|--------|--------|
    | `valid` (gate) | validity | [the answer parses] | 1/2    | {0, 1} |
    | `size`         | quality  |                     | 1/2    | [0, 1] |
    >>> component_summary(rubric)
    '`valid` (gate), `size`'
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from rewardlab.core.rubric import Rubric, normalize_weights

SPEC_SECTIONS: tuple[str, ...] = (
    "Description",
    "Action format",
    "Components",
    "Milestones",
    "Episode end",
    "Arguments",
    "Known hack classes defended",
    "Version history",
)
"""The ``## `` sections of an env's spec sheet, in order."""

TABLE_HEADERS: tuple[str, ...] = ("name", "role", "formula", "weight", "range")
"""The component table's columns; ``weight`` is the default weight, normalised."""

_HEADING = re.compile(r"^## (.+)$", re.MULTILINE)


def gate_note(threshold: float | None) -> str:
    """`` (gate)`` for a component whose gate ``threshold`` is 1, `` (gate ≥ t)`` for another, else (no gate) ``""``."""
    if threshold is None:
        return ""
    return " (gate)" if threshold == 1.0 else f" (gate ≥ {threshold:g})"


def default_weight_text(weight: float) -> str:
    """A normalised weight as the simplest fraction within 1/1000 (``1/4``, ``1``, ``0``)."""
    fraction = Fraction(weight).limit_denominator(1000)
    return str(fraction.numerator) if fraction.denominator == 1 else f"{fraction.numerator}/{fraction.denominator}"


def default_weights(rubric: Rubric) -> dict[str, float]:
    """Each criterion's :attr:`~rewardlab.core.Criterion.weight`, normalised over the rubric: the weights of an
    env made without ``reward_weights``."""
    return normalize_weights([c.name for c in rubric.criteria], None, {c.name: c.weight for c in rubric.criteria})


def criterion_rows(rubric: Rubric) -> list[dict[str, Any]]:
    """Each criterion as data: ``name``, ``role``, ``formula``, ``default_weight`` (normalised), ``range``,
    ``gate`` (its threshold, ``None`` when it is no gate) and ``description``; an env's
    :class:`~rewardlab.core.card.EnvCard` holds these (``rewardlab list --json`` and the server's ``/metadata``
    show them)."""
    weights = default_weights(rubric)
    return [
        {
            "name": c.name,
            "role": c.role,
            "formula": c.formula,
            "default_weight": weights[c.name],
            "range": c.range,
            "gate": rubric.gate_thresholds.get(c.name),
            "description": c.description,
        }
        for c in rubric.criteria
    ]


def component_table(rubric: Rubric) -> str:
    """The Markdown table ``name | role | formula | weight | range`` of ``rubric``'s criteria, in order.

    The default weight is :func:`default_weights`'s, as a fraction; a gate is marked after the name.
    """
    weights, gates = default_weights(rubric), rubric.gate_thresholds
    rows = [
        (f"`{c.name}`{gate_note(gates.get(c.name))}", c.role, c.formula, default_weight_text(weights[c.name]), c.range)
        for c in rubric.criteria
    ]
    widths = [max(len(header), *(len(row[i]) for row in rows)) for i, header in enumerate(TABLE_HEADERS)]

    def line(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(TABLE_HEADERS), rule, *(line(row) for row in rows)])


def component_summary(rubric: Rubric) -> str:
    """The components in one line, gates marked: the README's and ``rewardlab list``'s *reward components* cell."""
    return row_summary(criterion_rows(rubric))


def row_summary(rows: Sequence[Mapping[str, Any]]) -> str:
    """:func:`component_summary` of :func:`criterion_rows` (an :class:`~rewardlab.core.card.EnvCard`'s components)."""
    return ", ".join(f"`{row['name']}`{gate_note(row['gate'])}" for row in rows)


def spec_sections(doc: str | None) -> dict[str, str]:
    """``{heading: body}`` of a docstring's ``## `` sections, in order (the text before the first is left out)."""
    text = inspect.cleandoc(doc or "")
    headings = list(_HEADING.finditer(text))
    ends = [m.start() for m in headings[1:]] + [len(text)]
    return {m.group(1).strip(): text[m.end() : end].strip() for m, end in zip(headings, ends, strict=True)}


def spec_problems(doc: str | None, rubric: Rubric) -> list[str]:
    """What keeps ``doc`` from being the spec sheet of an env with ``rubric`` (empty when nothing does):
    sections missing, extra or out of :data:`SPEC_SECTIONS` order, an empty section, or a ``Components``
    section without :func:`component_table` of the rubric."""
    sections = spec_sections(doc)
    problems = []
    if tuple(sections) != SPEC_SECTIONS:
        problems.append(f"the sections are {list(sections)}; a spec sheet has {list(SPEC_SECTIONS)}, in that order")
    problems += [f"section {name!r} is empty" for name, body in sections.items() if not body]
    table = component_table(rubric)
    if table not in sections.get("Components", ""):
        problems.append(f"the Components section does not hold the table written from the rubric:\n{table}")
    return problems
