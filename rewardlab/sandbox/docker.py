"""DockerSandbox: run untrusted commands in a throwaway container through the docker SDK.

Each run creates one container from ``image`` with networking disabled, a memory limit (swap
included), a pids limit, rlimits (CPU seconds, file size, open files), a read-only root file
system, all capabilities dropped, ``no-new-privileges``, uid ``nobody``, and tmpfs mounts at
``/workspace`` and ``/tmp``. The working files are streamed into the container's stdin as a tar
archive and unpacked into the tmpfs before the command starts; changes the command makes are
discarded with the container, which is always removed (``force=True``) afterwards.

The image must provide ``sh`` and ``tar`` (and Python with pytest for the SWE env); the
default ``python:3.11-slim`` has Python but not pytest.
"""

from __future__ import annotations

import contextlib
import io
import shlex
import socket
import tarfile
import time
from collections.abc import Mapping
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
    check_run_arguments,
    classify,
)

DEFAULT_IMAGE = "python:3.11-slim"


def docker_engine_error(timeout: float = 3.0) -> str | None:
    """``None`` when a Docker engine answers a ping, else the reason it does not (for skip messages)."""
    try:
        docker = require("docker", "swe")
    except ImportError as exc:
        return str(exc)
    try:
        client = docker.from_env(timeout=timeout)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # the SDK raises DockerException, requests and socket errors alike
        return f"no Docker engine answers: {type(exc).__name__}: {exc}"
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


class DockerSandbox:
    """Runs each command in a fresh, locked-down container (see the module docstring).

    Args:
        image: The image to run (pulled by the user beforehand; nothing is pulled here).
        limits: Default :class:`Limits` of each run.
        workspace_bytes: Size of the tmpfs holding the working directory.
        client: An existing ``docker.DockerClient``; by default ``docker.from_env()``.
    """

    backend = "docker"
    isolation = "docker"

    def __init__(
        self,
        *,
        image: str = DEFAULT_IMAGE,
        limits: Limits | None = None,
        workspace_bytes: int = 256 << 20,
        client: Any = None,
    ):
        docker = require("docker", "swe")
        if not isinstance(image, str) or not image:
            raise ConfigError(f"image must be a non-empty image name, got {image!r}")
        self._docker = docker
        self.image = image
        self.limits = limits or Limits()
        self.workspace_bytes = int(workspace_bytes)
        self.client = client or docker.from_env()

    def run(
        self,
        cmd: Command,
        *,
        files: FileMap | None = None,
        workdir: str | Path | None = None,
        timeout: float = 10.0,
        limits: Limits | None = None,
        env: Mapping[str, str] | None = None,
    ) -> SandboxResult:
        """Run ``cmd`` on a copy of ``workdir`` (or on ``files``) in a new container; see :class:`Sandbox`."""
        argv = check_run_arguments(cmd, files, workdir, timeout)
        limits = limits or self.limits
        if workdir is not None:
            tree = _read_tree(Path(workdir))
        else:
            tree = {k: v.encode("utf-8") if isinstance(v, str) else bytes(v) for k, v in (files or {}).items()}
        script = f"tar -x -C {WORKSPACE} -f - && cd {WORKSPACE} && exec {shlex.join(argv)}"
        Ulimit = self._docker.types.Ulimit
        container = self.client.containers.create(
            self.image,
            command=["/bin/sh", "-c", script],
            stdin_open=True,
            network_mode="none",
            mem_limit=limits.memory_bytes,
            memswap_limit=limits.memory_bytes,
            pids_limit=limits.max_processes,
            read_only=True,
            tmpfs={WORKSPACE: f"rw,exec,mode=1777,size={self.workspace_bytes}", "/tmp": "rw,exec,mode=1777,size=64m"},
            working_dir="/",
            user="65534:65534",
            environment={"HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", **dict(env or {})},
            ulimits=[
                Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds + 1),
                Ulimit(name="fsize", soft=limits.file_size_bytes, hard=limits.file_size_bytes),
                Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
                Ulimit(name="core", soft=0, hard=0),
            ],
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            detach=True,
        )
        start = time.perf_counter()
        timed_out = False
        try:
            stream = container.attach_socket(params={"stdin": 1, "stream": 1})
            container.start()
            raw = getattr(stream, "_sock", stream)
            raw.sendall(_tar(tree))
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

    def close(self) -> None:
        """Close the docker client (containers are removed after every run)."""
        with contextlib.suppress(Exception):
            self.client.close()


__all__ = ["DEFAULT_IMAGE", "DockerSandbox", "docker_engine_error"]
