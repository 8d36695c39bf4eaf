"""DockerSandbox: run untrusted commands in locked-down containers through the docker SDK.

Every container has networking disabled, a memory limit (swap included), a pids limit, rlimits
(CPU seconds, file size, open files, no core files), a read-only root file system, all
capabilities dropped, ``no-new-privileges``, uid ``nobody``, and tmpfs mounts at ``/workspace``
and ``/tmp``. The image is :func:`~rewardlab.sandbox.image.default_image`, built locally from
Debian packages by ``rewardlab sandbox build-image`` (nothing is pulled).

Warm (the default): one container per episode. It is created on the first run, and
:meth:`DockerSandbox.restart` (an env's reset), :meth:`~DockerSandbox.close` and garbage
collection remove it; when the owning process dies without closing it (``SIGKILL``, an OOM kill),
the runner sees its control channel close, exits, and the container removes itself. Every
container carries its owner (:mod:`rewardlab.leases`), and :mod:`rewardlab.reaper` (run when a
sandbox starts, and by ``rewardlab sandbox gc``) removes any whose owner is gone, the one-shot
containers of ``warm=False`` included. Its main process is a small runner
(:mod:`~rewardlab.sandbox.container_runner`): a root holding only ``CAP_SETUID``, ``CAP_SETGID``
and ``CAP_KILL``, which takes each run over the attached stdin, starts the command as ``nobody``
by ``fork`` (no ``runc exec`` per run: about 30 ms less) with the run's rlimits, and replies on its
stdout, which no ``nobody`` process can open. Before each run every process an earlier one left is
killed (``kill -9 -1`` until none is left), ``/workspace`` and ``/tmp`` are
emptied and the working files are unpacked afresh, so a run sees exactly what a new container
would; after it, every leftover is killed before ``outputs`` are read. ``warm=False`` gives one new
container per run (``docker run`` semantics).

Infrastructure failures (no engine, no image, the engine going away mid-run) raise
:class:`~rewardlab.sandbox.image.SandboxError` with a message that says what to do; what the
command itself does is always a :class:`~rewardlab.sandbox.SandboxResult`.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import io
import json
import shlex
import socket
import tarfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardlab.errors import ConfigError, require
from rewardlab.leases import resource_labels
from rewardlab.reaper import SANDBOX_LABEL, reap_soon
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
from rewardlab.sandbox.docker_transport import close_failed_connects
from rewardlab.sandbox.image import BUILD_COMMAND, REPOSITORY, SandboxError, default_image, docker_client, image_exists

DEFAULT_IMAGE = default_image()

RUNNER_SOURCE = (Path(__file__).with_name("container_runner.py")).read_text(encoding="utf-8")
"""What a warm container runs as its main process (see :mod:`rewardlab.sandbox.container_runner`)."""

REPLY_GRACE = 15.0
"""Seconds past a run's timeout that the host waits for the runner's reply before it removes the container."""

ORPHAN_RETRY_S = 2.0
"""Seconds between two tries of :class:`_Undertaker` to remove the containers a closed sandbox left."""

ORPHAN_GIVE_UP_S = 3600.0
"""Seconds after which :class:`_Undertaker` stops trying (the reaper removes them once this process is gone)."""


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


RUN_ENVIRONMENT: dict[str, str] = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "PYTHONHASHSEED": "0",
}
"""The environment of every run (the local sandbox's, with the container's paths); ``env`` adds to it."""


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
    #: The Python interpreter commands call inside the container (Debian's), by its path: a test that starts
    #: ``sys.executable`` needs the interpreter to know where it lives.
    python = "/usr/bin/python3"
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
        close_failed_connects()  # the client may be the caller's, made before any of ours
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
        self._channel: _Channel | None = None
        if not image_exists(self.client, image):
            ours = image.startswith(f"{REPOSITORY}:")
            hint = f"build it with: {BUILD_COMMAND}" if ours else "pull or build it first"
            raise SandboxError(f"the Docker image {image!r} does not exist; {hint}")
        reap_soon(client=self.client)

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
        environment = {**RUN_ENVIRONMENT, **dict(env or {})}
        try:
            if self.warm or names:
                result = self._run_warm(argv, _tar(tree), timeout, limits, environment, names)
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
        """Remove the warm container (and any an engine failure left) and close the client. Safe to call twice.

        Containers that cannot be removed now (the engine is down) go to a daemon thread of this
        process that removes them once the engine answers again: a long-lived owner (a server)
        must not keep them until it exits."""
        self._remove_container()
        self._remove_orphans()
        orphans, self._orphans = self._orphans, []
        UNDERTAKER.adopt(orphans)
        with contextlib.suppress(Exception):
            self.client.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._remove_container()

    # ------------------------------------------------------------------ containers
    def _create(self, limits: Limits, command: list[str], *, rlimits: bool = True, **extra: Any) -> Any:
        """A locked-down container; ``rlimits=False`` leaves the per-process limits to the runner."""
        Ulimit = self._docker.types.Ulimit
        ulimits = [Ulimit(name="core", soft=0, hard=0)]
        if rlimits:
            ulimits += [
                Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds + 1),
                Ulimit(name="fsize", soft=limits.file_size_bytes, hard=limits.file_size_bytes),
                Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
            ]
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
            ulimits=ulimits,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            labels={SANDBOX_LABEL: "1", **resource_labels()},
            **{"detach": True, "user": "65534:65534", **extra},
        )

    def _warm_container(self, limits: Limits) -> Any:
        if self._container is not None and self._container_limits != limits:
            self._remove_container()
        if self._orphans:
            self._remove_orphans()
        if self._container is None:
            # The runner (container_runner.py) is the main process: a root holding only SETUID, SETGID
            # and KILL, out of reach of the runs (uid nobody), which it starts by fork.
            container = self._create(
                limits,
                ["python3", "-I", "-c", RUNNER_SOURCE],
                rlimits=False,
                user="0:0",
                cap_add=["SETUID", "SETGID", "KILL"],
                stdin_open=True,
                detach=False,  # the SDK sets StdinOnce only then: the runner reads EOF when the owner detaches
                auto_remove=True,  # ... and exits, and the container removes itself
            )
            try:
                socket_ = container.attach_socket(params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
                container.start()
            except Exception:
                with contextlib.suppress(Exception):
                    container.remove(force=True)
                raise
            self._container, self._container_limits, self._oom_seen = container, limits, 0
            self._channel = _Channel(socket_)
        return self._container

    def _detach(self) -> Any:
        """Forget the warm container and close its control channel; returns the container (``None`` if none)."""
        container, self._container = self._container, None
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()
        return container

    def _remove_container(self) -> None:
        container = self._detach()
        if container is not None:
            try:
                container.remove(force=True)
            except self._docker.errors.NotFound:
                pass  # it removed itself (auto_remove) when its runner exited
            except Exception:  # the engine is failing: try again at the next container or at close
                self._orphans.append(container.id)

    def _forget_container(self) -> None:
        """After an engine failure: forget the container, and remove it once the engine answers again."""
        container = self._detach()
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
        self,
        argv: list[str],
        archive: bytes,
        timeout: float,
        limits: Limits,
        environment: dict[str, str],
        outputs: list[str],
    ) -> SandboxResult:
        self._warm_container(limits)
        channel = self._channel
        assert channel is not None, "_warm_container opens the channel with the container"
        header = {
            "argv": argv,
            "env": environment,
            "timeout": timeout,
            "rlimits": {
                "RLIMIT_CPU": [limits.cpu_seconds, limits.cpu_seconds + 1],
                "RLIMIT_FSIZE": [limits.file_size_bytes, limits.file_size_bytes],
                "RLIMIT_NOFILE": [limits.open_files, limits.open_files],
                "RLIMIT_CORE": [0, 0],
            },
            "outputs": outputs,
            "output_bytes": limits.output_bytes,
        }
        start = time.perf_counter()
        reply = channel.call(json.dumps(header).encode(), archive, deadline=start + timeout + REPLY_GRACE)
        duration = time.perf_counter() - start
        if reply is None:  # the runner did not answer in time, or died with its container
            oom = self._container_oom_killed()
            self._remove_container()
            if not oom and duration < timeout:
                raise SandboxError("the sandbox container's runner stopped answering")
            return self._result(OutputBuffer(0), OutputBuffer(0), None, not oom, oom, duration)
        if "runner_error" in reply:
            self._remove_container()
            raise SandboxError(f"the sandbox container's runner failed: {reply['runner_error']}")
        out, err = OutputBuffer(limits.output_bytes), OutputBuffer(limits.output_bytes)
        out.feed(base64.b64decode(reply["stdout"]))
        err.feed(base64.b64decode(reply["stderr"]))
        out.dropped = int(reply["dropped"])
        exit_code = reply["exit_code"]
        oom = exit_code == -9 and int(reply["oom_kills"]) > self._oom_seen
        self._oom_seen = int(reply["oom_kills"])
        result = self._result(out, err, exit_code, bool(reply["timed_out"]), oom, duration)
        found = {name: None if data is None else base64.b64decode(data) for name, data in reply["outputs"].items()}
        return dataclasses.replace(result, outputs=found)

    def _container_oom_killed(self) -> bool:
        with contextlib.suppress(Exception):
            self._container.reload()
            return bool(self._container.attrs.get("State", {}).get("OOMKilled"))
        return False

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
            raw.close()  # the socket itself, not only the SDK's wrapper (see _Channel.close)
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
            try:
                container.remove(force=True)
            except self._docker.errors.NotFound:
                pass
            except Exception:  # the engine is failing: remove it once it answers again
                self._orphans.append(container.id)
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


class _Undertaker:
    """Removes, from one daemon thread, the containers closed sandboxes could not remove because the
    engine was down; the thread tries every :data:`ORPHAN_RETRY_S` seconds and ends when none is left
    (or after :data:`ORPHAN_GIVE_UP_S`: then the reaper removes them once this process is gone)."""

    def __init__(self) -> None:
        self._pending: dict[str, float] = {}  # container id -> when to give up
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def pending(self) -> list[str]:
        with self._lock:
            return list(self._pending)

    def adopt(self, container_ids: Sequence[str]) -> None:
        if not container_ids:
            return
        with self._lock:
            give_up = time.monotonic() + ORPHAN_GIVE_UP_S
            self._pending.update(dict.fromkeys(container_ids, give_up))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="rewardlab-undertaker", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(ORPHAN_RETRY_S)
            with self._lock:
                now = time.monotonic()
                self._pending = {cid: until for cid, until in self._pending.items() if until > now}
                if not self._pending:
                    self._thread = None
                    return
                ids = list(self._pending)
            removed = self._remove(ids)
            with self._lock:
                for container_id in removed:
                    self._pending.pop(container_id, None)

    @staticmethod
    def _remove(ids: list[str]) -> list[str]:
        """The ids of ``ids`` that are gone now (removed here, or already)."""
        try:
            client = docker_client(timeout=5)
        except Exception:  # noqa: BLE001 - the engine is still down: try again later
            return []
        gone = []
        try:
            for container_id in ids:
                try:
                    client.api.remove_container(container_id, force=True)
                except Exception as exc:  # noqa: BLE001 - NotFound is success; anything else: later
                    if "404" not in str(exc) and "No such container" not in str(exc):
                        continue
                gone.append(container_id)
        finally:
            with contextlib.suppress(Exception):
                client.close()
        return gone


UNDERTAKER = _Undertaker()
"""This process's :class:`_Undertaker`."""


