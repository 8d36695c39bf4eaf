"""Reward-design study: how the ranking of fixed trajectories changes across weighting schemes.

For each env, a fixed set of trajectories is played once on the test tasks: random-agent
episodes, oracle episodes, and noisy-oracle episodes (the oracle's action with probability
``1 − p``, else a random action, for a few noise levels ``p``). Each finished trajectory's
reward components are then re-aggregated under each scheme of
:class:`rewardlab.wrappers.ReweightRubric`: ``equal``, ``targeted:<c>`` for every component,
``geometric``, ``min`` and ``gated:<c>`` for every component. For each scheme the script prints
the Kendall rank correlation (tau-b, ties allowed) of the trajectories' rewards with their
rewards under equal weighting, the number of trajectory pairs whose order flips (strictly
ordered one way under equal weighting, strictly the other way under the scheme), and a few
of those flips. Episodes the env scored unusable keep its ``invalid_penalty`` under every scheme.
Tau is "n/a" when a scheme gives every trajectory the same reward (e.g. a gate none passes);
ties lower tau-b without flipping any pair. The rescoring is :class:`rewardlab.leaderboard.schemes.Scheme`'s and
tau and flips are :mod:`rewardlab.leaderboard.ranking`'s, as in ``rewardlab rescore`` (:mod:`rewardlab.rescore`),
which ``rewardlab demo`` runs on the leaderboard's episodes.

This is the data to look at before picking a weighting: a scheme with tau near 1 changes
little; flips between oracle-like and random trajectories show what a weighting rewards.

Usage: ``python -m benchmarks.reward_design_study [--envs ID ...] [--random N] [--oracle N] [--noisy N]``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

import rewardlab
from benchmarks.common import stamp, table
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.errors import RewardLabError
from rewardlab.evaluation import run_episode
from rewardlab.leaderboard.ranking import flipped_pairs, kendall_tau_b
from rewardlab.leaderboard.runner import FinalInfo
from rewardlab.leaderboard.schemes import Scheme

NOISE_LEVELS = (0.25, 0.5)


class NoisyOracle:
    """The oracle's action with probability ``1 − noise``, else a random action from ``sample_action``."""

    def __init__(self, env: gym.Env, noise: float, seed: int):
        self.oracle = OracleAgent(env)
        self.random = RandomAgent(env, seed=seed)
        self.noise = noise
        self.rng = np.random.default_rng(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.rng.random() < self.noise:
            return self.random.act(observation, info)
        return self.oracle.act(observation, info)

    def reset(self) -> None:
        self.oracle.reset()


@dataclass
class Trajectory:
    label: str
    components: dict[str, float]
    usable: bool


def play(env: gym.Env, n_random: int, n_oracle: int, n_noisy: int) -> list[Trajectory]:
    """The fixed trajectory set: seeds and tasks are fixed, so every run plays the same episodes."""
    task_ids = env.unwrapped.tasks.ids("test")
    agents: list[tuple[str, Any]] = [(f"random#{i}", RandomAgent(env, seed=i)) for i in range(n_random)]
    agents += [(f"oracle#{i}", OracleAgent(env)) for i in range(n_oracle)]
    agents += [(f"noisy{p}#{i}", NoisyOracle(env, p, seed=100 + i)) for p in NOISE_LEVELS for i in range(n_noisy)]
    recorder = FinalInfo(env)  # the last step's info tells whether the env could use the output
    trajectories = []
    for k, (label, agent) in enumerate(agents):
        run_episode(recorder, agent, seed=k, task_id=task_ids[k % len(task_ids)])
        info = recorder.final
        trajectories.append(Trajectory(label, dict(info["reward_components"]), bool(info.get("usable", True))))
    return trajectories


def schemes(names: tuple[str, ...]) -> list[str]:
    return ["equal", *(f"targeted:{n}" for n in names), "geometric", "min", *(f"gated:{n}" for n in names)]


def rewards_under(env: gym.Env, scheme: str, trajectories: list[Trajectory]) -> np.ndarray:
    rescore = Scheme.of(env, scheme, scheme)
    return np.array([rescore.reward(t.components, t.usable) for t in trajectories])


def env_report(env_id: str, n_random: int, n_oracle: int, n_noisy: int) -> str:
    env = gym.make(env_id)
    try:
        trajectories = play(env, n_random, n_oracle, n_noisy)
        names = env.unwrapped.reward_component_names
        labels = [t.label for t in trajectories]
        equal = rewards_under(env, "equal", trajectories)
        rows = []
        for scheme in schemes(names):
            rewards = rewards_under(env, scheme, trajectories)
            tau = kendall_tau_b(equal, rewards)
            flipped = [(labels[i], labels[j]) for i, j in flipped_pairs(equal, rewards)]
            examples = ", ".join(f"{a} > {b}" for a, b in flipped[:3]) + (" ..." if len(flipped) > 3 else "")
            tau_text = "n/a (all tied)" if math.isnan(tau) else f"{tau:.3f}"
            rows.append([scheme, tau_text, len(flipped), examples or "-"])
        by_reward = sorted(zip(equal, labels, strict=True), reverse=True)
        ranking = ", ".join(f"{label} {value:.2f}" for value, label in by_reward)
        return f"### {env_id}\n\n{len(trajectories)} trajectories, equal-weight reward: {ranking}\n\n" + table(
            ["scheme", "Kendall tau vs equal", "flipped pairs", "flips (above under equal > below)"], rows
        )
    finally:
        env.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="*", default=None, help="env ids (default: all registered)")
    parser.add_argument("--random", type=int, default=4, help="random-agent trajectories per env")
    parser.add_argument("--oracle", type=int, default=2, help="oracle trajectories per env")
    parser.add_argument(
        "--noisy", type=int, default=3, help=f"noisy-oracle trajectories per noise level {NOISE_LEVELS}"
    )
    args = parser.parse_args(argv)
    print(stamp(("rewardlab", "gymnasium", "scipy")))
    for env_id in args.envs or rewardlab.env_ids():
        print()
        try:
            print(env_report(env_id, args.random, args.oracle, args.noisy), flush=True)
        except RewardLabError as exc:  # a missing optional dependency: report it, go on
            print(f"### {env_id}\n\nskipped: {exc}", flush=True)


if __name__ == "__main__":
    main()
