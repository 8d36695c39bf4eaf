"""MiniWoB-v0 reward components, read from the reward the page computes itself.

- ``success``     = 1 if the page ended the episode with raw reward > 0, else 0.
- ``page_reward`` = max(0, raw reward) (MiniWoB's raw reward lies in [-1, 1]; 0 when the page did not end).
- ``validity``    = valid actions / actions.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardlab.core.rubric import Criterion, Rubric


@dataclass(frozen=True)
class MiniWoBOutcome:
    done: bool
    raw_reward: float
    valid_actions: int
    actions: int


def make_rubric() -> Rubric:
    return Rubric(
        [
            Criterion("success", lambda o: float(o.done and o.raw_reward > 0), "the page reports success"),
            Criterion("page_reward", lambda o: max(0.0, o.raw_reward) if o.done else 0.0, "the page's own reward"),
            Criterion("validity", lambda o: o.valid_actions / o.actions if o.actions else 1.0, "valid actions"),
        ]
    )
