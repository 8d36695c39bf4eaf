"""SFT warm start: teach the policy the oracle's actions before RL.

Demonstrations are OracleAgent episodes on train tasks, tokenised exactly as a rollout would
be (:func:`rewardlab.baselines.rollout.demonstrations`): the loss is the mean negative
log-likelihood of the agent tokens (the oracle's actions and their end-of-turn token); prompt
and observation tokens are masked out, as in RL::

    L = - Σ_t m_t log π(y_t | y_<t) / Σ_t m_t        (sums over every demonstration of the step)

The step's demonstrations are split into micro-batches of at most ``max_batch_tokens`` tokens
(and at least ``gradient_accumulation_steps`` of them); each adds its share of the sums, so the
split changes memory, not the gradient. The optimiser is dropped and the freed heap handed back
to the OS at the end (:func:`rewardlab.baselines.memory.release_memory`).

The BPMN reward study found SFT initialisation helps one model family and hurts another, so
it is an option (``sft_steps`` of every trainer's config, :class:`~rewardlab.baselines.config.TrainerConfig`),
off by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from rewardlab.baselines.common import forward_logprobs, masked_mean, microbatches, token_batch
from rewardlab.baselines.config import TrainerConfig, check_count, check_positive
from rewardlab.baselines.memory import mapped_heap, release_memory
from rewardlab.baselines.rollout import Episode, demonstrations
from rewardlab.core.env import TextEnv
from rewardlab.errors import ConfigError, require


@dataclass
class SFTConfig:
    """Arguments of the SFT warm start."""

    steps: int = 20
    """Optimiser steps."""
    batch_size: int = 8
    """Demonstrations per step."""
    learning_rate: float = 5e-5
    """AdamW learning rate."""
    gradient_accumulation_steps: int = 4
    """Micro-batches per optimiser step; at least, see ``max_batch_tokens``."""
    max_batch_tokens: int = 512
    """Most token positions one forward pass holds (padding included): micro-batches over it are split
    further. About 1.4 MB of activations per token for SmolLM2-135M in float32; 0: no bound."""
    mmap_threshold_kib: int = 256
    """glibc only, process-wide, during the warm start: tensors over this many KiB get their own memory mapping,
    returned to the OS when freed (:func:`rewardlab.baselines.memory.mapped_heap`); 0: glibc's policy."""
    max_grad_norm: float = 1.0
    """Gradient clipping threshold."""
    max_episode_tokens: int = 4096
    """Demonstrations longer than this are dropped."""
    seed: int = 0
    """Seed of the demonstration task order."""

    def __post_init__(self) -> None:
        check_positive(self, "steps", "batch_size", "learning_rate", "gradient_accumulation_steps")
        check_positive(self, "max_grad_norm", "max_episode_tokens")
        check_count(self, "max_batch_tokens", "mmap_threshold_kib")
        if self.gradient_accumulation_steps > self.batch_size:
            raise ConfigError(
                f"gradient_accumulation_steps={self.gradient_accumulation_steps} exceeds batch_size={self.batch_size}"
            )

    @classmethod
    def from_trainer(cls, config: TrainerConfig, **fields: Any) -> SFTConfig:
        """The warm start of a trainer's run: its ``sft_steps``, ``sft_learning_rate`` and ``seed``; ``fields``
        set the others."""
        return cls(steps=config.sft_steps, learning_rate=config.sft_learning_rate, seed=config.seed, **fields)


def sft_loss(logprobs: Any, mask: Any) -> Any:
    """Mean negative log-likelihood of the masked (agent) tokens."""
    return -masked_mean(logprobs, mask)


def oracle_demonstrations(
    envs: Sequence[gym.Env], tokenizer: Any, task_ids: Sequence[str], *, max_episode_tokens: int, seed: int = 0
) -> list[Episode]:
    """OracleAgent episodes on ``task_ids`` (played ``len(envs)`` at a time)."""
    from rewardlab.agents.base import OracleAgent

    episodes: list[Episode] = []
    for start in range(0, len(task_ids), len(envs)):
        batch = list(task_ids[start : start + len(envs)])
        episodes += demonstrations(
            envs, tokenizer, batch, OracleAgent, max_episode_tokens=max_episode_tokens, seed=seed + start
        )
    return [e for e in episodes if len(e.token_ids) <= max_episode_tokens and e.agent_tokens]


def sft_warm_start(
    model: Any, tokenizer: Any, envs: Sequence[gym.Env], config: SFTConfig, *, device: str = "cpu"
) -> list[float]:
    """Train ``model`` on oracle demonstrations of the train tasks; returns the loss per step."""
    torch = require("torch", "train")
    base = envs[0].unwrapped
    if not isinstance(base, TextEnv):
        raise ConfigError(
            f"the SFT warm start needs RewardLab envs (a TextEnv with tasks and an oracle), got {type(base).__name__}"
        )
    task_ids = base.tasks.ids("train")
    episodes = oracle_demonstrations(
        envs, tokenizer, task_ids, max_episode_tokens=config.max_episode_tokens, seed=config.seed
    )
    if not episodes:
        raise ConfigError("the oracle produced no usable demonstrations (all longer than max_episode_tokens?)")
    rng = np.random.default_rng(config.seed)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=config.learning_rate)
    model.train()
    losses = []
    with mapped_heap(config.mmap_threshold_kib):
        for _ in range(config.steps):
            picked = [episodes[i] for i in rng.choice(len(episodes), size=config.batch_size)]
            optimizer.zero_grad(set_to_none=True)
            total = 0.0
            tokens = sum(e.agent_tokens for e in picked)
            parts = microbatches(picked, count=config.gradient_accumulation_steps, max_tokens=config.max_batch_tokens)
            for idx in parts:
                part = [picked[i] for i in idx]
                batch = token_batch(part, pad_id=tokenizer.pad_token_id, device=device)
                share = sum(e.agent_tokens for e in part) / tokens
                loss = sft_loss(forward_logprobs(model, batch), batch.mask) * share
                loss.backward()
                total += loss.item()
            torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], config.max_grad_norm)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(total)
    del optimizer
    release_memory()
    return losses
