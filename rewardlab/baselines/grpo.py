"""GRPO (and GSPO) for a causal LM on any RewardLab env, in one file, CleanRL style.

Algorithm, per update:

1. Draw ``tasks_per_step`` train tasks; play each ``group_size`` times with
   ``reset(options={"task_id": ...})`` (:func:`rewardlab.baselines.rollout.collect_episodes`;
   multi-turn episodes are one token sequence with an agent mask).
2. Advantages from the group-normalised return ``R_i`` of each episode
   (:func:`rewardlab.core.group_stats.group_advantages`)::

       A_i = (R_i - mean_g(R)) / (std_g(R) + eps)        (scale_rewards=True; centring only if False)

   or, with ``per_component=True``, GDPO-style per-component normalisation
   (:func:`rewardlab.core.group_stats.component_group_advantages`) with the env's rubric weights.
   ``A_i`` is broadcast to every agent token of episode ``i``.
3. Clipped surrogate on the agent tokens (observation and prompt tokens are masked out)::

       r_t   = exp(log π(y_t) - log π_old(y_t))                          (importance_sampling="token")
       r_t   = sg[exp(mean_t(log π - log π_old))] · π(y_t) / sg[π(y_t)]  (="sequence", GSPO)
       L_t   = -min(r_t A, clip(r_t, 1 - ε_low, 1 + ε_high) A) + β · KL_t
       KL_t  = exp(log π_ref - log π) - (log π_ref - log π) - 1          (k3 estimator, >= 0, 0 at step 0)

   ``loss_type="token"`` averages L_t over all agent tokens of the batch (DAPO; the default of
   TRL's GRPOTrainer); ``"sequence"`` averages per sequence, then over sequences (original GRPO).
   With ``epochs=1`` ``π_old = sg[π]`` (one forward pass per micro-batch, as TRL does).
4. Gradient accumulation over ``gradient_accumulation_steps`` micro-batches (more when a
   micro-batch would hold over ``max_batch_tokens`` tokens), gradient clipping, AdamW step. The
   reference is a frozen copy of the initial policy, or, with LoRA, the same model with its
   adapter disabled.

Dynamic sampling (``dynamic_sampling``, DAPO): a group whose advantages are all 0 (equal rewards,
or equal components with ``per_component``) gives no policy gradient. Such groups are dropped and
as many new tasks played in their place, up to ``max_resamples`` rounds; the update takes the
groups that carry a signal (with none, there is no update). Episodes that an infrastructure fault
ended (``info["infra_error"]``) are dropped before the advantages; a group left with one episode
has no signal.

Shared prefixes (``share_prefix``): the G episodes of a group start with one prompt; it is encoded
once and its KV cache repeated for the group, when sampling and in the update's forward passes
(:mod:`rewardlab.baselines.prefix`; exact, up to float rounding).

Memory: between phases the freed heap is handed back to the OS
(:func:`rewardlab.baselines.memory.release_memory`) and the gradients are freed after each
optimiser step, so the rollouts do not sit on the update's activations.

Logs (per update): ``rewards/mean``, ``rewards/<component>/mean``, ``charts/success_rate`` (over
every scored episode played in the update, resampled ones included), ``losses/policy``,
``charts/kl``, ``charts/clip_ratio``, ``charts/grad_norm`` (0 when the update is skipped,
``charts/update_skipped`` = 1), ``charts/skipped_group_ratio`` (groups without a signal over groups
played; with ``dynamic_sampling`` off they stay in the update with advantage 0),
``charts/groups_played``, ``charts/resample_rounds``, ``charts/infra_error_ratio``, timings,
``perf/rollout_tokens_per_s`` (sampled tokens), ``perf/update_tokens_per_s`` (sequence tokens
scored, times ``epochs``), ``memory/rollout_peak_rss_gb`` and ``memory/update_peak_rss_gb``, in
``<output_dir>/metrics.jsonl`` and ``metrics.csv``; ``training_curve.png`` at the end.

Run::

    rewardlab train grpo --env RewardLab/ToolCall-v3 --model smollm2 --steps 50
    python -m rewardlab.baselines.grpo --env-id RewardLab/ToolCall-v3 --steps 50

Multi-GPU (not tested here): the update is plain torch, so it runs under accelerate's DDP
launcher unchanged per process, each process playing its own tasks::

    accelerate launch --multi_gpu --num_processes 4 -m rewardlab.baselines.grpo --env-id RewardLab/ToolCall-v3

(gradients are not all-reduced by this script; for synchronised multi-GPU training use the
TRL integration, :mod:`rewardlab.integrations.trl`, whose GRPOTrainer is accelerate-native.)
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from rewardlab.baselines.common import (
    MetricsLogger,
    forward_logprobs,
    masked_mean,
    microbatches,
    plot_curves,
    reference_context,
    reward_metrics,
    save_checkpoint,
    shared_token_batch,
    token_batch,
)
from rewardlab.baselines.config import (
    TrainerConfig,
    check_count,
    check_positive,
    check_range,
    config_dict,
    parse_config,
)
from rewardlab.baselines.memory import PhasePeaks, mapped_heap, release_memory
from rewardlab.baselines.prefix import can_share
from rewardlab.baselines.rollout import Episode
from rewardlab.baselines.session import frozen_reference, load_policy, make_training_envs, play_episodes, warm_start
from rewardlab.baselines.trainers import OnUpdate, TrainResult
from rewardlab.core.group_stats import component_group_advantages, group_advantages
from rewardlab.errors import ConfigError, require


@dataclass
class GRPOConfig(TrainerConfig):
    """Every argument of a GRPO run; the command line is generated from these fields."""

    # The fields every trainer shares are TrainerConfig's: env_id, output_dir (its default below), env_kwargs,
    # steps, max_time_s, learning_rate, model, sampling, LoRA, the SFT warm start, bf16, device, seed, saving.
    output_dir: str = "results/grpo"
    tasks_per_step: int = 2
    """Distinct train tasks per update."""
    group_size: int = 4
    """Rollouts per task (G); advantages are normalised within each group."""
    weight_decay: float = 0.0
    """AdamW weight decay."""
    beta: float = 0.04
    """KL coefficient (k3 estimator against the frozen initial policy); 0 disables the reference."""
    clip_epsilon: float = 0.2
    """Lower clipping bound: ratios below ``1 - clip_epsilon`` are clipped."""
    clip_epsilon_high: float | None = None
    """Upper clipping bound (``1 + clip_epsilon_high``); defaults to ``clip_epsilon`` (DAPO uses 0.28)."""
    importance_sampling: Literal["token", "sequence"] = "token"
    """``token``: per-token ratio (GRPO); ``sequence``: length-normalised sequence ratio (GSPO, use small clips)."""
    loss_type: Literal["token", "sequence"] = "token"
    """``token``: mean over all agent tokens of the batch (DAPO); ``sequence``: mean of per-sequence means."""
    epochs: int = 1
    """Optimisation passes over each batch of rollouts (μ in the GRPO paper)."""
    gradient_accumulation_steps: int = 1
    """Micro-batches per optimiser step (the batch is ``tasks_per_step * group_size`` episodes); at least,
    see ``max_batch_tokens``."""
    max_batch_tokens: int = 1024
    """Most token positions one forward pass of the update holds (padding included, a shared prefix counted
    once): micro-batches over it are split further. Bounds the activation memory, about 1.4 MB per token for
    SmolLM2-135M in float32; 0: no bound."""
    share_prefix: bool = True
    """Encode each group's common prefix (its prompt) once and repeat its KV cache for the group, in sampling
    and in the update (exact; skipped for models without a plain DynamicCache or with gradient checkpointing)."""
    recompute_prefix: bool = True
    """With ``share_prefix``: hold only the shared prefix's keys and values in the update and run its forward
    pass again in the backward pass (activation checkpointing of the prompt: less memory, one more forward
    pass over each prompt)."""
    mmap_threshold_kib: int = 256
    """glibc only, process-wide, during updates (and the SFT warm start): tensors over this many KiB get their
    own memory mapping, returned to the OS when freed (``mallopt(M_MMAP_THRESHOLD)``; glibc otherwise keeps
    freed activations in a fragmenting heap); 0 leaves glibc's policy alone. See :mod:`rewardlab.baselines.memory`."""
    dynamic_sampling: bool = True
    """Drop groups whose advantages are all 0 (equal rewards: no policy gradient) and play new tasks in their
    place (DAPO's dynamic sampling); their share is logged as ``charts/skipped_group_ratio``."""
    max_resamples: int = 2
    """Rounds of new tasks per update for the dropped groups; after the last, the update takes the groups
    that carry a signal (none: the update is skipped)."""
    scale_rewards: bool = True
    """Divide group-centred returns by the group std (GRPO); ``False`` only centres them (Dr. GRPO)."""
    per_component: bool = False
    """Normalise each reward component within its group, then weight them (GDPO) instead of the aggregate."""
    advantage_eps: float = 1e-6
    """Added to group standard deviations."""
    ray_rollouts: bool = False
    """Step each of the ``tasks_per_step * group_size`` envs in its own Ray actor (``ray.init()`` first, or a
    local Ray instance is started); generation stays in the trainer. See :mod:`rewardlab.baselines.ray_envs`."""
    torch_threads: int = 0
    """Process-wide torch intra-op threads (``torch.set_num_threads``) for the run; 0 keeps torch's default
    (one per core). Where other processes share the cores, 1 avoids threads waiting on a descheduled peer."""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_positive(self, "tasks_per_step", "group_size", "epochs")
        check_positive(self, "gradient_accumulation_steps", "top_p", "advantage_eps")
        check_range(self, "beta", 0.0, math.inf)
        check_range(self, "clip_epsilon", 0.0, 1.0)
        check_range(self, "weight_decay", 0.0, math.inf)
        if self.clip_epsilon_high is None:
            self.clip_epsilon_high = self.clip_epsilon
        check_range(self, "clip_epsilon_high", 0.0, math.inf)
        if self.importance_sampling not in ("token", "sequence"):
            raise ConfigError(f"importance_sampling must be 'token' or 'sequence', got {self.importance_sampling!r}")
        if self.loss_type not in ("token", "sequence"):
            raise ConfigError(f"loss_type must be 'token' or 'sequence', got {self.loss_type!r}")
        if self.group_size < 2:
            raise ConfigError(f"group_size must be >= 2 (a group of one has advantage 0), got {self.group_size}")
        if self.gradient_accumulation_steps > self.tasks_per_step * self.group_size:
            raise ConfigError(
                f"gradient_accumulation_steps={self.gradient_accumulation_steps} exceeds the batch of "
                f"tasks_per_step * group_size = {self.tasks_per_step * self.group_size} episodes; lower it"
            )
        check_count(self, "max_batch_tokens", "max_resamples", "mmap_threshold_kib", "torch_threads")

    @property
    def clip_high(self) -> float:
        """The upper clipping bound in effect: ``clip_epsilon_high``, or ``clip_epsilon`` when it is unset."""
        return self.clip_epsilon if self.clip_epsilon_high is None else self.clip_epsilon_high


