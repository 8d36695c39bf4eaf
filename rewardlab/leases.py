"""Leases: what RewardLab makes outside its own process names its owner, and goes when the owner does.

A resource outside the process — a sandbox container, a temporary directory — cannot rely on the
process closing it: a trainer worker is ``SIGKILL``-ed, OOM-killed or pre-empted without warning.
So each carries the :class:`Owner` that made it (host, boot id, pid and the process's start time,
which together name one process for ever: a pid reused by another process has another start
time) and the id of the owner's :class:`Lease`. The reaper (:mod:`rewardlab.reaper`) removes a
resource when its owner is gone, and only then::

    gone(owner)  = owner.host == this host and (owner.boot_id != this boot
                   or no process owner.pid or its start time != owner.started or it is a zombie)
    expired(res) = its lease has a time-to-live and  now > renewed_at + ttl
    reaped(res)  = gone(owner) or expired(res)

A resource of another host, or of a live owner whose lease has no time-to-live, is never touched;
resources without an owner (another program's, or made before leases) are never touched either.

A lease with a time-to-live (``rewardlab serve --lease-ttl S``) is a file under :func:`lease_dir`
that a daemon thread of the owner renews every ``ttl / 3`` seconds: an owner that hangs (stopped,
deadlocked) stops renewing, and its resources are reaped ``ttl`` seconds later.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

OWNER_LABEL = "rewardlab.owner"
"""The container label holding :meth:`Owner.token`."""

LEASE_LABEL = "rewardlab.lease"
"""The container label holding the owner's lease id."""

SIDECAR_SUFFIX = ".lease"
"""A temporary directory ``D`` made by :func:`owned_tempdir` has its owner in the file ``D.lease`` beside it."""

OwnerState = Literal["alive", "gone", "unknown"]


@dataclass(frozen=True)
class Owner:
    """One process, named for ever: ``pid`` alone is reused, ``(boot_id, pid, started)`` is not."""

    host: str
    boot_id: str
    pid: int
    started: int
    """The process's start time in clock ticks after boot (``/proc/<pid>/stat``, field 22)."""

    @property
    def token(self) -> str:
        """``host/boot_id/pid/started``, the form stored in labels and sidecar files."""
        return f"{self.host}/{self.boot_id}/{self.pid}/{self.started}"

    @classmethod
    def parse(cls, token: str) -> Owner | None:
        """The owner a token names, or ``None`` for anything else (a label another program set).

        Example:
            >>> Owner.parse("box/5e1d/42/1234")
            Owner(host='box', boot_id='5e1d', pid=42, started=1234)
            >>> Owner.parse("not an owner") is None
            True
        """
        parts = token.split("/")
        if len(parts) != 4 or not parts[2].isdigit() or not parts[3].isdigit() or not parts[0] or not parts[1]:
            return None
        return cls(parts[0], parts[1], int(parts[2]), int(parts[3]))


def boot_id() -> str:
    """This boot's id (``/proc/sys/kernel/random/boot_id``); ``"unknown"`` where there is none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or "unknown"
    except OSError:
        return "unknown"


def _process_start(pid: int) -> tuple[int, str] | None:
    """``(start time in ticks, state letter)`` of a live process, or ``None`` when there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the name in parentheses may hold spaces
    return int(fields[19]), fields[0]


def current_owner() -> Owner:
    """The calling process (computed afresh after a fork)."""
    pid = os.getpid()
    started = _process_start(pid)
    return Owner(socket.gethostname(), boot_id(), pid, started[0] if started else 0)


def owner_state(owner: Owner) -> OwnerState:
    """``"gone"`` when the owner process no longer exists (see the module docstring), ``"alive"``
    when it does, ``"unknown"`` for an owner on another host (never judged from here)."""
    if owner.host != socket.gethostname():
        return "unknown"
    if owner.boot_id != boot_id():
        return "gone"
    found = _process_start(owner.pid)
    if found is None or found[0] != owner.started or found[1] == "Z":
        return "gone"
    return "alive"


