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