# ============================================================================ the algorithm's core


def episode_advantages(episodes: Sequence[Episode], config: GRPOConfig, weights: dict[str, float]) -> np.ndarray:
    """One advantage per episode: group-normalised return, or per-component (GDPO) when configured."""
    groups = [e.group for e in episodes]
    if config.per_component:
        return component_group_advantages(
            [e.components for e in episodes], groups, weights=weights, eps=config.advantage_eps
        )
    return group_advantages([e.reward for e in episodes], groups, scale=config.scale_rewards, eps=config.advantage_eps)


def k3_kl(logprobs: Any, ref_logprobs: Any) -> Any:
    """Per-token k3 estimate of KL(π || π_ref): ``exp(d) - d - 1`` with ``d = log π_ref - log π``."""
    delta = ref_logprobs - logprobs
    return delta.exp() - delta - 1.0


def grpo_loss(
    logprobs: Any,
    old_logprobs: Any,
    advantages: Any,
    mask: Any,
    *,
    ref_logprobs: Any | None = None,
    beta: float = 0.0,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
    importance_sampling: str = "token",
    loss_type: str = "token",
    normalizer: float | None = None,
) -> tuple[Any, dict[str, float]]:
    """The clipped GRPO/GSPO surrogate plus β·k3-KL on the masked (agent) tokens.

    Args:
        logprobs: ``(B, K)`` log-probs under the current policy (with grad).
        old_logprobs: ``(B, K)`` log-probs under the sampling policy (no grad).
        advantages: ``(B,)`` one advantage per sequence.
        mask: ``(B, K)`` 1 on agent tokens.
        ref_logprobs: ``(B, K)`` reference log-probs; needed when ``beta > 0``.
        normalizer: For ``loss_type="token"`` the agent-token count of the whole (accumulated)
            batch; for ``"sequence"`` its number of sequences. Default: this micro-batch's.

    Returns:
        ``(loss, stats)``; stats hold ``kl`` and ``clip_ratio`` (fraction of clipped tokens).
    """
    torch = require("torch", "train")
    log_ratio = logprobs - old_logprobs
    if importance_sampling == "sequence":
        sequence_log_ratio = masked_mean(log_ratio, mask, dim=1).unsqueeze(1)
        log_ratio = logprobs - logprobs.detach() + sequence_log_ratio.detach()
    ratio = torch.exp(log_ratio)
    adv = advantages.unsqueeze(1)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * adv
    per_token = -torch.min(unclipped, clipped)
    kl = torch.zeros_like(per_token)
    if beta > 0:
        if ref_logprobs is None:
            raise ConfigError("beta > 0 needs ref_logprobs")
        kl = k3_kl(logprobs, ref_logprobs)
        per_token = per_token + beta * kl
    if loss_type == "token":
        loss = (per_token * mask).sum() / (normalizer if normalizer is not None else mask.sum().clamp(min=1.0))
    else:
        per_sequence = masked_mean(per_token, mask, dim=1)
        loss = per_sequence.sum() / (normalizer if normalizer is not None else per_sequence.shape[0])
    with torch.no_grad():
        is_clipped = ((ratio < 1.0 - clip_low) & (adv < 0)) | ((ratio > 1.0 + clip_high) & (adv > 0))
        stats = {
            "kl": float(masked_mean(kl, mask)),
            "clip_ratio": float(masked_mean(is_clipped.float(), mask)),
        }
    return loss, stats


