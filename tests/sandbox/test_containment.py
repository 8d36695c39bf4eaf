"""Containment tests: every escape attempt ends within its limits, says why, and leaves nothing behind.

The same tests run on the local backend in each isolation mode this host supports and on the
Docker backend (skipped with the reason when no engine answers).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

import rewardlab
from rewardlab.sandbox import DockerSandbox, Limits, LocalSandbox, isolation_modes
from tests.conftest import docker_or_skip

pytestmark = pytest.mark.serial  # counts every process of the sandbox uid

STRONG_MODES = [m for m in ("bwrap", "unshare") if m in isolation_modes()]
CHEAP = Limits(cpu_seconds=3, memory_bytes=1 << 30, max_processes=32, file_size_bytes=1 << 20, open_files=64)


def _docker_or_skip():
    docker_or_skip()
    return DockerSandbox(limits=CHEAP)


@pytest.fixture(params=[*STRONG_MODES, pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request):
    box = _docker_or_skip() if request.param == "docker" else LocalSandbox(isolation=request.param, limits=CHEAP)
    yield box
    box.close()


@pytest.fixture
def bwrap_sandbox():
    if "bwrap" not in isolation_modes():
        pytest.skip("bubblewrap does not work on this host")
    return LocalSandbox(isolation="bwrap", limits=CHEAP)


def _leftovers(marker: str) -> list[psutil.Process]:
    """Live processes whose command line carries ``marker`` (zombies being reaped do not count)."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["status"] != psutil.STATUS_ZOMBIE and any(marker in part for part in cmdline):
            found.append(proc)
    return found


def _sandbox_uid_processes() -> int:
    if os.geteuid() != 0:
        return 0
    return sum(
        1
        for p in psutil.process_iter(["uids", "status"])
        if p.info["uids"] and p.info["uids"].real == 65534 and p.info["status"] != psutil.STATUS_ZOMBIE
    )


@pytest.fixture
def no_leftovers():
    """Counts the sandbox uid's processes before and after the test: the test may not add any."""
    before = _sandbox_uid_processes()
    yield
    deadline = time.monotonic() + 5
    while _sandbox_uid_processes() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sandbox_uid_processes() <= before


def _py(sandbox) -> str:
    return "python3" if sandbox.backend == "docker" else sys.executable


def run_py(sandbox, code: str, **kwargs):
    return sandbox.run([_py(sandbox), "-c", textwrap.dedent(code)], **kwargs)


def _needs_process_limit(sandbox) -> None:
    if not getattr(sandbox, "enforces_process_limit", True):
        pytest.skip(f"{sandbox.isolation} sandbox runs as root here, so a fork bomb would not be capped")


