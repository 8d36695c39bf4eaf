"""The reaper: remove sandbox containers, temporary directories and lease files whose owner is gone.

Which resources are reaped is :mod:`rewardlab.leases`' rule: the owner process no longer exists
(or its lease expired); never another live process's resources, never another program's
containers (only those labelled ``rewardlab.sandbox=1`` and carrying a RewardLab owner), never an
owner on another host. ``rewardlab sandbox gc`` runs it; every sandbox and ``rewardlab serve``
run it when they start (at most once per :data:`REAP_PERIOD` seconds per process).
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardlab.leases import (
    LEASE_LABEL,
    OWNER_LABEL,
    SIDECAR_SUFFIX,
    Owner,
    lease_dir,
    lease_expired,
    owner_state,
    remove_owned_tempdir,
)

SANDBOX_LABEL = "rewardlab.sandbox"
"""Every RewardLab sandbox container carries ``rewardlab.sandbox=1``."""

REAP_PERIOD = 60.0
"""Seconds between two automatic reaps in one process (``rewardlab sandbox gc`` always reaps)."""


@dataclass
class ReapReport:
    """What one reap removed, and what it left because no owner could be read."""

    containers: list[str] = field(default_factory=list)
    temp_dirs: list[str] = field(default_factory=list)
    lease_files: list[str] = field(default_factory=list)
    unowned_containers: int = 0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"removed {len(self.containers)} container(s), {len(self.temp_dirs)} temporary dir(s), "
            f"{len(self.lease_files)} lease file(s); left {self.unowned_containers} container(s) without an owner"
        )


def orphaned(owner_token: str | None, lease_id: str | None) -> bool:
    """True when a resource with these owner and lease labels is to be reaped (module docstring)."""
    owner = Owner.parse(owner_token or "")
    if owner is None:
        return False
    state = owner_state(owner)
    return state == "gone" or (state == "alive" and lease_id is not None and lease_expired(lease_id))


def reap_containers(client: Any, report: ReapReport) -> None:
    """Remove the RewardLab sandbox containers whose owner is gone (one listing call, then removals)."""
    listed = client.api.containers(all=True, filters={"label": f"{SANDBOX_LABEL}=1"})
    for entry in listed:
        labels = entry.get("Labels") or {}
        if Owner.parse(labels.get(OWNER_LABEL, "")) is None:
            report.unowned_containers += 1
            continue
        if not orphaned(labels.get(OWNER_LABEL), labels.get(LEASE_LABEL)):
            continue
        try:
            client.api.remove_container(entry["Id"], force=True)
        except Exception as exc:  # NotFound when it removed itself meanwhile; anything else is reported
            if "No such container" not in str(exc) and "404" not in str(exc):
                report.errors.append(f"container {entry['Id'][:12]}: {exc}")
                continue
        report.containers.append(entry["Id"][:12])


def reap_temp_dirs(root: Path, report: ReapReport) -> None:
    """Remove ``rewardlab-*`` directories under ``root`` whose sidecar names a gone owner."""
    for sidecar in root.glob(f"rewardlab-*{SIDECAR_SUFFIX}"):
        try:
            record = json.loads(sidecar.read_text())
        except (OSError, ValueError):
            continue  # being written, or not ours
        if not isinstance(record, dict) or not orphaned(record.get("owner"), record.get("lease")):
            continue
        directory = Path(str(sidecar)[: -len(SIDECAR_SUFFIX)])
        remove_owned_tempdir(directory)
        report.temp_dirs.append(str(directory))


def reap_lease_files(report: ReapReport) -> None:
    """Delete the lease files of owners that are gone."""
    directory = lease_dir()
    if not directory.is_dir():
        return
    for path in directory.glob("*.json"):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            owner = Owner.parse(json.loads(path.read_text()).get("owner", ""))
            if owner is not None and owner_state(owner) == "gone":
                path.unlink()
                report.lease_files.append(path.name)


def reap(*, client: Any = None, docker: bool = True, temp_root: Path | None = None) -> ReapReport:
    """Reap everything whose owner is gone: containers (when ``docker`` and an engine answers),
    temporary directories under ``temp_root`` (default ``tempfile.gettempdir()``) and lease files."""
    report = ReapReport()
    reap_temp_dirs(Path(temp_root or tempfile.gettempdir()), report)
    reap_lease_files(report)
    if docker:
        try:
            if client is None:
                from rewardlab.sandbox.image import docker_client

                own = docker_client(timeout=5)
                try:
                    reap_containers(own, report)
                finally:
                    own.close()
            else:
                reap_containers(client, report)
        except Exception as exc:  # no SDK, no engine: nothing of Docker's to reap from here
            report.errors.append(f"docker: {type(exc).__name__}: {exc}")
    return report


_last_reap: dict[bool, float] = {}
_reap_lock = threading.Lock()


def reap_soon(*, client: Any = None, docker: bool = True) -> ReapReport | None:
    """:func:`reap`, at most once per :data:`REAP_PERIOD` in this process for each kind of call (with
    and without ``docker``); ``None`` when skipped."""
    with _reap_lock:
        now = time.monotonic()
        if now - _last_reap.get(docker, -REAP_PERIOD) < REAP_PERIOD:
            return None
        _last_reap[docker] = now
    return reap(client=client, docker=docker)


__all__ = ["REAP_PERIOD", "SANDBOX_LABEL", "ReapReport", "orphaned", "reap", "reap_soon"]
