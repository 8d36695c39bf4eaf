"""A :class:`~rewardlab.rescore.engine.RescoreReport` as Markdown tables, one section per ``reward_version``.

Per version: a line with the env, the episodes and what was dropped; then the compositions (stamp, mean reward
and success with 95% CIs, τ_b and flipped pairs against the first row, the ranking of the labels); every
component's mean per composition; each label's mean reward per composition with τ_b of the labels' means; and
the label pairs that flip.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rewardlab.leaderboard.ranking import ranking_text
from rewardlab.rescore.engine import RescoreReport, VersionGroup


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table with columns padded to their widest cell."""
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) + " |"

    return "\n".join([line(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, cells[1:])])


def interval(stat: tuple[float, float], digits: int = 3) -> str:
    """``0.512 ± 0.010`` (``n/a`` for NaN)."""
    mean, half = stat
    if math.isnan(mean):
        return "n/a"
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def number(value: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def render(report: RescoreReport) -> str:
    """The whole report (module docstring)."""
    sections = [render_group(group, report.group_by) for group in report.groups]
    if report.mixed:
        sections.insert(0, f"{len(report.groups)} reward versions (--allow-mixed): each is reported apart.")
    return "\n\n".join(sections)


def render_group(group: VersionGroup, group_by: str = "label") -> str:
    """One reward version's section."""
    lines = [f"## {group.reward_version}: {group.env_id}"]
    dropped = f"{group.dropped_infra_error} dropped (infra_error)"
    if group.dropped_unscored:
        dropped += f", {group.dropped_unscored} without components"
    lines.append(
        f"{group.records} records, {group.episodes} scored, {dropped}; replay {group.replay or 'undeclared'}"
        + (f" (tolerance {group.replay_tolerance:g})" if group.replay == "approximate" else "")
    )
    if group.replay_env_kwargs is not None:
        lines.append(
            f"replayed with env_kwargs {group.replay_env_kwargs}: reward_version {group.current_reward_version}, "
            f"{group.replay_dropped} replays dropped (did not end, or infra_error), {group.drifted} drifted"
            + (" (the same reward_version, beyond the tolerance)" if group.drifted else "")
        )
        lines += [f"  drift: {example}" for example in group.drift_examples]
    elif group.current_reward_version != group.reward_version:
        lines.append(
            f"note: the env made now has reward_version {group.current_reward_version}; the compositions "
            "recombine the recorded components with its rubric's settings"
        )
    if not group.rows:
        return "\n".join([*lines, "no episodes to score"])
    reference = group.rows[0].label
    lines += [
        "",
        table(
            ["composition", "reward_version", "reward", "success", f"τ_b vs {reference}", "flipped pairs", "ranking"],
            [
                [
                    row.label,
                    row.reward_version,
                    interval(row.reward),
                    interval(row.success, 2),
                    number(row.tau),
                    row.flipped_pairs,
                    ranking_text(row.ranking),
                ]
                for row in group.rows
            ],
        ),
    ]
    names = list(group.rows[0].components)
    if names:
        same = all(row.components == group.rows[0].components for row in group.rows)
        shown = group.rows[:1] if same else group.rows
        lines += [
            "",
            "components (mean ± 95% CI)"
            + (", the same under every composition (recombining does not change them):" if same else ":"),
            "",
            table(
                ["composition", *names],
                [["every one" if same else row.label, *(interval(row.components[n]) for n in names)] for row in shown],
            ),
        ]
    first = group.rows[0]
    label_rows = [
        [label, first.by_label[label]["episodes"], interval(first.by_label[label]["success"], 2)]
        + [interval(row.by_label[label]["reward"]) for row in group.rows]
        for label in group.labels
    ]
    label_rows.append(["τ_b of the means", "", ""] + [number(row.label_tau) for row in group.rows])
    lines += [
        "",
        f"reward by {group_by} (mean ± 95% CI):",
        "",
        table([group_by, "episodes", "success", *(row.label for row in group.rows)], label_rows),
    ]
    flips = [
        f"{row.label}: " + ", ".join(f"{a} < {b}" for a, b in row.flipped_labels)
        for row in group.rows
        if row.flipped_labels
    ]
    lines += ["", "flipped label pairs (above under the reference < above here): " + ("; ".join(flips) or "none")]
    return "\n".join(lines)