def update(
    policy: Any,
    optimizer: Any,
    episodes: Sequence[Episode],
    advantages: np.ndarray,
    config: GRPOConfig,
    *,
    reference: Any | None,
    pad_id: int,
    device: str,
) -> dict[str, float]:
    """``epochs`` optimiser steps on one batch of episodes, accumulating over micro-batches
    (:func:`~rewardlab.baselines.common.microbatches`; groups share their prefix with ``share_prefix``).
    The gradients are left in ``.grad``."""
    torch = require("torch", "train")
    share = config.share_prefix and can_share(policy) and (reference is None or can_share(reference))
    micro = microbatches(
        episodes, count=config.gradient_accumulation_steps, max_tokens=config.max_batch_tokens, share=share
    )
    batches = [
        (shared_token_batch(part, pad_id=pad_id, device=device, recompute=config.recompute_prefix) if share else None)
        or token_batch(part, pad_id=pad_id, device=device)
        for part in ([episodes[i] for i in idx] for idx in micro)
    ]
    adv = [torch.tensor(advantages[idx], dtype=torch.float32, device=device) for idx in micro]
    normalizer = float(sum(b.mask.sum() for b in batches)) if config.loss_type == "token" else float(len(episodes))
    normalizer = max(normalizer, 1.0)
    with torch.no_grad():
        old = (
            [forward_logprobs(policy, b, temperature=config.temperature) for b in batches]
            if config.epochs > 1
            else None
        )
        ref = None
        if config.beta > 0:
            model, context = reference_context(policy, reference)
            with context:
                ref = [forward_logprobs(model, b, temperature=config.temperature) for b in batches]
    stats: dict[str, list[float]] = {"loss": [], "kl": [], "clip_ratio": [], "grad_norm": []}
    policy.train()
    for _ in range(config.epochs):
        optimizer.zero_grad(set_to_none=True)
        epoch_loss = 0.0
        for j, batch in enumerate(batches):
            logprobs = forward_logprobs(policy, batch, temperature=config.temperature)
            loss, s = grpo_loss(
                logprobs,
                old[j] if old is not None else logprobs.detach(),
                adv[j],
                batch.mask,
                ref_logprobs=ref[j] if ref is not None else None,
                beta=config.beta,
                clip_low=config.clip_epsilon,
                clip_high=config.clip_high,
                importance_sampling=config.importance_sampling,
                loss_type=config.loss_type,
                normalizer=normalizer,
            )
            loss.backward()
            epoch_loss += loss.item()
            stats["kl"].append(s["kl"])
            stats["clip_ratio"].append(s["clip_ratio"])
        grad_norm = torch.nn.utils.clip_grad_norm_(
            [p for p in policy.parameters() if p.requires_grad], config.max_grad_norm
        )
        optimizer.step()
        stats["loss"].append(epoch_loss)
        stats["grad_norm"].append(float(grad_norm))
    return {
        "losses/policy": float(np.mean(stats["loss"])),
        "charts/kl": float(np.mean(stats["kl"])),
        "charts/clip_ratio": float(np.mean(stats["clip_ratio"])),
        "charts/grad_norm": float(np.mean(stats["grad_norm"])),
    }


