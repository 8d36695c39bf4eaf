"""Web-v0 reward components.

The outcome is a :class:`WebOutcome`; each component is in [0, 1]:

- ``success``    = 1 if the task's hidden check passes (server state and/or the answer), else 0.
- ``progress``   = milestones reached / milestones of the task.
- ``validity``   = valid actions / actions (an action is invalid when it does not parse, names an
  element that is not on the page, has the wrong role, or navigates off the env's site).
- ``efficiency`` = success · min(1, oracle_steps / steps): full credit for solving the task in no
  more steps than the oracle's plan, none for failing (so quitting early is not paid).
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardlab.core.rubric import Criterion, Rubric


@dataclass(frozen=True)
class WebOutcome:
    """What the rubric scores at the end of a Web-v0 episode."""

    success: bool
    milestones_reached: int
    milestones_total: int
    valid_actions: int
    actions: int
    steps: int
    oracle_steps: int


def success(outcome: WebOutcome) -> float:
    return float(outcome.success)


def progress(outcome: WebOutcome) -> float:
    return outcome.milestones_reached / outcome.milestones_total if outcome.milestones_total else float(outcome.success)


def validity(outcome: WebOutcome) -> float:
    return outcome.valid_actions / outcome.actions if outcome.actions else 1.0


def efficiency(outcome: WebOutcome) -> tuple[float, dict[str, float]]:
    ratio = min(1.0, outcome.oracle_steps / outcome.steps) if outcome.steps else 0.0
    return float(outcome.success) * ratio, {"step_ratio": ratio}


def make_rubric() -> Rubric:
    """The four components with equal weights and the mean aggregate."""
    return Rubric(
        [
            Criterion("success", success, "the task's hidden check passes"),
            Criterion("progress", progress, "fraction of the task's milestones reached"),
            Criterion("validity", validity, "fraction of actions that were valid"),
            Criterion("efficiency", efficiency, "success times min(1, oracle steps / steps)"),
        ]
    )