class _Channel:
    """The attached stdin/stdout of a warm container's runner: length-prefixed messages, with
    Docker's stream multiplexing (8-byte frame headers: stream, 0, 0, 0, big-endian size) undone."""

    def __init__(self, attached: Any):
        self.attached = attached
        self.raw = getattr(attached, "_sock", attached)
        self.frames = b""
        self.stdout = b""
        self.stderr = b""

    def call(self, *messages: bytes, deadline: float) -> dict[str, Any] | None:
        """Send ``messages``, return the reply, or None when ``deadline`` passes or the stream ends."""
        self.raw.sendall(b"".join(len(m).to_bytes(4, "big") + m for m in messages))
        while len(self.stdout) < 4 or len(self.stdout) < 4 + int.from_bytes(self.stdout[:4], "big"):
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return None
            self.raw.settimeout(remaining)
            try:
                chunk = self.raw.recv(1 << 16)
            except (TimeoutError, OSError):
                return None
            if not chunk:
                return None
            self._demultiplex(chunk)
        size = int.from_bytes(self.stdout[:4], "big")
        reply, self.stdout = self.stdout[4 : 4 + size], self.stdout[4 + size :]
        return json.loads(reply)

    def _demultiplex(self, chunk: bytes) -> None:
        self.frames += chunk
        while len(self.frames) >= 8:
            size = int.from_bytes(self.frames[4:8], "big")
            if len(self.frames) < 8 + size:
                return
            payload = self.frames[8 : 8 + size]
            if self.frames[0] == 2:
                self.stderr = (self.stderr + payload)[-4096:]  # the runner's own diagnostics
            else:
                self.stdout += payload
            self.frames = self.frames[8 + size :]

    def close(self) -> None:
        """Close the stream and its socket now: closing only the SDK's ``SocketIO`` wrapper leaves the
        socket open until the garbage collector finds the HTTP response holding it (a long-lived
        server then carries one file descriptor per container it ever used, until a GC pass)."""
        with contextlib.suppress(Exception):
            self.attached.close()
        with contextlib.suppress(Exception):
            self.raw.close()


__all__ = ["DEFAULT_IMAGE", "DockerSandbox", "docker_engine_error"]