def test_fork_bomb_is_capped_and_cleaned_up(sandbox, no_leftovers):
    _needs_process_limit(sandbox)
    marker = f"forkbomb-{uuid.uuid4().hex}"
    code = f"""
        import os, time
        marker = {marker!r}
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.01)
    """
    result = run_py(sandbox, code, timeout=2)
    assert result.timed_out and result.killed_reason == "timeout"
    assert result.duration < 6
    deadline = time.monotonic() + 2
    while _leftovers(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _leftovers(marker) == []


def test_shell_fork_bomb_is_capped_and_cleaned_up(sandbox, no_leftovers):
    _needs_process_limit(sandbox)
    result = sandbox.run("bomb() { bomb | bomb & }; bomb; sleep 30", timeout=2)
    assert result.killed_reason in ("timeout", "process_limit")
    assert result.duration < 6


def test_infinite_loop_hits_the_cpu_limit(sandbox, no_leftovers):
    result = run_py(sandbox, "while True: pass", timeout=10, limits=Limits(cpu_seconds=1))
    assert (result.exit_code, result.killed_reason, result.timed_out) == (-24, "cpu_limit", False)
    assert result.duration < 10


def test_sleeping_forever_hits_the_wall_clock_timeout(sandbox, no_leftovers):
    result = run_py(sandbox, "import time; time.sleep(1000)", timeout=0.5)
    assert (result.exit_code, result.killed_reason, result.timed_out) == (None, "timeout", True)
    assert result.duration < 3


def test_allocating_10_gb_fails_with_memory_limit(sandbox, no_leftovers):
    result = run_py(sandbox, "x = bytearray(10 * 2**30)\nprint('allocated')", timeout=10)
    assert "allocated" not in result.stdout
    assert result.exit_code != 0
    assert result.killed_reason == "memory_limit"


def test_writing_a_5_gb_file_stops_at_the_file_size_limit(sandbox, no_leftovers, tmp_path):
    code = """
        chunk = b"0" * (1 << 20)
        with open("big.bin", "wb") as f:
            for _ in range(5 * 1024):  # 5 GiB in 1 MiB chunks; never reached
                f.write(chunk)
        print("wrote 5 GB")
    """
    workdir = tmp_path / "work"
    workdir.mkdir()
    kwargs = {"workdir": workdir} if sandbox.backend == "local" else {"files": {}}
    result = run_py(sandbox, code, timeout=10, **kwargs)
    assert "wrote 5 GB" not in result.stdout
    assert result.killed_reason == "file_size_limit"
    if sandbox.backend == "local":
        assert (workdir / "big.bin").stat().st_size <= CHEAP.file_size_bytes


def test_shell_write_of_5_gb_is_killed_by_sigxfsz(sandbox, no_leftovers):
    result = sandbox.run("head -c 5G /dev/zero > big.bin", timeout=10)
    assert result.killed_reason == "file_size_limit"
    assert result.exit_code != 0


def test_writing_outside_the_workdir_does_not_reach_the_host(sandbox, no_leftovers, tmp_path):
    if sandbox.isolation == "unshare":
        pytest.skip("the unshare fallback isolates network and processes, not the file system (documented)")
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    name = f"rewardlab-escape-{uuid.uuid4().hex}.txt"
    host_targets = [outside / name, Path("/etc") / name, Path("/usr") / name, Path("/") / name, tmp_path / name]
    targets = [str(p) for p in host_targets[:-1]] + [f"../{name}"]
    code = f"""
        for target in {targets!r}:
            try:
                with open(target, "w") as f:
                    f.write("pwned")
                print("wrote", target)
            except OSError as exc:
                print("blocked", target, type(exc).__name__)
        with open("inside.txt", "w") as f:
            f.write("ok")
        print("wrote inside")
    """
    workdir = tmp_path / "work"
    workdir.mkdir()
    kwargs = {"workdir": workdir} if sandbox.backend == "local" else {"files": {}}
    try:
        result = run_py(sandbox, code, timeout=10, **kwargs)
        assert "wrote inside" in result.stdout
        assert [p for p in host_targets if p.exists()] == []
    finally:
        for path in host_targets:
            path.unlink(missing_ok=True)
    if sandbox.backend == "local":
        assert (workdir / "inside.txt").read_text() == "ok"


@pytest.mark.parametrize("mode", ["bwrap", pytest.param("docker", marks=pytest.mark.docker)])
def test_host_files_outside_the_allowed_view_are_invisible(mode, no_leftovers):
    if mode == "docker":
        box = _docker_or_skip()
    elif "bwrap" not in isolation_modes():
        pytest.skip("bubblewrap does not work on this host; the host file system is visible without it")
    else:
        box = LocalSandbox(isolation="bwrap", limits=CHEAP)
    source = Path(rewardlab.__file__).resolve()
    secret = source.read_text()[:60]
    code = f"""
        import os
        for path in [{str(source)!r}, "/etc/shadow", {str(source.parents[1])!r}, "/root"]:
            try:
                if os.path.isdir(path):
                    print("listed", path, os.listdir(path))
                else:
                    print("read", path, open(path).read()[:60])
            except OSError as exc:
                print("hidden", path, type(exc).__name__)
    """
    result = run_py(box, code, timeout=10)
    assert result.exit_code == 0, result.stderr
    assert f"hidden {source}" in result.stdout
    assert "hidden /etc/shadow" in result.stdout
    assert secret not in result.stdout
    assert "root:" not in result.stdout
    project_line = next(line for line in result.stdout.splitlines() if line.split()[1] == str(source.parents[1]))
    assert "'rewardlab'" not in project_line and "'tests'" not in project_line


def test_hidden_paths_are_empty_inside_visible_ones(tmp_path, no_leftovers):
    if "bwrap" not in isolation_modes():
        pytest.skip("bubblewrap does not work on this host")
    visible, hidden = tmp_path / "visible", tmp_path / "visible" / "answers"
    hidden.mkdir(parents=True)
    (visible / "ok.txt").write_text("shown")
    (hidden / "gold.patch").write_text("secret")
    for path in (tmp_path, visible, hidden):
        path.chmod(0o755)
    for path in (visible / "ok.txt", hidden / "gold.patch"):
        path.chmod(0o644)
    box = LocalSandbox(isolation="bwrap", limits=CHEAP, read_only_paths=[visible], hidden_paths=[hidden])
    result = box.run(f"cat {visible}/ok.txt; ls -A {hidden}; cat {hidden}/gold.patch", timeout=10)
    assert result.stdout == "shown" and "secret" not in result.stdout + result.stderr


def test_bwrap_view_is_read_only_allow_list(bwrap_sandbox, no_leftovers):
    result = bwrap_sandbox.run("ls /; touch /usr/x; echo $?", timeout=10)
    names = set(result.stdout.split()[:-1])
    system = {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp", "usr", "workspace"}
    interpreter_roots = {Path(path).parts[1] for path in bwrap_sandbox._python_paths}
    assert names <= system | interpreter_roots
    assert "root" not in names - interpreter_roots and "home" not in names - interpreter_roots
    assert result.stdout.split()[-1] != "0"


def test_tcp_to_localhost_and_a_public_address_is_blocked(sandbox, no_leftovers):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(3)
    port = server.getsockname()[1]
    accepted = []
    thread = threading.Thread(target=lambda: _accept(server, accepted), daemon=True)
    thread.start()
    code = f"""
        import socket
        for host, port in [("127.0.0.1", {port}), ("1.1.1.1", 80), ("8.8.8.8", 53)]:
            try:
                socket.create_connection((host, port), timeout=2).close()
                print("connected", host)
            except OSError as exc:
                print("blocked", host, type(exc).__name__)
    """
    result = run_py(sandbox, code, timeout=15)
    thread.join(timeout=4)
    server.close()
    assert "connected" not in result.stdout
    assert result.stdout.count("blocked") == 3
    assert accepted == []


def _accept(server: socket.socket, accepted: list) -> None:
    with contextlib.suppress(OSError):  # the accept timed out: nobody connected
        accepted.append(server.accept())


def test_background_processes_do_not_outlive_the_run(sandbox, no_leftovers):
    marker = f"{1000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**9}"
    code = f"""
        import os, subprocess, time
        # 1: double fork with setsid
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "{marker}"])
            os._exit(0)
        # 2: nohup in the background through a shell, in a new session
        subprocess.Popen(["setsid", "nohup", "sleep", "{marker}"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
        # 3: a plain background child
        subprocess.Popen(["sleep", "{marker}"])
        time.sleep(0.3)
        print("spawned")
    """
    before = len(_leftovers(marker))
    result = run_py(sandbox, code, timeout=10)
    assert "spawned" in result.stdout, result.stderr
    assert result.duration < 5
    deadline = time.monotonic() + 2
    while _leftovers(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert before == 0 and _leftovers(marker) == []


def test_parent_environment_is_not_visible(sandbox, no_leftovers, monkeypatch):
    monkeypatch.setenv("REWARDLAB_TEST_SECRET", "hunter2-secret")
    code = f"""
        import os
        print(sorted(os.environ.items()))
        for pid in ["1", str(os.getppid()), {str(os.getpid())!r}]:
            try:
                print(open(f"/proc/{{pid}}/environ", "rb").read())
            except OSError as exc:
                print("hidden", pid, type(exc).__name__)
    """
    result = run_py(sandbox, code, timeout=10)
    assert result.exit_code == 0, result.stderr
    assert "hunter2-secret" not in result.stdout + result.stderr
    assert "REWARDLAB_TEST_SECRET" not in result.stdout
