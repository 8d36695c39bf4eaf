"""Moved to :mod:`rewardlab.baselines.advantages`: the group advantages are pure functions used by the
trainers, not wrappers. This module re-exports them so that existing imports keep working;
``from rewardlab.wrappers import group_advantages, component_group_advantages`` works too.

Example:
    >>> from rewardlab.wrappers.advantages import group_advantages
    >>> group_advantages.__module__
    'rewardlab.baselines.advantages'
    >>> group_advantages([1.0, 0.0], ["a", "a"]).round(3).tolist()
    [1.0, -1.0]
"""

from rewardlab.baselines.advantages import (
    component_group_advantages,
    component_matrix,
    group_advantages,
    group_centred_std,
    group_index,
)

__all__ = ["component_group_advantages", "component_matrix", "group_advantages", "group_centred_std", "group_index"]