def signal_groups(episodes: Sequence[Episode], config: GRPOConfig, weights: dict[str, float]) -> list[str]:
    """The labels of the groups of ``episodes`` whose advantages are not all 0 (the groups with a policy
    gradient), in order of first appearance. A group of equal rewards has advantages of exactly 0."""
    if not episodes:
        return []
    advantages = episode_advantages(episodes, config, weights)
    labels: dict[str, bool] = {}
    for episode, advantage in zip(episodes, advantages, strict=True):
        labels[episode.group] = labels.get(episode.group, False) or advantage != 0.0
    return [label for label, signal in labels.items() if signal]


@dataclass
class StepSample:
    """The rollouts of one update (:func:`sample_groups`)."""

    episodes: list[Episode]
    """The episodes that go into the update (every group with a signal; all scored ones without dynamic sampling)."""
    played: list[Episode]
    """Every scored episode played, resampled groups included (the reward logs)."""
    groups_played: int
    groups_skipped: int
    """Groups without a signal (all advantages 0, or emptied by infrastructure faults)."""
    rounds: int
    """Resample rounds played after the first."""
    infra_errors: int
    """Episodes an infrastructure fault ended (dropped)."""


def sample_groups(
    envs: Sequence[Any],
    policy: Any,
    tokenizer: Any,
    config: GRPOConfig,
    draw: Callable[[int], list[str]],
    weights: dict[str, float],
    *,
    seed: int,
) -> StepSample:
    """Play ``tasks_per_step`` groups of ``group_size`` episodes of tasks from ``draw(n)``; with
    ``dynamic_sampling`` replace the groups without a signal by new ones, up to ``max_resamples`` rounds."""
    kept: list[Episode] = []
    played: list[Episode] = []
    groups_played = skipped = infra_errors = rounds = 0
    tasks = draw(config.tasks_per_step)
    for round_ in range(1 + (config.max_resamples if config.dynamic_sampling else 0)):
        rounds = round_
        task_ids = [t for t in tasks for _ in range(config.group_size)]
        groups = [f"{t}#{groups_played + k}" for k, t in enumerate(tasks) for _ in range(config.group_size)]
        episodes = play_episodes(
            envs,
            policy,
            tokenizer,
            task_ids,
            config,
            seed=seed + round_ * 100_003 * len(envs),
            groups=groups,
            share_prefix=config.share_prefix,
        )
        scored = [e for e in episodes if not e.infra_error]
        infra_errors += len(episodes) - len(scored)
        played += scored
        groups_played += len(tasks)
        signal = set(signal_groups(scored, config, weights))
        missing = len(tasks) - len(signal)
        skipped += missing
        kept += [e for e in scored if e.group in signal or not config.dynamic_sampling]
        if missing == 0 or not config.dynamic_sampling:
            break
        tasks = draw(missing)
    return StepSample(kept, played, groups_played, skipped, rounds, infra_errors)


