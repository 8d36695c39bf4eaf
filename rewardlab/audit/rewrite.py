"""Rewrites of the oracle's answer: the *equivalent* and *defective* batteries of the audit.

The degenerate battery (:mod:`rewardlab.audit.strategy`) asks whether a cheap answer earns reward.
Two more questions decide whether a reward means "correct":

- *equivalent*: a semantics-preserving rewrite of the oracle's answer (re-serialised, reordered where
  order does not matter, reworded, other units or formats) must keep ``is_success`` and lose at most
  :data:`EQUIVALENT_TOLERANCE` reward;
- *defective*: the oracle's answer with one defect (a wrong value, a missing element, one extra
  write) must lose ``is_success`` and at least the env's ``defect_delta`` reward.

A rewrite is a function ``apply(context) -> list[str] | None``: given the task's oracle actions and
the env reset to that task (with the oracle's own episode seed), it returns the actions to replay,
or ``None`` when it does not apply to this task (a task with one tool call cannot be reordered).
Unlike a degenerate strategy, a rewrite may read the task's hidden data: it is a test
construction, not a policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

EQUIVALENT_TOLERANCE = 0.05
"""The most reward an equivalent rewrite may lose against the oracle on the same task."""

Battery = Literal["equivalent", "defective"]


@dataclass
class RewriteContext:
    """What a rewrite sees.

    Attributes:
        env: The unwrapped env, reset to ``task_id`` with the oracle's episode seed.
        task_id: The task.
        actions: The oracle's actions on this task, in order.
        observation: The reset observation.
        info: The reset ``info``.
        rng: A generator seeded per (rewrite, task).
    """

    env: Any
    task_id: str
    actions: Sequence[str]
    observation: str
    info: dict[str, Any]
    rng: np.random.Generator


Apply = Callable[[RewriteContext], "list[str] | None"]


@dataclass(frozen=True)
class Rewrite:
    """A named rewrite of the oracle's answer, of one battery."""

    name: str
    battery: Battery
    apply: Apply
    description: str = ""


def _decorator(battery: Battery) -> Callable[[str, str], Callable[[Apply], Rewrite]]:
    def decorator(name: str, description: str = "") -> Callable[[Apply], Rewrite]:
        def wrap(apply: Apply) -> Rewrite:
            return Rewrite(name, battery, apply, description or (apply.__doc__ or "").strip())

        return wrap

    return decorator


equivalent = _decorator("equivalent")
"""Decorator: turn ``apply(context)`` into an equivalent :class:`Rewrite`.

Example:
    >>> @equivalent("padded", "the answer with a trailing newline")
    ... def padded(context):
    ...     return [action + "\\n" for action in context.actions]
    >>> padded.battery, padded.name
    ('equivalent', 'padded')
"""

defective = _decorator("defective")
"""Decorator: turn ``apply(context)`` into a defective :class:`Rewrite` (see :func:`equivalent`)."""


LABELLED_CONTEXT = (
    "Thanks for being with us since {year}.",
    "I found it on page {page}.",
    "As of {year}, that is what the records show.",
    "This was request {page} of the session.",
)
"""Sentences of honest context holding a number that names a thing or a time, not an amount (a year, a page:
:mod:`rewardlab.core.labels`), for the envs' ``answer_with_a_label`` equivalents."""


def labelled_context(rng: np.random.Generator) -> str:
    """One of :data:`LABELLED_CONTEXT`, with a year from 2015 to 2024 and a page from 2 to 9, drawn from ``rng``.

    Example:
        >>> labelled_context(np.random.default_rng(1))
        'I found it on page 8.'
    """
    template = LABELLED_CONTEXT[int(rng.integers(len(LABELLED_CONTEXT)))]
    return template.format(year=int(rng.integers(2015, 2025)), page=int(rng.integers(2, 10)))


RULINGS_OUT = (
    "{kept} ({ruled_out} does not apply)",
    "{kept} ({ruled_out} was ruled out)",
    "{kept} ({ruled_out} has been excluded)",
    "{kept} ({ruled_out} doesn't count)",
)
"""Ways to state ``kept`` and rule ``ruled_out`` out by a verdict on it, the subject first (:func:`ruling_out`): the
envs' ``answer_ruled_out`` defects assert a competitor and rule the answer out."""

DENIED_PREDICATES = (
    "{kept} ({ruled_out} was never mentioned)",
    "{kept} ({ruled_out} appears nowhere)",
)
"""Ways to state ``kept`` and deny a predicate of ``ruled_out``, the subject first: a denial of a property, which
may be the one asked about (``O1046 has not shipped``), so it rules ``ruled_out`` out only beside ``kept``."""


def ruling_out(rng: np.random.Generator, kept: str, ruled_out: str, *, verdicts_only: bool = False) -> str:
    """One of :data:`RULINGS_OUT` and :data:`DENIED_PREDICATES` (only the first with ``verdicts_only``), drawn from
    ``rng``, stating ``kept`` and ruling ``ruled_out`` out: the envs' ``answer_ruling_out_a_competitor``
    equivalents keep the answer beside a competitor so ruled out.

    Example:
        >>> ruling_out(np.random.default_rng(1), "$79.98", "$32.98")
        '$79.98 ($32.98 has been excluded)'
        >>> ruling_out(np.random.default_rng(1), "$32.98", "$79.98", verdicts_only=True)
        '$32.98 ($79.98 was ruled out)'
    """
    templates = RULINGS_OUT if verdicts_only else RULINGS_OUT + DENIED_PREDICATES
    return templates[int(rng.integers(len(templates)))].format(kept=kept, ruled_out=ruled_out)
