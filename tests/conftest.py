"""Shared test helpers: the template env :class:`~rewardlab.envs.echo.EchoEnv` (re-exported here for the
tests, and as the ``tests.conftest:EchoEnv`` entry point), its fixture, ``made`` (every registered env, made once
per test module), ``shared_audit`` (each env's audit, run once per test run) and the Docker skip rule."""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING

import gymnasium as gym
import pytest

import rewardlab
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import MissingDependencyError

if TYPE_CHECKING:
    from rewardlab.audit import AuditReport

__all__ = ["EchoEnv", "docker_or_skip", "echo_env", "made", "shared_audit"]


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


@pytest.fixture(scope="session")
def shared_audit(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., AuditReport]:
    """``shared_audit(env_id, episodes=None)``: ``audit_env(env_id, split="test", episodes=episodes, seed=0)`` with
    every battery, shared by the test files and xdist workers of one run that ask for the same ``(env_id,
    episodes)`` (tests/audit/test_audit_envs.py checks each env's flags; the env's own files read the rows they
    test). A report is pickled into the run's temporary root (shared by its workers, removed with it) by the caller
    that made it under its file lock; a caller that finds the lock held by another worker makes its own rather than
    wait idle, so sharing never costs more than it saves."""
    from rewardlab.audit import audit_env

    root = tmp_path_factory.getbasetemp()
    root = (root.parent if "PYTEST_XDIST_WORKER" in os.environ else root) / "audit-reports"
    root.mkdir(parents=True, exist_ok=True)

    def audit(env_id: str, episodes: int | None = None) -> AuditReport:
        key = hashlib.sha256(f"{env_id}/{episodes}".encode()).hexdigest()[:16]
        path = root / f"{key}.pickle"
        with open(root / f"{key}.lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another worker is making it
                return audit_env(env_id, split="test", episodes=episodes, seed=0)
            if path.exists():
                return pickle.loads(path.read_bytes())
            report = audit_env(env_id, split="test", episodes=episodes, seed=0)
            path.write_bytes(pickle.dumps(report))
            return report

    return audit


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
