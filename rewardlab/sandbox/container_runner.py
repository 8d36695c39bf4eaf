"""The process that serves a warm Docker sandbox from inside its container (standard library only).

:class:`~rewardlab.sandbox.DockerSandbox` starts it as the container's main process
(``python3 -I -c <this file>``), as a root that holds only ``CAP_SETUID``, ``CAP_SETGID`` and
``CAP_KILL``, and
talks to it over the container's attached stdin and stdout. Starting a command this way is a
``fork`` in the container instead of a ``runc exec`` through the engine (about 30 ms here).

Protocol (each message a 4-byte big-endian length, then the bytes):

- request: a JSON header ``{"argv", "env", "timeout", "rlimits", "outputs", "output_bytes"}``
  (``rlimits``: ``{"RLIMIT_CPU": [soft, hard], ...}``, set in the command's process only), then a tar
  archive of the working files;
- reply: one JSON object ``{"exit_code", "timed_out", "stdout", "stderr", "dropped", "outputs",
  "oom_kills"}`` (bytes as base64; an output that is not a regular file is ``null``).
  A runner that cannot serve a request replies ``{"runner_error": message}``.

Each run: every other process in the container is killed (what earlier runs left), then a child
that has become ``nobody`` empties ``/workspace`` and ``/tmp`` and unpacks the archive (regular
files and directories with relative names only); the command runs as ``nobody`` in a new session
with stdin from ``/dev/null``, its output read through pipes until the deadline; at the end, or
on timeout, every process but the runner is killed again and a ``nobody`` child reads the ``outputs``.
Nothing a run does can reach this process: it belongs to another uid, and its reply channel is
its own stdout, which no ``nobody`` process can open.

The runner lives as long as its owner: when the control channel closes (the owner closed it, exited
or was killed: Docker closes the container's stdin when the one attached client detaches, as the
container is created with ``stdin_once``), between runs or during one, it kills every process and
exits, and the container, created with ``auto_remove``, removes itself.
"""

import base64
import contextlib
import io
import json
import os
import resource
import selectors
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tarfile
import time

NOBODY = 65534
WORKSPACE = "/workspace"
KILL_ROUNDS = 1000
EXIT_GRACE = 0.1
"""Seconds the pipes are still read after the command exited (a leftover may hold them open)."""
OOM_FILES = ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control")


REQUESTS = 0
"""The file descriptor requests arrive on: the container's stdin, attached by the owner."""


def read_exact(size):
    data = bytearray()
    while len(data) < size:
        chunk = os.read(REQUESTS, min(size - len(data), 1 << 20))
        if not chunk:
            raise EOFError
        data += chunk
    return bytes(data)


def read_message():
    (size,) = struct.unpack(">I", read_exact(4))
    return read_exact(size)


def write_message(stream, data):
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()


def become_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def kill_all():
    """Kill every process but this one (pid 1), repeating until none is left: a fork bomb that
    forks while ``kill(-1)`` walks the process list cannot outlast it. Needs only ``CAP_KILL``,
    no fork, so it works when the run has used up the pids limit."""
    for _ in range(KILL_ROUNDS):
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)
        reap()
        if not [pid for pid in os.listdir("/proc") if pid.isdigit() and pid != "1"]:
            return
        time.sleep(0.001)


def empty(directory):
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)


