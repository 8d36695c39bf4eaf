"""The set-up every trainer shares: seed, device and dtype, the policy (LoRA optional), the KL
reference, the envs (local, or one Ray actor each) and the SFT warm start; and its rollouts, sampled
as its config says.

GRPO and PPO call these in ``train``; what is left is their own: GRPO keeps a frozen reference when
``beta > 0``, PPO when ``kl_coef > 0`` and adds its value head.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from rewardlab.baselines.config import TrainerConfig
from rewardlab.baselines.rollout import Episode, collect_episodes, make_envs
from rewardlab.errors import ConfigError, require

# ---------------------------------------------------------------------------- the policy


def resolve_device(device: str) -> str:
    """``"auto"`` -> ``"cuda"`` when available, else ``"cpu"``."""
    torch = require("torch", "train")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def prepare_policy(
    model: Any, *, lora: bool, lora_rank: int, lora_alpha: float, gradient_checkpointing: bool = False
) -> Any:
    """Wrap ``model`` in a LoRA adapter (peft) when ``lora``; the frozen base then serves as reference."""
    if gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.config.use_cache = False
    if not lora:
        return model
    peft = require("peft", "train")
    config = peft.LoraConfig(
        r=lora_rank, lora_alpha=lora_alpha, lora_dropout=0.0, target_modules="all-linear", task_type="CAUSAL_LM"
    )
    return peft.get_peft_model(model, config)


def load_policy(config: TrainerConfig, model: Any = None, tokenizer: Any = None) -> tuple[Any, Any, str]:
    """Seed torch, resolve the device and dtype, load ``config.model`` unless ``model`` is given, give the
    tokenizer a pad token (its EOS token when it has none) and wrap the model in LoRA when ``config.lora``.

    The dtype is bfloat16 when ``config.bf16``, or when it is unset and the device is CUDA; else float32.

    Returns:
        ``(policy, tokenizer, device)``.
    """
    torch = require("torch", "train")
    from rewardlab.agents.models import load_model

    torch.manual_seed(config.seed)
    device = resolve_device(config.device)
    bf16 = config.bf16 if config.bf16 is not None else device.startswith("cuda")
    dtype = torch.bfloat16 if bf16 else torch.float32
    if model is None:
        model, tokenizer = load_model(config.model, device=device, dtype=dtype)
    elif tokenizer is None:
        raise ConfigError("pass the tokenizer together with the model")
    else:
        model = model.to(device=device, dtype=dtype)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    policy = prepare_policy(
        model,
        lora=config.lora,
        lora_rank=config.lora_rank,
        lora_alpha=config.lora_alpha,
        gradient_checkpointing=config.gradient_checkpointing,
    )
    return policy, tokenizer, device


def frozen_copy(model: Any) -> Any:
    """A frozen copy of ``model`` (the KL reference when training without LoRA)."""
    reference = copy.deepcopy(model)
    reference.eval()
    reference.requires_grad_(False)
    return reference


def frozen_reference(policy: Any, config: TrainerConfig, *, kl_coefficient: float) -> Any | None:
    """The KL reference to keep in memory: a frozen copy of the initial ``policy`` when
    ``kl_coefficient > 0`` and training all weights; None without a KL term, or with LoRA
    (:func:`rewardlab.baselines.common.reference_context` then disables the adapter instead)."""
    return frozen_copy(policy) if kl_coefficient > 0 and not config.lora else None


# ---------------------------------------------------------------------------- the envs


def make_training_envs(
    env_id: str, count: int, env_kwargs: dict[str, Any] | None = None, *, ray_rollouts: bool = False
) -> list[Any]:
    """``count`` envs of ``env_id`` behind :class:`~rewardlab.wrappers.ChatHistory`: local
    (:func:`rewardlab.baselines.rollout.make_envs`), or with ``ray_rollouts`` each in its own Ray actor
    (:func:`rewardlab.baselines.ray_envs.make_remote_envs`; a local Ray instance is started unless
    ``ray.init()`` was called). Both kinds drop into :func:`~rewardlab.baselines.rollout.collect_episodes`."""
    if not ray_rollouts:
        return make_envs(env_id, count, env_kwargs)
    ray = require("ray", "dist")
    from rewardlab.baselines.ray_envs import make_remote_envs

    if not ray.is_initialized():
        ray.init(include_dashboard=False)
    return make_remote_envs(env_id, count, env_kwargs)


def warm_start(
    policy: Any, tokenizer: Any, envs: Sequence[Any], config: TrainerConfig, *, device: str, **sft_fields: Any
) -> None:
    """The SFT warm start ``config`` asks for (none when ``sft_steps`` is 0):
    :func:`~rewardlab.baselines.sft.sft_warm_start` of ``policy`` on ``envs``, configured by
    :meth:`SFTConfig.from_trainer <rewardlab.baselines.sft.SFTConfig.from_trainer>` (``sft_fields`` set the
    fields the trainer's config does not)."""
    if not config.sft_steps:
        return
    from rewardlab.baselines.sft import SFTConfig, sft_warm_start

    sft_warm_start(policy, tokenizer, envs, SFTConfig.from_trainer(config, **sft_fields), device=device)


# ---------------------------------------------------------------------------- the rollouts


def play_episodes(
    envs: Sequence[Any],
    policy: Any,
    tokenizer: Any,
    task_ids: Sequence[str],
    config: TrainerConfig,
    *,
    seed: int,
    groups: Sequence[str] | None = None,
    share_prefix: bool = True,
) -> list[Episode]:
    """:func:`~rewardlab.baselines.rollout.collect_episodes` of ``task_ids``, sampled as ``config`` says: its
    ``max_new_tokens``, ``temperature``, ``top_p`` and ``max_episode_tokens``."""
    return collect_episodes(
        envs,
        policy,
        tokenizer,
        task_ids,
        max_new_tokens=config.max_new_tokens,
        temperature=config.temperature,
        top_p=config.top_p,
        max_episode_tokens=config.max_episode_tokens,
        seed=seed,
        groups=groups,
        share_prefix=share_prefix,
    )
