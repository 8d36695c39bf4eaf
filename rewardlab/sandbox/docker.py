"""DockerSandbox: run untrusted commands in locked-down containers through the docker SDK.

Every container has networking disabled, a memory limit (swap included), a pids limit, rlimits
(CPU seconds, file size, open files, no core files), a read-only root file system, all
capabilities dropped, ``no-new-privileges``, uid ``nobody``, and tmpfs mounts at ``/workspace``
and ``/tmp``. The image is :func:`~rewardlab.sandbox.image.default_image`, built locally from
Debian packages by ``rewardlab sandbox build-image`` (nothing is pulled).

Warm (the default): one container per episode. It is created on the first run, each run is an
``exec`` in it, and :meth:`DockerSandbox.restart` (an env's reset), :meth:`~DockerSandbox.close`
and garbage collection remove it. After each run (and again before the next) every process it left
behind is killed (``kill -9 -1`` as ``nobody``; the container's init, ``tini`` with a ``sleep``, runs as a
root without capabilities and is out of the runs' reach), ``/workspace`` and
``/tmp`` are emptied, and the working files are unpacked afresh from a tar stream, so a run
sees exactly what a new container would. A run that times out takes its container with it
(the next run starts a new one). ``warm=False`` gives one new container per run.

Infrastructure failures (no engine, no image, the engine going away mid-run) raise
:class:`~rewardlab.sandbox.image.SandboxError` with a message that says what to do; what the
command itself does is always a :class:`~rewardlab.sandbox.SandboxResult`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import shlex
import socket
import tarfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardlab.errors import ConfigError, require
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
)
from rewardlab.sandbox.image import BUILD_COMMAND, REPOSITORY, SandboxError, default_image, docker_client, image_exists

DEFAULT_IMAGE = default_image()

_PREPARE = (
    "kill -9 -1 2>/dev/null; "
    "rm -rf /workspace/* /workspace/.[!.]* /workspace/..?* /tmp/* /tmp/.[!.]* /tmp/..?* 2>/dev/null; "
    f"tar -x -C {WORKSPACE} -f -"
)
"""Run before every warm run: no process, file or temp file of the previous run survives."""

_OOM_COUNTER = "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"


def docker_engine_error(timeout: float = 3.0) -> str | None:
    """``None`` when a Docker engine answers a ping, else the reason it does not (for skip messages)."""
    try:
        docker_client(timeout=timeout).close()
    except (SandboxError, ImportError) as exc:
        return str(exc)
    return None


def _tar(files: Mapping[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = 0
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _read_tree(root: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def _oom_kills(text: str) -> int:
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill" and value.strip().isdigit():
            return int(value)
    return 0


class DockerSandbox:
    """Runs commands in locked-down containers, one warm container per episode (see the module docstring).

    Args:
        image: The image to run (default: the locally built :data:`DEFAULT_IMAGE`).
        limits: Default :class:`Limits` of each run.
        workspace_bytes: Size of the tmpfs holding the working directory.
        warm: Reuse one container across runs until :meth:`restart`; ``False``: a new one per run.
        client: An existing ``docker.DockerClient``; by default ``docker.from_env()``.

    Raises:
        MissingDependencyError: the ``docker`` SDK is not installed (``pip install 'rewardlab[swe]'``).
        SandboxError: no engine answers, or the image does not exist (the message says how to build it).
    """

    backend = "docker"
    isolation = "docker"

    def __init__(
        self,
        *,
        image: str = DEFAULT_IMAGE,
        limits: Limits | None = None,
        workspace_bytes: int = 256 << 20,
        warm: bool = True,
        client: Any = None,
    ):
        self._docker = require("docker", "swe")
        if not isinstance(image, str) or not image:
            raise ConfigError(f"image must be a non-empty image name, got {image!r}")
        self.image = image
        self.limits = limits or Limits()
        self.workspace_bytes = int(workspace_bytes)
        self.warm = bool(warm)
        self.client = client or docker_client()
        self._container: Any = None
        self._container_limits: Limits | None = None
        self._oom_seen = 0
        self._orphans: list[str] = []
        if not image_exists(self.client, image):
            ours = image.startswith(f"{REPOSITORY}:")
            hint = f"build it with: {BUILD_COMMAND}" if ours else "pull or build it first"
            raise SandboxError(f"the Docker image {image!r} does not exist; {hint}")

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
        """Run ``cmd`` on a copy of ``workdir`` (or on ``files``); see :class:`~rewardlab.sandbox.Sandbox`.

        ``outputs`` are read from the container after the run's processes are killed; a one-shot
        sandbox (``warm=False``) runs such a call in a container of its own that is removed after."""
        argv = check_run_arguments(cmd, files, workdir, timeout)
        names = check_outputs(outputs)
        limits = limits or self.limits
        if workdir is not None:
            tree = _read_tree(Path(workdir))
        else:
            tree = {k: v.encode("utf-8") if isinstance(v, str) else bytes(v) for k, v in (files or {}).items()}
        environment = {"HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", **dict(env or {})}
        try:
            if self.warm or names:
                result = self._run_warm(argv, _tar(tree), timeout, limits, environment)
                if names and not result.timed_out:
                    result = dataclasses.replace(result, outputs=self._read_outputs(names, limits.output_bytes))
                if not self.warm:
                    self._remove_container()
                return result
            return self._run_once(argv, _tar(tree), timeout, limits, environment)
        except SandboxError:
            raise
        except Exception as exc:  # requests, socket and Docker API errors: the engine is the problem
            self._forget_container()
            raise SandboxError(f"the Docker engine failed during a run: {type(exc).__name__}: {exc}") from None

    def restart(self) -> None:
        """Remove the warm container; the next run starts a new one (an env calls this at reset)."""
        self._remove_container()

    def close(self) -> None:
        """Remove the warm container (and any an engine failure left) and close the client. Safe to call twice."""
        self._remove_container()
        self._remove_orphans()
        with contextlib.suppress(Exception):
            self.client.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._remove_container()

    # ------------------------------------------------------------------ containers
    def _create(self, limits: Limits, command: list[str], **extra: Any) -> Any:
        Ulimit = self._docker.types.Ulimit
        return self.client.containers.create(
            self.image,
            command=command,
            network_mode="none",
            mem_limit=limits.memory_bytes,
            memswap_limit=limits.memory_bytes,
            pids_limit=limits.max_processes,
            read_only=True,
            tmpfs={WORKSPACE: f"rw,exec,mode=1777,size={self.workspace_bytes}", "/tmp": "rw,exec,mode=1777,size=64m"},
            working_dir="/",
            ulimits=[
                Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds + 1),
                Ulimit(name="fsize", soft=limits.file_size_bytes, hard=limits.file_size_bytes),
                Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
                Ulimit(name="core", soft=0, hard=0),
            ],
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            labels={"rewardlab.sandbox": "1"},
            detach=True,
            **{"user": "65534:65534", **extra},
        )

    def _warm_container(self, limits: Limits) -> Any:
        if self._container is not None and self._container_limits != limits:
            self._remove_container()
        if self._orphans:
            self._remove_orphans()
        if self._container is None:
            # Init (tini, reaping orphans) and its sleep run as a root without capabilities, so that the
            # runs (uid nobody) can kill everything of their own but not the container's keep-alive.
            container = self._create(limits, ["sleep", "infinity"], init=True, user="0:0")
            try:
                container.start()
            except Exception:
                with contextlib.suppress(Exception):
                    container.remove(force=True)
                raise
            self._container, self._container_limits, self._oom_seen = container, limits, 0
        return self._container

    def _remove_container(self) -> None:
        container, self._container = self._container, None
        if container is not None:
            with contextlib.suppress(Exception):
                container.remove(force=True)

    def _forget_container(self) -> None:
        """After an engine failure: forget the container, and remove it once the engine answers again."""
        container, self._container = self._container, None
        if container is not None:
            self._orphans.append(container.id)

    def _remove_orphans(self) -> None:
        """Remove containers left by an engine failure (kept for another try while removal fails)."""
        left = []
        for container_id in self._orphans:
            try:
                self.client.api.remove_container(container_id, force=True)
            except self._docker.errors.NotFound:
                pass
            except Exception:
                left.append(container_id)
        self._orphans = left

    # ------------------------------------------------------------------ runs
    def _run_warm(
        self, argv: list[str], archive: bytes, timeout: float, limits: Limits, environment: dict[str, str]
    ) -> SandboxResult:
        container = self._warm_container(limits)
        api = self.client.api
        # The wrapping shell survives its own kill -1: it reaps what the command left and keeps its status.
        script = f"{_PREPARE} || exit 125; cd {WORKSPACE}; {shlex.join(argv)} </dev/null; rc=$?; kill -9 -1; exit $rc"
        exec_id = api.exec_create(
            container.id, ["/bin/sh", "-c", script], stdin=True, user="65534:65534", environment=environment
        )["Id"]
        out, err = OutputBuffer(limits.output_bytes), OutputBuffer(limits.output_bytes)
        start = time.perf_counter()
        stream = api.exec_start(exec_id, socket=True)
        raw = getattr(stream, "_sock", stream)
        try:
            raw.sendall(archive)
            with contextlib.suppress(OSError):
                raw.shutdown(socket.SHUT_WR)
            timed_out = not _read_frames(raw, out, err, deadline=start + timeout)
        finally:
            stream.close()
        duration = time.perf_counter() - start
        exit_code: int | None = None
        if timed_out:
            self._remove_container()  # kills every process of the run
        else:
            exit_code = int(api.exec_inspect(exec_id).get("ExitCode", -1))
            if exit_code > 128:
                exit_code = -(exit_code - 128)
        oom = False
        if exit_code == -9:
            counter = _oom_kills(container.exec_run(["/bin/sh", "-c", _OOM_COUNTER]).output.decode(errors="replace"))
            oom, self._oom_seen = counter > self._oom_seen, counter
        return self._result(out, err, exit_code, timed_out, oom, duration)

    def _read_outputs(self, names: list[str], limit: int) -> dict[str, bytes | None]:
        """The named files of the warm container's workspace, through a tar stream (no process of
        the run is alive: the run's shell killed them all before it exited)."""
        script = f"cd {WORKSPACE} && tar -c -f - --ignore-failed-read -- " + " ".join(shlex.quote(n) for n in names)
        stdout, _ = self._container.exec_run(["/bin/sh", "-c", script], user="65534:65534", demux=True).output
        found: dict[str, bytes | None] = {}
        with contextlib.suppress(tarfile.TarError), tarfile.open(fileobj=io.BytesIO(stdout or b""), mode="r:") as tar:
            for member in tar:
                if member.name in names:
                    handle = tar.extractfile(member) if member.isreg() else None
                    found[member.name] = handle.read(limit) if handle is not None else None
        return found

    def _run_once(
        self, argv: list[str], archive: bytes, timeout: float, limits: Limits, environment: dict[str, str]
    ) -> SandboxResult:
        script = f"tar -x -C {WORKSPACE} -f - && cd {WORKSPACE} && exec {shlex.join(argv)}"
        container = self._create(limits, ["/bin/sh", "-c", script], stdin_open=True, environment=environment)
        start = time.perf_counter()
        timed_out = False
        try:
            stream = container.attach_socket(params={"stdin": 1, "stream": 1})
            container.start()
            raw = getattr(stream, "_sock", stream)
            raw.sendall(archive)
            with contextlib.suppress(OSError):
                raw.shutdown(socket.SHUT_WR)
            stream.close()
            try:
                status = container.wait(timeout=timeout)
                exit_code: int | None = int(status.get("StatusCode", -1))
            except Exception:  # requests' ReadTimeout / ConnectionError when the wait times out
                timed_out, exit_code = True, None
                with contextlib.suppress(Exception):
                    container.kill()
            duration = time.perf_counter() - start
            out, err = OutputBuffer(limits.output_bytes), OutputBuffer(limits.output_bytes)
            out.feed(container.logs(stdout=True, stderr=False))
            err.feed(container.logs(stdout=False, stderr=True))
            container.reload()
            oom = bool(container.attrs.get("State", {}).get("OOMKilled"))
        finally:
            with contextlib.suppress(Exception):
                container.remove(force=True)
        if exit_code is not None and exit_code > 128:
            exit_code = -(exit_code - 128)
        return self._result(out, err, exit_code, timed_out, oom, duration)

    def _result(
        self, out: OutputBuffer, err: OutputBuffer, exit_code: int | None, timed_out: bool, oom: bool, duration: float
    ) -> SandboxResult:
        stderr = err.text()
        dropped = out.dropped + err.dropped
        reason = "memory_limit" if oom and not timed_out else classify(exit_code, timed_out, stderr, dropped)
        return SandboxResult(
            stdout=out.text(),
            stderr=stderr,
            exit_code=exit_code,
            timed_out=timed_out,
            killed_reason=reason,
            duration=duration,
            backend=self.backend,
            isolation=self.isolation,
            output_truncated=dropped,
        )


def _read_frames(raw: socket.socket, out: OutputBuffer, err: OutputBuffer, *, deadline: float) -> bool:
    """Read Docker's multiplexed exec stream (8-byte headers: stream, 0, 0, 0, big-endian size)
    into ``out`` and ``err`` until it ends; False when ``deadline`` passed first."""
    pending = b""
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        raw.settimeout(remaining)
        try:
            chunk = raw.recv(1 << 16)
        except TimeoutError:
            return False
        if not chunk:
            return True
        pending += chunk
        while len(pending) >= 8:
            size = int.from_bytes(pending[4:8], "big")
            if len(pending) < 8 + size:
                break
            (err if pending[0] == 2 else out).feed(pending[8 : 8 + size])
            pending = pending[8 + size :]


__all__ = ["DEFAULT_IMAGE", "DockerSandbox", "docker_engine_error"]
