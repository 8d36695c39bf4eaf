"""What an external grader is, and which graders judge which env.

A grader judges an answer with tools that share no code with the env's rubric (a linter, the
benchmark's own checker), so that agreement with it is evidence that our success means correct.
It sees the answer as the env saw it: the actions sent and the final ``info``, plus the unwrapped
env to look the task up by id (its reference or possible answers), never our verdict.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from rewardlab.errors import ConfigError

if TYPE_CHECKING:
    from rewardlab.crosscheck.answers import Answer


@dataclass(frozen=True)
class ExternalVerdict:
    """An external grader's verdict on one answer.

    Attributes:
        success: Whether the grader passes the answer (``None``: it cannot say, e.g. it raised;
            such answers are left out of κ).
        score: A graded score, higher is better (``None``: none; left out of ρ).
        detail: What the grader found, in a line (rules that fired, the checker's error).
    """

    success: bool | None
    score: float | None
    detail: str = ""


class Grader(Protocol):
    """An external grader of one env family."""

    name: str
    """A short name for reports (``bpmnlint``, ``bfcl-eval``)."""

    description: str
    """What it checks and how its success and score are defined (formulas)."""

    def grade(self, env: Any, task_id: str, actions: Sequence[str], info: Mapping[str, Any]) -> ExternalVerdict:
        """Judge the answer ``actions`` to ``task_id``; ``info`` is the episode's final info."""
        ...

    def explain(self, answer: Answer, verdict: ExternalVerdict) -> str:
        """Why our verdict on ``answer`` and the grader's differ, from the evidence of both."""
        ...

    def close(self) -> None:
        """Release what the grader holds (a subprocess)."""
        ...


GRADERS: dict[str, tuple[str, ...]] = {
    "BPMN": ("rewardlab.crosscheck.bpmn:BPMNLintGrader",),
    "BFCL": ("rewardlab.crosscheck.bfcl:BFCLASTGrader",),
    "MiniWoB": ("rewardlab.crosscheck.miniwob:MiniWoBPageGrader",),
    "SWE": ("rewardlab.crosscheck.swe:SWEBenchReportGrader",),
    "Slides": ("rewardlab.crosscheck.slides:SlidesLayoutGrader",),
    "SlidesAgent": ("rewardlab.crosscheck.slides:SlidesLayoutGrader",),
}
"""Env family (the id between ``RewardLab/`` and ``-vN``) → the graders that judge it, as
``module:factory`` strings imported when used."""


def family(env_id: str) -> str:
    """``RewardLab/BPMN-v2`` → ``BPMN``."""
    name = env_id.split("/", 1)[-1]
    return name.rsplit("-v", 1)[0] if "-v" in name else name


def graders_for(env_id: str) -> list[Grader]:
    """New instances of the graders registered for ``env_id``'s family.

    Raises:
        ConfigError: when no external grader is registered for the family.
        MissingDependencyError: when a grader's tools are not installed (raised by its factory).
    """
    paths = GRADERS.get(family(env_id))
    if not paths:
        known = ", ".join(f"RewardLab/{name}-v*" for name in GRADERS)
        raise ConfigError(f"no external grader is registered for {env_id!r}; crosscheck knows {known}")
    graders = []
    for path in paths:
        module, _, factory = path.partition(":")
        graders.append(getattr(importlib.import_module(module), factory)())
    return graders
