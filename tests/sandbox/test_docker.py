"""The Docker backend: the locally built image, warm containers, and clear infrastructure errors."""

from __future__ import annotations

import gc
import time

import psutil
import pytest

from rewardlab.cli import main
from rewardlab.sandbox import DockerSandbox, Limits
from rewardlab.sandbox import image as image_module
from rewardlab.sandbox.image import SandboxError, default_image, recipe_hash
from tests.conftest import docker_or_skip
from tests.docker_engine import own_sandbox_containers

pytestmark = pytest.mark.docker
CHEAP = Limits(cpu_seconds=5, memory_bytes=256 << 20, max_processes=32)


@pytest.fixture
def box():
    docker_or_skip()
    sandbox = DockerSandbox(limits=CHEAP)
    yield sandbox
    sandbox.close()


def test_the_tag_follows_the_recipe(monkeypatch):
    before = default_image()
    assert before == f"rewardlab/sandbox:{recipe_hash()}"
    monkeypatch.setattr(image_module, "PACKAGES", (*image_module.PACKAGES, "python3-hypothesis"))
    assert default_image() != before


def test_a_missing_image_says_how_to_build_it():
    docker_or_skip()
    with pytest.raises(SandboxError, match="does not exist; build it with: rewardlab sandbox build-image"):
        DockerSandbox(image="rewardlab/sandbox:000000000000")


def test_build_image_is_cached_and_status_reports_it(capsys):
    docker_or_skip()
    assert main(["sandbox", "build-image"]) == 0
    assert "is already built" in capsys.readouterr().out
    assert main(["sandbox", "status"]) == 0
    assert "present" in capsys.readouterr().out


def test_the_image_has_what_swe_needs(box):
    result = box.run("python3 -m pytest --version && git --version && id -u", timeout=30)
    assert result.exit_code == 0, result.stderr
    assert "pytest" in result.stdout + result.stderr and result.stdout.strip().endswith("65534")


def test_a_run_knows_its_interpreter_and_finds_commands_on_path(box):
    """Honest tests start ``sys.executable`` (a CLI under test) and look up commands: both work as they do in the
    local sandbox."""
    probe = "import subprocess, sys, shutil; print(sys.executable); print(shutil.which('git'));"
    probe += "print(subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True).stdout)"
    result = box.run([box.python, "-c", probe], timeout=30)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["/usr/bin/python3", "/usr/bin/git", "42"]


def test_one_warm_container_serves_every_run_until_restart(box):
    first = box.run("echo one", timeout=30)
    container = box._container.id
    second = box.run("echo two", timeout=30)
    assert (first.stdout, second.stdout) == ("one\n", "two\n")
    assert box._container.id == container
    box.restart()
    assert box._container is None
    assert box.run("echo three", timeout=30).stdout == "three\n"
    assert box._container.id != container


def test_a_run_sees_nothing_of_the_previous_one(box):
    box.run("echo 1 > /tmp/zq-left; echo x > zq-left.txt; (sleep 60 &) ; echo started", files={"a.py": "1"}, timeout=30)
    result = box.run(
        "ls -A /tmp; ls -A; for p in /proc/[0-9]*; do cat $p/cmdline; echo; done", files={"b.py": "2"}, timeout=30
    )
    lines = result.stdout.split("\n")
    assert "zq-left" not in result.stdout and "a.py" not in lines and "b.py" in lines
    assert not any(line.startswith("sleep60") for line in lines), result.stdout


def test_a_timeout_kills_the_run_and_the_next_run_works(box):
    box.run("true", timeout=30)
    result = box.run("sleep 30 & sleep 30", timeout=1)
    assert result.timed_out and result.killed_reason == "timeout" and result.exit_code is None
    after = box.run("for p in /proc/[0-9]*; do cat $p/cmdline; echo; done", timeout=30)
    assert "sleep30" not in after.stdout and after.exit_code == 0


def test_cpu_and_file_size_limits_apply_to_each_run(box):
    assert box.run(["python3", "-c", "while True: pass"], timeout=30).killed_reason == "cpu_limit"
    big = box.run(["python3", "-c", "open('f', 'wb').write(b'x' * (300 << 20))"], timeout=30)
    assert big.exit_code != 0
    assert box.run("echo fine", timeout=30).stdout == "fine\n"


def test_memory_kill_is_classified(box):
    result = box.run(["python3", "-c", "x = bytearray(1 << 30)"], timeout=30)
    assert result.killed_reason == "memory_limit", (result.exit_code, result.stderr[-300:])


def test_one_shot_runs_remain_available():
    docker_or_skip()
    box = DockerSandbox(limits=CHEAP, warm=False)
    try:
        assert box.run("echo once", timeout=30).stdout == "once\n"
        assert box._container is None
    finally:
        box.close()


def engine_and_client_rss() -> int:
    """Resident memory of this process and of the Docker engine's daemons, in bytes."""
    names = {"dockerd", "containerd"}
    daemons = [p for p in psutil.process_iter(["name"]) if p.info["name"] in names]
    return psutil.Process().memory_info().rss + sum(p.memory_info().rss for p in daemons)


@pytest.mark.serial  # measures the Docker engine's memory, which other tests' containers change
def test_many_episodes_leave_no_container_behind_and_memory_flat():
    """50 episodes of 4 runs each, with timeouts and memory kills among them."""
    docker_or_skip()
    before = len(own_sandbox_containers())
    box = DockerSandbox(limits=CHEAP)
    warm_rss = 0
    try:
        for episode in range(50):
            if episode == 10:
                warm_rss = engine_and_client_rss()
            box.restart()
            for run in range(4):
                if (episode + run) % 17 == 0:
                    assert box.run("sleep 10", timeout=0.5).timed_out
                elif (episode + run) % 13 == 0:
                    result = box.run(["python3", "-c", "x = bytearray(1 << 30)"], timeout=30)
                    assert result.killed_reason == "memory_limit"
                else:
                    assert box.run(f"echo {episode}.{run}", timeout=30).stdout == f"{episode}.{run}\n"
            assert len(own_sandbox_containers()) <= before + 1
    finally:
        box.close()
    deadline = time.monotonic() + 30  # a container its runner's exit already set removing may linger a moment
    while len(own_sandbox_containers()) > before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(own_sandbox_containers()) == before
    growth = engine_and_client_rss() - warm_rss
    assert growth < 64 << 20, f"host memory grew by {growth / 2**20:.0f} MiB over 40 episodes"


def test_garbage_collection_removes_the_container():
    docker_or_skip()
    before = len(own_sandbox_containers())
    box = DockerSandbox(limits=CHEAP)
    box.run("true", timeout=30)
    assert len(own_sandbox_containers()) == before + 1
    del box
    gc.collect()
    assert len(own_sandbox_containers()) == before
