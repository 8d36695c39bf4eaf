"""A container a closed sandbox could not remove because dockerd was down is removed by its owner once
dockerd is back (``rewardlab.sandbox.docker.UNDERTAKER``), not kept until the owner exits."""

from __future__ import annotations

import os
import time

import pytest

from rewardlab.leases import resource_labels
from rewardlab.reaper import SANDBOX_LABEL
from rewardlab.sandbox.docker import DEFAULT_IMAGE, UNDERTAKER
from tests.chaos import harness
from tests.conftest import docker_or_skip

pytestmark = [pytest.mark.serial, pytest.mark.slow, pytest.mark.docker, pytest.mark.timeout(180)]


def test_a_container_left_while_the_engine_was_down_goes_when_it_is_back():
    """A created (never started, so never auto-removed) sandbox container handed over while dockerd is
    killed stays pending; once dockerd is restarted it is removed within a few retry periods."""
    docker_or_skip()
    problem = harness.dockerd_killable()
    if problem:
        pytest.skip(problem)
    client = harness.docker_client()
    try:
        container = client.containers.create(DEFAULT_IMAGE, ["true"], labels={SANDBOX_LABEL: "1", **resource_labels()})
    finally:
        client.close()
    try:
        harness.kill_dockerd()
        UNDERTAKER.adopt([container.id])
        time.sleep(3)  # at least one try while the engine is down
        assert container.id in UNDERTAKER.pending
    finally:
        harness.restart_dockerd()
    deadline = time.monotonic() + 30
    while container.id in UNDERTAKER.pending and time.monotonic() < deadline:
        time.sleep(0.5)
    try:
        assert container.id not in UNDERTAKER.pending
        assert container.id not in harness.sandbox_containers([os.getpid()])
    finally:
        harness.remove_containers([container.id])
