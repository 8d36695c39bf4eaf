"""The minimal root (issue 25): a sandboxed command sees Debian's root file system and the working
copy, and nothing of the host; no file of a pinned SWERepo project is readable from either backend
except through the task's working copy."""

from __future__ import annotations

import hashlib
import sys
import tarfile
from pathlib import Path

import pytest

from rewardlab.envs.swe.sources import PROJECTS, cached_sdist
from rewardlab.sandbox import DockerSandbox, LocalSandbox, isolation_modes, make_sandbox
from rewardlab.sandbox.factory import local_sandbox
from rewardlab.sandbox.rootfs import built_root
from tests.conftest import docker_or_skip

HERE = str(Path(__file__).resolve().parents[2])
needs_root = pytest.mark.skipif(
    built_root() is None or "bwrap" not in isolation_modes(),
    reason="the minimal root is not built (rewardlab sandbox build-root) or bubblewrap does not work",
)

#: Hashes every regular ``.py`` file under ``/`` (outside ``/proc``, ``/sys`` and ``/dev``); prints one per line.
SCANNER = """
import hashlib, os, sys
skip = {"/proc", "/sys", "/dev"} | set(sys.argv[1:])
for top, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if os.path.join(top, d) not in skip]
    for name in files:
        path = os.path.join(top, name)
        if name.endswith(".py") and os.path.isfile(path) and not os.path.islink(path):
            try:
                with open(path, "rb") as handle:
                    print(hashlib.sha256(handle.read()).hexdigest())
            except OSError:
                pass
"""


def pinned_sources() -> dict[str, str]:
    """``{sha256: project/path}`` of every substantial ``.py`` file of every pinned project (files of
    under 200 bytes, such as empty ``__init__.py`` files, are left out: they match unrelated files)."""
    found = {}
    for project in PROJECTS.values():
        sdist = cached_sdist(project)
        if sdist is None:
            pytest.skip(f"the sdist of {project.name} is not cached (rewardlab swe fetch)")
        with tarfile.open(sdist) as archive:
            for member in archive.getmembers():
                if member.isfile() and member.name.endswith(".py") and member.size >= 200:
                    data = archive.extractfile(member).read()
                    found[hashlib.sha256(data).hexdigest()] = f"{project.name}: {member.name}"
    return found


def readable_pinned_files(sandbox, files=None, skip=("/workspace",)) -> list[str]:
    sources = pinned_sources()
    result = sandbox.run([sandbox.python if hasattr(sandbox, "python") else "python3", "-c", SCANNER, *skip],
                         files=files or {"x.txt": ""}, timeout=240)  # fmt: skip
    assert result.exit_code == 0, result.stderr[-2000:]
    return sorted(sources[h] for h in set(result.stdout.split()) if h in sources)


@needs_root
def test_no_pinned_project_file_is_readable_from_the_local_root():
    assert readable_pinned_files(local_sandbox()) == []


@needs_root
def test_the_scanner_finds_a_pinned_file_in_the_working_copy():
    """The check can fail: a pinned file placed in the working copy is found there."""
    sources = pinned_sources()
    project = next(iter(PROJECTS.values()))
    with tarfile.open(cached_sdist(project)) as archive:
        member = next(m for m in archive.getmembers() if m.isfile() and m.name.endswith(".py") and m.size >= 200)
        text = archive.extractfile(member).read().decode("utf-8")
    found = readable_pinned_files(local_sandbox(), files={"copy.py": text}, skip=())
    assert sources[hashlib.sha256(text.encode()).hexdigest()] in found


def test_no_pinned_project_file_is_readable_from_docker():
    docker_or_skip()
    sandbox = DockerSandbox()
    try:
        assert readable_pinned_files(sandbox) == []
    finally:
        sandbox.close()


@needs_root
def test_the_local_root_shows_nothing_of_the_host():
    sandbox = local_sandbox()
    assert sandbox.root == str(built_root()) and sandbox.python == "python3"
    probe = (
        "import os, sys\n"
        f"print(os.path.exists({sys.prefix!r}), os.path.exists({sys.base_prefix!r}), os.path.exists({HERE!r}))\n"
        "import importlib.util\nprint(importlib.util.find_spec('rewardlab') is None, sys.version_info[:2])\n"
    )
    result = sandbox.run(["python3", "-c", probe], timeout=30)
    lines = result.stdout.split("\n")
    assert lines[0] == "False False False", result.stdout + result.stderr
    assert lines[1].startswith("True"), result.stdout


@needs_root
def test_the_local_root_and_the_docker_image_hold_the_same_interpreter():
    docker_or_skip()
    probe = ["python3", "-c", "import sys, pytest; print(sys.version.split()[0], pytest.__version__)"]
    docker = DockerSandbox()
    try:
        assert local_sandbox().run(probe, timeout=30).stdout == docker.run(probe, timeout=60).stdout
    finally:
        docker.close()


def test_without_a_root_the_local_sandbox_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("REWARDLAB_CACHE", str(tmp_path))
    sandbox = make_sandbox("local")
    assert isinstance(sandbox, LocalSandbox) and sandbox.root is None
    assert any("rewardlab sandbox build-root" in warning for warning in sandbox.warnings)
