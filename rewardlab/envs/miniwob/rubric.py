"""MiniWoB-v0 reward components, read from the reward the page computes itself and the actions spent.

With ``raw`` the page's raw reward (in [-1, 1]; counted only when the page ended the episode),
``n`` the actions taken (invalid ones included) and ``m`` the task's minimum (:mod:`.minimum`):

- ``success``     = 1 if the page ended with its full reward (raw = 1) and n <= m, else 0.
- ``page_reward`` = max(0, raw), the page's own score (partial credit on the checkbox pages).
- ``efficiency``  = page_reward * min(1, m / n): every action beyond the minimum costs, and
  actions that earn nothing from the page earn nothing here either.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardlab.core.rubric import Criterion, Rubric

FULL_REWARD = 1.0 - 1e-9
"""The page's raw reward at or above which it counts as fully earned (float round-off aside)."""


@dataclass(frozen=True)
class MiniWoBOutcome:
    """What the rubric scores: whether and how the page ended, and the actions spent."""

    done: bool
    raw_reward: float
    actions: int
    minimum: int
    valid_actions: int


def page_reward(outcome: MiniWoBOutcome) -> float:
    return max(0.0, outcome.raw_reward) if outcome.done else 0.0


def is_success(outcome: MiniWoBOutcome) -> bool:
    """The page's full reward within the task's minimum number of actions."""
    return outcome.done and outcome.raw_reward >= FULL_REWARD and outcome.actions <= outcome.minimum


def efficiency(outcome: MiniWoBOutcome) -> tuple[float, dict[str, float]]:
    spent = max(1, outcome.actions)
    metrics = {
        "actions": float(outcome.actions),
        "minimum_actions": float(outcome.minimum),
        "invalid_actions": float(outcome.actions - outcome.valid_actions),
    }
    return page_reward(outcome) * min(1.0, outcome.minimum / spent), metrics


def make_rubric() -> Rubric:
    return Rubric(
        [
            Criterion("success", lambda o: float(is_success(o)), "the page's full reward in the minimum of actions"),
            Criterion("page_reward", page_reward, "the page's own reward"),
            Criterion("efficiency", efficiency, "page reward times minimum actions / actions"),
        ]
    )
