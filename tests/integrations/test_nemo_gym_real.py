"""The NeMo-Gym adapter against the real NeMo-Gym 0.7: tests/integrations/nemo_gym_real.py run with Python 3.13
in the ``rewardlab/nemo-gym`` image (scripts/setup-nemo-gym.sh, built by scripts/setup-tests.sh), with this
checkout mounted read-only and no network."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conftest import docker_or_skip

ROOT = Path(__file__).resolve().parents[2]
TESTS = "tests/integrations/nemo_gym_real.py"
CASES = 6
"""The tests of :data:`TESTS`: each must run and pass."""


def nemo_gym_image() -> str:
    """The tag the current recipe of scripts/setup-nemo-gym.sh builds."""
    done = subprocess.run(
        ["bash", "scripts/setup-nemo-gym.sh", "--tag"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.slow
def test_the_adapter_serves_episodes_through_the_real_nemo_gym():
    docker_or_skip()
    image = nemo_gym_image()
    if subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode != 0:
        missing = f"no {image}: build it with bash scripts/setup-nemo-gym.sh"
        if os.environ.get("REWARDLAB_REQUIRE_DOCKER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    name = f"rewardlab-nemo-gym-test-{uuid.uuid4().hex[:8]}"
    argv = [
        "docker", "run", "--rm", "--name", name, "--network", "none", "-v", f"{ROOT}:/repo:ro", "-w", "/repo",
        "-e", "PYTHONPATH=/repo", "-e", "PYTHONDONTWRITEBYTECODE=1", "-e", "HOME=/tmp",
        image, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", TESTS,
    ]  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True)  # gone even when the run timed out
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert f"{CASES} passed" in output and "skipped" not in output, output
