"""PPO with a value head for a causal LM on any RewardLab env, in one file, CleanRL style.

Algorithm, per update:

1. Play ``episodes_per_step`` train tasks (:func:`rewardlab.baselines.rollout.collect_episodes`).
2. Token-level rewards on the agent tokens only: the env's reward after each action sits on the
   last token of that action; optionally a per-token KL penalty to the frozen initial policy::

       r_t = R_turn(t) · [t is the last token of its action] - kl_coef · (log π_old(y_t) - log π_ref(y_t))

3. Values ``V_t = w · h_t + b`` from a linear value head on the policy's last hidden state
   ``h_t`` at the position that predicts token ``t``. GAE over the chain of agent tokens
   (observation tokens are skipped: the value after an action's last token is the value at the
   next action's first token; 0 after the last)::

       δ_t = r_t + γ V_next(t) - V_t,   A_t = δ_t + γ λ A_next(t),   R_t = A_t + V_t

   Advantages are whitened over the batch's agent tokens (``whiten_advantages``).
4. ``epochs`` passes over ``num_minibatches`` minibatches, each one optimiser step on::

       L = mean_t[-min(ρ_t A_t, clip(ρ_t, 1-ε, 1+ε) A_t)]
           + vf_coef · mean_t[½ max((V_t - R_t)², (clip(V_t, V_old ± ε_v) - R_t)²)]

   with ``ρ_t = π(y_t)/π_old(y_t)`` and means over agent tokens.

Logs as in :mod:`rewardlab.baselines.grpo`, plus ``losses/value``, ``charts/explained_variance``. Episodes an
infrastructure fault ended (``info["infra_error"]``) are dropped before the update, never scored 0
(``charts/infra_error_ratio``; a step left with none skips its update, ``charts/update_skipped``).

Run::

    rewardlab train ppo --env RewardLab/ToolCall-v3 --model smollm2 --steps 50
    rewardlab train ppo --env RewardLab/ToolCall-v3 --ray-rollouts   # each env steps in its own Ray actor

Multi-GPU (not tested here): ``accelerate launch --multi_gpu --num_processes N -m
rewardlab.baselines.ppo --env-id ...`` runs one independent learner per process; use the TRL
integration for synchronised data-parallel training.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rewardlab.baselines.common import (
    MetricsLogger,
    chunks,
    forward_logprobs,
    masked_mean,
    plot_curves,
    reference_context,
    reward_metrics,
    save_checkpoint,
    token_batch,
)
from rewardlab.baselines.config import (
    TrainerConfig,
    check_positive,
    check_range,
    config_dict,
    parse_config,
)
from rewardlab.baselines.rollout import Episode
from rewardlab.baselines.session import frozen_reference, load_policy, make_training_envs, play_episodes, warm_start
from rewardlab.baselines.trainers import OnUpdate, TrainResult
from rewardlab.errors import ConfigError, require


@dataclass
class PPOConfig(TrainerConfig):
    """Every argument of a PPO run; the command line is generated from these fields. An update is
    ``episodes_per_step`` rollouts, then ``epochs * num_minibatches`` optimiser steps on the policy and the
    value head (one AdamW at ``learning_rate``)."""

    # The fields every trainer shares are TrainerConfig's: env_id, output_dir (its default below), env_kwargs,
    # steps, max_time_s, learning_rate, model, sampling, LoRA, the SFT warm start, bf16, device, seed, saving.
    output_dir: str = "results/ppo"
    episodes_per_step: int = 8
    """Episodes played per update."""
    gamma: float = 1.0
    """Discount per agent token."""
    lam: float = 0.95
    """GAE λ."""
    clip_epsilon: float = 0.2
    """Policy ratio clip ε."""
    value_clip: float = 0.2
    """Value clip ε_v around the old values."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    kl_coef: float = 0.05
    """Per-token KL penalty to the frozen initial policy inside the reward (0: no reference)."""
    whiten_advantages: bool = True
    """Normalise advantages to mean 0, std 1 over the batch's agent tokens."""
    epochs: int = 2
    """Passes over each batch of rollouts."""
    num_minibatches: int = 2
    """Minibatches per pass (one optimiser step each)."""
    gradient_accumulation_steps: int = 1
    """Micro-batches per minibatch."""
    ray_rollouts: bool = False
    """Step each of the ``episodes_per_step`` envs in its own Ray actor (``ray.init()`` first, or a local Ray
    instance is started); generation stays in the trainer. See :mod:`rewardlab.baselines.ray_envs`."""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_positive(self, "episodes_per_step", "epochs", "num_minibatches", "gradient_accumulation_steps")
        check_range(self, "gamma", 0.0, 1.0)
        check_range(self, "lam", 0.0, 1.0)
        check_range(self, "clip_epsilon", 0.0, 1.0)
        check_range(self, "value_clip", 0.0, math.inf)
        check_range(self, "vf_coef", 0.0, math.inf)
        check_range(self, "kl_coef", 0.0, math.inf)
        if self.num_minibatches * self.gradient_accumulation_steps > self.episodes_per_step:
            raise ConfigError(
                f"num_minibatches * gradient_accumulation_steps = "
                f"{self.num_minibatches * self.gradient_accumulation_steps} exceeds episodes_per_step="
                f"{self.episodes_per_step}; each micro-batch needs at least one episode"
            )


