"""The real projects behind SWERepo: pinned source distributions, fetched once and verified by hash.

:data:`PROJECTS` (``data/projects.json``) pins each project: name, version, the sha256 of its
sdist on PyPI, its license, its split (train and test projects are disjoint) and the source paths
bugs are planted in. :func:`fetch_sdist` downloads an sdist from the package index (``$PIP_INDEX_URL``,
default PyPI), choosing the file by its pinned hash, into ``$REWARDLAB_CACHE/swe-sdists`` (default
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
import html
import io
import json
import os
import re
import tarfile
import urllib.parse
import urllib.request
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
DEFAULT_INDEX = "https://pypi.org/simple"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
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


def package_index() -> str:
    """The package index sdists come from: ``$PIP_INDEX_URL`` when set, else PyPI's simple API."""
    return os.environ.get("PIP_INDEX_URL", DEFAULT_INDEX).rstrip("/")


def sdist_url(project: Project, *, index: str, timeout: float = 60) -> str:
    """The address of the file whose sha256 is ``project.sha256`` on ``index``'s page for the project.

    The page is read as PEP 691 JSON when the index offers it, else as PEP 503 HTML (each link's
    ``#sha256=`` fragment). The file is chosen by its hash, never by its name.
    """
    name = re.sub(r"[-_.]+", "-", project.name).lower()
    page_url = f"{index}/{name}/"
    request = urllib.request.Request(page_url, headers={"Accept": f"{SIMPLE_JSON}, text/html;q=0.1"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        kind = response.headers.get_content_type()
        body = response.read().decode("utf-8", "replace")
    if kind == SIMPLE_JSON:
        links = [(row["url"], row.get("hashes", {}).get("sha256", "")) for row in json.loads(body)["files"]]
    else:
        links = [(url, digest) for url, digest in re.findall(r'href="([^"#]+)#sha256=([0-9a-f]{64})"', body)]
    for url, digest in links:
        if digest == project.sha256:
            return urllib.parse.urljoin(page_url, html.unescape(url))
    raise ConfigError(f"{page_url} lists no file with the pinned sha256 of {project.requirement}")


def fetch_sdist(project: Project, *, timeout: float = 600) -> Path:
    """The verified sdist of ``project``, downloaded from :func:`package_index` into the cache when missing.

    The file is found on the index's page by its pinned hash and checked again after the download.
    Raises :class:`~rewardlab.sandbox.SandboxError` (an infrastructure failure) when the index cannot
    be reached, and :class:`~rewardlab.errors.ConfigError` when it has no such file or what came has
    another hash.
    """
    found = cached_sdist(project)
    if found is not None:
        return found
    folder = cache_dir() / f"{project.name}-{project.version}"
    folder.mkdir(parents=True, exist_ok=True)
    index = package_index()
    try:
        url = sdist_url(project, index=index, timeout=min(timeout, 60))
        with urllib.request.urlopen(url, timeout=timeout) as response:
            payload = response.read()
    except ConfigError:
        raise
    except (OSError, ValueError, KeyError) as exc:  # unreachable, or a page that is not an index's
        raise SandboxError(f"could not fetch the sdist of {project.requirement} from {index}: {exc}") from exc
    if hashlib.sha256(payload).hexdigest() != project.sha256:
        raise ConfigError(f"the sdist fetched for {project.requirement} does not have the pinned sha256")
    target = folder / PurePosixPath(urllib.parse.urlsplit(url).path).name
    scratch = target.with_name(f".{target.name}.{os.getpid()}.part")
    scratch.write_bytes(payload)
    os.replace(scratch, target)
    return target


def is_test_module(path: str) -> bool:
    """Whether ``path`` is a module pytest collects by default: ``test_*.py`` or ``*_test.py``."""
    name = PurePosixPath(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def is_test_path(path: str) -> bool:
    """Whether ``path`` is test code: under a ``test``/``tests``/``testing`` directory, a
    test module (:func:`is_test_module`), or a ``conftest.py``."""
    pure = PurePosixPath(path)
    return bool(_TEST_DIRS & set(pure.parts[:-1])) or pure.name == "conftest.py" or is_test_module(path)


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
