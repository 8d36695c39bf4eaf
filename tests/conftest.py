"""Shared test helpers: the template env :class:`~rewardlab.envs.echo.EchoEnv` (re-exported here for the
tests, and as the ``tests.conftest:EchoEnv`` entry point), its fixture, ``made`` (every registered env, made once
per test module) and the Docker skip rule."""

from __future__ import annotations

import gymnasium as gym
import pytest

import rewardlab
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import MissingDependencyError

__all__ = ["EchoEnv", "docker_or_skip", "echo_env", "made"]


@pytest.fixture
def echo_env():
    env = EchoEnv()
    yield env
    env.close()


@pytest.fixture(scope="module", params=rewardlab.env_ids())
def made(request):
    """``(env id, env)`` made with default arguments, once per id."""
    try:
        env = gym.make(request.param)
    except MissingDependencyError as exc:
        pytest.skip(f"{request.param}: {exc}")
    yield request.param, env
    env.close()


def docker_or_skip() -> None:
    """Skip a Docker test with the reason when no engine answers, or fail it where Docker is required
    (``REWARDLAB_REQUIRE_DOCKER=1``, set by CI, which must run every Docker test)."""
    import os

    from rewardlab.sandbox import docker_engine_error

    problem = docker_engine_error()
    if problem is None:
        return
    if os.environ.get("REWARDLAB_REQUIRE_DOCKER") == "1":
        # a busy engine (another worker's containers starting or going) can take more than the 3 s ping to answer
        problem = docker_engine_error(timeout=60.0)
        if problem is None:
            return
        pytest.fail(f"REWARDLAB_REQUIRE_DOCKER=1 but the Docker backend cannot run: {problem}")
    pytest.skip(f"Docker backend not tested: {problem}")
