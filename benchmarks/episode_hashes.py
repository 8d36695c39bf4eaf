"""Fingerprints of played episodes, to show that a refactor changed no behaviour.

For every current env id, the oracle and the seeded random agent play ``--episodes`` episodes
(seeds 0..n-1, test split). Each episode's fingerprint is the SHA-256 of its trajectory: every
observation, action, reward, termination flag and the step's ``info`` as sorted JSON, without the
fields that measure time or name a temporary path (:data:`VOLATILE`). Run it before and after a
change and ``diff`` the two outputs::

    python -m benchmarks.episode_hashes --json before.json
    python -m benchmarks.episode_hashes --json after.json --compare before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

import rewardlab
from rewardlab.agents.base import OracleAgent, RandomAgent

VOLATILE = ("elapsed", "seconds", "time", "duration", "path", "tmp", "workdir")
"""Info keys containing one of these words are left out of a fingerprint."""


def stable(value: Any) -> Any:
    """``value`` without volatile keys, in a form ``json.dumps`` accepts."""
    if isinstance(value, dict):
        return {str(k): stable(v) for k, v in value.items() if not any(word in str(k).lower() for word in VOLATILE)}
    if isinstance(value, (list, tuple)):
        return [stable(v) for v in value]
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return repr(type(value))


def episode_fingerprint(env: gym.Env, agent: Any, seed: int) -> str:
    """SHA-256 over one episode's observations, actions, rewards, flags and stable info."""
    digest = hashlib.sha256()
    observation, info = env.reset(seed=seed, options={"split": "test"})
    agent.reset()
    digest.update(json.dumps([observation, stable(info)], sort_keys=True).encode())
    while True:
        action = agent.act(observation, info)
        observation, reward, terminated, truncated, info = env.step(action)
        record = [action, observation, round(float(reward), 9), terminated, truncated, stable(info)]
        digest.update(json.dumps(record, sort_keys=True).encode())
        if terminated or truncated:
            return digest.hexdigest()[:16]


def fingerprints(env_ids: list[str], episodes: int) -> dict[str, str]:
    """``{"<env id> <agent> <seed>": fingerprint}`` for every env, agent and seed."""
    result: dict[str, str] = {}
    for env_id in env_ids:
        env = gym.make(env_id)
        try:
            agents = {"oracle": OracleAgent(env), "random": RandomAgent(env, seed=0)}
            for name, agent in agents.items():
                for seed in range(episodes):
                    result[f"{env_id} {name} {seed}"] = episode_fingerprint(env, agent, seed)
                    print(f"{env_id} {name} {seed} {result[f'{env_id} {name} {seed}']}", flush=True)
        finally:
            env.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--env", action="append", help="env ids (default: every current id)")
    parser.add_argument("--json", type=Path, help="write the fingerprints here")
    parser.add_argument("--compare", type=Path, help="a previous --json output; exit 1 on any difference")
    args = parser.parse_args(argv)
    result = fingerprints(args.env or rewardlab.env_ids(), args.episodes)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, sort_keys=True))
    if args.compare:
        before = json.loads(args.compare.read_text())
        changed = sorted(key for key in before.keys() | result.keys() if before.get(key) != result.get(key))
        print(f"{len(changed)} of {len(before)} fingerprints differ" + "".join(f"\n  {key}" for key in changed))
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
