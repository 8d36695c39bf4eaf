"""The BPMN TaskSet: ``data/tasks.jsonl`` and the reference models under ``data/references``.

Each task row holds ``reference`` (a path relative to ``data/``), ``difficulty`` (1–5),
``patterns`` (``sequence``, ``xor``, ``and``, ``loop``, ``lanes``, ``pools`` ... or ``miwg``) and
``source`` (``generated`` or ``miwg``). The rows are written by
:mod:`rewardlab.envs.bpmn.build.generate`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from rewardlab.core.tasks import Task, TaskSet

DATA = Path(__file__).parent / "data"
TASKS_PATH = DATA / "tasks.jsonl"
_DECLARED = re.compile(rb"""\A\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


@lru_cache(maxsize=1)
def load_tasks() -> TaskSet:
    """The shipped tasks (loaded once per process)."""
    return TaskSet.from_jsonl(TASKS_PATH)


@lru_cache(maxsize=512)
def read_reference(relative_path: str) -> str:
    """A reference model as text, decoded with the encoding its XML declaration names (default UTF-8)."""
    data = (DATA / relative_path).read_bytes()
    declared = _DECLARED.match(data)
    return data.decode(declared.group(1).decode("ascii") if declared else "utf-8")


def reference_xml(task: Task) -> str:
    """The gold answer of a task."""
    return read_reference(task.data["reference"])
