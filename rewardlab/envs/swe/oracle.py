"""The SWE-v2 oracle: applies the gold patch with ``edit`` commands, then submits.

It first views a file the gold patch edits, then replays each hunk of the gold patch as one
``edit PATH START:END`` command (hunks of a file in reverse order, so that earlier line
numbers stay valid), then ``submit``. It reads the privileged ``env.task.data["patch"]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rewardlab.envs.swe.patch import parse_patch

if TYPE_CHECKING:
    from rewardlab.envs.swe.env import SWEEnv


def gold_actions(patch: str) -> list[str]:
    """The commands that apply ``patch`` to the base repository, ending with ``submit``."""
    files = parse_patch(patch)
    actions = [f"view {files[0].path}"] if files else []
    for file_patch in files:
        if file_patch.old_path is None:
            actions.append(f"create {file_patch.path}\n" + "".join(file_patch.hunks[0].new_lines))
            continue
        for hunk in reversed(file_patch.hunks):
            if hunk.old_length:
                start, end = hunk.old_start, hunk.old_start + hunk.old_length - 1
            else:
                start, end = hunk.old_start + 1, hunk.old_start
            actions.append(f"edit {file_patch.path} {start}:{end}\n" + "".join(hunk.new_lines))
    return [*actions, "submit"]


class GoldPatchOracle:
    """Replays :func:`gold_actions` for the env's current task."""

    def __init__(self, env: SWEEnv):
        self.env = env
        self._task_id: str | None = None
        self._queue: list[str] = []

    def reset(self) -> None:
        self._task_id = None
        self._queue = []

    def act(self, observation: str, info: dict[str, Any]) -> str:
        task = self.env.current_task
        if task.id != self._task_id or not self._queue:
            self._task_id = task.id
            self._queue = gold_actions(task.data["patch"])
        return self._queue.pop(0)