def lease_dir() -> Path:
    """Where lease files live: ``$REWARDLAB_LEASE_DIR`` or ``~/.cache/rewardlab/leases``."""
    configured = os.environ.get("REWARDLAB_LEASE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "rewardlab" / "leases"


class Lease:
    """The lease every resource of this process names; see :func:`current_lease`.

    Args:
        ttl: Seconds the lease lasts unless renewed (``None``: as long as the owner lives). With a
            ttl, a daemon thread rewrites the lease file every ``ttl / 3`` seconds.
    """

    def __init__(self, ttl: float | None = None):
        if ttl is not None and not ttl > 0:
            raise ValueError(f"a lease's ttl must be positive seconds, got {ttl!r}")
        self.owner = current_owner()
        self.ttl = ttl
        self.id = self.owner.token.replace("/", "-")
        self._stop = threading.Event()
        if ttl is not None:
            self.renew()
            threading.Thread(target=self._renew_forever, name="rewardlab-lease", daemon=True).start()

    @property
    def path(self) -> Path:
        return lease_dir() / f"{self.id}.json"

    def renew(self) -> None:
        """Write the lease file afresh (atomically): ``renewed_at`` is now."""
        record = {"owner": self.owner.token, "ttl": self.ttl, "renewed_at": time.time()}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(record))
        partial.replace(self.path)

    def release(self) -> None:
        """Stop renewing and delete the lease file (its resources then live as long as the owner)."""
        self._stop.set()
        with contextlib.suppress(OSError):
            self.path.unlink()

    def _renew_forever(self) -> None:
        assert self.ttl is not None
        while not self._stop.wait(self.ttl / 3):
            with contextlib.suppress(OSError):
                self.renew()


_lease: Lease | None = None
_lease_lock = threading.Lock()


def current_lease() -> Lease:
    """This process's lease (made on first use, without a ttl; made afresh in a forked child)."""
    global _lease
    with _lease_lock:
        if _lease is None or _lease.owner.pid != os.getpid():
            _lease = Lease()
        return _lease


def hold_lease(ttl: float | None) -> Lease:
    """Replace this process's lease by one with time-to-live ``ttl`` (what ``--lease-ttl`` does)."""
    global _lease
    with _lease_lock:
        if _lease is not None and _lease.owner.pid == os.getpid():
            _lease.release()
        _lease = Lease(ttl)
        return _lease


def lease_expired(lease_id: str, now: float | None = None) -> bool:
    """True when ``lease_id`` has a lease file with a ttl that was not renewed in time."""
    try:
        record = json.loads((lease_dir() / f"{lease_id}.json").read_text())
        ttl, renewed_at = record.get("ttl"), float(record["renewed_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return ttl is not None and (time.time() if now is None else now) > renewed_at + float(ttl)


def resource_labels() -> dict[str, str]:
    """The labels that name this process as a resource's owner."""
    lease = current_lease()
    return {OWNER_LABEL: lease.owner.token, LEASE_LABEL: lease.id}


def owned_tempdir(prefix: str) -> Path:
    """``tempfile.mkdtemp(prefix=prefix)`` with this process named its owner in the sidecar ``<dir>.lease``.

    The sidecar is written first, under a name the directory then takes, so that no directory
    exists whose owner cannot be read. Remove it with :func:`remove_owned_tempdir`."""
    lease = current_lease()
    fd, sidecar = tempfile.mkstemp(prefix=prefix, suffix=SIDECAR_SUFFIX)
    with os.fdopen(fd, "w") as handle:
        json.dump({"owner": lease.owner.token, "lease": lease.id}, handle)
    path = Path(sidecar[: -len(SIDECAR_SUFFIX)])
    path.mkdir(mode=0o700)
    return path


def remove_owned_tempdir(path: Path) -> None:
    """Remove a directory made by :func:`owned_tempdir`, then its sidecar. Safe to call twice."""
    shutil.rmtree(path, ignore_errors=True)
    with contextlib.suppress(OSError):
        Path(f"{path}{SIDECAR_SUFFIX}").unlink()


@contextlib.contextmanager
def owned_temporary_directory(prefix: str) -> Iterator[Path]:
    """:func:`owned_tempdir` as a context manager (``tempfile.TemporaryDirectory`` with an owner)."""
    path = owned_tempdir(prefix)
    try:
        yield path
    finally:
        remove_owned_tempdir(path)


__all__ = [
    "LEASE_LABEL",
    "OWNER_LABEL",
    "Lease",
    "Owner",
    "current_lease",
    "current_owner",
    "hold_lease",
    "lease_expired",
    "owned_tempdir",
    "owned_temporary_directory",
    "owner_state",
    "remove_owned_tempdir",
    "resource_labels",
]
