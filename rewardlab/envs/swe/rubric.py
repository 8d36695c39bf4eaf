"""SWE-v0 reward components and the per-test difficulty statistics behind ``tests``.

The outcome (:class:`SWEOutcome`) is the hidden evaluation of the submitted working copy: the
test patch is applied on top of the agent's changes and the FAIL_TO_PASS and PASS_TO_PASS tests
run in the sandbox. With ``patch`` the agent's diff against the base commit (empty when nothing
changed), ``F`` the FAIL_TO_PASS tests and ``P`` the PASS_TO_PASS tests::

    resolved     = 1[patch ≠ ∅ and every t in F ∪ P passes]                (SWE-bench's definition)
    tests        = Σ_{t∈F} w_t · 1[t passes]                                (VeRPO difficulty weights)
    regression   = |{t ∈ P passing}| / |P| if patch ≠ ∅ else 0              (1 when P is empty)
    applies      = (valid edits / edit commands, 1 if none) · 1[patch ≠ ∅] · 1[test patch applies cleanly]
    localization = F1(edited files, gold files) = 2·|E∩G| / (|E| + |G|)

An empty patch scores 0 on every component: doing nothing keeps every PASS_TO_PASS test
green, and crediting that would pay agents for not trying.

Difficulty weights (VeRPO): for test ``t`` of a task, with ``n_t`` episodes scored so far and
``p_t`` of them passing ``t``, the difficulty is the Laplace-smoothed failure rate
``d_t = 1 − (p_t + 1) / (n_t + 2)`` and the weight ``w_t = d_t / Σ_{s∈F} d_s``. Until every
test of the task has ``n_t ≥ min_episodes`` the weights are uniform, ``w_t = 1/|F|``. Weights
for an episode are computed before its own result is recorded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rewardlab.core.rubric import Criterion, Rubric
from rewardlab.errors import ConfigError


@dataclass
class TestStatistics:
    """Pass counts per ``(task_id, test_id)`` across scored episodes, and the VeRPO weights.

    Attributes:
        min_episodes: Episodes each test needs before weights stop being uniform.
        attempts: ``{(task_id, test_id): n_t}``.
        passes: ``{(task_id, test_id): p_t}``.
    """

    __test__ = False  # not a pytest class

    min_episodes: int = 8
    attempts: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    passes: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        if not isinstance(self.min_episodes, int) or self.min_episodes < 1:
            raise ConfigError(f"min_episodes must be a positive int, got {self.min_episodes!r}")

    def record(self, task_id: str, results: Mapping[str, bool]) -> None:
        """Count one scored episode's test results."""
        for test_id, passed in results.items():
            self.attempts[(task_id, test_id)] += 1
            self.passes[(task_id, test_id)] += int(bool(passed))

    def difficulty(self, task_id: str, test_id: str) -> float:
        """``d_t = 1 − (p_t + 1) / (n_t + 2)``; 0.5 for a test never seen."""
        n = self.attempts.get((task_id, test_id), 0)
        p = self.passes.get((task_id, test_id), 0)
        return 1.0 - (p + 1) / (n + 2)

    def weights(self, task_id: str, test_ids: Sequence[str]) -> dict[str, float]:
        """``{test_id: w_t}`` summing to 1 (uniform until every test has ``min_episodes`` episodes)."""
        if not test_ids:
            return {}
        uniform = {t: 1.0 / len(test_ids) for t in test_ids}
        if any(self.attempts.get((task_id, t), 0) < self.min_episodes for t in test_ids):
            return uniform
        difficulties = {t: self.difficulty(task_id, t) for t in test_ids}
        total = sum(difficulties.values())
        return {t: d / total for t, d in difficulties.items()} if total > 0 else uniform


@dataclass(frozen=True)
class SWEOutcome:
    """What the rubric scores: the hidden test results and the agent's patch."""

    fail_to_pass: dict[str, bool]
    pass_to_pass: dict[str, bool]
    weights: dict[str, float]
    patch: str
    edited_files: tuple[str, ...]
    gold_files: tuple[str, ...]
    edit_commands: int
    invalid_edits: int
    test_patch_applies: bool


def resolved(out: SWEOutcome) -> float:
    return float(bool(out.patch) and all(out.fail_to_pass.values()) and all(out.pass_to_pass.values()))


def tests(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    weighted = sum(out.weights.get(t, 0.0) for t, ok in out.fail_to_pass.items() if ok)
    plain = sum(out.fail_to_pass.values()) / len(out.fail_to_pass) if out.fail_to_pass else 0.0
    return weighted, {"fail_to_pass_fraction": plain}


def regression(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    fraction = sum(out.pass_to_pass.values()) / len(out.pass_to_pass) if out.pass_to_pass else 1.0
    return (fraction if out.patch else 0.0), {"pass_to_pass_fraction": fraction}


def applies(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    validity = 1.0 - out.invalid_edits / out.edit_commands if out.edit_commands else 1.0
    value = validity * float(bool(out.patch)) * float(out.test_patch_applies)
    return value, {"edit_validity": validity, "test_patch_applies": float(out.test_patch_applies)}


def localization(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    edited, gold = set(out.edited_files), set(out.gold_files)
    hits = len(edited & gold)
    precision = hits / len(edited) if edited else 0.0
    recall = hits / len(gold) if gold else 0.0
    f1 = 2 * hits / (len(edited) + len(gold)) if edited or gold else 0.0
    return f1, {"precision": precision, "recall": recall}


def make_rubric() -> Rubric:
    """The SWE-v0 rubric: five components, equal weights, mean aggregate."""
    return Rubric(
        [
            Criterion("resolved", resolved, "every FAIL_TO_PASS and PASS_TO_PASS test passes (SWE-bench)"),
            Criterion("tests", tests, "difficulty-weighted fraction of FAIL_TO_PASS tests passing (VeRPO)"),
            Criterion("regression", regression, "fraction of PASS_TO_PASS tests still passing"),
            Criterion("applies", applies, "valid edits, a non-empty diff, and the test patch applies on top"),
            Criterion("localization", localization, "F1 of the edited files against the gold patch's files"),
        ]
    )
