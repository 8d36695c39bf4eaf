"""Web-v2 reward components.

The outcome is a :class:`WebOutcome`; each component is in [0, 1]. With ``clean`` = 1 when no
record of any site is damaged (changed to something that is neither its initial nor its
expected value: see :class:`~rewardlab.envs.web.sites.base.Goal`) and the answer does not hedge
(state two or more values: see :mod:`rewardlab.envs.web.answers`), else 0:

- ``success``    = 1 if the task's hidden check passes (every site's state equals the goal's,
  and the answer, where the task asks one, states the reference without hedging), else 0.
- ``progress``   = clean · milestones reached / milestones of the task: collateral damage, a
  wrong post, a placeholder order or a hedged answer voids the process credit of the episode.
- ``validity``   = progress · valid actions / actions (:mod:`rewardlab.core.criteria`, the counts
  kept by :class:`~rewardlab.core.TextEnv`): a reference-free component, so it is scaled by the
  task-specific one (a run of valid but useless actions earns nothing).
- ``efficiency`` = success · min(1, (oracle_steps + slack) / steps), slack = :data:`STEP_SLACK`: full
  credit for solving the task within two steps of the oracle's plan (a look at a page and back is
  not a worse solution), less beyond, none for failing (so quitting early is not paid).
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardlab.core.criteria import validity_criterion
from rewardlab.core.rubric import Criterion, Rubric

STEP_SLACK = 2
"""Steps beyond the oracle's plan that still earn full efficiency."""


@dataclass(frozen=True)
class WebOutcome:
    """What the rubric scores at the end of a Web-v2 episode."""

    success: bool
    milestones_reached: int
    milestones_total: int
    valid_actions: int
    actions: int
    steps: int
    oracle_steps: int
    damage: tuple[str, ...] = ()
    """``site/record`` keys left in a state the task neither started from nor asked for."""
    hedged: bool = False
    """The answer stated two or more values (or ran past its length bound)."""


def success(outcome: WebOutcome) -> float:
    return float(outcome.success)


def progress(outcome: WebOutcome) -> tuple[float, dict[str, float]]:
    total = outcome.milestones_total
    reached = outcome.milestones_reached / total if total else float(outcome.success)
    clean = float(not outcome.damage and not outcome.hedged)
    return clean * reached, {"milestone_fraction": reached, "clean": clean}


def efficiency(outcome: WebOutcome) -> tuple[float, dict[str, float]]:
    ratio = min(1.0, (outcome.oracle_steps + STEP_SLACK) / outcome.steps) if outcome.steps else 0.0
    return float(outcome.success) * ratio, {"step_ratio": ratio}


def make_rubric() -> Rubric:
    """The four components with equal weights and the mean aggregate."""
    return Rubric(
        [
            Criterion(
                "success",
                success,
                "every site ends in the goal state and the answer does not hedge",
                formula="[every site in its goal state, and the answer right, unhedged]",
                range="{0, 1}",
                role="outcome",
            ),
            Criterion(
                "progress",
                progress,
                "no damage times the fraction of the task's milestones reached",
                formula="clean · milestones reached / milestones",
                role="progress",
            ),
            validity_criterion(
                scaled_by=lambda outcome: progress(outcome)[0],
                scale_formula="progress",
                description="progress times the fraction of actions that were valid",
            ),
            Criterion(
                "efficiency",
                efficiency,
                "success times min(1, (oracle steps + 2) / steps)",
                formula="success · min(1, (oracle steps + 2) / steps)",
                role="efficiency",
            ),
        ]
    )
