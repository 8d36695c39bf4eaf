"""RecordEpisodes: one JSON line per finished episode, written atomically."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from rewardlab.errors import ConfigError


def _jsonable(value: Any) -> Any:
    """``json.dumps`` fallback for numpy values (vector rewards, batched infos)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def append_line(path: Path, line: str, *, durable: bool = False) -> None:
    """Append ``line`` (no newline) to ``path`` so that no reader ever sees part of it.

    The file is copied to a temp file beside it, the line is appended there and the temp file
    replaces ``path`` with one ``os.replace``, which is atomic: a crash at any point leaves
    either the old file or the new one. An exclusive ``flock`` on ``<path>.lock`` serialises
    writers (the sub-envs of a vector env may share a path); the lock holder also removes temp
    files that a killed writer left behind. Each append costs a copy of the
    file, done in the kernel (``copy_file_range``): start a new file per run for long runs.
    ``durable=True`` also ``fsync``s, against power loss rather than crashes.
    """
    lock_path = path.with_name(path.name + ".lock")
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by a writer killed mid-write
            stale.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                if path.exists():
                    with open(path, "rb") as src:
                        shutil.copyfileobj(src, out)
                out.write(line.encode("utf-8") + b"\n")
                if durable:
                    out.flush()
                    os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def read_episodes(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The episodes recorded in ``path``, one dict per line."""
    with open(path, encoding="utf-8") as file:
        for line in file:
            if line.strip():
                yield json.loads(line)


class RecordEpisodes(gym.Wrapper[str, str, str, str]):
    """Append one JSON line per finished episode to ``path``.

    Each line holds: ``task_id``, ``seed`` (of the reset; ``None`` when not given),
    ``options`` (of the reset), ``actions``, ``observations`` (the reset observation first, so
    one more than actions), ``rewards`` (per step, as this wrapper receives them), ``return``
    (their sum), ``components``, ``weights``, ``metrics``, ``score``, ``is_success``,
    ``milestones`` (per step, the names newly reached), ``terminated`` and ``truncated``.
    Vector rewards (under :class:`~rewardlab.wrappers.VectorReward`) give lists, and a per-component ``return``.
    Non-text actions are recorded as their ``str()``; numpy values as lists and numbers.

    Writes are atomic (see :func:`append_line`): a crash or a kill mid-write never leaves a
    broken line. An episode that is reset before it ends is not recorded.

    Args:
        env: Any text env; the outcome fields come from the final step's info.
        path: The JSONL file (created with its parent directory when missing).
        durable: ``fsync`` every write (protects against power loss; slower).

    Attributes:
        path: The file. episodes_written: how many episodes this wrapper wrote.

    Example:
        >>> import tempfile, pathlib
        >>> from tests.conftest import EchoEnv
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "episodes.jsonl"
        >>> env = RecordEpisodes(EchoEnv(), path)
        >>> _ = env.reset(seed=3, options={"task_id": "t1"})
        >>> _ = env.step("draft:be"), env.step("beta")
        >>> record = next(read_episodes(path))
        >>> record["task_id"], record["seed"], record["actions"], record["rewards"], record["milestones"]
        ('t1', 3, ['draft:be', 'beta'], [0.0, 1.0], [['drafted'], ['answered']])

    Version History:
        v0: initial version.
    """

    def __init__(self, env: gym.Env[str, str], path: str | os.PathLike[str], *, durable: bool = False):
        super().__init__(env)
        try:
            self.path = Path(path)
        except TypeError as exc:
            raise ConfigError(f"path must be a str or os.PathLike, got {path!r}") from exc
        if self.path.is_dir():
            raise ConfigError(f"path {str(self.path)!r} is a directory; give a file such as episodes.jsonl")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.durable = bool(durable)
        self.episodes_written = 0
        self._episode: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self._episode = {
            "task_id": info.get("task_id"),
            "seed": seed,
            "options": dict(options or {}),
            "actions": [],
            "observations": [observation],
            "rewards": [],
            "milestones": [],
        }
        return observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        episode = self._episode
        if episode is not None:
            episode["actions"].append(action if isinstance(action, str) else str(action))
            episode["observations"].append(observation)
            episode["rewards"].append(reward)
            episode["milestones"].append(list(info.get("milestones", ())))
            if terminated or truncated:
                self._write(episode, info, terminated, truncated)
                self._episode = None
        return observation, reward, terminated, truncated, info

    def _write(self, episode: dict[str, Any], info: dict[str, Any], terminated: bool, truncated: bool) -> None:
        record = {
            **episode,
            "return": np.sum(episode["rewards"], axis=0),
            "components": info.get("reward_components"),
            "weights": info.get("reward_weights"),
            "metrics": info.get("metrics"),
            "score": info.get("score"),
            "is_success": info.get("is_success"),
            "terminated": terminated,
            "truncated": truncated,
        }
        line = json.dumps(record, default=_jsonable)  # ASCII escapes: even lone surrogates stay valid JSON
        append_line(self.path, line, durable=self.durable)
        self.episodes_written += 1
