"""Bring your own tasks: SWE-bench-format JSONL that points at local git repositories.

Each line is a SWE-bench task instance::

    {"instance_id": "mylib__mylib-12", "repo": "/abs/or/relative/path/to/git/repo",
     "base_commit": "3f2a...", "problem_statement": "...", "patch": "diff --git ...",
     "test_patch": "diff --git ...", "FAIL_TO_PASS": ["tests/test_x.py::test_a"],
     "PASS_TO_PASS": [...], "split": "train"}

``repo`` (or ``repo_path``) is a local git repository, resolved relative to the JSONL file's
directory (or ``repos_root``); ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` may be lists or JSON strings
(SWE-bench stores them as strings); ``split`` defaults to ``default_split``. Each instance is
checked when loaded: the commit exists, and the gold patch and test patch apply to it.

Instances built by ``rewardlab swe build`` (SWERepo) name a pinned sdist instead of a local
repository: ``sdist`` (``{"name", "version", "sha256"}``) and ``bug_patch`` (the clean source to
the buggy state); their base tree is the unpacked sdist with ``bug_patch`` applied and the files
``test_patch`` creates left out (:func:`~rewardlab.envs.swe.sources.sdist_base_tree`). Their
other fields (``version``, ``created_at``, ``difficulty``, ...) are kept in the task's data.
``validate=False`` skips the patch checks (the builder has run them), so that loading does not
fetch any sdist. ``path`` may be gzip-compressed (``.gz``).

Example:
    >>> from rewardlab.envs.swe import SWEEnv, load_swebench_jsonl  # doctest: +SKIP
    >>> env = SWEEnv(tasks=load_swebench_jsonl("my_tasks.jsonl"))  # doctest: +SKIP
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from rewardlab.core.tasks import SPLITS, Task, TaskSet
from rewardlab.envs.swe.patch import PatchError, apply_patch
from rewardlab.envs.swe.sources import SDIST_FIELDS, sdist_base_tree
from rewardlab.envs.swe.tasks import git_tree
from rewardlab.errors import ConfigError

REQUIRED = ("instance_id", "base_commit", "problem_statement", "patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")


def _test_ids(value: Any, field: str, where: str) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: {field} must be a list of test ids or its JSON string") from exc
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: {field} must be a list of test id strings, got {value!r:.80}")
    return value


def _split_and_failing_tests(row: dict[str, Any], default_split: str, where: str) -> tuple[str, list[str]]:
    split = row.get("split", default_split)
    if split not in SPLITS:
        raise ConfigError(f"{where}: split must be one of {SPLITS}, got {split!r}")
    fail_to_pass = _test_ids(row["FAIL_TO_PASS"], "FAIL_TO_PASS", where)
    if not fail_to_pass:
        raise ConfigError(f"{where}: FAIL_TO_PASS is empty; a task needs at least one failing test")
    return split, fail_to_pass


def instance_to_task(
    row: dict[str, Any], *, base_dir: Path, default_split: str = "test", where: str = "", validate: bool = True
) -> Task:
    """Validate one SWE-bench instance and turn it into a :class:`Task`."""
    if "sdist" in row:
        return _sdist_instance(row, default_split=default_split, where=where, validate=validate)
    missing = [k for k in REQUIRED if k not in row]
    repo = row.get("repo_path", row.get("repo"))
    if missing or not repo:
        raise ConfigError(f"{where}: missing fields {missing + ([] if repo else ['repo'])}")
    repo_path = (base_dir / str(repo)).resolve()
    if not (repo_path / ".git").exists():
        raise ConfigError(f"{where}: repo {str(repo)!r} is not a local git repository ({repo_path})")
    split, fail_to_pass = _split_and_failing_tests(row, default_split, where)
    tree = git_tree(repo_path, row["base_commit"])
    for field in ("patch", "test_patch"):
        try:
            apply_patch(tree, row[field])
        except PatchError as exc:
            raise ConfigError(f"{where}: {field} does not apply to {row['base_commit']}: {exc}") from exc
    data = {
        "repo": str(row.get("repo", repo)),
        "repo_path": str(repo_path),
        "base_commit": row["base_commit"],
        "patch": row["patch"],
        "test_patch": row["test_patch"],
        "FAIL_TO_PASS": fail_to_pass,
        "PASS_TO_PASS": _test_ids(row["PASS_TO_PASS"], "PASS_TO_PASS", where),
    }
    return Task(id=str(row["instance_id"]), split=split, prompt=str(row["problem_statement"]), data=data)


def _sdist_instance(row: dict[str, Any], *, default_split: str, where: str, validate: bool) -> Task:
    missing = [k for k in (*REQUIRED, "bug_patch") if k not in row]
    sdist = row.get("sdist")
    if missing or not isinstance(sdist, dict) or not all(isinstance(sdist.get(k), str) for k in SDIST_FIELDS):
        raise ConfigError(f"{where}: missing fields {missing} or an sdist without {SDIST_FIELDS}")
    split, fail_to_pass = _split_and_failing_tests(row, default_split, where)
    skipped = {"instance_id", "problem_statement", "split", "FAIL_TO_PASS", "PASS_TO_PASS"}
    data = {key: value for key, value in row.items() if key not in skipped}
    data.update(FAIL_TO_PASS=fail_to_pass, PASS_TO_PASS=_test_ids(row["PASS_TO_PASS"], "PASS_TO_PASS", where))
    data["repo"] = str(row.get("repo", sdist["name"]))
    if validate:
        try:
            apply_patch(sdist_base_tree(data), row["patch"])
        except PatchError as exc:
            raise ConfigError(
                f"{where}: patch does not apply to the buggy {sdist['name']} {sdist['version']}: {exc}"
            ) from exc
    return Task(id=str(row["instance_id"]), split=split, prompt=str(row["problem_statement"]), data=data)


def load_swebench_jsonl(
    path: str | Path, *, repos_root: str | Path | None = None, default_split: str = "test", validate: bool = True
) -> TaskSet:
    """A TaskSet of the SWE-bench instances in ``path`` (see the module docstring)."""
    path = Path(path)
    base_dir = Path(repos_root) if repos_root is not None else path.parent
    tasks = []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise ConfigError(f"{path}:{number}: not JSON: {exc}") from exc
            if not isinstance(row, dict):
                raise ConfigError(f"{path}:{number}: expected a JSON object")
            where = f"{path}:{number}"
            tasks.append(
                instance_to_task(row, base_dir=base_dir, default_split=default_split, where=where, validate=validate)
            )
    return TaskSet(tasks)
