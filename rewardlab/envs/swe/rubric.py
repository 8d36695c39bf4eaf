"""SWE-v2 reward components and the per-test difficulty statistics behind ``tests``.

The outcome (:class:`SWEOutcome`) is the hidden evaluation of the submitted working copy: the
test patch is applied on top of the agent's changes and the FAIL_TO_PASS and PASS_TO_PASS tests
run in the sandbox, their results read from the signed result of the trusted collector. With
``patch`` the agent's diff against the base commit (empty when nothing changed), ``F`` the
FAIL_TO_PASS tests, ``P`` the PASS_TO_PASS tests, ``ok = 1[no tampering]`` (see
:mod:`rewardlab.envs.swe.tampering`) and ``f = |{t ∈ F passing}| / |F|`` the fraction of the
bug's tests the change fixes::

    resolved     = ok · 1[patch ≠ ∅ and every t in F ∪ P passes]              (SWE-bench's definition)
    tests        = ok · Σ_{t∈F} w_t · 1[t passes]                              (VeRPO difficulty weights)
    regression   = ok · f · |{t ∈ P passing}| / |P| · 1[patch ≠ ∅]              (|P| = 0 counts as 1)
    applies      = ok · f · (valid edits / edit commands, 1 if none) · 1[patch ≠ ∅]
                   · 1[test patch applies cleanly] · 1[patch changes code]
    localization = ok · f · F1(edited files, gold files),  F1 = 2·|E∩G| / (|E| + |G|)

Every FAIL_TO_PASS test fails at the base commit, so ``f`` is the content signal: the three
reference-light components (keeping other tests green, well-formed edits, touching the right
file) are each scaled by it. Doing nothing keeps every PASS_TO_PASS test green, and a comment,
or any change whose hidden results equal the base commit's, names the right file for free;
none of that earns anything until some FAIL_TO_PASS test passes. "Changes code" is false when
every changed file is Python whose syntax tree (docstrings dropped) equals the base's.
An empty patch, and a tampering one, score 0 on every component.

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
    """What the rubric scores: the hidden test results, the agent's patch and what the static check found.

    ``tampering`` lists why the submission interferes with the test machinery (empty when it
    does not); ``changes_code`` is False for a comment-, docstring- or layout-only patch.
    """

    fail_to_pass: dict[str, bool]
    pass_to_pass: dict[str, bool]
    weights: dict[str, float]
    patch: str
    edited_files: tuple[str, ...]
    gold_files: tuple[str, ...]
    edit_commands: int
    invalid_edits: int
    test_patch_applies: bool
    tampering: tuple[str, ...] = ()
    changes_code: bool = True

    @property
    def clean(self) -> float:
        """``ok``: 1 when no tampering was found."""
        return 0.0 if self.tampering else 1.0

    @property
    def fixed_fraction(self) -> float:
        """``f``: the fraction of FAIL_TO_PASS tests passing."""
        return sum(self.fail_to_pass.values()) / len(self.fail_to_pass) if self.fail_to_pass else 0.0


def resolved(out: SWEOutcome) -> float:
    passing = all(out.fail_to_pass.values()) and all(out.pass_to_pass.values())
    return out.clean * float(bool(out.patch) and passing)


def tests(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    weighted = sum(out.weights.get(t, 0.0) for t, ok in out.fail_to_pass.items() if ok)
    return out.clean * weighted, {"fail_to_pass_fraction": out.fixed_fraction, "tampering": 1.0 - out.clean}


def regression(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    fraction = sum(out.pass_to_pass.values()) / len(out.pass_to_pass) if out.pass_to_pass else 1.0
    value = out.clean * out.fixed_fraction * fraction * float(bool(out.patch))
    return value, {"pass_to_pass_fraction": fraction}


def applies(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    validity = 1.0 - out.invalid_edits / out.edit_commands if out.edit_commands else 1.0
    gate = float(bool(out.patch)) * float(out.test_patch_applies) * float(out.changes_code)
    value = out.clean * out.fixed_fraction * validity * gate
    return value, {
        "edit_validity": validity,
        "test_patch_applies": float(out.test_patch_applies),
        "changes_code": float(out.changes_code),
    }


def localization(out: SWEOutcome) -> tuple[float, dict[str, float]]:
    edited, gold = set(out.edited_files), set(out.gold_files)
    hits = len(edited & gold)
    precision = hits / len(edited) if edited else 0.0
    recall = hits / len(gold) if gold else 0.0
    f1 = 2 * hits / (len(edited) + len(gold)) if edited or gold else 0.0
    return out.clean * out.fixed_fraction * f1, {"precision": precision, "recall": recall, "f1": f1}


def make_rubric() -> Rubric:
    """The SWE-v2 rubric: five components, equal weights, mean aggregate."""
    return Rubric(
        [
            Criterion(
                "resolved",
                resolved,
                "every FAIL_TO_PASS and PASS_TO_PASS test passes (SWE-bench)",
                formula="ok · [patch ≠ ∅ and every test of F and P passes]",
                range="{0, 1}",
                role="outcome",
            ),
            Criterion(
                "tests",
                tests,
                "difficulty-weighted fraction of FAIL_TO_PASS tests passing (VeRPO)",
                formula="ok · Σ_{t∈F} w_t · [t passes]",
                role="partial",
            ),
            Criterion(
                "regression",
                regression,
                "fraction of PASS_TO_PASS tests still passing, scaled by f",
                formula="ok · f · #(P passing) / #P · [patch ≠ ∅]",
                role="partial",
            ),
            Criterion(
                "applies",
                applies,
                "valid edits of code, and the test patch applies on top, scaled by f",
                formula="ok · f · valid-edit share · [patch ≠ ∅, applies, changes code]",
                role="validity",
            ),
            Criterion(
                "localization",
                localization,
                "F1 of the edited files against the gold files, scaled by f",
                formula="ok · f · F1(edited files, gold files)",
                role="progress",
            ),
        ]
    )
