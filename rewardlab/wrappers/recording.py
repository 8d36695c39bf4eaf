"""RecordEpisodes: one JSON line per finished episode, written atomically in batches."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from rewardlab.core.provenance import plain
from rewardlab.errors import ConfigError


def _jsonable(value: Any) -> Any:
    """``json.dumps`` fallback for numpy values (vector rewards, batched infos)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def append_line(path: Path, line: str, *, atomic: bool = True, durable: bool = False) -> None:
    """Append ``line`` (no newline, may hold several ``\\n``-joined lines) to ``path`` as complete lines.

    ``atomic=True``: the file is copied (``sendfile``, in the kernel) to a temp file beside it,
    the line is appended there and the temp file replaces ``path`` with one ``os.replace``: a
    crash or kill at any point leaves either the old file or the new one, so no reader ever
    sees part of a line. The price is a copy of the file per append: start a new file per run
    (or use ``atomic=False``) for long runs at high episode rates.

    ``atomic=False``: one ``O_APPEND`` write, O(line). A writer killed inside that write can
    leave a partial last line; the next append cuts it off first, and :func:`~rewardlab.core.records.read_episodes`
    skips it meanwhile.

    An exclusive ``flock`` on ``<path>.lock`` serialises writers (the sub-envs of a vector env
    may share a path); the lock holder also removes temp files a killed writer left behind.
    ``durable=True`` also ``fsync``s, against power loss rather than crashes.
    """
    data = line.encode("utf-8") + b"\n"
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if atomic:
            _replace_with_appended(path, data, durable)
        else:
            _append_in_place(path, data, durable)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _replace_with_appended(path: Path, data: bytes, durable: bool) -> None:
    for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by a writer killed mid-write
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb", buffering=0) as out:
            if path.exists():
                with open(path, "rb") as src:
                    size, offset = os.fstat(src.fileno()).st_size, 0
                    while offset < size:
                        sent = os.sendfile(fd, src.fileno(), offset, size - offset)
                        if sent == 0:
                            break
                        offset += sent
            _write_all(fd, data)
            if durable:
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _append_in_place(path: Path, data: bytes, durable: bool) -> None:
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":  # a partial line from a killed writer
            os.ftruncate(fd, _last_line_end(fd, size))
        _write_all(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def _last_line_end(fd: int, size: int, chunk: int = 1 << 16) -> int:
    """The offset just after the file's last newline (0 when it has none)."""
    end = size
    while end > 0:
        start = max(0, end - chunk)
        index = os.pread(fd, end - start, start).rfind(b"\n")
        if index >= 0:
            return start + index + 1
        end = start
    return 0


class _RecordBuffer:
    """Records waiting to be appended, serialised and flushed as one :func:`append_line` call.

    ``due()`` once ``max(interval_s, min(100 × the last flush's duration, 60 s))`` has passed
    since the last flush, so copying the file (atomic mode) takes ~1% of the run's time until a
    copy takes 0.6 s (a file of a few GB); always when ``interval_s`` is 0. Kept apart from the wrapper so a
    ``weakref.finalize`` can flush it when the wrapper is garbage-collected or the interpreter exits.
    """

    def __init__(self, path: Path, *, atomic: bool, durable: bool, interval_s: float):
        self.path, self.atomic, self.durable, self.interval_s = path, atomic, durable, interval_s
        self.records: list[dict[str, Any]] = []
        self.last_flush = time.monotonic()
        self.wait_s = interval_s

    def due(self) -> bool:
        return time.monotonic() - self.last_flush >= self.wait_s

    def flush(self) -> None:
        start = time.monotonic()
        if self.records:
            # ASCII escapes: even lone surrogates (and newlines) stay valid one-line JSON
            lines = "\n".join(json.dumps(record, default=_jsonable) for record in self.records)
            append_line(self.path, lines, atomic=self.atomic, durable=self.durable)
            self.records.clear()
        self.last_flush = time.monotonic()
        self.wait_s = max(self.interval_s, min(100 * (self.last_flush - start), 60.0)) if self.interval_s else 0.0


class RecordEpisodes(gym.Wrapper[str, str, str, str]):
    """Append one JSON line per finished episode to ``path``.

    Each line holds: ``env_id`` and ``env_kwargs`` (the ``gym.make`` id and arguments of the env, ``None``
    when it was not made by ``gym.make``), ``label`` (this wrapper's, e.g. the agent or checkpoint; ``None``
    when not given), ``reward_version`` (the final step's: the stamp of the reward that scored the episode),
    ``task_id``, ``seed`` (of the reset; ``None`` when not given), ``options`` (of the reset), ``actions``,
    ``observations`` (the reset observation first, so one more than actions), ``rewards`` (per step, as this
    wrapper receives them), ``return`` (their sum), ``components``, ``weights``, ``metrics``, ``score``,
    ``is_success``, ``usable``, ``infra_error``, ``milestones`` (per step, the names newly reached),
    ``terminated`` and ``truncated``.
    Vector rewards (under :class:`~rewardlab.wrappers.VectorReward`) give lists, and a per-component ``return``.
    ``info`` holds the final step's values of ``info_keys`` (default: the env's
    ``recorded_info_keys``, e.g. SWE's ``patch``), for keys the final info has.
    Non-text actions are recorded as their ``str()``; numpy values as lists and numbers.

    Writes are atomic by default (see :func:`append_line`): a crash or a kill mid-write never
    leaves a broken line. Finished episodes are buffered and written together:
    - once ``flush_interval_s`` has passed since the last write, and up to 100x that write's
      duration (at most 60 s), so the copy of the file stays near 1% of the run as it grows;
    - on :meth:`flush` and :meth:`close`, when the wrapper is garbage-collected, at exit.
    JSON encoding happens at the write, so a step that ends an episode costs a few dict copies.
    A crash (not a clean exit) loses the episodes of the last interval, never part of a line.
    ``flush_interval_s=0`` writes every episode as it ends. ``atomic=False`` appends in place
    instead of replacing the file (a kill inside that write can leave a partial last line,
    which the next write cuts off and :func:`~rewardlab.core.records.read_episodes` skips). An episode that is reset
    before it ends is not recorded.

    Args:
        env: Any text env; the outcome fields come from the final step's info.
        path: The JSONL file (created with its parent directory when missing).
        atomic: Replace the file on every write (default) rather than append to it.
        durable: ``fsync`` every write (protects against power loss; slower).
        flush_interval_s: Least time between two writes; 0 writes each episode when it ends.
        info_keys: Final-info keys to record under ``info`` (``None``: the env's
            ``recorded_info_keys``, empty when it has none).
        label: What produced the episodes (an agent, a checkpoint), recorded with each one so that
            ``rewardlab rescore`` can rank them.

    Attributes:
        path: The file. episodes_written: how many finished episodes this wrapper recorded
        (written, or buffered until the next flush).

    Example:
        >>> import tempfile, pathlib
        >>> from rewardlab.core.records import read_episodes
        >>> from rewardlab.envs.echo import EchoEnv
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "episodes.jsonl"
        >>> env = RecordEpisodes(EchoEnv(), path)
        >>> _ = env.reset(seed=3, options={"task_id": "t1"})
        >>> _ = env.step("draft:be"), env.step("beta")
        >>> env.close()  # or env.flush(); also done at exit
        >>> record = next(read_episodes(path))
        >>> record["task_id"], record["seed"], record["actions"], record["rewards"], record["milestones"]
        ('t1', 3, ['draft:be', 'beta'], [0.0, 1.0], [['drafted'], ['answered']])

    Version History:
        v0: initial version.
    """

    def __init__(
        self,
        env: gym.Env[str, str],
        path: str | os.PathLike[str],
        *,
        atomic: bool = True,
        durable: bool = False,
        flush_interval_s: float = 1.0,
        info_keys: Sequence[str] | None = None,
        label: str | None = None,
    ):
        super().__init__(env)
        spec = env.spec
        self.label = label
        self._origin = {
            "env_id": spec.id if spec is not None else None,
            "env_kwargs": plain(spec.kwargs) if spec is not None else None,
            "label": label,
        }
        if info_keys is None:
            info_keys = getattr(env.unwrapped, "recorded_info_keys", ())
        self.info_keys = tuple(info_keys)
        try:
            self.path = Path(path)
        except TypeError as exc:
            raise ConfigError(f"path must be a str or os.PathLike, got {path!r}") from exc
        if self.path.is_dir():
            raise ConfigError(f"path {str(self.path)!r} is a directory; give a file such as episodes.jsonl")
        if not isinstance(flush_interval_s, int | float) or not flush_interval_s >= 0:
            raise ConfigError(f"flush_interval_s must be a number >= 0, got {flush_interval_s!r}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.atomic = bool(atomic)
        self.durable = bool(durable)
        self.episodes_written = 0
        self._episode: dict[str, Any] | None = None
        self._buffer = _RecordBuffer(self.path, atomic=self.atomic, durable=self.durable, interval_s=flush_interval_s)
        weakref.finalize(self, self._buffer.flush)

    def flush(self) -> None:
        """Write the buffered episodes now."""
        self._buffer.flush()

    def close(self) -> None:
        """Write the buffered episodes, then close the wrapped env."""
        self._buffer.flush()
        super().close()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self._episode = {
            **self._origin,
            "task_id": info.get("task_id"),
            "seed": seed,
            "options": dict(options or {}),
            "actions": [],
            "observations": [observation],
            "rewards": [],
            "milestones": [],
        }
        return observation, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
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
        def snapshot(key: str) -> Any:  # serialised at the next flush: copy what a later step could mutate
            value = info.get(key)
            return dict(value) if isinstance(value, dict) else value

        self._buffer.records.append(
            {
                **episode,
                "return": np.sum(episode["rewards"], axis=0),
                "components": snapshot("reward_components"),
                "weights": snapshot("reward_weights"),
                "metrics": snapshot("metrics"),
                "score": info.get("score"),
                "is_success": info.get("is_success"),
                "usable": info.get("usable"),
                "infra_error": info.get("infra_error"),
                "reward_version": info.get("reward_version"),
                "terminated": terminated,
                "truncated": truncated,
                "info": {key: info[key] for key in self.info_keys if key in info},
            }
        )
        self.episodes_written += 1
        if self._buffer.due():
            self._buffer.flush()
