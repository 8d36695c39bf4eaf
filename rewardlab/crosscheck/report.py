"""The crosscheck report: per env and per external grader, κ, ρ, agreement and every disagreement.

For the graded answers ``A`` of one env (those on which the grader gave a verdict), with ``s(a)`` our
``is_success``, ``S(a)`` the grader's success, ``R(a)`` our episode return and ``X(a)`` its score::

    agreement = |{a : s(a) = S(a)}| / |A|
    κ         = Cohen's κ between s and S over A          (rewardlab.crosscheck.stats.cohen_kappa)
    ρ         = Spearman's ρ between R and X over the answers with a score (stats.spearman_rho)

Every answer with ``s(a) ≠ S(a)`` is listed as a disagreement with the grader's explanation,
built from the evidence of both sides (our components and metrics, the rules or checks that fired).
Agreement is a measurement, not a gate: nothing here is flagged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rewardlab.crosscheck.answers import KINDS, Answer
from rewardlab.crosscheck.grader import ExternalVerdict
from rewardlab.crosscheck.stats import cohen_kappa, spearman_rho


@dataclass
class Graded:
    """One answer, our verdict and the grader's."""

    answer: Answer
    verdict: ExternalVerdict
    explanation: str | None = None
    """Why the verdicts differ (set on disagreements only)."""

    @property
    def disagrees(self) -> bool:
        return self.verdict.success is not None and self.verdict.success != self.answer.is_success

    def to_json(self) -> dict[str, Any]:
        answer = self.answer
        return {
            "task_id": answer.task_id,
            "kind": answer.kind,
            "name": answer.name,
            "our_success": answer.is_success,
            "our_reward": answer.reward,
            "external_success": self.verdict.success,
            "external_score": self.verdict.score,
            "external_detail": self.verdict.detail,
            "explanation": self.explanation,
            "error": answer.error,
        }


@dataclass
class GraderReport:
    """One grader's verdicts on one env's answers."""

    env_id: str
    grader: str
    description: str
    rows: list[Graded] = field(default_factory=list)

    @property
    def judged(self) -> list[Graded]:
        """The rows on which the grader gave a success verdict."""
        return [row for row in self.rows if row.verdict.success is not None]

    @property
    def kappa(self) -> float | None:
        judged = self.judged
        return cohen_kappa([r.answer.is_success for r in judged], [bool(r.verdict.success) for r in judged])

    @property
    def rho(self) -> float | None:
        scored = [row for row in self.rows if row.verdict.score is not None]
        return spearman_rho([r.answer.reward for r in scored], [float(r.verdict.score or 0.0) for r in scored])

    @property
    def agreement(self) -> float | None:
        judged = self.judged
        return sum(not r.disagrees for r in judged) / len(judged) if judged else None

    @property
    def disagreements(self) -> list[Graded]:
        return [row for row in self.rows if row.disagrees]

    def by_kind(self) -> dict[str, tuple[int, int, int, int]]:
        """``{kind: (answers, our successes, external successes, disagreements)}``."""
        counts: dict[str, list[int]] = {}
        for row in self.rows:
            entry = counts.setdefault(row.answer.kind, [0, 0, 0, 0])
            entry[0] += 1
            entry[1] += row.answer.is_success
            entry[2] += bool(row.verdict.success)
            entry[3] += row.disagrees
        return {kind: (c[0], c[1], c[2], c[3]) for kind, c in sorted(counts.items(), key=lambda kv: KINDS.index(kv[0]))}

    def to_json(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "grader": self.grader,
            "description": self.description,
            "n": len(self.rows),
            "judged": len(self.judged),
            "kappa": self.kappa,
            "rho": self.rho,
            "agreement": self.agreement,
            "by_kind": {
                kind: {"answers": a, "our_successes": o, "external_successes": x, "disagreements": d}
                for kind, (a, o, x, d) in self.by_kind().items()
            },
            "disagreements": [row.to_json() for row in self.disagreements],
            "answers": [row.to_json() for row in self.rows],
        }


@dataclass
class CrosscheckReport:
    """Every grader's report on one env."""

    env_id: str
    split: str
    task_ids: list[str]
    graders: list[GraderReport]

    def to_json(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "split": self.split,
            "task_ids": self.task_ids,
            "graders": [g.to_json() for g in self.graders],
        }

    def format_table(self) -> str:
        """Markdown: one summary row per grader, answers by kind, then every disagreement."""
        lines = [
            f"### {self.env_id} ({self.split}, {len(self.task_ids)} tasks)",
            "",
            "| grader | n | κ (success) | ρ (reward vs score) | agreement | disagreements |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for g in self.graders:
            agreement = "—" if g.agreement is None else f"{g.agreement:.3f}"
            lines.append(
                f"| {g.grader} | {len(g.judged)}/{len(g.rows)} | {_number(g.kappa)} | {_number(g.rho)} "
                f"| {agreement} | {len(g.disagreements)} |"
            )
        for g in self.graders:
            lines += ["", f"{g.grader}: {g.description}", ""]
            lines += [
                "| answers | n | our successes | external successes | disagreements |",
                "|---|---:|---:|---:|---:|",
            ]
            lines += [f"| {kind} | {a} | {o} | {x} | {d} |" for kind, (a, o, x, d) in g.by_kind().items()]
            if g.disagreements:
                lines += [
                    "",
                    "| task | answer | ours (success, reward) | external (success, score) | explanation |",
                    "|---|---|---|---|---|",
                ]
                for row in g.disagreements:
                    a, v = row.answer, row.verdict
                    score = "—" if v.score is None else f"{v.score:.3f}"
                    lines.append(
                        f"| {a.task_id} | {a.kind}: {a.name} | {a.is_success}, {a.reward:.3f} | {v.success}, {score} "
                        f"| {_cell(row.explanation or '')} |"
                    )
            undecided = Counter(r.verdict.detail for r in g.rows if r.verdict.success is None)
            for detail, count in undecided.items():
                lines.append(f"\nNo verdict on {count} answer(s): {detail}")
        return "\n".join(lines)


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:+.3f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
