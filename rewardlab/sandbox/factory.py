"""Choosing a sandbox: :func:`make_sandbox` and the :class:`SandboxedExecution` option of envs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rewardlab.errors import ConfigError, did_you_mean
from rewardlab.sandbox.base import Limits, Sandbox
from rewardlab.sandbox.docker import DEFAULT_IMAGE, DockerSandbox, docker_engine_error
from rewardlab.sandbox.local import LocalSandbox, isolation_modes
from rewardlab.sandbox.rootfs import BUILD_ROOT_COMMAND, built_root

Backend = Literal["auto", "local", "docker"]
BACKENDS: tuple[str, ...] = ("auto", "local", "docker")


def make_sandbox(backend: Backend = "auto", *, limits: Limits | None = None, image: str = DEFAULT_IMAGE) -> Sandbox:
    """A sandbox of the given backend.

    ``"auto"`` picks :class:`DockerSandbox` only when a Docker engine answers a ping, else
    :class:`LocalSandbox`. ``"docker"`` raises :class:`ConfigError` when no engine answers.
    A :class:`LocalSandbox` mounts the minimal root (:mod:`rewardlab.sandbox.rootfs`, the files
    the Docker image has) when it is built and bubblewrap works; otherwise it shows an
    allow-list of the host and says so in its ``warnings``.

    Example:
        >>> make_sandbox("local").backend
        'local'
    """
    if backend not in BACKENDS:
        raise ConfigError(
            f"sandbox backend must be one of {BACKENDS}, got {backend!r}" + did_you_mean(backend, BACKENDS)
        )
    if backend == "local":
        return local_sandbox(limits)
    problem = docker_engine_error()
    if problem is None:
        return DockerSandbox(image=image, limits=limits)
    if backend == "docker":
        raise ConfigError(f"sandbox='docker' needs a running Docker engine: {problem}. Use sandbox='local'.")
    return local_sandbox(limits)


def local_sandbox(limits: Limits | None = None) -> LocalSandbox:
    """A :class:`LocalSandbox` on the minimal root when it is built and bubblewrap works, else on
    the host allow-list with a warning that says how to get the root."""
    root = built_root()
    if root is not None and "bwrap" in isolation_modes():
        return LocalSandbox(limits=limits, root=root)
    sandbox = LocalSandbox(limits=limits)
    reason = "it is not built" if root is None else "bubblewrap does not work here"
    sandbox.warnings = (*sandbox.warnings, NO_ROOT_WARNING.format(reason=reason))
    return sandbox


NO_ROOT_WARNING = (
    "WARNING: the local sandbox shows an allow-list of the host's files (its Python installation and "
    "site-packages included), not the minimal root, because {reason}: run `" + BUILD_ROOT_COMMAND + "`."
)


@dataclass(frozen=True)
class SandboxedExecution:
    """How an env runs agent code: the backend, the limits and the timeout of each run.

    Envs that run agent-written code take ``sandbox: SandboxedExecution | Sandbox | str`` and
    call :meth:`resolve`; a string is a backend name with default limits.

    Attributes:
        backend: ``"auto"``, ``"local"`` or ``"docker"`` (see :func:`make_sandbox`).
        limits: Resource limits of each run.
        timeout: Wall-clock seconds of each run.
        image: The Docker image (Docker backend only).
    """

    backend: Backend = "local"
    limits: Limits = field(default_factory=Limits)
    timeout: float = 30.0
    image: str = DEFAULT_IMAGE

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ConfigError(
                f"backend must be one of {BACKENDS}, got {self.backend!r}" + did_you_mean(str(self.backend), BACKENDS)
            )
        if not isinstance(self.limits, Limits):
            raise ConfigError(f"limits must be a rewardlab.sandbox.Limits, got {type(self.limits).__name__}")
        if not isinstance(self.timeout, (int, float)) or not self.timeout > 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {self.timeout!r}")

    @classmethod
    def coerce(cls, value: SandboxedExecution | Sandbox | str) -> tuple[SandboxedExecution, Sandbox | None]:
        """Normalise an env's ``sandbox`` argument to ``(options, ready sandbox or None)``."""
        if isinstance(value, cls):
            return value, None
        if isinstance(value, str):
            return cls(backend=value), None  # type: ignore[arg-type]
        if isinstance(value, Sandbox):
            return cls(backend=value.backend), value  # type: ignore[arg-type]
        raise ConfigError(
            f"sandbox must be a backend name {BACKENDS}, a SandboxedExecution or a Sandbox, got {type(value).__name__}"
        )

    def create(self) -> Sandbox:
        """A new sandbox with these options."""
        return make_sandbox(self.backend, limits=self.limits, image=self.image)
