"""The real projects behind SWERepo: pinned source distributions, fetched once and verified by hash.

:data:`PROJECTS` (``data/projects.json``) pins each project: name, version, the sha256 of its
sdist on PyPI, its license, its split (train and test projects are disjoint) and the source paths
bugs are planted in. :func:`fetch_sdist` downloads an sdist with ``pip download`` (``--no-deps
--no-binary :all:`` with ``--require-hashes``) into ``$REWARDLAB_CACHE/swe-sdists`` (default
``~/.cache/rewardlab``) and checks its hash again before every use; :func:`clean_tree` unpacks it
into ``{path: text}``.

The cache lives outside every directory a sandbox exposes (bubblewrap binds only the Python
installation and the working copy; Docker only the working copy), so an agent cannot read the
original files.

Unpacking normalises the tree the same way for every project, so that the hidden evaluation
(which runs pytest with the repository *appended* to ``sys.path`` and the base commit's own
configuration file) sees the project as its tests expect:

- the sdist's top directory is dropped, and a ``src/`` layout is flattened (``src/pkg`` →
  ``pkg``);
- binary files, files over :data:`MAX_FILE_BYTES` and ``*.egg-info`` directories are left out;
- ``addopts`` is removed from pytest configuration (coverage plug-ins and doctest collection
  are not part of the kept tests: only test files' tests are).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from rewardlab.envs.swe.patch import apply_patch, changed_files
from rewardlab.envs.swe.workspace import SKIPPED_DIRS, is_text
from rewardlab.errors import ConfigError
from rewardlab.sandbox import SandboxError

PROJECTS_FILE = Path(__file__).parent / "data" / "projects.json"
SDIST_FIELDS = ("name", "version", "sha256")
MAX_FILE_BYTES = 512 * 1024
_TEST_DIRS = frozenset({"test", "tests", "testing"})


@dataclass(frozen=True)
class Project:
    """One pinned project.

    Attributes:
        name: The PyPI name (also the ``repo`` of its tasks).
        version: The pinned release.
        sha256: The sdist's hash; a download that does not match is refused.
        license: SPDX identifier (all permissive).
        split: ``"train"`` or ``"test"``: every task of a project is in its split.
        source: Repository paths (files or directories) whose modules bugs are planted in.
    """

    name: str
    version: str
    sha256: str
    license: str = ""
    split: str = "test"
    source: tuple[str, ...] = ()

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def load_projects(path: str | Path = PROJECTS_FILE) -> dict[str, Project]:
    """``{name: Project}`` from a pins file (default: the shipped one)."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    return {row["name"]: Project(**{**row, "source": tuple(row["source"])}) for row in rows}


PROJECTS: dict[str, Project] = load_projects()


def cache_dir() -> Path:
    """``$REWARDLAB_CACHE/swe-sdists`` (default ``~/.cache/rewardlab/swe-sdists``)."""
    return Path(os.environ.get("REWARDLAB_CACHE", Path.home() / ".cache" / "rewardlab")) / "swe-sdists"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cached_sdist(project: Project) -> Path | None:
    """The cached sdist of ``project`` when present and its hash matches, else ``None``."""
    folder = cache_dir() / f"{project.name}-{project.version}"
    for path in sorted(folder.glob("*.tar.gz")) if folder.is_dir() else ():
        if _sha256(path) == project.sha256:
            return path
    return None


def fetch_sdist(project: Project, *, timeout: float = 600) -> Path:
    """The verified sdist of ``project``, downloaded with pip into the cache when missing.

    Raises :class:`~rewardlab.sandbox.SandboxError` (an infrastructure failure) when pip cannot
    fetch it, and :class:`~rewardlab.errors.ConfigError` when what it fetched has another hash.
    """
    found = cached_sdist(project)
    if found is not None:
        return found
    folder = cache_dir() / f"{project.name}-{project.version}"
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rewardlab-sdist-") as scratch:
        requirements = Path(scratch) / "requirements.txt"
        requirements.write_text(f"{project.requirement} --hash=sha256:{project.sha256}\n", encoding="utf-8")
        argv = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
        argv += ["--require-hashes", "-r", str(requirements), "-d", scratch]
        try:
            subprocess.run(argv, capture_output=True, text=True, check=True, timeout=timeout)
        except (OSError, subprocess.SubprocessError) as exc:
            detail = (getattr(exc, "stderr", "") or str(exc)).strip().splitlines()[-3:]
            raise SandboxError(f"pip could not fetch the sdist of {project.requirement}: {' '.join(detail)}") from exc
        downloaded = sorted(Path(scratch).glob("*.tar.gz"))
        if not downloaded or _sha256(downloaded[0]) != project.sha256:
            raise ConfigError(f"the sdist pip fetched for {project.requirement} does not have the pinned sha256")
        target = folder / downloaded[0].name
        os.replace(downloaded[0], target)
    return target


