"""The ``rescore`` mode of a study: many reward compositions compared on recorded episodes, at no generation cost.

A spec with ``[study] mode = "rescore"`` names recorded episodes (RecordEpisodes JSONL, each labelled with the
agent or checkpoint that played it) and compositions; the study re-scores every episode under every
composition (:func:`rewardlab.rescore.rescore`: the recorded components recombined, no env step, no model) and
reports, against the first composition, the reference:

- **ranking**: whether each composition keeps the reference's ranking of the labels (its groups of ties in
  order), with Kendall's τ_b of the episodes' rewards, the episode pairs that flip and the label pairs that flip;
- **defects**: with ``defective`` labels (episodes with a known defect: the audit's one-defect rewrites of the
  oracle's answer) and ``honest`` ones (the oracle), how many defective episodes a composition pays at least the
  honest episodes' mean reward under that composition, and the gap ``mean_honest − mean_defective``; a
  composition *rewards defects* when that count is above 0. Defective episodes that reach ``is_success`` (the
  env's criterion, the same under every composition) are counted apart.

Spec (the reference is ``docs/studies.md``)::

    [study]    name, mode = "rescore", output (default results/<name>)
    [rescore]  episodes (paths or globs), compositions (presets such as "equal", "targeted:<c>", "gated:<c>",
               "geometric", "min", "recorded", or tables {name, preset | weights, aggregate, target_weight,
               gate_threshold}), [rescore.grid] (levels, aggregates, components: every weighting
               of the components with weights in levels), honest, defective, group_by, allow_mixed

Files in the output folder: ``summary.json`` (every composition's numbers and the engine's whole report) and
``summary.md`` (the tables).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardlab.errors import ConfigError, did_you_mean
from rewardlab.study.spec import RescoreStudySpec


# ---------------------------------------------------------------------------------------------------- running
def compositions_of(spec: RescoreStudySpec, component_names: Sequence[str]) -> list[Any]:
    """The spec's compositions, then its grid's, labels unique (a grid point equal to a listed composition's
    label is kept once)."""
    from rewardlab.rescore import Composition, parse_compositions, weight_grid

    listed: list[Composition] = []
    for entry in spec.compositions:
        if isinstance(entry, str):
            listed += parse_compositions([entry])
        else:
            weights = entry.get("weights")
            listed.append(
                Composition(
                    entry["name"],
                    dict(weights) if weights is not None else entry["preset"],
                    entry.get("aggregate"),
                    entry.get("target_weight"),
                    entry.get("gate_threshold"),
                )
            )
    if spec.grid is not None:
        names = list(spec.grid.components or component_names)
        unknown = [n for n in names if n not in component_names]
        if unknown:
            raise ConfigError(
                f"[rescore.grid] components {unknown} are not the env's; it has {list(component_names)}."
                + did_you_mean(unknown[0], component_names)
            )
        listed += weight_grid(names, spec.grid.levels, spec.grid.aggregates)
    unique: dict[str, Composition] = {}
    for composition in listed:
        unique.setdefault(composition.label, composition)
    return list(unique.values())


def episode_files(spec: RescoreStudySpec) -> list[Path]:
    """The spec's episode files (paths and globs, relative to the working directory)."""
    from rewardlab.rescore import expand

    return expand(list(spec.episodes))


