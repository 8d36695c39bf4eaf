"""The agent's working copy of a repository: safe file operations on a host directory.

Every path the agent names is checked before use: it must be relative, stay inside the
repository after resolving ``..`` and symbolic links, and name a regular text file. Writes go to a
new file (``O_EXCL | O_NOFOLLOW``) renamed over the target, so that a symlink planted between
the check and the write cannot redirect them. Failures raise :class:`WorkspaceError`, whose
message the env shows the agent.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

SKIPPED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".git", ".hypothesis"})
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


class WorkspaceError(ValueError):
    """An agent file operation that was refused; the message is shown to the agent."""


def is_text(data: bytes) -> bool:
    """UTF-8 without NUL bytes."""
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def has_binary(text: str) -> bool:
    """Control characters other than tab, newline, carriage return and form feed."""
    return _BINARY.search(text) is not None


class Workspace:
    """A repository checked out in ``root`` with ``base`` (``{path: text}``) as its original state.

    Args:
        root: The host directory holding the working copy.
        base: The repository's files at the base commit.
        max_file_bytes: Largest file an edit or create may produce.
    """

    def __init__(self, root: str | Path, base: Mapping[str, str], *, max_file_bytes: int = 1 << 20):
        self.root = Path(root).resolve()
        self.base = dict(base)
        self.max_file_bytes = max_file_bytes
        for path, text in self.base.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    # ------------------------------------------------------------------ paths
    def resolve(self, path: str, *, must_exist: bool = True) -> Path:
        """The host path of repository path ``path``, or :class:`WorkspaceError` when it leaves the repository."""
        if not path or "\x00" in path:
            raise WorkspaceError("empty or invalid path")
        pure = PurePosixPath(path)
        if pure.is_absolute():
            raise WorkspaceError(f"{path}: absolute paths are not allowed; use a path relative to the repository root")
        if ".." in pure.parts:
            raise WorkspaceError(f"{path}: '..' is not allowed; paths must stay inside the repository")
        target = self.root.joinpath(*pure.parts) if pure.parts not in ((), (".",)) else self.root
        real = Path(os.path.realpath(target))
        if real != self.root and self.root not in real.parents:
            raise WorkspaceError(f"{path}: resolves outside the repository (symbolic link?)")
        if must_exist and not target.exists():
            raise WorkspaceError(f"{path}: no such file or directory")
        return target

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    # ------------------------------------------------------------------ reading
    def read(self, path: str) -> str:
        """The text of file ``path``."""
        target = self.resolve(path)
        if target.is_dir():
            raise WorkspaceError(f"{path}: is a directory; use 'list {path}'")
        if target.is_symlink() or not target.is_file():
            raise WorkspaceError(f"{path}: not a regular file")
        data = target.read_bytes()
        if not is_text(data):
            raise WorkspaceError(f"{path}: binary file, cannot be shown or edited")
        return data.decode("utf-8")

    def files(self, under: str = ".") -> Iterator[str]:
        """Relative paths of regular files under ``under``, sorted, caches skipped."""
        start = self.resolve(under)
        if start.is_file():
            yield self.relative(start)
            return
        for dirpath, dirnames, filenames in os.walk(start):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
            for name in sorted(filenames):
                full = Path(dirpath) / name
                if full.is_file() and not full.is_symlink():
                    yield self.relative(full)

    def snapshot(self) -> dict[str, str]:
        """``{path: text}`` of every text file now in the working copy (binary files left out)."""
        tree = {}
        for path in self.files():
            data = (self.root / path).read_bytes()
            if is_text(data):
                tree[path] = data.decode("utf-8")
        return tree

    # ------------------------------------------------------------------ writing
    def write(self, path: str, text: str, *, create: bool = False) -> None:
        """Replace (or, with ``create``, make) file ``path``; refuses binary and oversized content."""
        if has_binary(text):
            raise WorkspaceError(f"{path}: content contains binary control characters; only text files can be written")
        size = len(text.encode("utf-8"))
        if size > self.max_file_bytes:
            raise WorkspaceError(f"{path}: {size} bytes exceeds the {self.max_file_bytes}-byte file limit")
        target = self.resolve(path, must_exist=not create)
        if target.is_dir():
            raise WorkspaceError(f"{path}: is a directory")
        if target.is_symlink():
            raise WorkspaceError(f"{path}: is a symbolic link; edit the file it points to instead")
        if not create and not target.is_file():
            raise WorkspaceError(f"{path}: not a regular file")
        if create:
            parent = target.parent
            if Path(os.path.realpath(parent)) != self.root and self.root not in Path(os.path.realpath(parent)).parents:
                raise WorkspaceError(f"{path}: resolves outside the repository (symbolic link?)")
            parent.mkdir(parents=True, exist_ok=True)
        # write a fresh file next to the target, then rename it over the target: atomic, never
        # follows a symbolic link planted at the target, and cheaper than truncating in place
        temporary = target.with_name(f".{target.name}.rewardlab-{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.replace(temporary, target)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise

    def copy_to(self, destination: str | Path) -> Path:
        """Copy the working copy (symbolic links as links, caches skipped) to ``destination``."""
        ignore = shutil.ignore_patterns(*SKIPPED_DIRS)
        shutil.copytree(self.root, destination, symlinks=True, ignore=ignore, dirs_exist_ok=True)
        return Path(destination)
