"""Per-update time of our GRPO against TRL's GRPOTrainer: same model, batch and settings, one process.

    python benchmarks/bench_grpo_vs_trl.py                     # SmolLM2-135M-Instruct on BFCL-v1
    python benchmarks/bench_grpo_vs_trl.py --model PATH --steps 5

Both run ``--steps`` updates of ``--prompts`` tasks x ``--generations`` completions (at most
``--max-new-tokens`` tokens, temperature 1, β = 0, ε = 0.2, token-level loss, one optimiser
step per generation batch, AdamW, fp32 on CPU). An update is everything between two optimiser
steps: generation, env scoring, forward/backward and the step. The first update of each is a
warm-up and is dropped; the table reports medians of the rest and the ratio ours / TRL
(target: <= 1.5). Completion lengths differ between runs (sampling), so the table also gives
the generated tokens per update.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import fmt_seconds, stamp, table  # noqa: E402


def ours(args, model, tokenizer) -> tuple[list[float], list[float]]:
    from rewardlab.baselines.grpo import GRPOConfig, train

    config = GRPOConfig(
        env_id=args.env,
        env_kwargs=args.env_kwargs,
        steps=args.steps,
        tasks_per_step=args.prompts,
        group_size=args.generations,
        max_new_tokens=args.max_new_tokens,
        learning_rate=1e-6,
        beta=0.0,
        temperature=1.0,
        output_dir=str(Path(args.output_dir) / "ours"),
        save_final=False,
        device="cpu",
        seed=0,
    )
    result = train(config, model=model, tokenizer=tokenizer)
    times = [r["time/rollout_s"] + r["time/update_s"] for r in result.history]
    tokens = [r["charts/agent_tokens_mean"] * args.prompts * args.generations for r in result.history]
    return times[1:], tokens[1:]


def theirs(args, model, tokenizer) -> tuple[list[float], list[float]]:
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from rewardlab.integrations.trl import RewardFunctions, task_dataset

    class StepTimer(TrainerCallback):
        def __init__(self):
            self.times: list[float] = []

        def on_step_begin(self, *a, **k):
            self.start = time.perf_counter()

        def on_step_end(self, *a, **k):
            self.times.append(time.perf_counter() - self.start)

    rewards = RewardFunctions(args.env, env_kwargs=args.env_kwargs)
    timer = StepTimer()
    config = GRPOConfig(
        output_dir=str(Path(args.output_dir) / "trl"),
        max_steps=args.steps,
        per_device_train_batch_size=args.prompts * args.generations,
        num_generations=args.generations,
        max_completion_length=args.max_new_tokens,
        learning_rate=1e-6,
        beta=0.0,
        epsilon=0.2,
        temperature=1.0,
        loss_type="dapo",
        reward_weights=rewards.weights,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        bf16=False,
        use_cpu=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=rewards.funcs,
        train_dataset=task_dataset(args.env, env_kwargs=args.env_kwargs),
        args=config,
        callbacks=[timer],
    )
    trainer.train()
    rewards.close()
    lengths = [
        r["completions/mean_length"] * args.prompts * args.generations
        for r in trainer.state.log_history
        if "completions/mean_length" in r
    ]
    return timer.times[1:], lengths[1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="RewardLab/BFCL-v1")
    parser.add_argument("--env-kwargs", type=json.loads, default={"categories": ["simple_python"]})
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--prompts", type=int, default=2)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output-dir", default="results/bench_grpo_vs_trl")
    args = parser.parse_args()

    import torch

    import rewardlab  # noqa: F401
    from rewardlab.agents.models import load_model

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    ours_times, ours_tokens = ours(args, *load_model(args.model, device="cpu"))
    torch.manual_seed(0)
    trl_times, trl_tokens = theirs(args, *load_model(args.model, device="cpu"))
    ours_median, trl_median = statistics.median(ours_times), statistics.median(trl_times)
    print(stamp(("rewardlab", "torch", "transformers", "trl")))
    print(
        f"\nGRPO per-update time on CPU ({args.threads} threads): {args.model}, {args.env} {args.env_kwargs}, "
        f"{args.prompts} prompts x {args.generations} generations, <= {args.max_new_tokens} new tokens, "
        f"{len(ours_times)} timed updates each (first dropped)\n"
    )
    print(
        table(
            ["trainer", "median update", "generated tokens / update (median)", "tokens/s"],
            [
                [
                    "rewardlab GRPO",
                    fmt_seconds(ours_median),
                    f"{statistics.median(ours_tokens):.0f}",
                    f"{statistics.median(ours_tokens) / ours_median:.1f}",
                ],
                [
                    "TRL GRPOTrainer",
                    fmt_seconds(trl_median),
                    f"{statistics.median(trl_tokens):.0f}" if trl_tokens else "n/a",
                    f"{statistics.median(trl_tokens) / trl_median:.1f}" if trl_tokens else "n/a",
                ],
            ],
        )
    )
    print(f"\nratio ours / TRL (median update time): {ours_median / trl_median:.2f}  (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