def run_rescore_study(spec: RescoreStudySpec, *, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Re-score the spec's episodes under every composition and write ``summary.json`` and ``summary.md`` into
    ``spec.output``; returns the summary."""
    import gymnasium as gym

    import rewardlab  # noqa: F401 - registers the env ids
    from rewardlab.rescore import load_records, rescore
    from rewardlab.rescore.engine import versions
    from rewardlab.study.layout import write_json

    files = episode_files(spec)
    records = load_records(files)
    if not records:
        raise ConfigError(f"the episode files {[str(f) for f in files]} hold no records")
    first = next(iter(versions(records).values()))[0]
    env = gym.make(first["env_id"], **(first.get("env_kwargs") or {}))
    try:
        names = list(env.get_wrapper_attr("reward_component_names"))
    finally:
        env.close()
    compositions = compositions_of(spec, names)
    log(f"study {spec.name}: {len(records)} episodes from {len(files)} file(s), {len(compositions)} compositions")
    report = rescore(records, compositions, group_by=spec.group_by, allow_mixed=spec.allow_mixed)
    summary = summarize(spec, report)
    output = Path(spec.output)
    output.mkdir(parents=True, exist_ok=True)
    write_json(output / "summary.json", {**summary, "rescore": report.to_json()})
    (output / "summary.md").write_text(render_summary(summary))
    return summary


# ---------------------------------------------------------------------------------------------------- the report
def summarize(spec: RescoreStudySpec, report: Any) -> dict[str, Any]:
    """Per reward version, per composition: the ranking verdict and the defect verdict (module docstring)."""
    groups = []
    for group in report.groups:
        labels = set(group.labels)
        missing = [label for label in (*spec.honest, *spec.defective) if label not in labels]
        if missing:
            raise ConfigError(
                f"labels {missing} of [rescore] honest/defective are not among the records' {group.labels} "
                f"(grouped by {spec.group_by!r})" + did_you_mean(missing[0], group.labels)
            )
        reference = group.rows[0] if group.rows else None
        rows = [_verdict(row, group.members, spec) for row in group.rows]
        defective_successes = (
            sum(
                group.rows[0].by_label[label]["episodes"] * group.rows[0].by_label[label]["success"][0]
                for label in spec.defective
            )
            if group.rows
            else 0
        )
        groups.append(
            {
                "reward_version": group.reward_version,
                "env_id": group.env_id,
                "episodes": group.episodes,
                "dropped_infra_error": group.dropped_infra_error,
                "labels": {label: group.rows[0].by_label[label]["episodes"] for label in group.labels}
                if group.rows
                else {},
                "components": [] if reference is None else list(reference.components),
                "reference": None if reference is None else reference.label,
                "reference_ranking": None if reference is None else reference.ranking,
                "defective_successes": int(round(defective_successes)),
                "compositions": rows,
                "preserve_ranking": [r["composition"] for r in rows if r["ranking_preserved"]],
                "reward_defects": [r["composition"] for r in rows if r["defects_rewarded"]],
            }
        )
    return {
        "study": spec.name,
        "mode": "rescore",
        "episode_files": list(spec.episodes),
        "honest": list(spec.honest),
        "defective": list(spec.defective),
        "group_by": spec.group_by,
        "groups": groups,
    }


def _verdict(row: Any, members: Mapping[str, Any], spec: RescoreStudySpec) -> dict[str, Any]:
    """One composition's line: its numbers, whether it keeps the reference ranking, what it pays defects."""
    verdict: dict[str, Any] = {
        "composition": row.label,
        "settings": row.settings,
        "reward_version": row.reward_version,
        "reward": row.reward[0],
        "kendall_tau_b": None if math.isnan(row.tau) else row.tau,
        "flipped_pairs": row.flipped_pairs,
        "ranking": row.ranking,
        "flipped_labels": [list(pair) for pair in row.flipped_labels],
        "ranking_preserved": not row.ranking_changed and not row.flipped_labels,
        "label_means": row.label_means(),
    }
    if spec.defective:
        honest = [i for label in spec.honest for i in members[label]]
        defective = [i for label in spec.defective for i in members[label]]
        honest_mean = float(row.rewards[honest].mean()) if honest else math.nan
        defective_rewards = row.rewards[defective]
        rewarded = int((defective_rewards >= honest_mean).sum()) if defective else 0
        verdict.update(
            honest_mean=honest_mean,
            defective_mean=float(defective_rewards.mean()) if defective else math.nan,
            defect_gap=honest_mean - float(defective_rewards.mean()) if defective else math.nan,
            defective_at_or_above_honest_mean=rewarded,
            defects_rewarded=rewarded > 0,
        )
    else:
        verdict["defects_rewarded"] = False
    return verdict


def render_summary(summary: Mapping[str, Any]) -> str:
    """``summary.md``: per reward version, the compositions' table and the two verdicts."""
    from rewardlab.leaderboard.ranking import ranking_text
    from rewardlab.rescore.report import table

    lines = [f"# Study {summary['study']}: reward compositions re-scored on recorded episodes"]
    defects = bool(summary["defective"])
    for group in summary["groups"]:
        counts = ", ".join(f"{label} {n}" for label, n in group["labels"].items())
        lines += [
            "",
            f"## {group['env_id']}, {group['reward_version']}",
            "",
            f"{group['episodes']} episodes ({counts}), {group['dropped_infra_error']} dropped (infra_error); "
            f"reference: {group['reference']}, ranking {ranking_text(group['reference_ranking'] or [])}.",
        ]
        headers = [
            "composition",
            "reward_version",
            "reward",
            f"τ_b vs {group['reference']}",
            "flipped pairs",
            "ranking",
        ]
        headers += ["keeps ranking"] + (["honest − defective", "defective ≥ honest mean"] if defects else [])
        rows = []
        for row in group["compositions"]:
            tau = row["kendall_tau_b"]
            cells = [
                row["composition"],
                row["reward_version"],
                f"{row['reward']:.3f}",
                "n/a" if tau is None else f"{tau:.3f}",
                row["flipped_pairs"],
                ranking_text(row["ranking"]),
                "yes" if row["ranking_preserved"] else "**no**",
            ]
            if defects:
                cells += [f"{row['defect_gap']:.3f}", row["defective_at_or_above_honest_mean"]]
            rows.append(cells)
        lines += ["", table(headers, rows), ""]
        if any(row["composition"].startswith("w=") for row in group["compositions"]):
            lines.append(f"A grid label w=… gives the weights of {', '.join(group['components'])}, in that order.")
        total = len(group["compositions"])
        kept = group["preserve_ranking"]
        lines.append(f"{len(kept)} of {total} compositions keep the reference ranking.")
        changed = [r for r in group["compositions"] if not r["ranking_preserved"]]
        if changed:
            lines.append(
                "Change it: "
                + "; ".join(f"{r['composition']} ({ranking_text(r['ranking'])})" for r in changed[:20])
                + (f"; and {len(changed) - 20} more" if len(changed) > 20 else "")
                + "."
            )
        if defects:
            rewarding = group["reward_defects"]
            lines.append(
                f"{len(rewarding)} of {total} compositions pay some defective episode at least the honest mean"
                + (": " + ", ".join(rewarding[:20]) + (" ..." if len(rewarding) > 20 else "") if rewarding else "")
                + ". Defective episodes that reach is_success (under every composition): "
                + f"{group['defective_successes']}."
            )
    return "\n".join(lines) + "\n"
