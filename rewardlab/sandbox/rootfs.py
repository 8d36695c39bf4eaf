"""The minimal root file system of the local sandbox: the Docker image's Debian root, as a directory.

:class:`~rewardlab.sandbox.LocalSandbox` with ``root=`` mounts it read-only as ``/`` under
bubblewrap, so that local runs see what Docker runs see: Debian's interpreter, standard library,
pytest and git, the working copy, and nothing of the host (no host prefix, site-packages,
``/usr/lib/python3`` or vendored trees). It is built from the same recipe as the image
(:func:`~rewardlab.sandbox.image.make_rootfs_tar`) and kept under
``$REWARDLAB_CACHE/rootfs/<recipe hash>`` (default ``~/.cache/rewardlab``): a changed recipe gets a
new directory. ``rewardlab sandbox build-root`` builds it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rewardlab.sandbox.image import SandboxError, make_rootfs_tar, recipe_hash

BUILD_ROOT_COMMAND = "rewardlab sandbox build-root"
#: The file whose presence marks a finished root (written last).
DONE_MARK = ".rewardlab-root"


@dataclass(frozen=True)
class RootBuild:
    """What :func:`build_root` did: where the root is, whether it was built now, and how long it took."""

    path: Path
    built: bool
    seconds: float = 0.0


def default_root_dir() -> Path:
    """``$REWARDLAB_CACHE/rootfs/<recipe hash>`` (default cache ``~/.cache/rewardlab``)."""
    cache = Path(os.environ.get("REWARDLAB_CACHE", Path.home() / ".cache" / "rewardlab"))
    return cache / "rootfs" / recipe_hash()


def built_root() -> Path | None:
    """The default root when it has been built (``None`` otherwise)."""
    path = default_root_dir()
    return path if (path / DONE_MARK).is_file() else None


def build_root(*, force: bool = False, mirror: str | None = None) -> RootBuild:
    """Build the default root unless it exists (``force`` rebuilds): ``mmdebstrap`` writes the
    recipe's tar, which is unpacked (without device nodes: bubblewrap provides ``/dev``) into a
    fresh directory that replaces the old one only when complete.

    Raises:
        SandboxError: no ``mmdebstrap``, a failed build or a failed unpack.
    """
    target = default_root_dir()
    if not force and (target / DONE_MARK).is_file():
        return RootBuild(target, built=False)
    start = time.perf_counter()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rewardlab-root-", dir=target.parent) as tmp:
        archive, unpacked = Path(tmp) / "root.tar", Path(tmp) / "root"
        make_rootfs_tar(archive, mirror=mirror)
        unpacked.mkdir()
        done = subprocess.run(
            ["tar", "-x", "-f", str(archive), "-C", str(unpacked), "--exclude=./dev/*", "--no-same-owner"],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SandboxError(f"unpacking the root file system failed: {done.stderr.strip()[-2000:]}")
        (unpacked / "workspace").mkdir(exist_ok=True)  # the mount point of the working directory
        (unpacked / DONE_MARK).write_text(recipe_hash() + "\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        unpacked.rename(target)
    return RootBuild(target, built=True, seconds=time.perf_counter() - start)
