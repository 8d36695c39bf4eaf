"""Reward-design wrappers: shaping, milestone and process credit, normalisation, reweighting, recording.

Every wrapper is a :class:`gymnasium.Wrapper` that works on every RewardLab env, states its
formula in its docstring, validates its arguments (raising :class:`~rewardlab.errors.ConfigError`)
and writes to ``info`` only under its own key:

============================  ==================================================  =====================
wrapper                       what it does                                        info key
============================  ==================================================  =====================
:class:`ReweightRubric`       recompute the outcome reward under other weights     ``reweight``
:class:`PotentialShaping`     ``r + γΦ(s') − Φ(s)`` from ``info["progress"]``      ``shaping``
:class:`MilestoneReward`      credit per milestone, capped, optionally gated       ``milestone_reward``
:class:`ProcessReward`        any step scorer (PRM, LLM judge), normalised         ``process_reward``
:class:`DynamicRubric`        weights by within-task discrimination (POW3R-style)  ``dynamic_rubric``
:class:`VectorReward`         the component vector is the reward                   ``scalar_reward``
:class:`ChatHistory`          the episode as chat messages                          ``messages``, ``tools``
:class:`RecordEpisodes`       one JSON line per episode, written atomically        (none)
:class:`HackingMonitor`       flags proxy/gold gaps and degenerate outputs          ``hacking``
============================  ==================================================  =====================

:class:`BatchVectorReward` is the vector-env form of :class:`VectorReward`.
:func:`discrimination_weights` is a pure function over a batch of episode results. The group advantages
(GRPO, GDPO) are not wrappers: they are the pure functions of :mod:`rewardlab.core.group_stats`.

Wrappers that replace the outcome reward (ReweightRubric, DynamicRubric) go innermost, right
on the env; VectorReward goes outermost. The rest stack in any order.

Every wrapper that changes the reward (all but ChatHistory, RecordEpisodes and HackingMonitor) has a
``reward_version`` of its own, derived from the one below it and its settings, and writes it into
``info["reward_version"]`` at every reset and step (:mod:`rewardlab.wrappers.stamp`); the others pass the
stamp below through. So ``info["reward_version"]`` is always the stamp of the reward the step paid.
"""

from rewardlab.core.records import read_episodes
from rewardlab.wrappers.chat import ChatHistory
from rewardlab.wrappers.dynamic import DynamicRubric, discrimination_weights
from rewardlab.wrappers.hacking import HackingMonitor, repetition_rate
from rewardlab.wrappers.milestones import MilestoneReward
from rewardlab.wrappers.process import ProcessReward, StepScorer
from rewardlab.wrappers.recording import RecordEpisodes
from rewardlab.wrappers.reweight import PRESETS, ReweightRubric
from rewardlab.wrappers.shaping import PotentialShaping, progress_potential
from rewardlab.wrappers.vector import BatchVectorReward, VectorReward

__all__ = [
    "PRESETS",
    "BatchVectorReward",
    "ChatHistory",
    "DynamicRubric",
    "HackingMonitor",
    "MilestoneReward",
    "PotentialShaping",
    "ProcessReward",
    "RecordEpisodes",
    "ReweightRubric",
    "StepScorer",
    "VectorReward",
    "discrimination_weights",
    "progress_potential",
    "read_episodes",
    "repetition_rate",
]
