"""Wrapper factories for the vector-env and composition tests (module-level so that they pickle)."""

from __future__ import annotations

from functools import partial

import gymnasium as gym

from rewardlab.wrappers import (
    ChatHistory,
    DynamicRubric,
    HackingMonitor,
    MilestoneReward,
    PotentialShaping,
    ProcessReward,
    RecordEpisodes,
    ReweightRubric,
)


def length_scorer(history, action, observation) -> float:
    """A heuristic step scorer: shorter actions score higher, in [0, 1]."""
    return 1.0 / (1.0 + len(action) / 100)


def worst_component(info) -> float:
    """A gold score every env has: its lowest component."""
    return min(info["reward_components"].values())


def single_wrappers(record_path: str) -> dict[str, object]:
    """One factory per wrapper, each ``env -> wrapped env``."""
    return {
        "ReweightRubric": partial(ReweightRubric, scheme="min"),
        "PotentialShaping": PotentialShaping,
        "MilestoneReward": partial(MilestoneReward, per_milestone=0.1, budget=0.3),
        "ProcessReward": partial(ProcessReward, scorer=length_scorer, normalize="running"),
        "DynamicRubric": DynamicRubric,
        "ChatHistory": ChatHistory,
        "RecordEpisodes": partial(RecordEpisodes, path=record_path),
        "HackingMonitor": partial(HackingMonitor, gold=worst_component),
    }


def full_stack(record_path: str) -> list:
    """Every scalar wrapper in one stack, innermost first, as ``gym.make_vec(wrappers=...)`` takes them."""
    return [
        partial(ReweightRubric, scheme="equal"),
        PotentialShaping,
        partial(MilestoneReward, per_milestone=0.1, budget=0.3),
        partial(ProcessReward, scorer=length_scorer, weight=0.2),
        partial(RecordEpisodes, path=record_path),
        partial(HackingMonitor, gold=worst_component),
        ChatHistory,
    ]


def apply(env: gym.Env, factories) -> gym.Env:
    for factory in factories:
        env = factory(env)
    return env
