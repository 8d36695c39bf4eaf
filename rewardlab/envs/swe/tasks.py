"""The SWE-v2 TaskSet and how a task's repository is checked out.

A task is a SWE-bench instance: ``prompt`` is the ``problem_statement``; ``data`` holds
``repo``, ``base_commit``, ``patch`` (gold), ``test_patch``, ``FAIL_TO_PASS`` and
``PASS_TO_PASS``, plus where the repository lives: ``repo_dir`` (a directory shipped under
``data/``, the default tasks) or ``repo_path`` (a local git repository, checked out at
``base_commit``; see :mod:`rewardlab.envs.swe.loader`).
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardlab.core.tasks import TaskSet
from rewardlab.envs.swe.patch import changed_files
from rewardlab.envs.swe.sources import sdist_base_tree
from rewardlab.envs.swe.workspace import SKIPPED_DIRS, is_text
from rewardlab.errors import ConfigError

DATA = Path(__file__).parent / "data"
TASKS_FILE = DATA / "tasks.jsonl"


def read_tree(root: Path) -> dict[str, str]:
    """``{relative path: text}`` of every file under ``root`` (caches excluded)."""
    tree = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and ".pytest_cache" not in path.parts:
            tree[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
    return tree


def tree_hash(tree: dict[str, str]) -> str:
    """A content hash of a tree, used as the ``base_commit`` of shipped repositories."""
    digest = hashlib.sha1()
    for path in sorted(tree):
        digest.update(path.encode() + b"\0" + tree[path].encode() + b"\0")
    return digest.hexdigest()


def load_tasks() -> TaskSet:
    """The 24 shipped tasks (6 repositories, 18 train and 6 test)."""
    return TaskSet.from_jsonl(TASKS_FILE)


def base_tree(data: Mapping[str, Any]) -> dict[str, str]:
    """``{path: text}`` of the task's repository at its base commit (binary files left out)."""
    if "sdist" in data:
        return sdist_base_tree(data)
    if "repo_dir" in data:
        return read_tree(DATA / data["repo_dir"])
    if "repo_path" in data:
        return git_tree(data["repo_path"], data["base_commit"])
    raise ConfigError(
        "a SWE task needs 'repo_dir' (shipped), 'repo_path' (a local git repository) or 'sdist' (a pinned sdist)"
    )


def git_tree(repo_path: str | Path, commit: str) -> dict[str, str]:
    """``{path: text}`` of ``commit`` in the git repository at ``repo_path`` (via ``git archive``)."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(repo_path), "archive", "--format=tar", commit],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        detail = (getattr(exc, "stderr", b"") or b"").decode(errors="replace").strip() or str(exc)
        raise ConfigError(f"cannot read commit {commit!r} of git repository {str(repo_path)!r}: {detail}") from exc
    tree = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if not member.isfile() or SKIPPED_DIRS & set(Path(member.name).parts):
                continue
            data = tar.extractfile(member).read()  # type: ignore[union-attr]
            if is_text(data):
                tree[member.name] = data.decode("utf-8")
    return tree


def gold_files(data: Mapping[str, Any]) -> list[str]:
    """The files the gold patch edits."""
    return changed_files(data["patch"])
