"""RewardStamp: the ``reward_version`` of a wrapper that changes rewards.

A wrapper that changes what an episode is paid (reweighting, shaping, credits, a vector reward) pays a
different reward than its env, so it reports a stamp of its own, derived from the stamp below it
(:func:`rewardlab.core.provenance.derive`)::

    reward_version = derive(inner reward_version, {"wrapper": module:class, "settings": ..., "code": digest})

``settings`` are what the wrapper was configured with (weights, gates, potentials, schedules: whatever
changes the reward it pays), read once, at construction; ``code`` is the
:func:`~rewardlab.core.provenance.code_digest` of the wrapper's module and of its ``stamp_modules`` (the
other modules whose code computes its reward). The stamp below is the ``reward_version`` of the env (or of
the nearest reward-changing wrapper) below; under a non-RewardLab env, which has none, the env's class
stands in for it. Wrappers that do not change rewards (ChatHistory, RecordEpisodes, HackingMonitor) have
no stamp of their own: ``get_wrapper_attr("reward_version")`` and ``info`` pass through them.

The wrapper writes its stamp into the ``info`` of every reset and step (:meth:`RewardStamp.stamped`), so the
outermost reward-changing wrapper's stamp is what a trainer sees, and exposes it as ``reward_version`` for
the wrappers above it. When the stamp below changes (the env's ``rubric`` was replaced), the wrapper's
follows: :meth:`~RewardStamp.stamped` compares the ``reward_version`` of the inner ``info`` with the one it
derived from (a string comparison per step), and ``reward_version`` reads the stamp below on each access.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rewardlab.core.provenance import code_digest, derive, plain, qualified_name


class RewardStamp:
    """Mixin for ``gym.Wrapper`` subclasses that change rewards (see the module docstring).

    A subclass calls :meth:`stamp_reward` at the end of ``__init__`` and passes the ``info`` of every
    step through :meth:`stamped`; :meth:`reset` does so for a reset (a subclass that overrides it does too).

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> from rewardlab.wrappers import ChatHistory, PotentialShaping
        >>> env = ChatHistory(PotentialShaping(EchoEnv(), gamma=0.9))
        >>> _, info = env.reset(seed=0, options={"task_id": "t0"})
        >>> info["reward_version"] == env.get_wrapper_attr("reward_version") != EchoEnv().reward_version
        True
        >>> PotentialShaping(EchoEnv(), gamma=0.9).reward_version == info["reward_version"]
        True
        >>> PotentialShaping(EchoEnv(), gamma=1.0).reward_version == info["reward_version"]
        False
    """

    env: Any
    stamp_modules: ClassVar[tuple[str, ...]] = ()
    """Modules besides the wrapper's own whose code computes the reward it pays (part of its stamp)."""
    _stamp_part: dict[str, Any]
    _stamp_base: str
    _stamp: str

    def stamp_reward(self, settings: Mapping[str, Any]) -> None:
        """Fix the wrapper's part of the stamp from ``settings``; call at the end of ``__init__``."""
        self._stamp_part = {
            "wrapper": qualified_name(type(self)),
            "settings": plain(settings),
            "code": code_digest([type(self).__module__, *self.stamp_modules]),
        }
        self._restamp(self.inner_reward_version())

    def inner_reward_version(self) -> str:
        """The stamp below: the inner env's ``reward_version``, or its class for an env without one."""
        try:
            return str(self.env.get_wrapper_attr("reward_version"))
        except AttributeError:
            return "unstamped:" + qualified_name(type(self.env.unwrapped))

    @property
    def reward_version(self) -> str:
        """The stamp of the reward this wrapper pays."""
        inner = self.inner_reward_version()
        if inner != self._stamp_base:
            self._restamp(inner)
        return self._stamp

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """The inner env's reset, its ``info`` :meth:`stamped`."""
        observation, info = self.env.reset(seed=seed, options=options)
        return observation, self.stamped(info)

    def stamped(self, info: dict[str, Any]) -> dict[str, Any]:
        """``info`` with this wrapper's ``reward_version`` (derived again if the inner ``info``'s changed)."""
        inner = info.get("reward_version")
        if isinstance(inner, str) and inner != self._stamp_base:
            self._restamp(inner)
        info["reward_version"] = self._stamp
        return info

    def _restamp(self, inner: str) -> None:
        self._stamp_base = inner
        self._stamp = derive(inner, self._stamp_part)
