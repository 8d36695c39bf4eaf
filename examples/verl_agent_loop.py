"""RewardLab envs in verl 0.9: the dataset, the agent loop config, and one rollout batch on CPU.

    python examples/verl_agent_loop.py --env RewardLab/ToolCall-v3 --model smollm2 --rows 4

This writes verl's dataset (``train.parquet``, one row per task, ``agent_name: rewardlab_env``)
and an agent loop config file (``agent_loops.yaml``) that selects
:class:`rewardlab.integrations.verl.RewardLabAgentLoop` for the env::

    - name: rewardlab_env
      _target_: rewardlab.integrations.verl.RewardLabAgentLoop
      env_id: RewardLab/ToolCall-v3
      env_kwargs: {}

then composes verl's own trainer config (``ppo_trainer.yaml``) with that file, loads the rows with
verl's ``RLHFDataset`` and runs verl's ``AgentLoopWorker.generate_sequences`` on them: the batch
the trainer would receive (``rm_scores``, ``response_mask``, one ``reward/<component>`` column per
component). A local Hugging Face model stands in for verl's vLLM/SGLang server, which needs GPUs.

Training on GPUs passes the same files to verl's trainer::

    python -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\
        data.train_files=results/verl/train.parquet data.val_files=results/verl/train.parquet \\
        actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct actor_rollout_ref.rollout.name=vllm \\
        actor_rollout_ref.rollout.agent.agent_loop_config_path=results/verl/agent_loops.yaml \\
        actor_rollout_ref.rollout.multi_turn.max_assistant_turns=6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path


class LocalModelServer:
    """verl's server-manager contract (``generate(request_id, *, prompt_ids, sampling_params) -> TokenOutput``)
    answered by a local Hugging Face model, greedy, on CPU."""

    def __init__(self, model, max_new_tokens: int):
        self.model, self.max_new_tokens = model, max_new_tokens

    async def generate(self, request_id, *, prompt_ids, sampling_params, **kwargs):
        import torch
        from verl.workers.rollout.replica import TokenOutput

        with torch.no_grad():
            sequences = self.model.generate(
                torch.tensor([prompt_ids]), max_new_tokens=self.max_new_tokens, do_sample=False
            )
        return TokenOutput(token_ids=sequences[0, len(prompt_ids) :].tolist(), stop_reason="completed")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="RewardLab/ToolCall-v3")
    parser.add_argument("--env-kwargs", type=json.loads, default={})
    parser.add_argument("--model", default="smollm2", help="'smollm2', an HF model id or a local folder")
    parser.add_argument("--rows", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--output-dir", default="results/verl")
    args = parser.parse_args(argv)

    import datasets
    import verl
    import yaml
    from hydra import compose, initialize_config_dir
    from verl import DataProto
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    import rewardlab  # noqa: F401  (registers the env ids)
    from rewardlab.agents.models import load_model, resolve_model_name
    from rewardlab.integrations.verl import verl_rows

    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    rows_path, loops_path = output_dir / "train.parquet", output_dir / "agent_loops.yaml"
    rows = verl_rows(args.env, agent_name="rewardlab_env", limit=args.rows)
    datasets.Dataset.from_list(rows).to_parquet(rows_path)
    entry = {"name": "rewardlab_env", "_target_": "rewardlab.integrations.verl.RewardLabAgentLoop"}
    loops_path.write_text(yaml.safe_dump([entry | {"env_id": args.env, "env_kwargs": args.env_kwargs}]))

    model, _ = load_model(args.model, device="cpu")
    model_path = resolve_model_name(args.model)
    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        config = compose(
            config_name="ppo_trainer",
            overrides=[
                f"actor_rollout_ref.model.path={model_path}",
                "actor_rollout_ref.rollout.name=vllm",
                "actor_rollout_ref.rollout.prompt_length=4096",
                "actor_rollout_ref.rollout.response_length=1024",
                f"actor_rollout_ref.rollout.agent.agent_loop_config_path={loops_path}",
            ],
        )
    worker = AgentLoopWorker(config, llm_client=LocalModelServer(model, args.max_new_tokens))
    dataset = RLHFDataset(data_files=[str(rows_path)], tokenizer=worker.tokenizer, config=config.data)
    batch = DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))
    output = asyncio.run(worker.generate_sequences(batch))
    keys = output.meta_info["reward_extra_keys"]
    print(json.dumps({key: float(output.non_tensor_batch[key].mean()) for key in keys}, indent=2))
    return {"rows": len(dataset), "agent_loop_config": loops_path, "reward_extra_keys": keys, "output": output}


if __name__ == "__main__":
    main()
