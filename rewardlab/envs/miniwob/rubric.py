"""MiniWoB-v1 reward components, read from the reward the page computes itself and the actions spent.

With ``raw`` the page's raw reward (in [-1, 1]; counted only when the page ended the episode),
``n`` the actions taken (invalid ones included) and ``m`` the task's minimum (:mod:`.problem`):

- ``success``     = 1 if the page ended with its full reward (raw = 1) and n <= m, else 0.
- ``page_reward`` = 1 if raw = 1; else on the checkbox pages, whose raw reward counts right minus
  wrong boxes, max(0, ticked wanted / wanted - ticked unwanted / unwanted) (Youden's J: ticking
  none, all, or blind of the instruction earns 0); else max(0, raw) (the other pages pay 1 or -1).
- ``efficiency``  = page_reward * min(1, m / n): every action beyond the minimum costs, and
  actions that earn nothing from the page earn nothing here either.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardlab.core.rubric import Criterion, Rubric
from rewardlab.envs.miniwob.problem import BoxTally

FULL_REWARD = 1.0 - 1e-9
"""The page's raw reward at or above which it counts as fully earned (float round-off aside)."""


@dataclass(frozen=True)
class MiniWoBOutcome:
    """What the rubric scores: whether and how the page ended (and its boxes, on the checkbox pages)
    and the actions spent."""

    done: bool
    raw_reward: float
    boxes: BoxTally | None
    actions: int
    minimum: int
    valid_actions: int


def page_reward(outcome: MiniWoBOutcome) -> float:
    if not outcome.done:
        return 0.0
    if outcome.raw_reward >= FULL_REWARD:
        return 1.0
    if outcome.boxes is not None:
        return max(0.0, outcome.boxes.informedness)
    return max(0.0, outcome.raw_reward)


def is_success(outcome: MiniWoBOutcome) -> bool:
    """The page's full reward within the task's minimum number of actions."""
    return outcome.done and outcome.raw_reward >= FULL_REWARD and outcome.actions <= outcome.minimum


def efficiency(outcome: MiniWoBOutcome) -> tuple[float, dict[str, float]]:
    spent = max(1, outcome.actions)
    ratio = min(1.0, outcome.minimum / spent)
    metrics = {
        "page_ended": float(outcome.done),
        "minimum_over_actions": ratio,
        "invalid_fraction": (outcome.actions - outcome.valid_actions) / spent,
    }
    return page_reward(outcome) * ratio, metrics


def make_rubric() -> Rubric:
    return Rubric(
        [
            Criterion(
                "success",
                lambda o: float(is_success(o)),
                "the page's full reward in the minimum of actions",
                formula="[raw = 1 and n ≤ m]",
                range="{0, 1}",
                role="outcome",
            ),
            Criterion(
                "page_reward",
                page_reward,
                "the page's own reward, chance-corrected on the checkbox pages",
                formula="1 if raw = 1, else Youden's J on checkbox pages, else max(0, raw)",
                role="outcome",
            ),
            Criterion(
                "efficiency",
                efficiency,
                "page reward times minimum actions / actions",
                formula="page_reward · min(1, m / n)",
                role="efficiency",
            ),
        ]
    )
