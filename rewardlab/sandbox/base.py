"""What every sandbox backend shares: resource limits, the run result, and the Sandbox protocol.

A sandbox runs one command on a directory of files with a wall-clock timeout and resource
limits, and reports what happened. Backends (:class:`~rewardlab.sandbox.LocalSandbox`,
:class:`~rewardlab.sandbox.DockerSandbox`) differ in how they contain the command, never in
this interface.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Protocol, runtime_checkable

from rewardlab.errors import ConfigError

GiB = 1 << 30
MiB = 1 << 20

#: Values of :attr:`SandboxResult.killed_reason`.
KILLED_REASONS: tuple[str, ...] = (
    "timeout",
    "cpu_limit",
    "memory_limit",
    "process_limit",
    "file_size_limit",
    "output_limit",
    "signal",
)


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run. Every field must be positive.

    Attributes:
        cpu_seconds: CPU time per process (RLIMIT_CPU); the process gets SIGXCPU, then SIGKILL.
        memory_bytes: Address space per process (RLIMIT_AS locally, the cgroup limit in Docker).
        max_processes: Processes and threads the run may add (RLIMIT_NPROC headroom, Docker pids limit).
        file_size_bytes: Largest file the run may write (RLIMIT_FSIZE); larger writes fail with EFBIG.
        open_files: Open file descriptors per process (RLIMIT_NOFILE).
        output_bytes: Stdout and stderr kept each; the rest is discarded and counted.
    """

    cpu_seconds: int = 20
    memory_bytes: int = 2 * GiB
    max_processes: int = 64
    file_size_bytes: int = 64 * MiB
    open_files: int = 256
    output_bytes: int = 1 * MiB

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_bytes", "max_processes", "file_size_bytes", "open_files", "output_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"Limits.{name} must be a positive int, got {value!r}")


@dataclass(frozen=True)
class SandboxResult:
    """What one sandboxed run did.

    Attributes:
        stdout: Captured standard output (UTF-8, invalid bytes replaced), at most ``output_bytes``.
        stderr: Captured standard error, same rules.
        exit_code: The command's exit status; ``-N`` when it died of signal N; ``None`` when it
            was killed on timeout.
        timed_out: The wall-clock timeout expired and the run was killed with all its processes.
        killed_reason: Why the run stopped at a limit, one of :data:`KILLED_REASONS`, else ``None``.
            Limits that make a call fail rather than kill (memory, process count, file size)
            are recognised from the command's error output.
        duration: Wall-clock seconds.
        backend: ``"local"`` or ``"docker"``.
        isolation: How the run was contained (``"bwrap"``, ``"unshare"``, ``"none"``, ``"docker"``).
        warnings: Loud notes on containment that could not be applied (e.g. no network isolation).
        output_truncated: Bytes of stdout and stderr that were discarded.
        outputs: The files named in ``run(..., outputs=...)`` as the run left them, read after every
            process of the run is gone: ``bytes`` for a regular file (at most ``output_bytes``),
            ``None`` for a path that exists but is not a regular file (a link, a directory);
            paths that do not exist are absent.
    """

    stdout: str
    stderr: str
    exit_code: int | None
    timed_out: bool
    killed_reason: str | None
    duration: float
    backend: str
    isolation: str
    warnings: tuple[str, ...] = ()
    output_truncated: int = 0
    outputs: Mapping[str, bytes | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """The command exited with status 0 within its limits."""
        return self.exit_code == 0 and not self.timed_out


Command = str | Sequence[str]
FileMap = Mapping[str, str | bytes]


@runtime_checkable
class Sandbox(Protocol):
    """Runs untrusted commands. ``cmd`` is an argv list, or a string run with ``/bin/sh -c``.

    ``files`` (relative path -> content) are written to a fresh working directory that is
    removed afterwards; ``workdir`` instead names an existing host directory to run in
    (``LocalSandbox`` runs in it; ``DockerSandbox`` runs on a copy and discards changes).
    The working directory is always seen by the command as :data:`WORKSPACE`. ``outputs`` names
    files (relative to it) to return in :attr:`SandboxResult.outputs`, in every backend alike.
    """

    backend: str

    def run(
        self,
        cmd: Command,
        *,
        files: FileMap | None = None,
        workdir: str | Path | None = None,
        timeout: float = 10.0,
        limits: Limits | None = None,
        env: Mapping[str, str] | None = None,
        outputs: Sequence[str] = (),
    ) -> SandboxResult: ...

    def close(self) -> None: ...


#: Where the command sees its working directory (bubblewrap and Docker).
WORKSPACE = "/workspace"


@dataclass
class OutputBuffer:
    """Keeps the first ``limit`` bytes written to it and counts the rest."""

    limit: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def feed(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


_ERROR_MARKERS: tuple[tuple[str, str], ...] = (
    ("MemoryError", "memory_limit"),
    ("Cannot allocate memory", "memory_limit"),
    ("std::bad_alloc", "memory_limit"),
    ("File too large", "file_size_limit"),
    ("File size limit exceeded", "file_size_limit"),
    ("fork: retry: Resource temporarily unavailable", "process_limit"),
    ("fork: Resource temporarily unavailable", "process_limit"),
    ("Cannot fork", "process_limit"),
    ("BlockingIOError: [Errno 11] Resource temporarily unavailable", "process_limit"),
    ("can't start new thread", "process_limit"),
)

_SIGNAL_REASONS = {24: "cpu_limit", 25: "file_size_limit", 9: "signal", 11: "memory_limit"}


def classify(exit_code: int | None, timed_out: bool, stderr: str, dropped: int) -> str | None:
    """The :data:`KILLED_REASONS` entry that explains a run, or ``None`` for an ordinary exit."""
    if timed_out:
        return "timeout"
    if exit_code is not None and exit_code < 0:
        return _SIGNAL_REASONS.get(-exit_code, "signal")
    if exit_code or "limit exceeded" in stderr:
        for marker, reason in _ERROR_MARKERS:
            if marker in stderr:
                return reason
    if dropped:
        return "output_limit"
    return None


def check_outputs(outputs: Sequence[str]) -> list[str]:
    """Validate ``outputs``: relative POSIX paths that stay inside the working directory."""
    checked = []
    for name in outputs:
        path = PurePosixPath(str(name))
        if not str(name) or path.is_absolute() or ".." in path.parts:
            raise ConfigError(f"outputs must be relative paths inside the working directory, got {name!r}")
        checked.append(path.as_posix())
    return checked


def read_outputs(root: Path, names: Sequence[str], limit: int) -> dict[str, bytes | None]:
    """The ``outputs`` of a run that worked in the host directory ``root`` (links are not followed)."""
    found: dict[str, bytes | None] = {}
    for name in names:
        try:
            fd = os.open(root / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            continue
        except OSError:
            found[name] = None
            continue
        try:
            found[name] = os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
        finally:
            os.close(fd)
    return found


def check_run_arguments(cmd: Command, files: FileMap | None, workdir: str | Path | None, timeout: float) -> list[str]:
    """Validate the arguments every backend's ``run`` takes; return ``cmd`` as an argv list
    (a string runs through ``/bin/sh -c``)."""
    if files is not None and workdir is not None:
        raise ConfigError("pass either files (a fresh directory) or workdir (an existing one), not both")
    if not timeout or timeout <= 0:
        raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
    argv = ["/bin/sh", "-c", cmd] if isinstance(cmd, str) else [str(c) for c in cmd]
    if not argv:
        raise ConfigError("cmd is empty")
    return argv
