"""SWE-bench predictions from recorded episodes, for scoring with other harnesses.

A prediction is ``{"instance_id", "model_name_or_path", "model_patch"}`` (the format the
SWE-bench harness reads). :func:`export_predictions` takes episodes recorded by
:class:`~rewardlab.wrappers.RecordEpisodes` (``rewardlab eval --record``), whose ``info`` holds the
final ``patch`` of SWE envs. Episodes that ended on an infrastructure error are left out (their
patch was never evaluated); when an instance was played several times, its last episode wins.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rewardlab.core.records import read_episodes
from rewardlab.errors import ConfigError


def predictions_from(records: Iterable[dict], *, model: str) -> list[dict[str, str]]:
    """One prediction per instance from episode records (see the module docstring)."""
    latest: dict[str, str] = {}
    for number, record in enumerate(records, 1):
        info = record.get("info") or {}
        if info.get("infra_error"):
            continue
        patch = info.get("patch")
        if not isinstance(patch, str):
            raise ConfigError(
                f"episode {number} ({record.get('task_id')!r}) has no recorded patch: record SWE episodes with "
                "RecordEpisodes (rewardlab eval --record PATH), which keeps info['patch']"
            )
        latest[str(record["task_id"])] = patch
    return [
        {"instance_id": instance, "model_name_or_path": model, "model_patch": patch}
        for instance, patch in latest.items()
    ]


def export_predictions(
    episode_files: Iterable[str | os.PathLike[str]], output: str | os.PathLike[str], *, model: str
) -> int:
    """Write the predictions of every episode in ``episode_files`` to ``output`` (JSONL); returns how many."""
    records: list[dict[str, Any]] = []
    for path in episode_files:
        if not Path(path).is_file():
            raise ConfigError(f"no episodes file {str(path)!r}")
        records.extend(read_episodes(path))
    predictions = predictions_from(records, model=model)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("".join(json.dumps(p) + "\n" for p in predictions), encoding="utf-8")
    return len(predictions)
