"""The Echo TaskSet: ``data/tasks.jsonl``, six words to repeat (four train, two test).

Each row holds ``target``, the word to repeat: privileged data that only the rubric and the
oracle read.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rewardlab.core.tasks import TaskSet

TASKS_PATH = Path(__file__).parent / "data" / "tasks.jsonl"


@lru_cache(maxsize=1)
def load_tasks() -> TaskSet:
    """The shipped tasks (loaded once per process)."""
    return TaskSet.from_jsonl(TASKS_PATH)
