"""Where a study's files go, and how its JSON files are read and written (the runner writes, the report reads).

The study's output folder (``[study] output``, default ``results/<name>``)::

    runs/<config>/seed<k>/       one run (:class:`Run`; :func:`plan` lists them)
        metrics.jsonl, metrics.csv   the trainer's log, one row per update: rewards/mean and rewards/<c>/mean
                                     for every component, losses, KL, timings (the trainer's own files)
        training_curve.png           the trainer's plot of the reward and every component
        eval.jsonl                   one record per held-out episode (rewardlab.study.evaluation)
        done.json                    written last, atomically: the run's settings, fingerprint, reward versions
                                     and metrics; a run with one is finished (what resuming reads)
    summary.json, summary.md, summary.html, plots/   the report (rewardlab.study.report)
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardlab.study.spec import StudySpec


@dataclass(frozen=True)
class Run:
    """One (configuration, seed) of a study and its folder."""

    config: str
    seed: int
    directory: Path

    @property
    def label(self) -> str:
        return f"{self.config}/seed{self.seed}"

    @property
    def done_file(self) -> Path:
        """``done.json``: written last, so a run that has one is finished."""
        return self.directory / "done.json"

    @property
    def eval_file(self) -> Path:
        """``eval.jsonl``: one record per held-out episode."""
        return self.directory / "eval.jsonl"


def run_of(spec: StudySpec, config: str, seed: int) -> Run:
    """The run of configuration ``config`` with ``seed``: ``<output>/runs/<config>/seed<seed>``."""
    return Run(config, seed, Path(spec.output) / "runs" / config / f"seed{seed}")


def plan(spec: StudySpec) -> list[Run]:
    """Every (configuration, seed) run, configurations in spec order, then seeds."""
    return [run_of(spec, c.name, seed) for c in spec.configs for seed in spec.seeds]


def read_done(run: Run) -> dict[str, Any] | None:
    """The run's ``done.json``, or None when it has none (or an unreadable one)."""
    try:
        return json.loads(run.done_file.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def recorded_reward_versions(done: dict[str, Any]) -> dict[str, str | None]:
    """``{"train": ..., "eval": ...}``: the ``reward_version`` of the env a run trained on and of the reference
    env it was evaluated on, as its ``done.json`` records them (None in a run written before stamps existed)."""
    versions = done.get("reward_version")
    versions = versions if isinstance(versions, dict) else {}
    return {"train": versions.get("train"), "eval": versions.get("eval")}


def json_ready(value: Any) -> Any:
    """NaN and infinities as None (JSON has neither), recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as JSON atomically (a temp file beside ``path``, then one rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(json_ready(value), indent=2, default=str))
    os.replace(tmp, path)
