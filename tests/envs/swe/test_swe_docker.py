"""RewardLab/SWE-v2 on the Docker backend: the same verdicts as locally, and engine faults as infra_error."""

from __future__ import annotations

import gymnasium as gym
import pytest

from rewardlab.agents import OracleAgent
from rewardlab.audit import audit_env
from rewardlab.evaluation import run_episode
from rewardlab.sandbox import docker_engine_error
from tests.conftest import docker_or_skip
from tests.docker_engine import dockerd_killable, kill_dockerd, own_sandbox_containers, restart_dockerd

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def docker_env():
    docker_or_skip()
    env = gym.make("RewardLab/SWE-v2", sandbox="docker")
    yield env
    env.close()


def test_oracle_resolves_every_task_and_the_empty_submission_none(docker_env):
    oracle = OracleAgent(docker_env)
    for task_id in docker_env.unwrapped.tasks.ids():
        result = run_episode(docker_env, oracle, task_id=task_id)
        assert result.is_success, (task_id, result.components)
        docker_env.reset(options={"task_id": task_id})
        *_, info = docker_env.step("submit")
        assert not info["is_success"] and info["reward_components"]["resolved"] == 0.0


def test_the_hardened_evaluation_holds_in_docker():
    docker_or_skip()
    report = audit_env("RewardLab/SWE-v2", episodes=2, env_kwargs={"sandbox": "docker"})
    assert not report.flagged, report.format_table()
    assert report.oracle.successes == 2


def test_no_container_outlives_the_env():
    docker_or_skip()
    before = own_sandbox_containers()
    env = gym.make("RewardLab/SWE-v2", sandbox="docker")
    for task_id in env.unwrapped.tasks.ids("test")[:3]:
        env.reset(options={"task_id": task_id})
        env.step("python\nimport subprocess; subprocess.Popen(['sleep', '300'])")
        env.step("test")
    assert len(own_sandbox_containers() - before) == 1
    env.close()
    assert own_sandbox_containers() <= before


@pytest.mark.serial  # kills the Docker engine every other test uses
def test_an_engine_killed_mid_episode_is_an_infra_error_and_the_next_reset_recovers():
    docker_or_skip()
    problem = dockerd_killable()
    if problem is not None:
        pytest.skip(problem)
    before = own_sandbox_containers()
    env = gym.make("RewardLab/SWE-v2", sandbox="docker")
    try:
        env.reset(options={"task_id": "textkit-4"})
        assert "infra_error" not in env.step("test")[4]
        kill_dockerd()
        _, reward, terminated, _, info = env.step("test")
        assert terminated and reward == 0.0 and not info["usable"]
        assert "Docker engine" in info["infra_error"]
        restart_dockerd()
        result = run_episode(env, OracleAgent(env), task_id="textkit-4")
        assert result.is_success
    finally:
        if docker_engine_error() is not None:
            restart_dockerd()
        env.close()
    assert own_sandbox_containers() <= before, "a container made by the env outlived it"


def test_unittest_cases_and_installed_twins_are_graded_right_in_docker(tmp_path):
    """Debian's pytest 7 gives unittest items pytest's own runtest; the image ships more_itertools."""
    docker_or_skip()
    from rewardlab.envs.swe.tampering import top_level_packages
    from rewardlab.envs.swe.testrun import run_tests
    from rewardlab.sandbox import DockerSandbox

    tree = {
        "more_itertools/__init__.py": "ORIGIN = 'repository'\n",
        "tests/__init__.py": "",
        "tests/test_case.py": "import unittest\n\nimport more_itertools\n\n\nclass T(unittest.TestCase):\n"
        "    def test_a(self):\n        self.assertEqual(more_itertools.ORIGIN, 'repository')\n",
    }
    sandbox = DockerSandbox()
    try:
        run = run_tests(
            sandbox,
            tree,
            tmp_path / "eval",
            ["tests/test_case.py::T::test_a"],
            timeout=60,
            python="python3",
            packages=top_level_packages(tree),
        )
    finally:
        sandbox.close()
    assert not run.tampering and all(run.passed.values()), (run.tampering, run.statuses)
