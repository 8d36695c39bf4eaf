"""Train with TRL's GRPOTrainer on a single-turn RewardLab env; TRL logs every reward component.

    python examples/trl_grpo_single_turn.py --env RewardLab/BFCL-v1 --steps 50

Each dataset row is one task (prompt as chat messages, ``task_id``); the reward functions play
each completion in the env (:class:`rewardlab.integrations.trl.RewardFunctions`): the env's
reward trains (weight 1), each component is logged as ``rewards/<component>/mean`` (weight 0).
Multi-GPU: ``accelerate launch --num_processes N examples/trl_grpo_single_turn.py ...``.
"""

from __future__ import annotations

import argparse
import json


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="RewardLab/BFCL-v1")
    parser.add_argument("--env-kwargs", type=json.loads, default={"categories": ["simple_python"]})
    parser.add_argument("--model", default="smollm2", help="'smollm2', an HF model id or a local folder")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument("--prompts-per-step", type=int, default=2)
    parser.add_argument("--max-completion-length", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--output-dir", default="results/trl_grpo_single_turn")
    args = parser.parse_args(argv)

    from trl import GRPOConfig, GRPOTrainer

    import rewardlab  # noqa: F401  (registers the env ids)
    from rewardlab.agents.models import load_model
    from rewardlab.integrations.trl import RewardFunctions, task_dataset

    model, tokenizer = load_model(args.model, device="cpu")
    rewards = RewardFunctions(args.env, env_kwargs=args.env_kwargs)
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.num_generations * args.prompts_per_step,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        learning_rate=args.learning_rate,
        reward_weights=rewards.weights,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        bf16=False,
        use_cpu=not __import__("torch").cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=rewards.funcs,
        train_dataset=task_dataset(args.env, env_kwargs=args.env_kwargs),
        args=config,
    )
    trainer.train()
    rewards.close()
    logs = [row for row in trainer.state.log_history if "reward" in row]
    print(json.dumps(logs[-1], indent=2))
    return {"log_history": trainer.state.log_history}


if __name__ == "__main__":
    main()