def is_test_path(path: str) -> bool:
    """Whether ``path`` is test code: under a ``test``/``tests``/``testing`` directory, a
    ``test_*.py`` or ``*_test.py`` module, or a ``conftest.py``."""
    pure = PurePosixPath(path)
    name = pure.name
    return (
        bool(_TEST_DIRS & set(pure.parts[:-1]))
        or name == "conftest.py"
        or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))
    )


def source_files(project: Project, tree: Mapping[str, str]) -> list[str]:
    """The Python modules of ``tree`` under ``project.source`` that are not test code."""
    roots = [root.rstrip("/") for root in project.source]
    return sorted(
        path
        for path in tree
        if path.endswith(".py")
        and not is_test_path(path)
        and any(path == root or path.startswith(root + "/") for root in roots)
    )


@functools.lru_cache(maxsize=16)
def _clean_tree(name: str, version: str, sha256: str) -> tuple[tuple[str, str], ...]:
    sdist = fetch_sdist(Project(name=name, version=version, sha256=sha256))
    return tuple(sorted(unpack_sdist(sdist.read_bytes()).items()))


def clean_tree(project: Project) -> dict[str, str]:
    """``{path: text}`` of ``project``'s unmodified, normalised source (fetched on first use, then
    kept in memory)."""
    return dict(_clean_tree(project.name, project.version, project.sha256))


def sdist_base_tree(data: Mapping[str, Any]) -> dict[str, str]:
    """The base tree of a SWERepo task: the pinned sdist's clean tree with ``data["bug_patch"]``
    applied, without the (hidden) test files that ``data["test_patch"]`` creates."""
    sdist = data["sdist"]
    tree = apply_patch(clean_tree(Project(sdist["name"], sdist["version"], sdist["sha256"])), data["bug_patch"])
    for path in changed_files(data["test_patch"]):
        tree.pop(path, None)
    return tree


def unpack_sdist(data: bytes) -> dict[str, str]:
    """The normalised text tree of an sdist tarball (see the module docstring)."""
    tree: dict[str, str] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts[1:]  # drop "<name>-<version>/"
            if not member.isfile() or not parts or member.size > MAX_FILE_BYTES:
                continue
            if SKIPPED_DIRS & set(parts) or any(part.endswith(".egg-info") for part in parts):
                continue
            if parts[0] == "src" and len(parts) > 1:
                parts = parts[1:]
            content = tar.extractfile(member).read()  # type: ignore[union-attr]
            if is_text(content):
                tree[PurePosixPath(*parts).as_posix()] = content.decode("utf-8")
    return {path: drop_addopts(path, text) for path, text in tree.items()}


_INI_ADDOPTS = re.compile(r"^addopts[ \t]*[=:].*\n(?:[ \t]+\S.*\n|[ \t]*\n(?=[ \t]+\S))*", re.M)
_TOML_ADDOPTS = re.compile(
    r"^addopts[ \t]*=[ \t]*(?:\[[^\]]*\]|\"\"\"[\s\S]*?\"\"\"|\"[^\"\n]*\"|'[^'\n]*')[ \t]*\n?", re.M
)


def drop_addopts(path: str, text: str) -> str:
    """``text`` without pytest ``addopts`` settings when ``path`` is a pytest configuration file."""
    name = PurePosixPath(path).name
    if "/" in path or name not in {"pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"}:
        return text
    pattern = _TOML_ADDOPTS if name == "pyproject.toml" else _INI_ADDOPTS
    terminated = text if text.endswith("\n") else text + "\n"  # a setting on the last line ends there too
    stripped = pattern.sub("", terminated)
    if stripped == terminated:
        return text
    return stripped if text.endswith("\n") else stripped.removesuffix("\n")
