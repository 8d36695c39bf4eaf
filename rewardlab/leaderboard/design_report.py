"""The reward-design section that ``rewardlab demo`` prints and writes: Markdown and JSON.

The section explains the schemes (:mod:`rewardlab.leaderboard.schemes`), gives an overview across envs of
Kendall's tau-b, flipped pairs and ranking changes (:mod:`rewardlab.leaderboard.ranking`), then each env's
table (:func:`env_markdown`) and, when run, the audits (:mod:`rewardlab.leaderboard.audit_budget`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from rewardlab.leaderboard.audit_budget import AuditRun
from rewardlab.leaderboard.ranking import ranking_text
from rewardlab.leaderboard.rescoring import EnvDesign, Episode
from rewardlab.leaderboard.schemes import REFERENCE


def env_markdown(design: EnvDesign, max_flips: int = 3) -> str:
    """The env's heading, its scheme choice, and a table: τ, flips, mean per agent, ranking."""
    counts = ", ".join(f"{agent} {n}" for agent, n in _counts(design.episodes).items())
    lines = [f"### {design.env_id}", ""]
    if design.choice is not None:
        lines += [
            f"- targeted on `{design.choice.target}`: {design.choice.why_target}.",
            f"- gated on `{design.choice.gate}` (at 1): {design.choice.why_gate}.",
        ]
    lines += [
        f"- {len(design.episodes)} episodes ({counts}); dropped for an infrastructure fault: {design.dropped}.",
        "",
    ]
    agents = list(design.rows[0].agent_means)
    lines += [
        "| scheme | preset | Kendall τ vs equal | flipped pairs | "
        + " | ".join(agents)
        + " | agent ranking | ranking changed |",
        "|---|---|---:|---:|" + "---:|" * len(agents) + "---|---|",
    ]
    for index, row in enumerate(design.rows):
        means = " | ".join(f"{row.agent_means[agent]:.3f}" for agent in agents)
        changed = "—" if index == 0 else ("**yes**" if row.ranking_changed else "no")
        lines.append(
            f"| {row.label} | `{row.preset}` | {_tau_text(row.tau)} | {len(row.flips)} | {means} | "
            f"{ranking_text(row.ranking)} | {changed} |"
        )
    for row in design.rows[1:]:
        if row.flips:
            shown = "; ".join(f"{a} over {b}" for a, b in row.flips[:max_flips])
            more = f" (and {len(row.flips) - max_flips} more)" if len(row.flips) > max_flips else ""
            lines += ["", f"Flipped under {row.label} (above under equal, below under {row.label}): {shown}{more}."]
    return "\n".join(lines)


def _counts(episodes: Iterable[Episode]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for episode in episodes:
        counts[episode.agent] = counts.get(episode.agent, 0) + 1
    return counts


def _tau_text(tau: float) -> str:
    return "n/a (all tied)" if math.isnan(tau) else f"{tau:.3f}"


def report_markdown(designs: Sequence[EnvDesign], audits: AuditRun | None = None) -> str:
    """The section: what the schemes are, an overview across envs, each env's table, then the audit's."""
    others = [row.label for row in designs[0].rows[1:]] if designs else []
    changed = {
        label: [d.env_id for d in designs for r in d.rows if r.label == label and r.ranking_changed] for label in others
    }
    flips = {label: sum(len(r.flips) for d in designs for r in d.rows if r.label == label) for label in others}
    lines = [
        "## Reward design: the same episodes under equal, targeted and gated weighting",
        "",
        "The episodes of the leaderboard, rescored from their reward components with"
        " `rewardlab.wrappers.ReweightRubric` presets: `equal` (every component 1/K), `targeted` (half of the"
        " weight on the env's primary outcome component) and `gated` (equal weights, and the env's invalid"
        " penalty unless its validity component is 1). Kendall τ is tau-b of the episodes' rewards against"
        " equal weighting; a flipped pair is two episodes whose order swaps.",
        "",
    ]
    for label in others:
        envs = ", ".join(changed[label]) or "none"
        lines.append(
            f"- {label}: the agent ranking changes on {len(changed[label])} of {len(designs)} envs ({envs});"
            f" {flips[label]} episode pairs flip."
        )
    lines += ["", "| env | " + " | ".join(f"τ {o} | flips {o} | ranking changed ({o})" for o in others) + " |"]
    lines.append("|---|" + "---:|---:|---|" * len(others))
    for design in designs:
        cells = []
        for row in design.rows[1:]:
            cells += [_tau_text(row.tau), str(len(row.flips)), "**yes**" if row.ranking_changed else "no"]
        lines.append(f"| {design.env_id} | " + " | ".join(cells) + " |")
    for design in designs:
        lines += ["", env_markdown(design)]
    if audits is not None:
        lines += ["", *_audit_markdown(audits)]
    return "\n".join(lines) + "\n"


def _audit_markdown(audits: AuditRun) -> list[str]:
    lines = [
        "## Audit: each degenerate strategy against the oracle",
        "",
        f"`rewardlab.audit` on {audits.tasks} test tasks per strategy, cheapest env first, within a budget of"
        f" {audits.budget_s:.1f} s ({audits.seconds:.1f} s spent). `rewardlab audit ENV` runs the full audit.",
    ]
    flagged = [f"{env_id} {name}" for env_id, (report, _) in audits.reports.items() for name in report.flagged_names]
    lines.append(f"Flagged: {', '.join(flagged)}." if flagged else "No strategy flagged.")
    for report, seconds in audits.reports.values():
        lines += ["", report.format_table(), "", f"Audited in {seconds:.2f} s."]
    if audits.skipped:
        lines += ["", "Not audited here:", ""]
        lines += [f"- {env_id}: {reason}" for env_id, reason in audits.skipped.items()]
    return lines


def report_json(designs: Sequence[EnvDesign], audits: AuditRun | None = None) -> dict[str, Any]:
    """The section as data: every env's schemes and, when run, the audits (each report with its seconds)."""
    document: dict[str, Any] = {"reference": REFERENCE, "envs": [design.to_json() for design in designs]}
    if audits is not None:
        document["audit"] = {
            "tasks": audits.tasks,
            "budget_s": audits.budget_s,
            "seconds": audits.seconds,
            "reports": [{**report.to_json(), "seconds": seconds} for report, seconds in audits.reports.values()],
            "skipped": audits.skipped,
        }
    return document
