"""LocalSandbox: run untrusted commands on this machine, contained as far as the host allows.

Containment, strongest available first (chosen once per process, see :func:`isolation_modes`):

``bwrap`` (bubblewrap)
    New PID, network, IPC and UTS namespaces; ``--die-with-parent``. With ``root`` (a root file
    system directory, normally the Debian root of :mod:`rewardlab.sandbox.rootfs`, which holds
    the same files as the Docker image) that directory is bound read-only as ``/``: the command
    sees no file of the host at all. Without it, the root is a read-only tmpfs into which only an
    allow-list of the host is bound read-only (``/usr``, the ``/bin`` and ``/lib*`` links, the
    Python installation and virtual environment that run the tests, the few ``/etc`` files the
    dynamic linker needs, plus ``read_only_paths``). Either way ``/tmp`` is a fresh tmpfs,
    ``/proc`` belongs to the new PID namespace, ``/dev`` is minimal and the working directory is
    bound read-write at ``/workspace``.
``unshare``
    ``unshare --net --pid --fork --kill-child``: no network and a PID namespace whose processes
    all die with the run, but the host file system is visible (with the run's uid's rights).
``none``
    Only rlimits, a scrubbed environment and the process group; every result carries a loud
    warning that the network and the file system are not isolated.

In every mode: rlimits (CPU seconds, address space, processes, file size, open files, no core
files), a fresh session and process group that is SIGKILLed as a whole after the run or on
timeout, an environment built from scratch (no host variables), and output capped at
``Limits.output_bytes``. When the host process is root the command runs as ``nobody`` (uid
65534) so that the process limit applies (the kernel exempts root from RLIMIT_NPROC).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from rewardlab.errors import ConfigError, did_you_mean
from rewardlab.leases import owned_temporary_directory
from rewardlab.reaper import reap_soon
from rewardlab.sandbox.base import (
    WORKSPACE,
    Command,
    FileMap,
    Limits,
    OutputBuffer,
    SandboxResult,
    check_outputs,
    check_run_arguments,
    classify,
    read_outputs,
)

Isolation = Literal["auto", "bwrap", "unshare", "none"]
ISOLATIONS: tuple[str, ...] = ("auto", "bwrap", "unshare", "none")
NOBODY = 65534
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "passwd", "group", "nsswitch.conf")
_NO_ISOLATION_WARNING = (
    "WARNING: sandbox has NO network or file-system isolation (neither bubblewrap nor "
    "unshare works on this host); only rlimits, a scrubbed environment and process-group "
    "kill apply. Install bubblewrap to contain untrusted code."
)
_UNSHARE_WARNING = (
    "WARNING: bubblewrap is unavailable; the sandbox has no network and its own PID namespace "
    "(unshare) but the host file system is visible to the command."
)

_ROOT_WARNING = (
    "WARNING: the sandboxed command runs as root, so the process limit does not apply: the "
    "unprivileged uid cannot reach the Python installation {python} outside bubblewrap."
)


def _reachable_by_others(path: str) -> bool:
    """Whether a uid with no special rights can traverse to and execute ``path``."""
    real = Path(path).resolve()
    for parent in real.parents:
        if not os.stat(parent).st_mode & 0o001:
            return False
    return bool(os.stat(real).st_mode & 0o005)


def _works(argv: Sequence[str]) -> bool:
    try:
        return subprocess.run(list(argv), capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@functools.cache
def isolation_modes() -> tuple[str, ...]:
    """The containment modes that work on this host, strongest first; always ends with ``"none"``."""
    modes = []
    bwrap = shutil.which("bwrap")
    if bwrap and _works([bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--die-with-parent", "true"]):
        modes.append("bwrap")
    unshare = shutil.which("unshare")
    if unshare:
        user = [] if os.geteuid() == 0 else ["--map-root-user"]
        if _works([unshare, *user, "--net", "--pid", "--fork", "--kill-child", "true"]):
            modes.append("unshare")
    modes.append("none")
    return tuple(modes)


def _count_processes(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += 1
    return count


def _python_paths() -> list[str]:
    """Directories the sandboxed Python needs: installation, virtual env, and their real paths."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        with contextlib.suppress(KeyError):
            paths.add(sysconfig.get_paths()[key])
    paths.add(str(Path(sys.executable).parent))
    resolved = {str(Path(p).resolve()) for p in paths if p}
    kept: list[str] = []
    for path in sorted(p for p in paths | resolved if p and os.path.exists(p) and not p.startswith("/usr/")):
        if not any(path == k or path.startswith(k + "/") for k in kept):
            kept.append(path)
    return kept


