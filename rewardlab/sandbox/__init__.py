"""Where untrusted code runs: :class:`LocalSandbox`, :class:`DockerSandbox` and :func:`make_sandbox`."""

from rewardlab.sandbox.base import KILLED_REASONS, WORKSPACE, Limits, Sandbox, SandboxResult
from rewardlab.sandbox.docker import DockerSandbox, docker_engine_error
from rewardlab.sandbox.factory import BACKENDS, SandboxedExecution, make_sandbox
from rewardlab.sandbox.image import SandboxError, build_image, default_image
from rewardlab.sandbox.local import LocalSandbox, isolation_modes

__all__ = [
    "BACKENDS",
    "KILLED_REASONS",
    "WORKSPACE",
    "DockerSandbox",
    "Limits",
    "LocalSandbox",
    "Sandbox",
    "SandboxError",
    "SandboxResult",
    "SandboxedExecution",
    "build_image",
    "default_image",
    "docker_engine_error",
    "isolation_modes",
    "make_sandbox",
]
