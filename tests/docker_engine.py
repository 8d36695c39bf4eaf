"""The local Docker engine for the tests: kill and restart it (for the tests that make it fail on purpose), and
list the sandbox containers this process owns."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import psutil

DOCKERD_LOG = "/var/log/rewardlab-dockerd.log"


def daemons() -> list[psutil.Process]:
    """The dockerd processes that run (a killed one stays a zombie until its parent reaps it)."""
    found = psutil.process_iter(["name", "status"])
    return [p for p in found if p.info["name"] == "dockerd" and p.info["status"] != psutil.STATUS_ZOMBIE]


def dockerd_killable() -> str | None:
    """``None`` when this process may kill and restart the local dockerd, else why not."""
    if os.geteuid() != 0 or shutil.which("dockerd") is None or len(daemons()) != 1:
        return "needs root and one local dockerd that the test may kill and restart"
    return None


def kill_dockerd() -> None:
    """``SIGKILL`` the one local dockerd and wait until it is gone."""
    found = daemons()
    if len(found) != 1:
        raise RuntimeError(f"expected one dockerd, found {len(found)}")
    found[0].send_signal(signal.SIGKILL)
    found[0].wait(10)


def restart_dockerd(timeout: float = 180.0) -> None:
    """Start dockerd again and wait until it answers.

    A dockerd started right after its predecessor was killed can give up waiting for its containerd
    (``failed to start containerd: timeout``, seen on a loaded machine) and exit: then it is started
    again, until ``timeout``."""
    from rewardlab.sandbox import docker_engine_error

    deadline = time.monotonic() + timeout
    daemon: subprocess.Popen[bytes] | None = None
    while docker_engine_error() is not None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"dockerd did not come back within {timeout:.0f} s (log: {DOCKERD_LOG})")
        if (daemon is None or daemon.poll() is not None) and not daemons():  # poll() reaps our own failed one
            with open(DOCKERD_LOG, "ab") as log:
                daemon = subprocess.Popen(["dockerd"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(0.5)


def own_sandbox_containers() -> set[str]:
    """The ids of the sandbox containers this process owns, running or not: what another process (a parallel
    test worker) makes is not counted."""
    from rewardlab.leases import OWNER_LABEL, current_owner
    from rewardlab.sandbox.image import docker_client

    client = docker_client()
    try:
        labels = ["rewardlab.sandbox=1", f"{OWNER_LABEL}={current_owner().token}"]
        return {entry["Id"] for entry in client.api.containers(all=True, filters={"label": labels})}
    finally:
        client.close()
