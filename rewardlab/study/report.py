"""The report of a study: per configuration, the held-out metrics over seeds and the paired differences
against the baseline, as JSON, Markdown, HTML and PNG.

Read from every finished run's ``done.json`` (unfinished runs are listed as missing). The runs must have been
scored under one reward: one ``reward_version`` of the reference env for all of them, and one of the training
env per configuration (what ``done.json`` records, :mod:`rewardlab.study.runner`). Otherwise :func:`summarize`
raises a ConfigError naming the stamps and the runs, unless ``allow_mixed``: then the runs under the study's
stamps (the most common reference stamp, and per configuration the most common training stamp among its runs
under it) are summarised as usual, and every other group of runs is listed apart as a configuration
``<config> [train <stamp>, eval <stamp>]``, with no paired difference. Per configuration
and metric (``reward``, ``success``, each ``component/<c>`` of the reference rubric, and with several
samples per task ``variability/reward_std`` and ``variability/distinct_fraction``): the mean over seeds
and its 95% t interval (:func:`rewardlab.study.stats.t_interval`). Per other configuration: the paired
differences ``d_s = config_s − baseline_s`` over the seeds both finished, their mean and percentile
bootstrap 95% interval (:func:`rewardlab.study.stats.paired_bootstrap`: 10 000 resamples, seed 0).

Files in the study's output folder::

    summary.json   everything below, per-seed values included
    summary.md     the tables: configurations (mean ± 95% CI), paired differences, variability, runs
    summary.html   the configurations' table and bar charts (rewardlab.leaderboard.render.to_html),
                   with the paired differences of the reward in its note
    plots/<env>.png  grouped bars of the reward and every component per configuration (render.to_png)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rewardlab.errors import ConfigError
from rewardlab.leaderboard.render import to_html, to_png
from rewardlab.study.layout import plan, read_done, recorded_reward_versions, write_json
from rewardlab.study.spec import StudySpec
from rewardlab.study.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, paired_bootstrap, t_interval


def _metric_names(dones: Sequence[dict[str, Any]]) -> list[str]:
    """Every metric of the runs, in first-seen order (reward, success, components, variability)."""
    return list(dict.fromkeys(name for done in dones for name in done["eval"]["metrics"]))


def _value(done: dict[str, Any], metric: str) -> float:
    value = done["eval"]["metrics"].get(metric)
    return math.nan if value is None else float(value)


ByConfig = dict[str, dict[int, dict[str, Any]]]
"""``{configuration: {seed: done.json}}``."""


def split_by_reward_version(
    finished: ByConfig, *, allow_mixed: bool = False
) -> tuple[ByConfig, ByConfig, dict[str, Any]]:
    """``(runs under the study's stamps, runs listed apart by label, the stamps)`` (the module docstring).

    Raises:
        ConfigError: when some runs were scored under other reward versions and ``allow_mixed`` is False.
    """
    stamps = {(c, s): recorded_reward_versions(d) for c, by_seed in finished.items() for s, d in by_seed.items()}
    evaluations = Counter(v["eval"] for v in stamps.values())
    reference = evaluations.most_common(1)[0][0] if evaluations else None
    main: ByConfig = {config: {} for config in finished}
    apart: ByConfig = {}
    training: dict[str, str | None] = {}
    for config, by_seed in finished.items():
        trains = Counter(stamps[config, s]["train"] for s in by_seed if stamps[config, s]["eval"] == reference)
        training[config] = trains.most_common(1)[0][0] if trains else None
        for seed, done in by_seed.items():
            train, evaluation = stamps[config, seed]["train"], stamps[config, seed]["eval"]
            if (train, evaluation) == (training[config], reference):
                main[config][seed] = done
            else:
                apart.setdefault(f"{config} [train {train}, eval {evaluation}]", {})[seed] = done
    if apart and not allow_mixed:
        usual = "; ".join(
            f"{config}: seeds {sorted(by_seed)} (train {training[config]}, eval {reference})"
            for config, by_seed in main.items()
            if by_seed
        )
        other = "; ".join(f"{label}: seeds {sorted(by_seed)}" for label, by_seed in apart.items())
        raise ConfigError(
            f"the finished runs were scored under different reward versions, and their numbers do not compare: "
            f"{usual}; but {other}. Use a new output folder (--output) for runs under the current reward, or "
            "pass --allow-mixed to report these runs apart"
        )
    versions = {
        "eval": reference,
        "train": training,
        "apart": {label: recorded_reward_versions(next(iter(by_seed.values()))) for label, by_seed in apart.items()},
    }
    return main, apart, versions


def summarize(spec: StudySpec, *, allow_mixed: bool = False) -> dict[str, Any]:
    """The report as a dict (what ``summary.json`` holds); ``allow_mixed``: see the module docstring."""
    finished: ByConfig = {c.name: {} for c in spec.configs}
    missing = []
    for run in plan(spec):
        done = read_done(run)
        if done is not None and done.get("fingerprint") == spec.run_fingerprint(run.config, run.seed):
            finished[run.config][run.seed] = done
        else:
            missing.append(run.label)
    finished, apart, reward_versions = split_by_reward_version(finished, allow_mixed=allow_mixed)
    finished |= apart
    metrics = _metric_names([d for by_seed in finished.values() for d in by_seed.values()])
    configs = {}
    for name, by_seed in finished.items():
        seeds = sorted(by_seed)
        configs[name] = {
            "seeds": seeds,
            "episodes": sum(by_seed[s]["eval"]["episodes"] - by_seed[s]["eval"]["dropped"] for s in seeds),
            "dropped": sum(by_seed[s]["eval"]["dropped"] for s in seeds),
            "metrics": {
                m: {
                    **t_interval([_value(by_seed[s], m) for s in seeds]),
                    "values": [_value(by_seed[s], m) for s in seeds],
                }
                for m in metrics
            },
        }
    base = finished[spec.baseline]
    paired = {}
    for name, by_seed in finished.items():
        if name == spec.baseline or name in apart:
            continue
        seeds = sorted(set(by_seed) & set(base))
        paired[name] = {
            "seeds": seeds,
            "metrics": {
                m: paired_bootstrap([_value(by_seed[s], m) - _value(base[s], m) for s in seeds]) for m in metrics
            },
        }
    return {
        "study": spec.name,
        "env": {"id": spec.env.id, "kwargs": spec.env.kwargs},
        "trainer": {
            "kind": spec.trainer.kind,
            "model": spec.trainer.model,
            "steps": spec.trainer.steps,
            "minutes": spec.trainer.minutes,
            **spec.trainer.fields,
        },
        "eval": {
            "split": spec.eval.split,
            "num_tasks": spec.eval.num_tasks,
            "temperature": spec.eval.temperature,
            "samples": spec.eval.samples,
        },
        "seeds": list(spec.seeds),
        "baseline": spec.baseline,
        "reward_versions": reward_versions,
        "metrics": metrics,
        "configs": configs,
        "paired": paired,
        "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED, "interval": "percentile 2.5-97.5"},
        "runs": {c: {str(s): _run_row(d) for s, d in by_seed.items()} for c, by_seed in finished.items()},
        "missing": missing,
    }


def _run_row(done: dict[str, Any]) -> dict[str, Any]:
    last = done.get("last_update") or {}
    return {
        "updates": done["updates"],
        "train_s": done["train_s"],
        "last_train_reward": last.get("rewards/mean"),
        "episodes": done["eval"]["episodes"],
        "dropped": done["eval"]["dropped"],
        **done["eval"]["metrics"],
    }


def _label(metric: str) -> str:
    return metric.split("/", 1)[1] if "/" in metric else metric


def _fmt(value: float | None, sign: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def to_markdown(summary: dict[str, Any]) -> str:
    """``summary.md``: the configurations, the paired differences, the variability and every run."""
    metrics = [m for m in summary["metrics"] if not m.startswith("variability/")]
    variability = [m for m in summary["metrics"] if m.startswith("variability/")]
    baseline = summary["baseline"]
    ev, tr = summary["eval"], summary["trainer"]
    decoding = "greedy" if not ev["temperature"] else f"temperature {ev['temperature']}, {ev['samples']} samples"
    budget = " and ".join(
        part
        for part in (f"{tr['steps']} updates" if tr["steps"] else "", f"{tr['minutes']} min" if tr["minutes"] else "")
        if part
    )
    lines = [
        f"# Study {summary['study']}",
        "",
        f"{summary['env']['id']} {summary['env']['kwargs'] or ''}; trainer {tr['kind']} on {tr['model']}, "
        f"{budget} per run; seeds {summary['seeds']}; held-out evaluation on {ev['split']} "
        f"({ev['num_tasks'] or 'all'} tasks, {decoding}). Every configuration is evaluated with the reference "
        "rubric (the env with its [env] kwargs only), whatever it trained on.",
        "",
        "## Held-out results",
        "",
        "Mean over seeds ± the half-width of its 95% t interval (n − 1 degrees of freedom; n/a with one seed).",
        "",
    ]
    header = ["config", "seeds", *(_label(m) for m in metrics), "episodes"]
    rows = []
    for name, config in summary["configs"].items():
        cells = [f"{name} (baseline)" if name == baseline else name, str(len(config["seeds"]))]
        cells += [f"{_fmt(config['metrics'][m]['mean'])} ± {_fmt(config['metrics'][m]['ci95'])}" for m in metrics]
        rows.append([*cells, str(config["episodes"])])
    lines += _table(header, rows)
    boot = summary["bootstrap"]
    lines += [
        "",
        f"## Paired differences against {baseline}",
        "",
        f"config − {baseline}, paired by seed: mean [95% percentile bootstrap interval; {boot['resamples']} "
        f"resamples, seed {boot['seed']}].",
        "",
    ]
    rows = []
    for name, pair in summary["paired"].items():
        cells = [f"{name} − {baseline}", str(len(pair["seeds"]))]
        for m in metrics:
            d = pair["metrics"][m]
            cells.append(f"{_fmt(d['mean'], sign=True)} [{_fmt(d['low'], sign=True)}, {_fmt(d['high'], sign=True)}]")
        rows.append(cells)
    lines += _table(["difference", "seeds", *(_label(m) for m in metrics)], rows)
    if variability:
        lines += [
            "",
            "## Output variability across samples",
            "",
            "Per run: the mean over tasks of the std of the rewards of a task's samples, and of the fraction of "
            "distinct outputs among them (rewardlab.study.evaluation); here mean ± 95% CI over seeds.",
            "",
        ]
        rows = [
            [name, *(f"{_fmt(c['metrics'][m]['mean'])} ± {_fmt(c['metrics'][m]['ci95'])}" for m in variability)]
            for name, c in summary["configs"].items()
        ]
        lines += _table(["config", *(_label(m) for m in variability)], rows)
    lines += ["", "## Runs", ""]
    rows = [
        [
            config,
            seed,
            str(r["updates"]),
            f"{r['train_s']:.0f}",
            _fmt(r["last_train_reward"]),
            _fmt(r["reward"]),
            _fmt(r["success"]),
            str(r["episodes"]),
            str(r["dropped"]),
        ]
        for config, by_seed in summary["runs"].items()
        for seed, r in sorted(by_seed.items(), key=lambda item: int(item[0]))
    ]
    header = ["config", "seed", "updates", "train s", "last batch reward", "reward", "success", "episodes", "dropped"]
    lines += _table(header, rows)
    if summary["missing"]:
        lines += ["", f"Missing runs (not finished): {', '.join(summary['missing'])}."]
    versions = summary.get("reward_versions") or {}
    if versions.get("apart"):
        lines += [
            "",
            f"Listed apart (--allow-mixed): {', '.join(versions['apart'])}: runs scored under other reward versions "
            f"than the study's (eval {versions['eval']}); they have no paired difference and do not compare.",
        ]
    return "\n".join(lines) + "\n"


def board_entries(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One leaderboard entry per configuration (the shape :mod:`rewardlab.leaderboard.render` draws)."""
    entries = []
    for name, config in summary["configs"].items():
        m = config["metrics"]
        components = {
            _label(k): {"mean": v["mean"], "ci95": v["ci95"]} for k, v in m.items() if k.startswith("component/")
        }
        entries.append(
            {
                "agent": f"{name} (baseline)" if name == summary["baseline"] else name,
                "model": None,
                "env": summary["env"]["id"],
                "reward": {"mean": m["reward"]["mean"], "ci95": m["reward"]["ci95"]}
                if m
                else {"mean": math.nan, "ci95": math.nan},
                "success_rate": m["success"]["mean"] if m else math.nan,
                "components": components,
                "episodes": config["episodes"],
            }
        )
    return entries


def write_report(spec: StudySpec, *, allow_mixed: bool = False) -> dict[str, Any]:
    """Write summary.json, summary.md, summary.html and plots/ into the study's output; return the summary."""
    directory = Path(spec.output)
    directory.mkdir(parents=True, exist_ok=True)
    summary = summarize(spec, allow_mixed=allow_mixed)
    write_json(directory / "summary.json", summary)
    (directory / "summary.md").write_text(to_markdown(summary))
    note = "; ".join(
        f"{name} − {summary['baseline']}: reward {_fmt(p['metrics']['reward']['mean'], sign=True)} "
        f"[{_fmt(p['metrics']['reward']['low'], sign=True)}, {_fmt(p['metrics']['reward']['high'], sign=True)}]"
        for name, p in summary["paired"].items()
        if "reward" in p["metrics"]
    )
    entries = board_entries(summary)
    title = f"Study {spec.name}: {spec.env.id}, {spec.trainer.kind} on {spec.trainer.model}"
    note = f"Mean over seeds ± 95% t CI. Paired differences (bootstrap 95% CI): {note}." if note else ""
    (directory / "summary.html").write_text(to_html(entries, title=title, note=note), encoding="utf-8")
    to_png(entries, directory / "plots")
    return summary
