"""Multi-turn training with TRL's GRPOTrainer ``environment_factory`` on a RewardLab env.

    python examples/trl_multi_turn.py --env RewardLab/ToolCall-v3 --steps 50

TRL makes one environment object per rollout, calls ``reset(**row)`` with the dataset row (its
``task_id``) and offers the object's public methods as tools. For an env with tools of its own
(ToolCall-v3's worlds, BFCLMultiTurn-v1, SlidesAgent-v2) those are the env's tools, with the env's
schemas (:func:`rewardlab.integrations.trl.environment_classes`): each call is played as the env's
action and returns its observation, so the model calls ``get_order(order_id=...)`` natively. By
default every tool set of the env's tasks gets its own class (TRL's multi-environment mode, routed
by the dataset's ``environment`` column), so each prompt shows only its task's tools (ToolCall-v3:
one set per world); ``--union-tools`` gives every prompt the union of all tasks' tools through one
class (:func:`~rewardlab.integrations.trl.environment_class`). An env without tools gets one
``act(action)`` tool. The model's final message is the episode's last action; the reward
functions score the finished episode and TRL logs every component (``rewards/<component>/mean``)
and the episode logs (``reward/<component>``, ``score``, ``is_success``, ``infra_error``).

``environment_factory`` needs a chat template that renders tool calls. When the model's own
template cannot (SmolLM2's), the ChatML tool template that TRL ships for Qwen2.5 is used: it
uses the same ``<|im_start|>``/``<|im_end|>`` tokens.
Multi-GPU: ``accelerate launch --num_processes N examples/trl_multi_turn.py ...``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def tool_chat_template(tokenizer):
    """Give ``tokenizer`` TRL's Qwen2.5 ChatML tool template unless its own renders tool calls."""
    import trl
    from trl.chat_template_utils import supports_tool_calling

    if not supports_tool_calling(tokenizer):
        tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja").read_text()
    return tokenizer


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="RewardLab/ToolCall-v3")
    parser.add_argument("--env-kwargs", type=json.loads, default={"max_turns": 6})
    parser.add_argument("--model", default="smollm2", help="'smollm2', an HF model id or a local folder")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument("--prompts-per-step", type=int, default=1)
    parser.add_argument("--max-completion-length", type=int, default=256)
    parser.add_argument("--learning-rate", type=float, default=1e-5)
    parser.add_argument("--output-dir", default="results/trl_multi_turn")
    parser.add_argument("--union-tools", action="store_true", help="one class with every task's tools")
    args = parser.parse_args(argv)

    import torch
    from trl import GRPOConfig, GRPOTrainer

    import rewardlab  # noqa: F401  (registers the env ids)
    from rewardlab.agents.models import load_model
    from rewardlab.integrations.trl import (
        environment_class,
        environment_classes,
        environment_reward_funcs,
        task_dataset,
    )

    model, tokenizer = load_model(args.model, device="cpu")
    tool_chat_template(tokenizer)
    make = environment_class if args.union_tools else environment_classes
    environment = make(args.env, args.env_kwargs)
    reward_funcs = environment_reward_funcs(environment)
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.num_generations * args.prompts_per_step,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        learning_rate=args.learning_rate,
        reward_weights=[1.0] + [0.0] * (len(reward_funcs) - 1),
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        bf16=False,
        use_cpu=not torch.cuda.is_available(),
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=reward_funcs,
        train_dataset=task_dataset(args.env, env_kwargs=args.env_kwargs, multi_turn=True),
        environment_factory=environment,
        args=config,
    )
    trainer.train()
    logs = [row for row in trainer.state.log_history if "reward" in row]
    print(json.dumps(logs[-1], indent=2))
    return {"log_history": trainer.state.log_history}


if __name__ == "__main__":
    main()
