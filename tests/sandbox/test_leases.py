"""Leases and the reaper: what a process makes outside itself goes when the process does, and only then."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab import leases
from rewardlab.leases import Lease, Owner, current_owner, owned_tempdir, owner_state, remove_owned_tempdir
from rewardlab.reaper import ReapReport, orphaned, reap, reap_containers, reap_temp_dirs
from tests.conftest import docker_or_skip

REPO = Path(__file__).resolve().parents[2]


def run_child(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter of this venv, in the repository, with ``env`` added."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def dead_owner() -> Owner:
    """The owner record of a process that has exited (and been reaped)."""
    child = run_child("from rewardlab.leases import current_owner; print(current_owner().token)")
    owner = Owner.parse(child.stdout.strip())
    assert owner is not None, child.stderr
    return owner


@pytest.fixture(autouse=True)
def own_lease_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REWARDLAB_LEASE_DIR", str(tmp_path / "leases"))


@given(
    st.text(alphabet=st.characters(blacklist_characters="/", blacklist_categories=("Cs",)), min_size=1),
    st.text(alphabet="0123456789abcdef-", min_size=1),
    st.integers(0, 2**31),
    st.integers(0, 2**62),
)
def test_an_owner_token_round_trips(host, boot, pid, started):
    owner = Owner(host, boot, pid, started)
    assert Owner.parse(owner.token) == owner


@given(st.text())
def test_any_label_parses_to_an_owner_or_none(text):
    parsed = Owner.parse(text)
    assert parsed is None or parsed.token == text


def test_owner_state_tells_live_gone_and_foreign_owners_apart():
    me = current_owner()
    assert owner_state(me) == "alive"
    assert owner_state(dead_owner()) == "gone"
    assert owner_state(Owner(me.host, me.boot_id, me.pid, me.started + 1)) == "gone", "a reused pid is another owner"
    assert owner_state(Owner(me.host, "another-boot", me.pid, me.started)) == "gone"
    assert owner_state(Owner(me.host + "-elsewhere", me.boot_id, 1, 0)) == "unknown"
    assert not orphaned(Owner(me.host + "-elsewhere", me.boot_id, 1, 0).token, None)
    assert not orphaned("written by another program", None) and not orphaned(None, None)


def test_a_directory_outlives_a_killed_owner_only_until_the_reaper_runs(tmp_path):
    child = run_child(
        """
        import os
        from rewardlab.leases import owned_tempdir
        path = owned_tempdir("rewardlab-test-")
        (path / "work.txt").write_text("left behind")
        print(path, flush=True)
        os._exit(0)  # no cleanup, as after SIGKILL
        """,
        TMPDIR=str(tmp_path),
    )
    left = Path(child.stdout.strip())
    assert left.is_dir() and Path(f"{left}.lease").is_file(), child.stderr
    mine = owned_tempdir("rewardlab-test-")
    try:
        report = ReapReport()
        reap_temp_dirs(tmp_path, report)
        reap_temp_dirs(mine.parent, report)  # the shared temp dir: other dead owners' leftovers go too
        assert str(left) in report.temp_dirs and str(mine) not in report.temp_dirs, report.temp_dirs
        assert not left.exists() and not Path(f"{left}.lease").exists()
        assert mine.is_dir(), "a live process's directory is never reaped"
    finally:
        remove_owned_tempdir(mine)
    assert not mine.exists() and not Path(f"{mine}.lease").exists()


def test_a_directory_without_an_owner_record_is_left_alone(tmp_path):
    (tmp_path / "rewardlab-foreign").mkdir()
    (tmp_path / "rewardlab-foreign.lease").write_text("not json")
    (tmp_path / "rewardlab-other.lease").write_text(json.dumps({"owner": "someone else's"}))
    report = ReapReport()
    reap_temp_dirs(tmp_path, report)
    assert report.temp_dirs == [] and (tmp_path / "rewardlab-foreign").is_dir()


def test_a_lease_with_a_ttl_is_renewed_while_its_owner_runs_and_expires_when_it_stops():
    lease = Lease(ttl=0.6)
    try:
        time.sleep(1.0)  # past the ttl: the renewing thread kept it alive
        assert not leases.lease_expired(lease.id)
        assert not orphaned(lease.owner.token, lease.id)
        lease._stop.set()  # the owner hangs: nothing renews the lease any more
        time.sleep(1.0)
        assert leases.lease_expired(lease.id)
        assert orphaned(lease.owner.token, lease.id), "a live owner whose lease expired is reaped"
    finally:
        lease.release()
    assert not lease.path.exists()
    assert not orphaned(lease.owner.token, lease.id), "without a lease file a live owner keeps its resources"


def test_lease_files_of_gone_owners_are_reaped(tmp_path):
    directory = leases.lease_dir()
    directory.mkdir(parents=True)
    gone = dead_owner()
    (directory / "gone.json").write_text(json.dumps({"owner": gone.token, "ttl": None, "renewed_at": 0}))
    (directory / "mine.json").write_text(json.dumps({"owner": current_owner().token, "ttl": None, "renewed_at": 0}))
    report = reap(docker=False, temp_root=tmp_path)
    assert report.lease_files == ["gone.json"]
    assert (directory / "mine.json").exists()


def test_the_gc_command_reports_what_it_removed(tmp_path, capsys, monkeypatch):
    import tempfile

    from rewardlab.cli import main

    code = "import os; from rewardlab.leases import owned_tempdir; owned_tempdir('rewardlab-gc-'); os._exit(0)"
    run_child(code, TMPDIR=str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["sandbox", "gc", "--no-docker"]) == 0
    assert "removed 0 container(s), 1 temporary dir(s)" in capsys.readouterr().out
    assert not list(tmp_path.glob("rewardlab-gc-*"))


# ---------------------------------------------------------------------------------------------- Docker


def docker() -> object:
    from rewardlab.sandbox.image import docker_client

    return docker_client()


def made_container(client, labels: dict[str, str]) -> str:
    from rewardlab.sandbox import DockerSandbox

    image = DockerSandbox().image
    container = client.containers.create(image, command=["sleep", "300"], labels=labels, network_mode="none")
    return container.id


def exists(client, container_id: str) -> bool:
    return bool(client.api.containers(all=True, filters={"id": container_id}))


@pytest.mark.docker
@pytest.mark.parametrize("death", ["exit", "sigkill_mid_run"])
def test_a_warm_container_goes_with_its_owner_without_a_reaper(death):
    """The runner sees the control channel close and exits; the container removes itself."""
    docker_or_skip()
    code = """
        import os, signal, sys, threading
        from rewardlab.sandbox import DockerSandbox
        sandbox = DockerSandbox()
        sandbox.run(["true"], timeout=30)
        print(sandbox._container.id, flush=True)
        if sys.argv[-1] == "exit":
            os._exit(0)
        threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGKILL)).start()
        sandbox.run(["sleep", "120"], timeout=200)
        """
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), death], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    container_id = child.stdout.strip().splitlines()[0]
    assert child.returncode == (0 if death == "exit" else -signal.SIGKILL), child.stderr
    client = docker()
    deadline = time.monotonic() + 30
    while exists(client, container_id) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not exists(client, container_id), "the container outlived its owner"


@pytest.mark.docker
def test_the_reaper_removes_containers_of_gone_owners_and_only_those():
    docker_or_skip()
    from rewardlab.leases import LEASE_LABEL, OWNER_LABEL

    client = docker()
    gone, me = dead_owner(), current_owner()
    made = {
        "gone": made_container(client, {"rewardlab.sandbox": "1", OWNER_LABEL: gone.token, LEASE_LABEL: "x"}),
        "live": made_container(client, {"rewardlab.sandbox": "1", OWNER_LABEL: me.token}),
        "unowned": made_container(client, {"rewardlab.sandbox": "1"}),
        "foreign": made_container(client, {OWNER_LABEL: gone.token}),
        "elsewhere": made_container(
            client, {"rewardlab.sandbox": "1", OWNER_LABEL: Owner(socket.gethostname() + "-x", "b", 1, 1).token}
        ),
    }
    try:
        report = ReapReport()
        reap_containers(client, report)
        assert made["gone"][:12] in report.containers  # with any a parallel test worker's dead child left
        assert not exists(client, made["gone"])
        assert all(exists(client, made[name]) for name in ("live", "unowned", "foreign", "elsewhere"))
    finally:
        for container_id in made.values():
            with contextlib.suppress(Exception):
                client.api.remove_container(container_id, force=True)
