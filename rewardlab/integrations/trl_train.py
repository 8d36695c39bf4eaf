"""A GRPO run with TRL's ``GRPOTrainer`` behind the same interface as :mod:`rewardlab.baselines.grpo`.

``train(TRLGRPOConfig(...))`` loads the policy as the baselines do
(:func:`rewardlab.baselines.session.load_policy`: seed, device, dtype, LoRA), runs the same SFT warm
start on oracle demonstrations when ``sft_steps > 0``, then trains with ``trl.GRPOTrainer`` on one
row per train task (:func:`rewardlab.integrations.trl.task_dataset`), scored by
:class:`rewardlab.integrations.trl.RewardFunctions`: the env's reward (its own weights, gates and
penalty) trains, every component is logged. Each update draws ``tasks_per_step`` tasks and plays
each ``group_size`` times (TRL's ``num_generations``), so a spec compares TRL and the baseline
trainer at equal batch shapes. It is the ``trl`` entry of :mod:`rewardlab.baselines.trainers`: what
``rewardlab train trl`` and ``kind = "trl"`` of ``rewardlab study`` run.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym

from rewardlab.baselines.common import MetricsLogger, plot_curves, save_checkpoint
from rewardlab.baselines.config import TrainerConfig, check_positive, check_range, config_dict
from rewardlab.baselines.session import load_policy
from rewardlab.baselines.trainers import OnUpdate, TrainResult
from rewardlab.core.env import unwrapped_text_env
from rewardlab.errors import ConfigError, require


@dataclass
class TRLGRPOConfig(TrainerConfig):
    """Every argument of a TRL GRPO run. Of the shared fields (:class:`TrainerConfig`), TRL's ``GRPOConfig``
    gets ``steps`` (``max_steps``: an update is one optimiser step), ``learning_rate`` (with
    ``lr_scheduler_type="constant"``), ``max_new_tokens`` (``max_completion_length``), ``temperature``,
    ``top_p``, ``max_grad_norm`` and ``seed``; its own fields name theirs in their docstrings."""

    output_dir: str = "results/trl_grpo"
    tasks_per_step: int = 2
    """Distinct train tasks per step (``per_device_train_batch_size = tasks_per_step * group_size``)."""
    group_size: int = 4
    """Completions per task (``num_generations``)."""
    beta: float = 0.0
    """KL coefficient against the initial policy (TRL's ``beta``; 0: no reference model)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_positive(self, "tasks_per_step", "group_size")
        check_range(self, "beta", 0.0, math.inf)
        if self.group_size < 2:
            raise ConfigError(f"group_size must be >= 2 (a group of one has advantage 0), got {self.group_size}")


def check_single_turn(env_id: str, env_kwargs: dict[str, Any]) -> None:
    """ConfigError unless the env has train tasks and is single-turn, as its card says
    (:attr:`~rewardlab.core.EnvCard.multi_turn`: the first action ends every episode, or the turn budget is 1)."""
    env = gym.make(env_id, **env_kwargs)
    try:
        card = unwrapped_text_env(env).card()
    finally:
        env.close()
    if not card.task_counts["train"]:
        raise ConfigError(f"{env_id} has no train tasks")
    if card.multi_turn:
        raise ConfigError(
            f"{env_id} is multi-turn: TRL training here takes single-turn envs only; train multi-turn envs with "
            "rewardlab.integrations.trl.environment_class (examples/trl_multi_turn.py) or kind 'grpo'"
        )


def _callbacks(config: TRLGRPOConfig, started: float, logger: MetricsLogger, on_update: OnUpdate | None) -> list[Any]:
    """TRL callbacks: the time budget, and one metrics row per logged step (logged, then given to ``on_update``)."""
    transformers: Any = require("transformers", "train")  # Any, not ModuleType: its class is a base below

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
                row = {"step": float(state.global_step), "rewards/mean": numbers["reward"], **numbers}
                logger.log(row)
                if on_update is not None:
                    on_update(row)

    return [Budget(), Rows()]


def train(
    config: TRLGRPOConfig, *, model: Any = None, tokenizer: Any = None, on_update: OnUpdate | None = None
) -> TrainResult:
    """Run GRPO with TRL as configured; ``model``/``tokenizer`` override ``config.model``; ``on_update``
    receives each metrics row."""
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
            sft_warm_start(policy, tokenizer, envs, SFTConfig.from_trainer(config), device=device)
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
            callbacks=_callbacks(config, started, logger, on_update),
        )
        trainer.train()
    finally:
        rewards.close()
    policy = trainer.model
    if config.save_final:
        save_checkpoint(policy, tokenizer, output_dir / "final", {"config": config_dict(config)})
    plot_curves(logger.rows, output_dir / "training_curve.png", title=f"TRL GRPO on {config.env_id}")
    return TrainResult(model=policy, tokenizer=tokenizer, history=logger.rows, output_dir=output_dir)