# ============================================================================ the algorithm's core


def make_value_head(model: Any) -> Any:
    """A linear value head ``V = w · h + b`` on the model's hidden size, initialised at zero."""
    torch = require("torch", "train")
    head = torch.nn.Linear(model.config.hidden_size, 1)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)
    return head.to(device=model.device, dtype=next(model.parameters()).dtype)


def gae(rewards: Any, values: Any, mask: Any, *, gamma: float, lam: float) -> tuple[Any, Any]:
    """GAE over the agent tokens of each row: ``(advantages, returns)``, both ``(B, T)`` and 0 off-mask.

    Tokens with ``mask == 0`` (prompt, observations, padding) are skipped: the next value of an
    agent token is the value of the next agent token in its row, and 0 after the row's last.
    """
    torch = require("torch", "train")
    advantages = torch.zeros_like(values)
    next_value = torch.zeros_like(values[:, 0])
    next_advantage = torch.zeros_like(values[:, 0])
    for t in reversed(range(values.shape[1])):
        on = mask[:, t] > 0
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        advantage = delta + gamma * lam * next_advantage
        advantages[:, t] = torch.where(on, advantage, torch.zeros_like(advantage))
        next_value = torch.where(on, values[:, t], next_value)
        next_advantage = torch.where(on, advantage, next_advantage)
    returns = (advantages + values) * mask
    return advantages, returns


def token_rewards(episodes: Sequence[Episode]) -> list[np.ndarray]:
    """Per episode, a reward per token: each turn's reward on the last token of its action."""
    rows = []
    for e in episodes:
        row = np.zeros(len(e.token_ids), dtype=np.float32)
        for end, reward in zip(e.action_ends, e.step_rewards, strict=True):
            row[end] += reward
        rows.append(row)
    return rows


