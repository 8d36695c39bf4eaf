"""``ServeConfig``: what one ``rewardlab serve`` process serves, and its limits (no server imports)."""

from __future__ import annotations

from dataclasses import dataclass

from rewardlab.errors import ConfigError

__all__ = ["ServeConfig"]


@dataclass(frozen=True)
class ServeConfig:
    """What one ``rewardlab serve`` process serves, and its limits.

    Attributes:
        env_ids: The env ids clients may make.
        max_sessions: Open sessions at most; one more is refused with ``CAPACITY_REACHED``.
        idle_timeout: Seconds without a message after which a session is closed.
        token: When set, every connection (and HTTP request but ``/health``) must carry it.
        max_frame_bytes: Largest client frame read as a message.
    """

    env_ids: tuple[str, ...]
    max_sessions: int = 256
    idle_timeout: float = 600.0
    token: str | None = None
    max_frame_bytes: int = 1 << 20

    def __post_init__(self) -> None:
        if not self.env_ids:
            raise ConfigError("serve at least one env id")
        if self.max_sessions < 1:
            raise ConfigError(f"max_sessions must be at least 1, got {self.max_sessions}")
        if not self.idle_timeout > 0:
            raise ConfigError(f"idle_timeout must be positive, got {self.idle_timeout}")
        if self.max_frame_bytes < 1024:
            raise ConfigError(f"max_frame_bytes must be at least 1024, got {self.max_frame_bytes}")
