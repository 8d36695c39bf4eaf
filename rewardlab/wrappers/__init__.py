"""Reward-design wrappers: shaping, milestone and process credit, normalisation, reweighting, recording.

Every wrapper is a :class:`gymnasium.Wrapper` that works on every RewardLab env, states its
formula in its docstring and writes to ``info`` only under its own key. The group-advantage
helpers are pure functions over a batch of episode results.
"""

from rewardlab.wrappers.advantages import component_group_advantages, group_advantages
from rewardlab.wrappers.chat import ChatHistory

__all__ = ["ChatHistory", "component_group_advantages", "group_advantages"]
