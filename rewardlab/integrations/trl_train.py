"""A GRPO run with TRL's ``GRPOTrainer`` behind the same interface as :mod:`rewardlab.baselines.grpo`.

``train(TRLGRPOConfig(...))`` loads the policy as the baselines do
(:func:`rewardlab.baselines.session.load_policy`: seed, device, dtype, LoRA), runs the same SFT warm
start on oracle demonstrations when ``sft_steps > 0``, then trains with ``trl.GRPOTrainer`` on one
row per train task (:func:`rewardlab.integrations.trl.task_dataset`), scored by
:class:`rewardlab.integrations.trl.RewardFunctions`: the env's reward (its own weights, gates and
penalty) trains, every component is logged. Each update draws ``tasks_per_step`` tasks and plays
each ``group_size`` times (TRL's ``num_generations``), so a spec compares TRL and the baseline
trainer at equal batch shapes. It is what ``kind = "trl"`` of ``rewardlab study`` runs.

The budget is ``steps`` optimiser steps (TRL's ``max_steps``), and with ``max_time_s`` training
stops after a step when one more step as long would overrun it (the SFT warm start counts), as in
the baselines. The learning rate is
constant, as in the baselines (TRL's default decays it linearly to 0 over ``max_steps``). One row
per step goes to ``<output_dir>/metrics.jsonl`` and ``metrics.csv``: TRL's numeric logs as it names
them (``rewards/<component>/mean``, ``kl``, ``completions/mean_length`` ...) plus ``step`` and
``rewards/mean`` (the training reward's batch mean).

Only single-turn envs (one action ends the episode: BFCL-v1, BPMN-v2, ...) train here; multi-turn
envs need TRL's ``environment_factory`` (:func:`rewardlab.integrations.trl.environment_class`) and a
chat template that renders tool calls, and are refused with :class:`~rewardlab.errors.ConfigError`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from rewardlab.baselines.common import MetricsLogger, plot_curves, save_checkpoint
from rewardlab.baselines.config import TrainerConfig, check_count, check_positive, check_range, config_dict
from rewardlab.baselines.session import load_policy
from rewardlab.errors import ConfigError, require


@dataclass
class TRLGRPOConfig(TrainerConfig):
    """Every argument of a TRL GRPO run (the fields TRL's ``GRPOConfig`` gets are named in each docstring)."""

    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments for ``gym.make``."""
    steps: int = 50
    """Optimiser steps (``max_steps``)."""
    tasks_per_step: int = 2
    """Distinct train tasks per step (``per_device_train_batch_size = tasks_per_step * group_size``)."""
    group_size: int = 4
    """Completions per task (``num_generations``)."""
    learning_rate: float = 1e-5
    """AdamW learning rate, constant (``lr_scheduler_type="constant"``)."""
    beta: float = 0.0
    """KL coefficient against the initial policy (TRL's ``beta``; 0: no reference model)."""
    sft_steps: int = 0
    """SFT warm-start steps on OracleAgent demonstrations before GRPO (0: none)."""
    output_dir: str = "results/trl_grpo"
    """Where metrics, the training curve and the final model go."""
    save_final: bool = True
    """Save the final model (or adapter) in ``<output_dir>/final``."""
    max_time_s: float | None = None
    """Time budget in seconds (SFT warm start included): stop after a step when one more step of the same
    duration would overrun it."""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_positive(self, "steps", "tasks_per_step", "group_size", "learning_rate")
        check_range(self, "beta", 0.0, math.inf)
        check_count(self, "sft_steps")
        if self.group_size < 2:
            raise ConfigError(f"group_size must be >= 2 (a group of one has advantage 0), got {self.group_size}")
        if self.max_time_s is not None:
            check_positive(self, "max_time_s")


@dataclass
class TRLResult:
    """What :func:`train` returns: the trained model, its tokenizer and one metrics row per step."""

    model: Any
    tokenizer: Any
    history: list[dict[str, float]]
    output_dir: Path


def check_single_turn(env_id: str, env_kwargs: dict[str, Any]) -> None:
    """ConfigError unless the env is single-turn: no turn budget above 1 (multi-turn envs declare one) and one
    action (the empty one) ends an episode of its first train task."""
    env = gym.make(env_id, **env_kwargs)
    try:
        ids = env.unwrapped.tasks.ids("train")
        if not ids:
            raise ConfigError(f"{env_id} has no train tasks")
        env.reset(options={"task_id": ids[0]})
        terminated, truncated = env.step("")[2:4]
        turn_budget = env.unwrapped.max_turns
    finally:
        env.close()
    if not (terminated or truncated) or (turn_budget is not None and turn_budget > 1):
        raise ConfigError(
            f"{env_id} is multi-turn: TRL training here takes single-turn envs only; train multi-turn envs with "
            "rewardlab.integrations.trl.environment_class (examples/trl_multi_turn.py) or kind 'grpo'"
        )


def _callbacks(config: TRLGRPOConfig, started: float, logger: MetricsLogger) -> list[Any]:
    """TRL callbacks: the time budget, and one metrics row per logged step."""
    transformers = require("transformers", "train")

    class Budget(transformers.TrainerCallback):
        step_started = started

        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            self.step_started = time.perf_counter()
            return control

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            now = time.perf_counter()
            if config.max_time_s is not None and now - started + (now - self.step_started) > config.max_time_s:
                control.should_training_stop = True  # the next step, as long as this one, would overrun
            return control

    class Rows(transformers.TrainerCallback):
        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any):
            if logs and "reward" in logs:
                numbers = {k: float(v) for k, v in logs.items() if type(v) in (int, float)}
                logger.log({"step": float(state.global_step), "rewards/mean": numbers["reward"], **numbers})

    return [Budget(), Rows()]


def train(config: TRLGRPOConfig, *, model: Any = None, tokenizer: Any = None) -> TRLResult:
    """Run GRPO with TRL as configured; ``model``/``tokenizer`` override ``config.model``."""
    trl = require("trl", "train")
    from rewardlab.integrations.trl import RewardFunctions, task_dataset

    check_single_turn(config.env_id, config.env_kwargs)
    started = time.perf_counter()
    policy, tokenizer, device = load_policy(config, model, tokenizer)
    output_dir = Path(config.output_dir)
    logger = MetricsLogger(output_dir)
    if config.sft_steps:
        from rewardlab.baselines.rollout import make_envs
        from rewardlab.baselines.sft import SFTConfig, sft_warm_start

        envs = make_envs(config.env_id, config.tasks_per_step * config.group_size, config.env_kwargs)
        try:
            sft = SFTConfig(steps=config.sft_steps, learning_rate=config.sft_learning_rate, seed=config.seed)
            sft_warm_start(policy, tokenizer, envs, sft, device=device)
        finally:
            for env in envs:
                env.close()
    rewards = RewardFunctions(config.env_id, env_kwargs=config.env_kwargs)
    try:
        args = trl.GRPOConfig(
            output_dir=str(output_dir / "trl"),
            max_steps=config.steps,
            per_device_train_batch_size=config.tasks_per_step * config.group_size,
            num_generations=config.group_size,
            max_completion_length=config.max_new_tokens,
            temperature=config.temperature,
            top_p=config.top_p,
            learning_rate=config.learning_rate,
            lr_scheduler_type="constant",
            beta=config.beta,
            max_grad_norm=config.max_grad_norm,
            reward_weights=rewards.weights,
            seed=config.seed,
            bf16=next(policy.parameters()).dtype == require("torch", "train").bfloat16,
            use_cpu=device == "cpu",
            logging_steps=1,
            save_strategy="no",
            report_to="none",
            disable_tqdm=True,
        )
        trainer = trl.GRPOTrainer(
            model=policy,
            processing_class=tokenizer,
            reward_funcs=rewards.funcs,
            train_dataset=task_dataset(config.env_id, env_kwargs=config.env_kwargs),
            args=args,
            callbacks=_callbacks(config, started, logger),
        )
        trainer.train()
    finally:
        rewards.close()
    policy = trainer.model
    if config.save_final:
        save_checkpoint(policy, tokenizer, output_dir / "final", {"config": config_dict(config)})
    plot_curves(logger.rows, output_dir / "training_curve.png", title=f"TRL GRPO on {config.env_id}")
    return TRLResult(policy, tokenizer, logger.rows, output_dir)
