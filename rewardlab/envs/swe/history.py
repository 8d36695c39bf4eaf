"""A git history of one commit: the task's starting state, and nothing before it.

:func:`init_repository` makes the working copy a git repository holding exactly one commit of its
files, with a fixed author, committer, date and message, so that the commit's hash depends only on
the files (the builder records it as the task's ``base_commit``, and the env's working copy has
the same ``HEAD``). The reflog, hook samples and the description are removed: ``git log``,
``git reflog`` and the object store show the buggy state only, never the fix.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from rewardlab.errors import ConfigError

AUTHOR = ("RewardLab", "tasks@rewardlab.invalid")
DATE = "2026-01-01T00:00:00+00:00"
MESSAGE = "Import the project"


def _git_environment() -> dict[str, str]:
    name, email = AUTHOR
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": DATE,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": DATE,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "HOME": "/nonexistent",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LC_ALL": "C",
    }


def init_repository(root: str | Path) -> str:
    """Make ``root`` a git repository with one commit of all its files; returns the commit hash.

    Raises :class:`~rewardlab.errors.ConfigError` when git is missing or fails.
    """
    root = Path(root)
    git = shutil.which("git")
    if git is None:
        raise ConfigError("git is not installed; SWERepo's working copies are git repositories (apt-get install git)")
    commands = [
        ["init", "--quiet", "--initial-branch=main"],
        ["add", "--all", "--force"],
        ["-c", "commit.gpgsign=false", "commit", "--quiet", "--no-verify", "--message", MESSAGE],
        ["rev-parse", "HEAD"],
    ]
    out = ""
    for args in commands:
        try:
            out = subprocess.run(
                [git, "-C", str(root), *args],
                capture_output=True,
                text=True,
                check=True,
                timeout=60,
                env=_git_environment(),
            ).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            detail = (getattr(exc, "stderr", "") or str(exc)).strip()
            raise ConfigError(f"git {args[0]} failed in {root}: {detail}") from exc
    dot_git = root / ".git"
    for leftover in ("logs", "hooks", "description", "COMMIT_EDITMSG"):
        path = dot_git / leftover
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    return out.strip()
