"""Record episodes for ``rewardlab crosscheck --recorded`` and ``rewardlab rescore``: agents, defects, strategies.

    python -m benchmarks.record_episodes RewardLab/SWE-v2 results/swe_audit.jsonl --agent strategies
    python -m benchmarks.record_episodes RewardLab/BFCL-v1 results/bfcl_model.jsonl --agent model --episodes 40
    python -m benchmarks.record_episodes RewardLab/BPMN-v2 results/bpmn_rescore/episodes/oracle.jsonl --agent oracle

Every agent plays ``--episodes`` tasks evenly spread over the split (default: all of them):

- ``oracle``: the env's oracle; ``random``: the seeded random agent (seed ``--seed``); each episode's seed is its
  index (plus ``--seed``).
- ``defective``: every one-defect rewrite of the oracle's answer that the env's audit profile has (the *defective*
  battery, :mod:`rewardlab.audit.batteries`; BPMN: a flow removed, an implicit split, a start or end event
  removed, a mixed gateway, a gateway's type swapped) on every task it applies to, seeded as the audit seeds
  them: episodes whose answer is known to be wrong in one place.
- ``model``: the default policy model (SmolLM2-135M-Instruct, greedy, :class:`~rewardlab.agents.TransformersAgent`).
- ``strategies``: each of the env's own degenerate strategies (``audit_profile().strategies``), once per task.

Episodes go through :class:`~rewardlab.wrappers.RecordEpisodes` with ``--label`` (default: the agent's name), so
that ``rewardlab rescore`` and the ``rescore`` mode of ``rewardlab study`` rank them by label; an independent grader
can judge the same episodes (``rewardlab crosscheck ENV --recorded PATH``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import gymnasium as gym

import rewardlab  # noqa: F401 - registers the env ids
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.audit.batteries import rewrite_strategy
from rewardlab.audit.episode import oracle_seed, play_episode
from rewardlab.audit.runner import spread
from rewardlab.audit.strategy import profile_of
from rewardlab.evaluation import run_episode
from rewardlab.wrappers import RecordEpisodes

AGENTS: tuple[str, ...] = ("oracle", "random", "defective", "model", "strategies")


def record(
    env_id: str,
    output: str | Path,
    agent: str,
    *,
    episodes: int | None = None,
    split: str = "test",
    seed: int = 0,
    label: str | None = None,
    max_new_tokens: int = 256,
    env_kwargs: dict[str, Any] | None = None,
) -> int:
    """Record ``agent``'s episodes of ``env_id`` into ``output`` (module docstring); returns how many."""
    if agent not in AGENTS:
        raise ValueError(f"agent must be one of {AGENTS}, got {agent!r}")
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    env = RecordEpisodes(gym.make(env_id, **(env_kwargs or {})), output, flush_interval_s=0, label=label or agent)
    try:
        task_ids = spread(env.unwrapped.tasks.ids(split), episodes)
        if agent in ("oracle", "random", "model"):
            player: Any
            if agent == "oracle":
                player = OracleAgent(env)
            elif agent == "random":
                player = RandomAgent(env, seed=seed)
            else:
                from rewardlab.agents import TransformersAgent

                player = TransformersAgent.from_pretrained("smollm2", max_new_tokens=max_new_tokens)
            for index, task_id in enumerate(task_ids):
                run_episode(env, player, seed=seed + index, task_id=task_id)
        elif agent == "defective":
            profile = profile_of(env)
            oracle = OracleAgent(env.env)  # the oracle's own episodes are not recorded here
            for task_id in task_ids:
                answer = run_episode(env.env, oracle, seed=oracle_seed(seed, task_id), task_id=task_id).actions
                for rewrite in profile.defects:
                    strategy = rewrite_strategy(rewrite, answer, seed)
                    play_episode(env, strategy, task_id, seed, profile, {}, episode_seed=oracle_seed(seed, task_id))
        else:
            profile = profile_of(env)
            for task_id in task_ids:
                for strategy in profile.strategies:
                    play_episode(env, strategy, task_id, seed, profile, {})
    finally:
        env.close()
    return env.episodes_written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("output", help="JSONL file of recorded episodes (appended to)")
    parser.add_argument("--agent", default="strategies", choices=AGENTS)
    parser.add_argument("--episodes", type=int, default=None, help="tasks played (default: the whole split)")
    parser.add_argument("--label", default=None, help="the label recorded with each episode (default: the agent)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-new-tokens", type=int, default=256, help="model: tokens per action")
    parser.add_argument("--split", default="test", choices=["train", "test"])
    args = parser.parse_args(argv)
    count = record(
        args.env_id,
        args.output,
        args.agent,
        episodes=args.episodes,
        split=args.split,
        seed=args.seed,
        label=args.label,
        max_new_tokens=args.max_new_tokens,
    )
    print(f"recorded {count} {args.label or args.agent} episodes of {args.env_id} into {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
