"""TaskSet: an env's tasks as data, with a train/test split, stable ids and seeded draws.

Tasks live in JSONL files under each env package, one object per line::

    {"id": "bpmn-seq-001", "split": "train", "prompt": "...", ...}

Every key other than ``id``, ``split`` and ``prompt`` goes into :attr:`Task.data`: the
references needed for scoring and what the oracle needs. ``data`` is privileged and must
never be shown to the policy.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from rewardlab.errors import ConfigError, UnknownTaskError, did_you_mean

SPLITS: tuple[str, ...] = ("train", "test")


@dataclass(frozen=True)
class Task:
    """One task. ``data`` holds the hidden references and oracle inputs."""

    id: str
    split: str
    prompt: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ConfigError(f"task {self.id!r} has split {self.split!r}; allowed: {SPLITS}")
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    def to_json(self) -> dict[str, Any]:
        """The task as the JSON object it was loaded from."""
        return {"id": self.id, "split": self.split, "prompt": self.prompt, **self.data}


class TaskSet:
    """An ordered, id-addressable collection of tasks.

    Example:
        >>> tasks = TaskSet([Task("a", "train", "p"), Task("b", "test", "q")])
        >>> tasks.ids("test"), len(tasks)
        (['b'], 2)
        >>> tasks.sample(np.random.default_rng(0)).id
        'a'
    """

    def __init__(self, tasks: Iterable[Task]):
        self._tasks: dict[str, Task] = {}
        for task in tasks:
            if task.id in self._tasks:
                raise ConfigError(f"duplicate task id {task.id!r}")
            self._tasks[task.id] = task
        if not self._tasks:
            raise ConfigError("a TaskSet needs at least one task")

    @classmethod
    def from_jsonl(cls, *paths: str | Path) -> TaskSet:
        """Load tasks from one or more JSONL files (blank lines are skipped)."""
        tasks = []
        for path in paths:
            with open(path, encoding="utf-8") as handle:
                for line_number, line in enumerate(handle, 1):
                    if not line.strip():
                        continue
                    try:
                        row = json.loads(line)
                        tasks.append(cls.task_from_json(row))
                    except (ValueError, KeyError, TypeError) as exc:
                        raise ConfigError(f"{path}:{line_number}: not a task: {exc}") from exc
        return cls(tasks)

    @staticmethod
    def task_from_json(row: Mapping[str, Any]) -> Task:
        """Build a :class:`Task` from one JSON object."""
        data = {k: v for k, v in row.items() if k not in ("id", "split", "prompt")}
        return Task(id=str(row["id"]), split=str(row["split"]), prompt=str(row["prompt"]), data=data)

    def to_jsonl(self, path: str | Path) -> None:
        """Write every task, one JSON object per line, in order."""
        with open(path, "w", encoding="utf-8") as handle:
            for task in self:
                handle.write(json.dumps(task.to_json(), ensure_ascii=False, sort_keys=True) + "\n")

    def ids(self, split: str | None = None) -> list[str]:
        """Task ids in file order, optionally of one split."""
        if split is not None:
            self._check_split(split)
        return [t.id for t in self._tasks.values() if split is None or t.split == split]

    def get(self, task_id: str) -> Task:
        """The task with this id; raises :class:`UnknownTaskError` with a suggestion."""
        try:
            return self._tasks[task_id]
        except (KeyError, TypeError):
            raise UnknownTaskError(
                f"unknown task id {task_id!r} ({len(self)} tasks)." + did_you_mean(str(task_id), self._tasks)
            ) from None

    def sample(self, rng: np.random.Generator, split: str = "train") -> Task:
        """Draw one task of ``split`` uniformly with ``rng`` (the env's ``np_random``)."""
        ids = self.ids(split)
        if not ids:
            raise ConfigError(f"split {split!r} has no tasks")
        return self._tasks[ids[int(rng.integers(len(ids)))]]

    def _check_split(self, split: str) -> None:
        if split not in SPLITS:
            raise ConfigError(f"split must be one of {SPLITS}, got {split!r}" + did_you_mean(split, SPLITS))

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks.values())

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._tasks

    def __repr__(self) -> str:
        return f"TaskSet({len(self.ids('train'))} train, {len(self.ids('test'))} test)"
