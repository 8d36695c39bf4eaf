"""One error hierarchy for RewardLab.

Errors are for misuse of the API (bad configuration, unknown task ids, step before reset,
a missing optional dependency). Agent output is never an error: envs turn it into
``info["action_error"]`` and a score.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable
from types import ModuleType


class RewardLabError(Exception):
    """Base class of every error RewardLab raises on purpose."""


class ConfigError(RewardLabError, ValueError):
    """A constructor or option received a value it cannot use."""


class UnknownTaskError(RewardLabError, KeyError):
    """A task id is not in the env's TaskSet."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class ResetNeeded(RewardLabError, RuntimeError):
    """``step`` was called before ``reset`` or after the episode ended."""


class InfrastructureError(RewardLabError, RuntimeError):
    """What runs the env failed, not the agent: the browser or the env's page server (Chromium killed,
    its page closed, the site server stopped), the Ray actor holding the env. Envs end the episode
    with ``info["infra_error"]`` instead of letting it escape, and rebuild what died at the next reset."""


class MissingDependencyError(RewardLabError, ImportError):
    """An optional dependency is not installed; the message names the extra."""


def did_you_mean(value: str, allowed: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest allowed value, or ``""``."""
    matches = difflib.get_close_matches(str(value), list(allowed), n=1)
    return f" Did you mean {matches[0]!r}?" if matches else ""


def require(module: str, extra: str) -> ModuleType:
    """Import an optional dependency or raise :class:`MissingDependencyError` naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module!r} is not installed; install it with: pip install 'rewardlab[{extra}]'"
        ) from exc
