"""A connection to a Docker engine that is down closes its socket at once (no engine needed)."""

from __future__ import annotations

import gc
import os
import socket
from pathlib import Path

import pytest

from rewardlab.sandbox.image import SandboxError, docker_client

pytest.importorskip("docker")


def _open_sockets() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:
            continue
    return count


def _stale_socket(path: Path) -> None:
    """A socket file nobody listens on: what a killed dockerd leaves behind."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.close()


@pytest.mark.parametrize("engine", ["killed", "absent"])
def test_a_failed_engine_connection_leaves_no_open_socket(tmp_path, monkeypatch, engine):
    """Each try against an engine that is down (its socket file left by a killed engine, or none)
    fails with SandboxError and leaves no socket open, without waiting for a garbage collection
    (the SDK's own connect leaves one per try: a server retrying every two seconds gathered them)."""
    path = tmp_path / "docker.sock"
    if engine == "killed":
        _stale_socket(path)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
    gc.disable()
    try:
        before = _open_sockets()
        for _ in range(5):
            with pytest.raises(SandboxError, match="no Docker engine answers"):
                docker_client(timeout=1)
        assert _open_sockets() == before
    finally:
        gc.enable()