def ppo_loss(
    logprobs: Any,
    old_logprobs: Any,
    values: Any,
    old_values: Any,
    advantages: Any,
    returns: Any,
    mask: Any,
    *,
    clip_epsilon: float,
    value_clip: float,
    vf_coef: float,
) -> tuple[Any, dict[str, float]]:
    """Clipped policy loss plus ``vf_coef`` times the clipped value loss, means over agent tokens."""
    torch = require("torch", "train")
    ratio = torch.exp(logprobs - old_logprobs)
    policy = -torch.min(ratio * advantages, torch.clamp(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * advantages)
    clipped_values = old_values + torch.clamp(values - old_values, -value_clip, value_clip)
    value = 0.5 * torch.max((values - returns) ** 2, (clipped_values - returns) ** 2)
    policy_loss = masked_mean(policy, mask)
    value_loss = masked_mean(value, mask)
    with torch.no_grad():
        clip_ratio = masked_mean(((ratio - 1).abs() > clip_epsilon).float(), mask)
    stats = {"policy": policy_loss.item(), "value": value_loss.item(), "clip_ratio": clip_ratio.item()}
    return policy_loss + vf_coef * value_loss, stats


def _rows_to_batch(rows: Sequence[np.ndarray], start: int, width: int, device: str) -> Any:
    """Per-episode token arrays -> ``(B, width)`` tensor of positions ``start .. start+width-1``."""
    torch = require("torch", "train")
    out = torch.zeros((len(rows), width), dtype=torch.float32)
    for i, row in enumerate(rows):
        piece = row[start : start + width]
        out[i, : len(piece)] = torch.from_numpy(np.ascontiguousarray(piece))
    return out.to(device)


def _scatter(batch_values: Any, episodes: Sequence[Episode], start: int) -> list[np.ndarray]:
    """``(B, K)`` tensor of positions ``start..`` -> per-episode arrays over all positions."""
    values = batch_values.detach().float().cpu().numpy()
    rows = []
    for i, e in enumerate(episodes):
        row = np.zeros(len(e.token_ids), dtype=np.float32)
        n = len(e.token_ids) - start
        row[start:] = values[i, :n]
        rows.append(row)
    return rows


def update(
    policy: Any,
    value_head: Any,
    optimizer: Any,
    episodes: Sequence[Episode],
    config: PPOConfig,
    *,
    reference: Any | None,
    pad_id: int,
    device: str,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Compute old log-probs, values, token rewards and GAE, then ``epochs`` passes of minibatch steps."""
    torch = require("torch", "train")
    episodes = list(episodes)
    old_logp, old_values, ref_logp = [], [], []
    with torch.no_grad():
        for part in chunks(episodes, config.num_minibatches * config.gradient_accumulation_steps):
            batch = token_batch(part, pad_id=pad_id, device=device)
            logp, hidden = forward_logprobs(policy, batch, temperature=config.temperature, hidden=True)
            old_logp += _scatter(logp, part, batch.start)
            old_values += _scatter(value_head(hidden.to(value_head.weight.dtype)).squeeze(-1), part, batch.start)
            if config.kl_coef > 0:
                model, context = reference_context(policy, reference)
                with context:
                    ref_logp += _scatter(
                        forward_logprobs(model, batch, temperature=config.temperature), part, batch.start
                    )
    rewards = token_rewards(episodes)
    if config.kl_coef > 0:
        rewards = [
            r - config.kl_coef * (o - f) * np.asarray(e.action_mask)
            for r, o, f, e in zip(rewards, old_logp, ref_logp, episodes, strict=True)
        ]
    advantages, returns = [], []
    for e, r, v in zip(episodes, rewards, old_values, strict=True):
        m = torch.tensor([e.action_mask], dtype=torch.float32)
        a, g = gae(torch.from_numpy(r)[None], torch.from_numpy(v)[None], m, gamma=config.gamma, lam=config.lam)
        advantages.append(a[0].numpy())
        returns.append(g[0].numpy())
    if config.whiten_advantages:
        agent = np.concatenate([a[np.asarray(e.action_mask) > 0] for a, e in zip(advantages, episodes, strict=True)])
        mean, std = float(agent.mean()), float(agent.std()) + 1e-8
        advantages = [(a - mean) / std * np.asarray(e.action_mask) for a, e in zip(advantages, episodes, strict=True)]
    stats: dict[str, list[float]] = {"policy": [], "value": [], "clip_ratio": []}
    policy.train()
    for _ in range(config.epochs):
        order = rng.permutation(len(episodes))
        for minibatch in chunks(list(order), config.num_minibatches):
            optimizer.zero_grad(set_to_none=True)
            parts = list(chunks(list(minibatch), config.gradient_accumulation_steps))
            for part in parts:
                eps = [episodes[i] for i in part]
                batch = token_batch(eps, pad_id=pad_id, device=device)
                width = batch.targets.shape[1]
                logp, hidden = forward_logprobs(policy, batch, temperature=config.temperature, hidden=True)
                values = value_head(hidden.to(value_head.weight.dtype)).squeeze(-1).float()
                loss, s = ppo_loss(
                    logp,
                    _rows_to_batch([old_logp[i] for i in part], batch.start, width, device),
                    values,
                    _rows_to_batch([old_values[i] for i in part], batch.start, width, device),
                    _rows_to_batch([advantages[i] for i in part], batch.start, width, device),
                    _rows_to_batch([returns[i] for i in part], batch.start, width, device),
                    batch.mask,
                    clip_epsilon=config.clip_epsilon,
                    value_clip=config.value_clip,
                    vf_coef=config.vf_coef,
                )
                (loss / len(parts)).backward()
                for key, value in s.items():
                    stats[key].append(value)
            params = [p for p in policy.parameters() if p.requires_grad] + list(value_head.parameters())
            torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
            optimizer.step()
    flat_returns = np.concatenate([g[np.asarray(e.action_mask) > 0] for g, e in zip(returns, episodes, strict=True)])
    flat_values = np.concatenate([v[np.asarray(e.action_mask) > 0] for v, e in zip(old_values, episodes, strict=True)])
    variance = float(np.var(flat_returns))
    kl = [
        float(((o - f) * np.asarray(e.action_mask)).sum() / max(1, e.agent_tokens))
        for o, f, e in zip(old_logp, ref_logp, episodes, strict=False)
    ]
    return {
        "losses/policy": float(np.mean(stats["policy"])),
        "losses/value": float(np.mean(stats["value"])),
        "charts/clip_ratio": float(np.mean(stats["clip_ratio"])),
        "charts/kl": float(np.mean(kl)) if kl else 0.0,
        "charts/explained_variance": 1.0 - float(np.var(flat_returns - flat_values)) / variance if variance else 0.0,
    }


# ============================================================================ the loop (boilerplate)


def train(
    config: PPOConfig,
    *,
    model: Any = None,
    tokenizer: Any = None,
    on_update: OnUpdate | None = None,
) -> TrainResult:
    """Run PPO as configured; ``model``/``tokenizer`` override ``config.model``."""
    torch = require("torch", "train")
    policy, tokenizer, device = load_policy(config, model, tokenizer)
    reference = frozen_reference(policy, config, kl_coefficient=config.kl_coef)
    value_head = make_value_head(policy)
    output_dir = Path(config.output_dir)
    logger = MetricsLogger(output_dir)
    envs = make_training_envs(
        config.env_id, config.episodes_per_step, config.env_kwargs, ray_rollouts=config.ray_rollouts
    )
    try:
        train_ids = envs[0].unwrapped.tasks.ids("train")
        if not train_ids:
            raise ConfigError(f"{config.env_id} has no train tasks")
        rng = np.random.default_rng(config.seed)
        started = time.perf_counter()
        warm_start(policy, tokenizer, envs, config, device=device)
        params = [p for p in policy.parameters() if p.requires_grad] + list(value_head.parameters())
        optimizer = torch.optim.AdamW(params, lr=config.learning_rate)
        for step in range(1, config.steps + 1):
            task_ids = [str(t) for t in rng.choice(train_ids, size=config.episodes_per_step)]
            policy.eval()
            start = time.perf_counter()
            seed = config.seed * 1_000_003 + step * config.episodes_per_step
            episodes = play_episodes(envs, policy, tokenizer, task_ids, config, seed=seed)
            rollout_s = time.perf_counter() - start
            # an episode an infrastructure fault ended says nothing of its actions: dropped, never scored 0
            scored = [e for e in episodes if not e.infra_error]
            start = time.perf_counter()
            losses = (
                update(
                    policy,
                    value_head,
                    optimizer,
                    scored,
                    config,
                    reference=reference,
                    pad_id=tokenizer.pad_token_id,
                    device=device,
                    rng=rng,
                )
                if scored
                else {}
            )
            update_s = time.perf_counter() - start
            row = {
                "step": step,
                **(reward_metrics(scored) if scored else {}),
                **losses,
                "charts/infra_error_ratio": (len(episodes) - len(scored)) / len(episodes),
                "charts/update_skipped": float(not scored),
                "time/rollout_s": rollout_s,
                "time/update_s": update_s,
                "perf/rollout_tokens_per_s": sum(e.agent_tokens for e in episodes) / rollout_s,
                "perf/update_tokens_per_s": sum(len(e.token_ids) for e in scored) * config.epochs / max(update_s, 1e-9),
            }
            logger.log(row)
            if on_update is not None:
                on_update(row)
            if config.save_every and step % config.save_every == 0:
                _save(policy, value_head, tokenizer, output_dir / f"checkpoint-{step}", {"step": step})
            elapsed = time.perf_counter() - started
            if config.max_time_s is not None and elapsed + rollout_s + update_s > config.max_time_s:
                break
        if config.save_final:
            _save(policy, value_head, tokenizer, output_dir / "final", {"config": config_dict(config)})
        plot_curves(logger.rows, output_dir / "training_curve.png", title=f"PPO on {config.env_id}")
        return TrainResult(
            model=policy, tokenizer=tokenizer, history=logger.rows, output_dir=output_dir, value_head=value_head
        )
    finally:
        for env in envs:
            env.close()


def _save(policy: Any, value_head: Any, tokenizer: Any, directory: Path, extra: dict[str, Any]) -> None:
    torch = require("torch", "train")
    save_checkpoint(policy, tokenizer, directory, extra)
    torch.save(value_head.state_dict(), directory / "value_head.pt")


def main(argv: list[str] | None = None) -> int:
    train(parse_config(PPOConfig, argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
