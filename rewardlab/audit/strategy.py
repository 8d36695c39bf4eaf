"""What a degenerate strategy is, what it may see, and how an env declares its own.

A strategy plays an episode the way a reward-hacking policy would: it never solves the task
and looks only at what a policy sees (observations, ``info``, the env's public attributes such
as its system prompt and tool schemas, and constants of the env family a policy could learn).
It must not read ``env.task.data``. The generic battery in :mod:`rewardlab.audit.generic` may
additionally replay recorded oracle actions of *other* tasks, or a cut-down oracle, through
:class:`EpisodeView`.

A strategy is a generator function ``play(view) -> Iterator[str]``: each ``yield`` is one
action; after it the runner steps the env and updates ``view.observation`` and ``view.info``.
When the generator is exhausted before the episode ends, the runner sends the profile's
``finish`` action until the episode ends or the turn budget truncates it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from rewardlab.audit.rewrite import Rewrite

Play = Callable[["EpisodeView"], Iterator[str]]


@dataclass
class EpisodeView:
    """What a strategy sees while it plays one episode.

    Attributes:
        env: The unwrapped env (public API only: ``system_prompt``, ``sample_action``, tools).
        task_id: The task being played (an id, not its hidden data).
        observation: The latest observation.
        info: The latest ``info``.
        first_observation: The reset observation (the task prompt).
        first_info: The reset ``info`` (``system_prompt``, ``tools``, ...).
        rng: A generator seeded per (strategy, task).
        oracle_actions: Recorded oracle actions by task id, for the generic replay strategies.
        other_task_id: Another task of the audited split, whose oracle actions may be replayed.
        constant_task_id: The task whose oracle actions are reused as one constant answer.
        steps: Actions sent so far.
        sent: The actions sent so far, in order.
    """

    env: Any
    task_id: str
    observation: str
    info: dict[str, Any]
    first_observation: str
    first_info: dict[str, Any]
    rng: np.random.Generator
    oracle_actions: Mapping[str, list[str]] = field(default_factory=dict)
    other_task_id: str | None = None
    constant_task_id: str | None = None
    steps: int = 0
    sent: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Strategy:
    """A named degenerate strategy: a generator of actions that never does the task."""

    name: str
    play: Play
    description: str = ""


AcceptedSuccess = Callable[[str, str, Mapping[str, Any]], "str | None"]
"""``accepted(task_id, strategy_name, final_info) -> reason | None``."""


@dataclass(frozen=True)
class AuditProfile:
    """An env's contribution to the audit.

    Attributes:
        strategies: The env's own degenerate strategies, one per hack class it defends against.
        finish: The action that ends an episode without doing anything more (default ``""``).
        accepted_success: Names successes that an external reference checker grants by design
            (BFCL's documented leniencies); these are listed in the report, not flagged.
        skip_generic: Names of generic strategies that make no sense for the env, with reasons.
        equivalents: Semantics-preserving rewrites of the oracle's answer (the *equivalent* battery,
            :mod:`rewardlab.audit.rewrite`): each must keep ``is_success`` and nearly all the reward.
        defects: One-defect rewrites of the oracle's answer (the *defective* battery): each must
            lose ``is_success`` and at least ``defect_delta`` reward.
        defect_delta: The least reward a defect must cost, on average over the tasks it applies to.
    """

    strategies: tuple[Strategy, ...] = ()
    finish: str = ""
    accepted_success: AcceptedSuccess | None = None
    skip_generic: Mapping[str, str] = field(default_factory=dict)
    equivalents: tuple[Rewrite, ...] = ()
    defects: tuple[Rewrite, ...] = ()
    defect_delta: float = 0.1


def strategy(name: str, description: str = "") -> Callable[[Play], Strategy]:
    """Decorator: turn a generator function into a :class:`Strategy`.

    Example:
        >>> @strategy("say_yes", "answers 'yes' and stops")
        ... def say_yes(view):
        ...     yield "yes"
        >>> say_yes.name, next(say_yes.play(None))
        ('say_yes', 'yes')
    """

    def wrap(play: Play) -> Strategy:
        return Strategy(name=name, play=play, description=description or (play.__doc__ or "").strip())

    return wrap


def profile_of(env: Any) -> AuditProfile:
    """``env``'s own :class:`AuditProfile` (``env.audit_profile()`` of the unwrapped env), or an empty one when
    it declares none."""
    profile = env.unwrapped.audit_profile()
    return profile if profile is not None else AuditProfile()