# ============================================================================ the loop (boilerplate)


NO_UPDATE = {"losses/policy": 0.0, "charts/kl": 0.0, "charts/clip_ratio": 0.0, "charts/grad_norm": 0.0}
"""The loss logs of a skipped update (no group had a signal)."""


def train(
    config: GRPOConfig,
    *,
    model: Any = None,
    tokenizer: Any = None,
    on_update: OnUpdate | None = None,
) -> TrainResult:
    """Run GRPO as configured. ``model``/``tokenizer`` override ``config.model`` (e.g. a tiny test model);
    ``on_update`` receives each metrics row (the CLI's progress bar)."""
    torch = require("torch", "train")
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    policy, tokenizer, device = load_policy(config, model, tokenizer)
    reference = frozen_reference(policy, config, kl_coefficient=config.beta)
    output_dir = Path(config.output_dir)
    logger = MetricsLogger(output_dir)
    batch_size = config.tasks_per_step * config.group_size
    envs = make_training_envs(config.env_id, batch_size, config.env_kwargs, ray_rollouts=config.ray_rollouts)
    peaks = PhasePeaks()
    try:
        base = envs[0].unwrapped
        weights = dict(base.rubric.normalized_weights)
        train_ids = base.tasks.ids("train")
        if not train_ids:
            raise ConfigError(f"{config.env_id} has no train tasks")
        rng = np.random.default_rng(config.seed)

        def draw(count: int) -> list[str]:
            return [str(t) for t in rng.choice(train_ids, size=count, replace=len(train_ids) < count)]

        started = time.perf_counter()
        warm_start(policy, tokenizer, envs, config, device=device, mmap_threshold_kib=config.mmap_threshold_kib)
        optimizer = torch.optim.AdamW(
            [p for p in policy.parameters() if p.requires_grad],
            lr=config.learning_rate,
            weight_decay=config.weight_decay,
        )
        for step in range(1, config.steps + 1):
            policy.eval()
            start = time.perf_counter()
            with peaks.phase("rollouts"):
                sample = sample_groups(
                    envs, policy, tokenizer, config, draw, weights, seed=config.seed * 1_000_003 + step * batch_size
                )
            rollout_s = time.perf_counter() - start
            release_memory()
            episodes = sample.episodes
            advantages = episode_advantages(episodes, config, weights) if episodes else np.zeros(0)
            start = time.perf_counter()
            with peaks.phase("updates"), mapped_heap(config.mmap_threshold_kib):
                losses = (
                    update(
                        policy,
                        optimizer,
                        episodes,
                        advantages,
                        config,
                        reference=reference,
                        pad_id=tokenizer.pad_token_id,
                        device=device,
                    )
                    if episodes
                    else dict(NO_UPDATE)
                )
                optimizer.zero_grad(set_to_none=True)  # no gradients held through the next rollouts
            update_s = time.perf_counter() - start
            release_memory()
            played = sample.played or episodes
            generated = sum(e.agent_tokens for e in played)
            processed = sum(len(e.token_ids) for e in episodes) * config.epochs
            row = {
                "step": step,
                **(reward_metrics(played) if played else {}),
                **losses,
                "charts/advantage_abs_mean": float(np.abs(advantages).mean()) if episodes else 0.0,
                "charts/update_skipped": float(not episodes),
                "charts/skipped_group_ratio": sample.groups_skipped / sample.groups_played,
                "charts/groups_played": float(sample.groups_played),
                "charts/resample_rounds": float(sample.rounds),
                "charts/infra_error_ratio": sample.infra_errors / (sample.groups_played * config.group_size),
                "time/rollout_s": rollout_s,
                "time/update_s": update_s,
                "perf/rollout_tokens_per_s": generated / rollout_s,
                "perf/update_tokens_per_s": processed / update_s if episodes else 0.0,
                "memory/rollout_peak_rss_gb": peaks.last_gb["rollouts"],
                "memory/update_peak_rss_gb": peaks.last_gb["updates"],
            }
            logger.log(row)
            if on_update is not None:
                on_update(row)
            if config.save_every and step % config.save_every == 0:
                save_checkpoint(policy, tokenizer, output_dir / f"checkpoint-{step}", {"step": step})
            elapsed = time.perf_counter() - started
            if config.max_time_s is not None and elapsed + rollout_s + update_s > config.max_time_s:
                break  # the next update, as long as this one, would overrun the budget
        if config.save_final:
            save_checkpoint(policy, tokenizer, output_dir / "final", {"config": config_dict(config)})
        plot_curves(logger.rows, output_dir / "training_curve.png", title=f"GRPO on {config.env_id}")
        return TrainResult(model=policy, tokenizer=tokenizer, history=logger.rows, output_dir=output_dir)
    finally:
        for env in envs:
            env.close()


def main(argv: list[str] | None = None) -> int:
    config = parse_config(GRPOConfig, argv)
    train(config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
