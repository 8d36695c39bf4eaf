"""The Agent protocol: what plays a :class:`~rewardlab.core.env.TextEnv` episode.

An agent maps the env's observation and info to a text action, and forgets its episode on
``reset()``. Every player has this shape: the random and LLM agents of :mod:`rewardlab.agents`,
and each env's oracle (``env.make_oracle()``), which reads the env's privileged task data. It is
a structural type (:class:`typing.Protocol`), so an agent need not inherit from it.

Example:
    >>> class Echo:
    ...     def act(self, observation: str, info: dict) -> str:
    ...         return observation
    ...
    ...     def reset(self) -> None:
    ...         pass
    >>> isinstance(Echo(), Agent)
    True
    >>> Echo().act("hello", {})
    'hello'
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Agent"]


@runtime_checkable
class Agent(Protocol):
    """Anything that maps an observation and its info to a text action."""

    def act(self, observation: str, info: dict[str, Any]) -> str:
        """The next action, given the latest observation and its ``info`` (from ``reset`` or ``step``)."""
        ...

    def reset(self) -> None:
        """Forget the current episode; called before each new one."""
        ...
