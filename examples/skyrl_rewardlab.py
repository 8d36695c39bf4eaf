"""RewardLab envs in SkyRL: the dataset rows, the SkyRL-Gym registration, and episodes up to the trainer.

    python examples/skyrl_rewardlab.py --env RewardLab/ToolCall-v3 --episodes 8 --output data/toolcall.parquet

This writes SkyRL's dataset (one row per task: ``prompt``, ``env_class``, ``task_id``, ``split``,
``reward_spec``), registers the envs in SkyRL-Gym and plays a few episodes through
``skyrl_gym.make`` exactly as SkyRL's generator does (``init``, ``step`` until done,
``get_metrics``, ``close``), with the oracle in place of the policy; the per-component metrics are
aggregated by SkyRL-Gym's own ``aggregate_for_environment``, as the trainer logs them.

Training (skyrl-train on GPUs; not run here) registers the envs inside SkyRL's entrypoint task,
like SkyRL's own custom-env examples::

    @ray.remote(num_cpus=1)
    def skyrl_entrypoint(cfg):
        from rewardlab.integrations.skyrl import register_skyrl_envs
        register_skyrl_envs()
        BasePPOExp(cfg).run()

with ``data.train_data="['data/toolcall.parquet']"``, ``environment.env_class=RewardLab/ToolCall-v3``
and ``generator.max_turns=6`` (SkyRL passes it to the env as its turn budget).
"""

from __future__ import annotations

import argparse
import json


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="RewardLab/ToolCall-v3")
    parser.add_argument("--env-kwargs", type=json.loads, default={})
    parser.add_argument("--split", default="train")
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--max-turns", type=int, default=6, help="SkyRL's generator.max_turns")
    parser.add_argument("--output", default=None, help="write the rows to this parquet file")
    args = parser.parse_args(argv)

    import gymnasium as gym
    import skyrl_gym
    from omegaconf import DictConfig
    from skyrl_gym.metrics import aggregate_for_environment

    import rewardlab  # noqa: F401  (registers the env ids)
    from rewardlab.agents import OracleAgent
    from rewardlab.integrations.skyrl import register_skyrl_envs, skyrl_rows

    rows = skyrl_rows(args.env, args.split, env_kwargs=args.env_kwargs, limit=args.episodes)
    if args.output:
        import datasets

        datasets.Dataset.from_list(rows).to_parquet(args.output)
    register_skyrl_envs([args.env])

    oracle_env = gym.make(args.env, **args.env_kwargs)  # the stand-in policy reads its own copy of the task
    oracle = OracleAgent(oracle_env)
    episode_metrics = []
    for row in rows:
        env = skyrl_gym.make(row["env_class"], env_config=DictConfig({}), extras={**row, "max_turns": args.max_turns})
        env.init(row["prompt"])
        observation, info = oracle_env.reset(options={"task_id": row["task_id"], "split": row["split"]})
        done = False
        while not done:
            action = oracle.act(observation, info)
            out = env.step(action)
            observation, _, _, _, info = oracle_env.step(action)
            done = out["done"]
        episode_metrics.append(env.get_metrics())
        env.close()
    oracle_env.close()
    metrics = aggregate_for_environment(args.env, episode_metrics)
    print(json.dumps(metrics, indent=2))
    return {"rows": rows, "metrics": metrics}


if __name__ == "__main__":
    main()
