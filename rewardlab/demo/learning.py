"""The demo's learning run: does the reward teach? SFT warm start, then a few GRPO updates, on BFCL's simple tasks.

The untrained SmolLM2-135M-Instruct almost never answers ``RewardLab/BFCL-v1``'s ``simple_python`` tasks with
a JSON call, so its held-out reward is 0. The run:

1. evaluates the untrained model greedily on ``held_out_tasks`` test tasks (a fixed sample, the same tasks
   at every evaluation, so the three numbers compare);
2. trains ``sft_steps`` steps of SFT on the oracle's demonstrations of train tasks
   (:func:`rewardlab.baselines.sft.sft_warm_start`), and evaluates again;
3. trains up to ``updates`` GRPO updates of ``tasks_per_update`` train tasks x ``group_size`` rollouts
   (:func:`rewardlab.baselines.grpo.train`), fewer when the demo's budget ends first, and evaluates again.

:func:`train_policy` is the one place the demo calls the trainers. ``benchmarks/grpo_learning.py`` is the
full experiment (3 seeds, 15 minutes each, 24 held-out tasks; the README's "Training" table).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rewardlab.errors import ConfigError

HELD_OUT_SEED = 1234
"""Seed of the held-out sample (``benchmarks/grpo_learning.py`` draws with the same)."""


@dataclass(frozen=True)
class LearningConfig:
    """Arguments of the demo's learning run."""

    env_id: str = "RewardLab/BFCL-v1"
    """The env trained on (its train split) and evaluated on (its test split)."""
    env_kwargs: dict[str, Any] = field(default_factory=lambda: {"categories": ["simple_python"]})
    """Keyword arguments of ``gym.make``: BFCL's one-function, one-call tasks."""
    model: str = "smollm2"
    """``smollm2`` (the bundled SmolLM2-135M-Instruct), an HF model id or a local folder."""
    held_out_tasks: int = 12
    """Test tasks of each greedy evaluation (one task is ``1 / held_out_tasks`` of the mean reward)."""
    sft_steps: int = 4
    """SFT steps on oracle demonstrations (8 demonstrations each); 0 starts GRPO from the untrained model."""
    sft_learning_rate: float = 1e-4
    """AdamW learning rate of the SFT warm start."""
    updates: int = 6
    """Most GRPO updates; the demo's budget may end the run sooner."""
    tasks_per_update: int = 2
    """Train tasks per GRPO update."""
    group_size: int = 4
    """Rollouts per task (the GRPO group)."""
    learning_rate: float = 3e-5
    """AdamW learning rate of GRPO (``benchmarks/grpo_learning.py``: 1e-5 barely moves the policy in 40 updates)."""
    max_new_tokens: int = 64
    """Tokens per action, in training and evaluation."""
    seed: int = 0
    """Seed of the SFT demonstrations' order and of GRPO's task draws and sampling."""

    def __post_init__(self) -> None:
        for name in ("held_out_tasks", "updates", "tasks_per_update", "group_size", "max_new_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an int >= 1, got {value!r}")
        if isinstance(self.sft_steps, bool) or not isinstance(self.sft_steps, int) or self.sft_steps < 0:
            raise ConfigError(f"sft_steps must be an int >= 0 (0: no warm start), got {self.sft_steps!r}")
        for name in ("sft_learning_rate", "learning_rate"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be > 0, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class Evaluation:
    """One greedy evaluation on the held-out tasks: mean reward, success rate, mean of each component."""

    label: str
    reward: float
    success_rate: float
    components: dict[str, float]
    seconds: float

    @classmethod
    def of(cls, label: str, episodes: Sequence[Any], seconds: float) -> Evaluation:
        """From :class:`~rewardlab.baselines.rollout.Episode` s (their reward, success and components)."""
        names = list(episodes[0].components) if episodes else []
        return cls(
            label=label,
            reward=statistics.fmean(e.reward for e in episodes) if episodes else math.nan,
            success_rate=statistics.fmean(float(e.is_success) for e in episodes) if episodes else math.nan,
            components={n: statistics.fmean(e.components.get(n, 0.0) for e in episodes) for n in names},
            seconds=seconds,
        )


@dataclass
class LearningRun:
    """What :func:`run_learning` measured."""

    config: LearningConfig
    task_ids: list[str]
    evaluations: list[Evaluation] = field(default_factory=list)
    sft_losses: list[float] = field(default_factory=list)
    updates: list[dict[str, float]] = field(default_factory=list)
    """GRPO's metrics row of each update (``rewards/mean``, ``charts/skipped_group_ratio``, ...)."""
    sft_seconds: float = 0.0
    grpo_seconds: float = 0.0
    grpo_time_s: float | None = None
    """The time GRPO was given (``None``: no limit)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "config": asdict(self.config),
            "task_ids": self.task_ids,
            "evaluations": [asdict(e) for e in self.evaluations],
            "sft_losses": self.sft_losses,
            "sft_seconds": self.sft_seconds,
            "grpo_seconds": self.grpo_seconds,
            "grpo_time_s": self.grpo_time_s,
            "updates": self.updates,
        }

    def markdown(self) -> str:
        """The section the demo prints: what was trained, the held-out table, the updates' batch rewards."""
        c = self.config
        kwargs = ", ".join(f"{k}={v}" for k, v in c.env_kwargs.items())
        names = list(self.evaluations[0].components) if self.evaluations else []
        lines = [
            f"## Learning: SFT warm start, then GRPO, on {c.env_id} ({kwargs})",
            "",
            "Does the reward teach? The model is evaluated greedily on the same"
            f" {len(self.task_ids)} held-out test tasks before training, after {plural(c.sft_steps, 'SFT step')} on the"
            f" oracle's demonstrations of train tasks, and after {plural(len(self.updates), 'GRPO update')} of"
            f" {c.tasks_per_update} train tasks x {c.group_size} rollouts (lr {c.learning_rate:g}).",
            "",
            "| policy | held-out reward | success | " + " | ".join(names) + " | eval s |",
            "|---|---:|---:|" + "---:|" * len(names) + "---:|",
        ]
        for e in self.evaluations:
            cells = [f"{e.reward:.3f}", f"{e.success_rate:.0%}", *(f"{e.components[n]:.2f}" for n in names)]
            lines.append(f"| {e.label} | " + " | ".join(cells) + f" | {e.seconds:.0f} |")
        if self.updates:
            batches = ", ".join(f"{row.get('rewards/mean', math.nan):.2f}" for row in self.updates)
            limit = (
                f"; the budget gave GRPO {self.grpo_time_s:.0f} s"
                if self.grpo_time_s is not None and len(self.updates) < c.updates
                else ""
            )
            lines += [
                "",
                f"SFT took {self.sft_seconds:.0f} s; GRPO {self.grpo_seconds:.0f} s for {len(self.updates)} of at"
                f" most {c.updates} updates{limit}. Mean reward of each update's training batch: {batches}.",
            ]
        lines += [
            "",
            f"One held-out task is {1 / max(len(self.task_ids), 1):.3f} of the mean: a difference smaller than that"
            " is one task. `python benchmarks/grpo_learning.py` is the full run (3 seeds, 15 minutes each, 24"
            " held-out tasks): untrained 0.000, after 8 SFT steps 0.464, after about 41 GRPO updates 0.717.",
        ]
        return "\n".join(lines) + "\n"


def plural(count: int, noun: str) -> str:
    """``"1 step"``, ``"4 steps"``."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def held_out_tasks(env_id: str, env_kwargs: dict[str, Any], count: int, seed: int = HELD_OUT_SEED) -> list[str]:
    """A fixed sample of ``count`` test task ids (all of them when there are fewer)."""
    import gymnasium as gym

    from rewardlab.core.env import unwrapped_text_env

    env = gym.make(env_id, **env_kwargs)
    try:
        test_ids = unwrapped_text_env(env).tasks.ids("test")
    finally:
        env.close()
    if not test_ids:
        raise ConfigError(f"{env_id} with {env_kwargs} has no test tasks to evaluate on")
    rng = np.random.default_rng(seed)
    return [str(t) for t in rng.choice(test_ids, size=min(count, len(test_ids)), replace=False)]


def evaluate(model: Any, tokenizer: Any, config: LearningConfig, task_ids: Sequence[str], label: str) -> Evaluation:
    """Greedy episodes of ``model`` on ``task_ids``, summarised."""
    from rewardlab.baselines.rollout import evaluate_policy

    start = time.perf_counter()
    episodes = evaluate_policy(
        model,
        tokenizer,
        config.env_id,
        list(task_ids),
        env_kwargs=config.env_kwargs,
        batch_size=len(task_ids),
        max_new_tokens=config.max_new_tokens,
    )
    return Evaluation.of(label, episodes, time.perf_counter() - start)


def train_policy(
    model: Any,
    tokenizer: Any,
    config: LearningConfig,
    *,
    stage: str,
    grpo_time_s: float | None = None,
    output_dir: Path | None = None,
    on_update: Callable[[dict[str, float]], None] | None = None,
) -> list[Any]:
    """The one place the demo calls the trainers: ``stage="sft"`` runs the SFT warm start on ``model`` and
    returns its loss per step; ``stage="grpo"`` runs GRPO on it for ``config.updates`` updates, or until
    ``grpo_time_s`` is spent, and returns its metrics rows."""
    if stage == "sft":
        from rewardlab.baselines.rollout import make_envs
        from rewardlab.baselines.sft import SFTConfig, sft_warm_start

        envs = make_envs(config.env_id, 8, config.env_kwargs)
        try:
            sft = SFTConfig(steps=config.sft_steps, learning_rate=config.sft_learning_rate, seed=config.seed)
            return list(sft_warm_start(model, tokenizer, envs, sft, device=str(model.device)))
        finally:
            for env in envs:
                env.close()
    if stage == "grpo":
        from rewardlab.baselines.grpo import GRPOConfig, train

        grpo = GRPOConfig(
            env_id=config.env_id,
            env_kwargs=dict(config.env_kwargs),
            model=config.model,
            steps=config.updates,
            max_time_s=grpo_time_s,
            tasks_per_step=config.tasks_per_update,
            group_size=config.group_size,
            max_new_tokens=config.max_new_tokens,
            learning_rate=config.learning_rate,
            beta=0.0,
            temperature=1.0,
            seed=config.seed,
            output_dir=str(output_dir or Path("results/demo/learning")),
            save_final=False,
            device=str(model.device),
        )
        return list(train(grpo, model=model, tokenizer=tokenizer, on_update=on_update).history)
    raise ConfigError(f"stage must be 'sft' or 'grpo', got {stage!r}")


def run_learning(
    config: LearningConfig,
    *,
    time_left: Callable[[], float] = lambda: math.inf,
    output_dir: Path | None = None,
    log: Callable[[str], None] = print,
) -> LearningRun:
    """Evaluate, SFT, evaluate, GRPO, evaluate (see the module docstring). GRPO gets ``time_left()`` minus the
    longest evaluation so far (the last one is still to come), at least 1 s; it always makes one update."""
    from rewardlab.agents.models import load_model

    task_ids = held_out_tasks(config.env_id, config.env_kwargs, config.held_out_tasks)
    run = LearningRun(config, task_ids)
    model, tokenizer = load_model(config.model)
    log(f"  evaluating the untrained model on {len(task_ids)} held-out tasks")
    run.evaluations.append(evaluate(model, tokenizer, config, task_ids, "untrained"))
    if config.sft_steps:
        log(f"  SFT: {config.sft_steps} steps on oracle demonstrations")
        start = time.perf_counter()
        run.sft_losses = train_policy(model, tokenizer, config, stage="sft")
        run.sft_seconds = time.perf_counter() - start
        label = f"after SFT ({plural(config.sft_steps, 'step')})"
        run.evaluations.append(evaluate(model, tokenizer, config, task_ids, label))
    left = time_left()
    run.grpo_time_s = None if math.isinf(left) else max(left - max(e.seconds for e in run.evaluations), 1.0)
    log(
        f"  GRPO: up to {config.updates} updates"
        + ("" if run.grpo_time_s is None else f" within {run.grpo_time_s:.0f} s")
    )
    start = time.perf_counter()
    run.updates = train_policy(
        model,
        tokenizer,
        config,
        stage="grpo",
        grpo_time_s=run.grpo_time_s,
        output_dir=output_dir,
        on_update=lambda row: log(
            f"    update {int(row['step'])}: training batch reward {row.get('rewards/mean', math.nan):.3f}"
        ),
    )
    run.grpo_seconds = time.perf_counter() - start
    label = f"after GRPO ({plural(len(run.updates), 'update')})"
    run.evaluations.append(evaluate(model, tokenizer, config, task_ids, label))
    return run
