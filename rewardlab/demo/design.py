"""The demo's reward-design and audit section: ``rewardlab rescore`` run on the leaderboard's episodes.

Each env's leaderboard entries become rescore records (:func:`entry_records`: one per ``per_episode`` record,
labelled with the entry's agent), rescored by one :func:`~rewardlab.rescore.engine.rescore` call per env
(:func:`rescore_entries`) under the default compositions: ``recorded``, then the env's ``equal``,
``targeted:<outcome>`` and ``gated:<validity>`` (:func:`~rewardlab.rescore.engine.default_compositions`).
Against the reference, the first row ``recorded`` (each episode's reward as the env paid it, the sum of its step
rewards), every other composition has:

- Kendall's τ_b of the episodes' rewards (``(P − Q) / √((P + Q + T_a)(P + Q + T_b))``,
  :mod:`rewardlab.leaderboard.ranking`);
- flipped pairs: episodes strictly ordered one way under ``recorded`` and strictly the other way here;
- whether the agent ranking (agents by mean reward, ties within 1e-9) changes.

The overview (:func:`overview`) sums these over envs per kind of composition (the label before ``:``); then
come each env's design choice and its :func:`rewardlab.rescore.report.render` tables, and the audits
(:mod:`rewardlab.leaderboard.audit_budget`). Episodes an infrastructure fault ended are dropped and counted by
rescore, never scored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rewardlab.core.card import DesignChoice
from rewardlab.leaderboard.audit_budget import AuditRun
from rewardlab.leaderboard.ranking import ranking_text
from rewardlab.rescore.compositions import RECORDED
from rewardlab.rescore.engine import RescoreReport, Row, VersionGroup, rescore
from rewardlab.rescore.report import number, render, table

HEADING = "## Reward design: the same episodes under equal, targeted and gated weighting"


def entry_records(entries: Iterable[Mapping[str, Any]], env_id: str) -> list[dict[str, Any]]:
    """The ``per_episode`` records of ``env_id``'s entries as the records rescore reads
    (:class:`~rewardlab.wrappers.RecordEpisodes`'): labelled with the entry's agent, the env made with the
    ``max_turns`` of the entry's model budget (if any), the episode's reward as its only step reward."""
    records = []
    for entry in entries:
        if entry["env"] != env_id:
            continue
        budget = entry.get("budget")
        env_kwargs = {"max_turns": budget["max_turns"]} if budget else {}
        for episode in entry["per_episode"]:
            records.append(
                {
                    "env_id": env_id,
                    "env_kwargs": env_kwargs,
                    "label": entry["agent"],
                    "task_id": episode["task_id"],
                    "seed": episode["seed"],
                    "reward_version": episode.get("reward_version"),
                    "components": episode["components"],
                    "rewards": [episode["reward"]],
                    "is_success": episode["is_success"],
                    "usable": episode.get("usable", True),
                    "infra_error": episode.get("infra_error"),
                }
            )
    return records


def rescore_entries(entries: Sequence[Mapping[str, Any]]) -> dict[str, RescoreReport]:
    """``{env_id: its report}``, envs in the entries' order: one :func:`~rewardlab.rescore.engine.rescore` of
    each env's :func:`entry_records`, grouped by agent. An env whose entries carry several ``reward_version``
    stamps (the env's code or data changed between them) is rescored with ``allow_mixed``, so that each stamp
    is listed apart rather than mixed or refused."""
    env_ids = dict.fromkeys(entry["env"] for entry in entries)
    reports = {}
    for env_id in env_ids:
        records = entry_records(entries, env_id)
        stamps = {record["reward_version"] for record in records}
        reports[env_id] = rescore(records, group_by="label", allow_mixed=len(stamps) > 1)
    return reports


@dataclass
class Shift:
    """What one kind of composition changes against the reference, across the envs scored under it.

    Attributes:
        composition: The kind (``targeted`` for ``targeted:state``). envs: How many envs (one per reward version).
        ranking_changed: The envs whose agent ranking changes. flipped_pairs: Episode pairs flipped, summed.
    """

    composition: str
    envs: int = 0
    ranking_changed: list[str] = field(default_factory=list)
    flipped_pairs: int = 0


def kind(row: Row) -> str:
    """The kind of a row's composition: its label up to ``:`` (``targeted:state`` → ``targeted``)."""
    return row.label.partition(":")[0]


def scored_groups(reports: Mapping[str, RescoreReport]) -> Iterator[tuple[str, VersionGroup]]:
    """Each env's reward-version groups that have rows, named by the env (and the stamp when it has several)."""
    for env_id, report in reports.items():
        for group in report.groups:
            if group.rows:
                yield (f"{env_id} ({group.reward_version})" if report.mixed else env_id), group


def overview(reports: Mapping[str, RescoreReport]) -> list[Shift]:
    """A :class:`Shift` per kind of composition other than the reference, in order of first appearance."""
    shifts: dict[str, Shift] = {}
    for name, group in scored_groups(reports):
        for row in group.rows[1:]:
            shift = shifts.setdefault(kind(row), Shift(kind(row)))
            shift.envs += 1
            shift.flipped_pairs += row.flipped_pairs
            if row.ranking_changed:
                shift.ranking_changed.append(name)
    return list(shifts.values())


def section_markdown(
    reports: Mapping[str, RescoreReport],
    choices: Mapping[str, DesignChoice] | None = None,
    audits: AuditRun | None = None,
) -> str:
    """The section: what it shows, the overview across envs, each env's choice and rescore tables, the audits."""
    shifts = overview(reports)
    lines = [
        HEADING,
        "",
        "The episodes of the leaderboard, rescored from their reward components with"
        " `rewardlab.wrappers.ReweightRubric` presets: `equal` (every component 1/K), `targeted` (half of the"
        " weight on the env's primary outcome component) and `gated` (equal weights, and the env's invalid"
        " penalty unless its validity component is 1). Each is compared with `recorded`, the reward the env paid:"
        " τ_b is Kendall's tau-b of the episodes' rewards, a flipped pair is two episodes whose order swaps.",
        "",
        "This is `rewardlab rescore` run on the leaderboard's episodes: run it on episodes you recorded with"
        " `rewardlab.wrappers.RecordEpisodes` (`rewardlab eval --record`) for the same tables.",
        "",
    ]
    for shift in shifts:
        envs = ", ".join(shift.ranking_changed) or "none"
        lines.append(
            f"- {shift.composition}: the agent ranking changes on {len(shift.ranking_changed)} of {shift.envs} envs"
            f" ({envs}); {shift.flipped_pairs} episode pairs flip."
        )
    lines += ["", _overview_table(reports, [shift.composition for shift in shifts])]
    for env_id, report in reports.items():
        lines += ["", f"### {env_id}"]
        choice = choices.get(env_id) if choices else None
        if choice is not None:
            lines += [
                "",
                f"- targeted on `{choice.target}`: {choice.why_target}.",
                f"- gated on `{choice.gate}` (at 1): {choice.why_gate}.",
            ]
        lines += ["", re.sub(r"^#", "###", render(report), flags=re.MULTILINE)]
    if audits is not None:
        lines += ["", *audit_markdown(audits)]
    return "\n".join(lines) + "\n"


def _overview_table(reports: Mapping[str, RescoreReport], kinds: Sequence[str]) -> str:
    """Per env: τ_b, flipped pairs and whether the agent ranking changes under each kind of composition."""
    rows = []
    for name, group in scored_groups(reports):
        by_kind = {kind(row): row for row in group.rows[1:]}
        cells: list[object] = [name, ranking_text(group.rows[0].ranking)]
        for composition in kinds:
            row = by_kind.get(composition)
            if row is None:
                cells += ["—", "—", "—"]
            else:
                cells += [number(row.tau), row.flipped_pairs, "**yes**" if row.ranking_changed else "no"]
        rows.append(cells)
    headers = ["env", "ranking (recorded)"]
    for composition in kinds:
        headers += [f"τ_b {composition}", f"flips {composition}", f"ranking changed ({composition})"]
    return table(headers, rows)


def audit_markdown(audits: AuditRun) -> list[str]:
    """The audit's lines: what ran within which budget, what was flagged, each env's table, what was skipped."""
    lines = [
        "## Audit: each degenerate strategy against the oracle",
        "",
        f"`rewardlab.audit` on {audits.tasks} test tasks per strategy, cheapest env first, within a budget of"
        f" {audits.budget_s:.1f} s ({audits.seconds:.1f} s spent). `rewardlab audit ENV` runs the full audit.",
    ]
    flagged = [f"{env_id} {name}" for env_id, (report, _) in audits.done.items() for name in report.flagged_names]
    lines.append(f"Flagged: {', '.join(flagged)}." if flagged else "No strategy flagged.")
    for report, seconds in audits.done.values():
        lines += ["", report.format_table(), "", f"Audited in {seconds:.2f} s."]
    if audits.skipped:
        lines += ["", "Not audited here:", ""]
        lines += [f"- {env_id}: {reason}" for env_id, reason in audits.skipped.items()]
    return lines


def section_json(
    reports: Mapping[str, RescoreReport],
    choices: Mapping[str, DesignChoice] | None = None,
    audits: AuditRun | None = None,
) -> dict[str, Any]:
    """The section as data: the overview, every env's choice and :meth:`RescoreReport.to_json
    <rewardlab.rescore.engine.RescoreReport.to_json>`, and, when run, the audits (each report with its seconds)."""
    chosen = choices or {}
    document: dict[str, Any] = {
        "reference": RECORDED,
        "overview": [asdict(shift) for shift in overview(reports)],
        "envs": [
            {"env_id": env_id, "choice": asdict(chosen[env_id]) if env_id in chosen else None, **report.to_json()}
            for env_id, report in reports.items()
        ],
    }
    if audits is not None:
        document["audit"] = {
            "tasks": audits.tasks,
            "budget_s": audits.budget_s,
            "seconds": audits.seconds,
            "reports": [{**report.to_json(), "seconds": seconds} for report, seconds in audits.done.values()],
            "skipped": audits.skipped,
        }
    return document