def unpack(archive):
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
        for member in tar:
            name = os.path.normpath(member.name)
            if name.startswith(("/", "..")) or not (member.isreg() or member.isdir()):
                continue
            path = os.path.join(WORKSPACE, name)
            if member.isdir():
                os.makedirs(path, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            source = tar.extractfile(member)
            if source is None:  # no contents: not a regular file (the check above keeps only those)
                continue
            with open(path, "wb") as handle:
                handle.write(source.read())


def in_nobody_child(work):
    """Run ``work()`` in a forked child that became nobody; return the bytes it wrote to its pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            become_nobody()
            os.write(write_end, work() or b"")
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    return b"".join(chunks)


def prepare(archive):
    kill_all()

    def work():
        empty(WORKSPACE)
        empty("/tmp")
        unpack(archive)

    in_nobody_child(work)


def finish(outputs, limit):
    kill_all()

    def work():
        found: dict[str, str | None] = {}
        for name in outputs:
            path = os.path.join(WORKSPACE, name)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except FileNotFoundError:
                continue
            except OSError:
                found[name] = None
                continue
            try:
                regular = stat.S_ISREG(os.fstat(fd).st_mode)
                found[name] = base64.b64encode(os.read(fd, limit)).decode() if regular else None
            finally:
                os.close(fd)
        return json.dumps(found).encode()

    return json.loads(in_nobody_child(work) or b"{}")


def oom_kills():
    for path in OOM_FILES:
        try:
            with open(path) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip().isdigit():
                        return int(value)
        except OSError:
            continue
    return 0


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def run(header, archive):
    prepare(archive)
    limit = int(header["output_bytes"])
    rlimits = [(getattr(resource, name), tuple(value)) for name, value in header["rlimits"].items()]

    def start():  # in the child: its own limits (this process's CPU time is not the command's), then nobody
        for which, value in rlimits:
            resource.setrlimit(which, value)
        with open("/proc/self/oom_score_adj", "w") as handle:  # the memory limit kills the run, never the runner
            handle.write("1000")
        become_nobody()

    proc = subprocess.Popen(
        header["argv"],
        cwd=WORKSPACE,
        env=header["env"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=start,
        start_new_session=True,
        close_fds=True,
    )
    stdout, stderr = proc.stdout, proc.stderr
    assert stdout is not None and stderr is not None
    buffers = {stdout: bytearray(), stderr: bytearray()}
    dropped = 0
    selector = selectors.DefaultSelector()
    for pipe, buffer in buffers.items():
        selector.register(pipe, selectors.EVENT_READ, buffer)
    selector.register(REQUESTS, selectors.EVENT_READ)  # the owner sends nothing during a run but its end
    deadline = time.monotonic() + float(header["timeout"])
    timed_out = False
    while len(selector.get_map()) > 1:
        now = time.monotonic()
        if proc.poll() is not None:  # exited: leftovers holding the pipes get a short grace only
            deadline = min(deadline, now + EXIT_GRACE)
        if now >= deadline:
            timed_out = proc.poll() is None
            break
        for key, _ in selector.select(min(deadline - now, 0.05)):
            if key.fileobj == REQUESTS:
                owner_gone()
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            buffer = key.data
            room = max(0, limit - len(buffer))
            buffer += chunk[:room]
            dropped += len(chunk) - min(room, len(chunk))
    if not timed_out:  # collect the command's status before kill_all() reaps every child
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()) + EXIT_GRACE)
        except subprocess.TimeoutExpired:
            timed_out = True
    outputs = finish(header.get("outputs") or [], limit)  # kills the command and every leftover first
    for pipe in buffers:
        pipe.close()
    reap()
    return {
        "exit_code": None if timed_out else proc.returncode,
        "timed_out": timed_out,
        "stdout": base64.b64encode(bytes(buffers[stdout])).decode(),
        "stderr": base64.b64encode(bytes(buffers[stderr])).decode(),
        "dropped": dropped,
        "outputs": outputs,
        "oom_kills": oom_kills(),
    }


def owner_gone():
    """The owner closed the control channel (it exited or was killed) while a run was going on:
    kill the run and exit, so that the container, created to remove itself, goes too."""
    kill_all()
    os._exit(0)


def serve():
    replies = sys.stdout.buffer
    while True:
        try:
            header = json.loads(read_message())
            archive = read_message()
        except EOFError:  # the owner is gone: the container ends (and removes itself) with this process
            kill_all()
            return
        try:
            reply = run(header, archive)
        except Exception as exc:  # reported to the host as a failed run of the runner itself
            reply = {"runner_error": f"{type(exc).__name__}: {exc}"}
        write_message(replies, json.dumps(reply).encode())
        reap()


if __name__ == "__main__":
    serve()
