"""Echo's reward components: ``exact`` and ``length``, each a pure function of the outcome.

Example:
    >>> echo_rubric().score(EchoOutcome(answer="alph", target="alpha")).components
    {'exact': 0.0, 'length': 0.8}
"""

from __future__ import annotations

from typing import TypedDict

from rewardlab.core.rubric import Criterion, Rubric


class EchoOutcome(TypedDict):
    """What the rubric scores: the agent's last answer (or draft) and the task's target."""

    answer: str
    target: str


def exact(outcome: EchoOutcome) -> float:
    """``[answer == target]``: 1 for the target itself, else 0."""
    return float(outcome["answer"] == outcome["target"])


def length(outcome: EchoOutcome) -> tuple[float, dict[str, float]]:
    """``1 − |len(answer) − len(target)| / len(target)`` (the Rubric clips it to [0, 1]).

    Sub-metric ``chars = min(1, len(answer) / 100)``.
    """
    answer, target = outcome["answer"], outcome["target"]
    return 1 - abs(len(answer) - len(target)) / len(target), {"chars": min(1.0, len(answer) / 100)}


def echo_rubric() -> Rubric:
    """Both components, equal weights, mean aggregate."""
    return Rubric(
        [
            Criterion(
                "exact", exact, "the answer is the target", formula="[answer = target]", range="{0, 1}", role="outcome"
            ),
            Criterion(
                "length",
                length,
                "the answer is as long as the target",
                formula="clip(1 − abs(len(answer) − len(target)) / len(target), 0, 1)",
                role="partial",
            ),
        ]
    )
