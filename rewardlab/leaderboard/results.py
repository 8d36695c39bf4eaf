"""Benchmark results: what a run measured, stamped so that others can compare and reproduce it.

A run's ``results.json``::

    {"run": "...", "created": "ISO time", "commit": "...", "versions": {...},
     "entries": [{"agent": "oracle", "model": null, "env": "RewardLab/BPMN-v2", "split": "test",
                  "reward_version": "rv-...", "episodes": 5, "seeds": [0, ...], "task_ids": [...],
                  "reward": {"mean", "ci95"}, "score": {...}, "success_rate": 1.0,
                  "components": {"validity": {"mean", "ci95"}, ...},
                  "per_episode": [{"task_id", "seed", "reward", "score", "is_success", "usable",
                                   "infra_error", "reward_version", "components": {...}, "seconds"}, ...]}]}

``per_episode`` keeps every episode's reward components, so that the episodes can be rescored under
another weighting later (``rewardlab demo`` rescores them: :mod:`rewardlab.demo.design`). ``usable`` and
``infra_error`` come from the episode's final ``info`` (``True`` and ``None`` when it was not kept, the
convention of :class:`~rewardlab.wrappers.ReweightRubric`); ``seconds`` is the episode's wall time, ``None``
when not measured.

``reward_version`` is the stamp of the reward that scored the episodes (:mod:`rewardlab.core.provenance`; the
final ``info``'s): an entry's is its episodes' (``None`` in files written before stamps existed). Two entries
of one env are *comparable* when they ran the same seeds on the same tasks; they belong in one table only when
they also share a ``reward_version`` (:func:`mixed_reward_versions`): the board draws one table per
(env, ``reward_version``).
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from rewardlab.errors import ConfigError
from rewardlab.evaluation import EpisodeResult, mean_ci95, summarize

VERSIONED_PACKAGES = ("rewardlab", "gymnasium", "numpy", "torch", "transformers", "lxml", "playwright")


def package_versions(names: Iterable[str] = VERSIONED_PACKAGES) -> dict[str, str | None]:
    """Installed versions of the packages that affect results (None when not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit(path: Path | None = None) -> str | None:
    """The commit of the RewardLab checkout, or None outside a git work tree."""
    cwd = path or Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def episode_record(
    result: EpisodeResult, final_info: Mapping[str, Any] | None = None, seconds: float | None = None
) -> dict[str, Any]:
    """One episode of ``per_episode``: its outcome, components, the usability and infrastructure fault of its
    final ``info`` (``info.get("usable", True)``, ``info.get("infra_error")``), the stamp of its reward
    (``result.reward_version``, else the final info's) and its wall time."""
    info = final_info or {}
    return {
        "task_id": result.task_id,
        "seed": result.seed,
        "reward": result.reward,
        "score": result.score,
        "is_success": result.is_success,
        "usable": bool(info.get("usable", True)),
        "infra_error": info.get("infra_error") or None,
        "reward_version": result.reward_version or info.get("reward_version"),
        "components": dict(result.components),
        "seconds": seconds,
    }


def entry_reward_version(env_id: str, agent: str, results: Sequence[EpisodeResult]) -> str | None:
    """The stamp the episodes of one entry share (None when none has one).

    Raises:
        ConfigError: when they were scored under different stamps (the env's rewards changed mid-run).
    """
    stamps = sorted({r.reward_version for r in results if r.reward_version})
    if len(stamps) > 1:
        raise ConfigError(
            f"{agent} on {env_id}: the episodes were scored under different reward versions {stamps}; "
            "an entry averages episodes of one reward: run them again under one configuration"
        )
    return stamps[0] if stamps else None


def make_entry(
    env_id: str,
    agent: str,
    model: str | None,
    split: str,
    results: Sequence[EpisodeResult],
    per_episode: Sequence[dict[str, Any]] | None = None,
) -> dict:
    """One leaderboard row: per-component mean and 95% CI, success rate, seeds and tasks, the stamp of the
    reward (:func:`entry_reward_version`) and every episode (``per_episode``: these records, by default
    :func:`episode_record` of each result)."""
    summary = summarize(list(results))
    score_mean, score_ci = mean_ci95(r.score for r in results)
    return {
        "agent": agent,
        "model": model,
        "env": env_id,
        "split": split,
        "reward_version": entry_reward_version(env_id, agent, results),
        "episodes": summary["episodes"],
        "seeds": [r.seed for r in results],
        "task_ids": [r.task_id for r in results],
        "reward": summary["reward"],
        "score": {"mean": score_mean, "ci95": score_ci},
        "success_rate": summary["success_rate"],
        "components": summary["components"],
        "per_episode": list(per_episode) if per_episode is not None else [episode_record(r) for r in results],
    }


def make_run(name: str, entries: list[dict]) -> dict[str, Any]:
    """A run document around its entries, stamped with time, commit and versions."""
    return {
        "run": name,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "versions": package_versions(),
        "entries": entries,
    }


def write_run(run: dict[str, Any], directory: Path) -> Path:
    """Write ``results.json`` into ``directory`` (created if needed); return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "results.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(run, indent=2, allow_nan=True))
    tmp.replace(path)
    return path


def load_run(path: Path) -> dict[str, Any]:
    """Read a run from ``results.json`` or from a directory holding one."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    return json.loads(path.read_text())


def comparability_key(entry: dict) -> tuple:
    """Entries of one env are comparable iff these match: split, seeds and task ids."""
    return (entry["split"], tuple(entry["seeds"]), tuple(entry["task_ids"]))


def mixed_reward_versions(entries: Iterable[Mapping[str, Any]]) -> dict[str, list[str | None]]:
    """``{env: its reward versions}`` for every env whose entries were scored under more than one
    ``reward_version`` (``None``: an entry without one), in first-seen order: the envs whose table would mix
    rewards that are not the same.

    Example:
        >>> mixed_reward_versions([{"env": "A", "reward_version": "rv-1"}, {"env": "A", "reward_version": "rv-2"},
        ...                        {"env": "B", "reward_version": "rv-1"}])
        {'A': ['rv-1', 'rv-2']}
    """
    versions: dict[str, list[str | None]] = {}
    for entry in entries:
        seen = versions.setdefault(entry["env"], [])
        if entry.get("reward_version") not in seen:
            seen.append(entry.get("reward_version"))
    return {env: stamps for env, stamps in versions.items() if len(stamps) > 1}


def mixed_warnings(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per env whose entries have several ``reward_version`` stamps (:func:`mixed_reward_versions`),
    saying that they are listed apart."""
    return [
        f"{env}: results under {len(stamps)} reward versions ({', '.join(str(s) for s in stamps)}) "
        "are not comparable and are listed in separate tables"
        for env, stamps in mixed_reward_versions(entries).items()
    ]


def merge_runs(runs: Sequence[dict[str, Any]]) -> list[dict]:
    """All entries of several runs, each tagged with its run and a ``comparable`` flag.

    Per env, the reference protocol is the one of the first run that has the env; entries run
    with other seeds or tasks are marked ``comparable = False``.
    """
    merged: list[dict[str, Any]] = []
    reference: dict[str, tuple] = {}
    for run in runs:
        for entry in run["entries"]:
            key = comparability_key(entry)
            reference.setdefault(entry["env"], key)
            merged.append({**entry, "run": run["run"], "comparable": key == reference[entry["env"]]})
    return merged
