"""RewardStamp: the ``reward_version`` of a wrapper that changes rewards.

A wrapper that changes what an episode is paid (reweighting, shaping, credits, a vector reward) pays a
different reward than its env, so it reports a stamp of its own, derived from the stamp below it
(:func:`rewardlab.core.provenance.derive`)::

    reward_version = derive(inner reward_version, {"wrapper": module:class, "settings": ..., "code": digest})

``settings`` are what the wrapper was configured with (weights, gates, potentials, schedules: whatever
changes the reward it pays); ``code`` is the wrapper module's :func:`~rewardlab.core.provenance.code_digest`.
The wrapper writes its stamp into the ``info`` of every reset and step (:meth:`RewardStamp.stamped`), so the
outermost reward-changing wrapper's stamp is what a trainer sees, and exposes it as ``reward_version`` for
the wrappers above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from rewardlab.core.provenance import code_digest, derive, plain, qualified_name


class RewardStamp:
    """Mixin for ``gym.Wrapper`` subclasses that change rewards (see the module docstring)."""

    env: gym.Env[Any, Any]
    reward_version: str
    """The stamp of the reward this wrapper pays."""

    def stamp_reward(self, settings: Mapping[str, Any]) -> None:
        """Set :attr:`reward_version` from the stamp below and ``settings``; call at the end of ``__init__``."""
        inner = self.env.get_wrapper_attr("reward_version")
        part = {
            "wrapper": qualified_name(type(self)),
            "settings": plain(settings),
            "code": code_digest([type(self).__module__]),
        }
        self.reward_version = derive(str(inner), part)

    def stamped(self, info: dict[str, Any]) -> dict[str, Any]:
        """``info`` with this wrapper's ``reward_version``."""
        info["reward_version"] = self.reward_version
        return info