class LocalSandbox:
    """Runs commands on this host under rlimits and the strongest isolation available.

    Args:
        limits: Default :class:`Limits` of each run.
        isolation: ``"auto"`` (strongest available), or require ``"bwrap"``, ``"unshare"`` or ``"none"``.
        read_only_paths: Extra host paths made visible read-only under bubblewrap.
        hidden_paths: Paths inside the visible ones that are covered under bubblewrap (a directory
            by an empty tmpfs, a file by an empty file). By default the ``rewardlab`` package itself,
            so that a pip-installed RewardLab does not show its tasks' reference solutions to
            sandboxed code.
        run_as: The uid (and gid) to run as when the host process is root (default ``nobody``);
            ``None`` keeps root, which disables the process limit.
        root: A root file system directory to mount read-only as ``/`` (needs bubblewrap; see
            :func:`rewardlab.sandbox.rootfs.build_root`). Commands then use its interpreter,
            ``python3``; :attr:`python` names it.

    Example:
        >>> sandbox = LocalSandbox()
        >>> sandbox.run(["python", "-c", "print(6 * 7)"], timeout=10).stdout
        '42\\n'
    """

    backend = "local"

    def __init__(
        self,
        *,
        limits: Limits | None = None,
        isolation: Isolation = "auto",
        read_only_paths: Sequence[str | Path] = (),
        hidden_paths: Sequence[str | Path] | None = None,
        run_as: int | None = NOBODY,
        root: str | Path | None = None,
    ):
        if isolation not in ISOLATIONS:
            raise ConfigError(
                f"isolation must be one of {ISOLATIONS}, got {isolation!r}" + did_you_mean(isolation, ISOLATIONS)
            )
        available = isolation_modes()
        if isolation == "auto":
            isolation = available[0]  # type: ignore[assignment]
        elif isolation not in available:
            raise ConfigError(f"isolation {isolation!r} does not work on this host; available: {list(available)}")
        self.isolation: str = isolation
        if root is not None and (isolation != "bwrap" or read_only_paths):
            raise ConfigError(
                "a root file system needs bubblewrap (apt-get install bubblewrap) and takes no read_only_paths; "
                f"isolation here is {isolation!r}"
            )
        if root is not None and not (Path(root) / "usr" / "bin").is_dir():
            raise ConfigError(
                f"root {str(root)!r} is not a root file system (no usr/bin); build one: rewardlab sandbox build-root"
            )
        reap_soon(docker=False)  # working directories of processes that died without removing them
        #: The root file system mounted as ``/`` (``None``: an allow-list of the host's files).
        self.root = str(Path(root).resolve()) if root is not None else None
        #: The Python interpreter commands should call inside this sandbox.
        self.python = "python3" if self.root is not None else sys.executable
        self.limits = limits or Limits()
        self.read_only_paths = [str(Path(p).resolve()) for p in read_only_paths]
        if hidden_paths is None:
            hidden_paths = [Path(__file__).resolve().parents[1]]
        self.hidden_paths = [str(Path(p).resolve()) for p in hidden_paths]
        notes = []
        if isolation == "none":
            notes.append(_NO_ISOLATION_WARNING)
            warnings.warn(_NO_ISOLATION_WARNING, RuntimeWarning, stacklevel=2)
        elif isolation == "unshare":
            notes.append(_UNSHARE_WARNING)
        self.uid = run_as if os.geteuid() == 0 else None
        if self.uid is not None and isolation != "bwrap" and not _reachable_by_others(sys.executable):
            # without bubblewrap's private view the unprivileged uid could not even start Python
            notes.append(_ROOT_WARNING.format(python=sys.executable))
            self.uid = None
        if self.uid is not None and not shutil.which("setpriv"):
            raise ConfigError("running as root needs util-linux's setpriv to drop to an unprivileged uid")
        #: False when the process limit cannot apply (the command runs as root).
        self.enforces_process_limit = os.geteuid() != 0 or self.uid is not None
        self._process_baseline = _count_processes(self.uid if self.uid is not None else os.getuid())
        self.warnings: tuple[str, ...] = tuple(notes)
        self._python_paths = _python_paths()

    # ------------------------------------------------------------------ public API
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
    ) -> SandboxResult:
        """Run ``cmd`` in ``workdir`` (or a fresh directory holding ``files``); see :class:`Sandbox`."""
        argv = check_run_arguments(cmd, files, workdir, timeout)
        names = check_outputs(outputs)
        limits = limits or self.limits
        with contextlib.ExitStack() as stack:
            if workdir is None:
                workdir = stack.enter_context(owned_temporary_directory("rewardlab-sandbox-"))
                write_files(workdir, files or {})
            workdir = Path(workdir)
            if not workdir.is_dir():
                raise ConfigError(f"workdir {str(workdir)!r} is not a directory")
            self._hand_over(workdir)
            result = self._execute(argv, workdir, float(timeout), limits, dict(env or {}))
            if names:  # every process of the run is dead by now (its process group was killed)
                result = dataclasses.replace(result, outputs=read_outputs(workdir, names, limits.output_bytes))
            return result

    def close(self) -> None:
        """Nothing persists between runs; present for the Sandbox protocol."""

    # ------------------------------------------------------------------ internals
    def _hand_over(self, workdir: Path) -> None:
        """Give the unprivileged uid ownership of the working tree so the command may write there."""
        if self.uid is None:
            return
        for root, dirs, names in os.walk(workdir):
            for name in [".", *dirs, *names]:
                path = os.path.join(root, name)
                with contextlib.suppress(OSError):
                    if os.lstat(path).st_uid != self.uid:
                        os.lchown(path, self.uid, self.uid)

    def _environment(self, workdir: Path, extra: dict[str, str]) -> dict[str, str]:
        inside = WORKSPACE if self.isolation == "bwrap" else str(workdir)
        tmp = "/tmp" if self.isolation == "bwrap" else inside
        system_path = "/usr/local/bin:/usr/bin:/bin"
        env = {
            "PATH": system_path if self.root is not None else f"{Path(sys.executable).parent}:{system_path}",
            "HOME": tmp,
            "TMPDIR": tmp,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "PYTHONHASHSEED": "0",
        }
        env.update(extra)
        return env

    def _wrap(self, argv: list[str], workdir: Path) -> list[str]:
        drop = []
        if self.uid is not None:
            drop = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--"]
        if self.isolation == "bwrap":
            return [*self._bwrap_args(workdir), *drop, *argv]
        if self.isolation == "unshare":
            user = [] if os.geteuid() == 0 else ["--map-root-user"]
            # unshare reports a child killed by a signal as exit status 1; a shell keeps it as 128 + N
            status = ["/bin/sh", "-c", '"$@"; exit $?', "sh"]
            return ["unshare", *user, "--net", "--pid", "--fork", "--kill-child", *drop, *status, *argv]
        return [*drop, *argv]

    def _bwrap_args(self, workdir: Path) -> list[str]:
        args = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
        if self.root is not None:
            args += ["--ro-bind", self.root, "/", "--proc", "/proc", "--dev", "/dev"]
            args += [
                "--tmpfs",
                "/tmp",
                "--chmod",
                "1777",
                "/tmp",
                "--bind",
                str(workdir),
                WORKSPACE,
                "--chdir",
                WORKSPACE,
            ]
            return args + self._capabilities()
        args += ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            host = Path("/") / name
            if host.is_symlink():
                args += ["--symlink", os.readlink(host), str(host)]
            elif host.is_dir():
                args += ["--ro-bind", str(host), str(host)]
        args += ["--perms", "0755", "--dir", "/etc"]
        for name in _ETC_FILES:  # what the dynamic linker and getpwuid need; not /etc/shadow
            if os.path.exists(f"/etc/{name}"):
                args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--chmod", "1777", "/tmp"]
        created: set[str] = {"/", "/usr", "/etc", "/tmp", "/proc", "/dev"}
        for path in [*self._python_paths, *self.read_only_paths]:
            for parent in reversed(Path(path).parents):
                if str(parent) not in created:
                    created.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            created.add(path)
            args += ["--ro-bind", path, path]
        visible = [*self._python_paths, *self.read_only_paths]
        for path in self.hidden_paths:
            if any(path == v or path.startswith(v + "/") for v in visible):
                if os.path.isdir(path):
                    args += ["--tmpfs", path]
                elif os.path.isfile(path):  # a single-module package: an empty file in its place
                    args += ["--ro-bind", "/dev/null", path]
        args += ["--bind", str(workdir), WORKSPACE, "--chdir", WORKSPACE, "--remount-ro", "/"]
        return args + self._capabilities()

    def _capabilities(self) -> list[str]:
        """What ``setpriv`` needs inside bubblewrap to drop to the unprivileged uid."""
        return ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] if self.uid is not None else []

    def _rlimits(self, limits: Limits) -> list[tuple[int, tuple[int, int]]]:
        nproc = self._process_baseline + limits.max_processes
        return [
            (resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1)),
            (resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes)),
            (resource.RLIMIT_NPROC, (nproc, nproc)),
            (resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes)),
            (resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files)),
            (resource.RLIMIT_CORE, (0, 0)),
        ]

    def _execute(
        self, argv: list[str], workdir: Path, timeout: float, limits: Limits, env: dict[str, str]
    ) -> SandboxResult:
        rlimits = self._rlimits(limits)

        def preexec() -> None:  # runs in the child between fork and exec
            for which, value in rlimits:
                resource.setrlimit(which, value)

        start = time.perf_counter()
        proc = subprocess.Popen(
            self._wrap(argv, workdir),
            cwd=str(workdir),
            env=self._environment(workdir, env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
            close_fds=True,
        )
        stdout, stderr = OutputBuffer(limits.output_bytes), OutputBuffer(limits.output_bytes)
        timed_out = False
        try:
            timed_out = _pump(proc, stdout, stderr, deadline=start + timeout)
        finally:
            _kill_group(proc)
        exit_code = None if timed_out else proc.returncode
        if exit_code is not None and exit_code > 128 and self.isolation != "none":
            exit_code = -(exit_code - 128)  # bwrap and unshare report a child's death by signal N as 128 + N
        err = stderr.text()
        dropped = stdout.dropped + stderr.dropped
        return SandboxResult(
            stdout=stdout.text(),
            stderr=err,
            exit_code=exit_code,
            timed_out=timed_out,
            killed_reason=classify(exit_code, timed_out, err, dropped),
            duration=time.perf_counter() - start,
            backend=self.backend,
            isolation=self.isolation,
            warnings=self.warnings,
            output_truncated=dropped,
        )


def _pump(proc: subprocess.Popen, stdout: OutputBuffer, stderr: OutputBuffer, *, deadline: float) -> bool:
    """Read both pipes until the command exits or the deadline passes; True on timeout.

    Once the command itself has exited, pipes still held open by leftover processes are read
    for a short grace period only.
    """
    assert proc.stdout is not None and proc.stderr is not None, "the command runs with stdout=PIPE, stderr=PIPE"
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, stdout)
    selector.register(proc.stderr, selectors.EVENT_READ, stderr)
    grace_end = None
    try:
        while selector.get_map():
            now = time.perf_counter()
            if proc.poll() is not None and grace_end is None:
                grace_end = now + 0.05
            end = deadline if grace_end is None else min(deadline, grace_end)
            if now >= end:
                break
            for key, _ in selector.select(timeout=min(0.05, end - now)):
                chunk = os.read(key.fd, 65536)
                if chunk:
                    key.data.feed(chunk)
                else:
                    selector.unregister(key.fileobj)
        if proc.poll() is None:
            remaining = deadline - time.perf_counter()
            try:
                proc.wait(timeout=max(0.0, remaining))
            except subprocess.TimeoutExpired:
                return True
        return False
    finally:
        selector.close()
        proc.stdout.close()
        proc.stderr.close()


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the run's process group and every descendant still alive, and wait until they are gone.

    Descendants that left the group (``setsid``) are found through the process tree while the
    run's first process still lives; under bubblewrap and unshare the PID namespace dies with
    it anyway, and this wait makes the teardown complete before ``run`` returns.
    """
    descendants = []
    if proc.poll() is None:
        with contextlib.suppress(Exception):
            import psutil

            descendants = psutil.Process(proc.pid).children(recursive=True)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    for child in descendants:
        with contextlib.suppress(Exception):
            child.kill()
    proc.wait()
    if descendants:
        with contextlib.suppress(Exception):
            import psutil

            psutil.wait_procs(descendants, timeout=2)


def write_files(root: str | Path, files: FileMap) -> None:
    """Write ``files`` (relative POSIX path -> text or bytes) under ``root``; paths may not escape it."""
    root = Path(root).resolve()
    for name, content in files.items():
        target = (root / name).resolve()
        if root not in target.parents:
            raise ConfigError(f"file path {name!r} escapes the working directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
