"""The default Docker sandbox image, built locally from Debian packages: no registry pull.

Recipe: ``mmdebstrap`` makes a Debian root file system (variant ``essential`` plus
:data:`PACKAGES`) as a tar archive, and the engine imports it (``docker import``) with the
image settings in :data:`CHANGES`. The tag is ``rewardlab/sandbox:<recipe hash>``, where the
hash covers the suite, the variant, the packages and the settings: a changed recipe gets a new
tag, so an image built from an older recipe is never used by mistake.

Example:
    >>> default_image().startswith("rewardlab/sandbox:")
    True
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardlab.errors import RewardLabError, require
from rewardlab.sandbox.docker_transport import close_failed_connects

REPOSITORY = "rewardlab/sandbox"
SUITE = "bookworm"
VARIANT = "essential"
PACKAGES: tuple[str, ...] = ("python3", "python3-pytest", "git", "ca-certificates")
"""Python with pytest for SWE-v2's test runs (its repositories need nothing beyond the standard
library), git for diffs; everything else comes from Debian's essential set (sh, tar, coreutils)."""
CHANGES: tuple[str, ...] = (
    "ENV LANG=C.UTF-8",
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "WORKDIR /",
    'CMD ["/bin/sh"]',
)


class SandboxError(RewardLabError, RuntimeError):
    """The sandbox infrastructure cannot run: no engine, no image, a failed build or run.

    Never raised for what agent code does: that is a :class:`~rewardlab.sandbox.SandboxResult`.
    """


def recipe_hash() -> str:
    """12 hex digits of SHA-256 over the recipe (suite, variant, packages, image settings)."""
    recipe = {"suite": SUITE, "variant": VARIANT, "packages": sorted(PACKAGES), "changes": list(CHANGES)}
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:12]


def default_image() -> str:
    """The tag of the image the current recipe builds."""
    return f"{REPOSITORY}:{recipe_hash()}"


BUILD_COMMAND = "rewardlab sandbox build-image"
"""What a user runs to build :func:`default_image` (quoted in error messages)."""


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build_image` did: the tag, whether it was built now, and how long each part took."""

    tag: str
    built: bool
    rootfs_seconds: float = 0.0
    import_seconds: float = 0.0
    size_bytes: int = 0


def docker_client(timeout: float = 60.0) -> Any:
    """A connected ``docker.DockerClient``, or :class:`SandboxError` saying what is missing."""
    docker = require("docker", "swe")
    close_failed_connects()
    client = None
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:  # DockerException, requests and socket errors alike
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
        raise SandboxError(
            f"no Docker engine answers ({type(exc).__name__}: {exc}). Start one (as root: dockerd, or "
            "bash scripts/setup.sh), or use sandbox='local'."
        ) from None
    return client


def image_exists(client: Any, tag: str) -> bool:
    """True when the engine has an image named ``tag``."""
    docker = require("docker", "swe")
    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def build_image(
    tag: str | None = None,
    *,
    from_image: str | None = None,
    force: bool = False,
    mirror: str | None = None,
    client: Any = None,
) -> BuildResult:
    """Build the sandbox image unless the engine already has it (``force`` rebuilds).

    Args:
        tag: The tag to give it (default: :func:`default_image`).
        from_image: Start from this image instead of Debian packages: it is pulled when absent
            (needs a reachable registry), checked for ``python3 -m pytest``, ``git`` and ``tar``,
            and tagged ``tag``.
        force: Build even when ``tag`` exists.
        mirror: A Debian mirror URL for ``mmdebstrap`` (default: its own, deb.debian.org).
        client: A ``docker.DockerClient`` (default: a new one).

    Raises:
        SandboxError: no engine, no ``mmdebstrap`` (as root: ``apt-get install mmdebstrap``), or a
            failed build, with the tool's own error output.
    """
    client = client or docker_client()
    tag = tag or default_image()
    if not force and image_exists(client, tag):
        return BuildResult(tag, built=False, size_bytes=client.images.get(tag).attrs.get("Size", 0))
    if from_image is not None:
        return _tag_existing(client, from_image, tag)
    with tempfile.TemporaryDirectory(prefix="rewardlab-image-") as tmp:
        rootfs = Path(tmp) / "rootfs.tar"
        start = time.perf_counter()
        make_rootfs_tar(rootfs, mirror=mirror)
        rootfs_seconds = time.perf_counter() - start
        repository, _, version = tag.rpartition(":")
        start = time.perf_counter()
        try:
            client.api.import_image_from_file(str(rootfs), repository=repository, tag=version, changes=list(CHANGES))
        except Exception as exc:
            raise SandboxError(f"docker import of the root file system failed: {type(exc).__name__}: {exc}") from None
        import_seconds = time.perf_counter() - start
    size = client.images.get(tag).attrs.get("Size", 0)
    return BuildResult(tag, True, rootfs_seconds, import_seconds, size)


def make_rootfs_tar(destination: Path, *, mirror: str | None = None) -> None:
    """Write the recipe's Debian root file system (:data:`SUITE`, :data:`VARIANT`, :data:`PACKAGES`)
    to ``destination`` as a tar archive with ``mmdebstrap``.

    Raises:
        SandboxError: no ``mmdebstrap`` (as root: ``apt-get install mmdebstrap``) or a failed build,
            with the tool's own error output.
    """
    if shutil.which("mmdebstrap") is None:
        raise SandboxError("mmdebstrap is not installed; as root on Debian: apt-get install mmdebstrap")
    argv = ["mmdebstrap", f"--variant={VARIANT}", f"--include={','.join(PACKAGES)}", "--format=tar", "--quiet"]
    argv += [SUITE, str(destination)] + ([mirror] if mirror else [])
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SandboxError(f"mmdebstrap failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")


def _tag_existing(client: Any, source: str, tag: str) -> BuildResult:
    start = time.perf_counter()
    try:
        if not image_exists(client, source):
            client.images.pull(source)
        image = client.images.get(source)
        check = "python3 -m pytest --version && git --version && tar --version"
        client.containers.run(source, ["/bin/sh", "-c", check], network_mode="none", remove=True)
        repository, _, version = tag.rpartition(":")
        image.tag(repository, version)
    except Exception as exc:
        raise SandboxError(f"cannot use {source!r} as the sandbox image: {type(exc).__name__}: {exc}") from None
    return BuildResult(tag, True, import_seconds=time.perf_counter() - start, size_bytes=image.attrs.get("Size", 0))
