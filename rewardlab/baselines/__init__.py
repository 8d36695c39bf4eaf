"""Baselines that train a causal LM on any RewardLab env (torch + transformers, the ``train`` extra).

- :mod:`rewardlab.baselines.grpo`: GRPO with group-normalised advantages (optionally per component,
  GDPO; both from :mod:`rewardlab.core.group_stats`), clipped ratio, k3 KL to a frozen reference,
  GSPO's sequence-level ratio as an option.
- :mod:`rewardlab.baselines.ppo`: PPO with a value head and GAE over the agent's tokens.
- :mod:`rewardlab.baselines.sft`: SFT warm start from OracleAgent demonstrations.
- :mod:`rewardlab.baselines.rollout`: multi-turn rollouts as token sequences with agent masks.
- :mod:`rewardlab.baselines.prefix`: a group's common prompt run once, its KV cache repeated for the
  group, in sampling and in the update's forward passes (exact).
- :mod:`rewardlab.baselines.memory`: peak RSS per phase, and freed heap handed back to the OS.
- :mod:`rewardlab.baselines.session`: the set-up both trainers share: seed, device, dtype, the policy
  (LoRA optional), the frozen KL reference, envs local or on Ray actors (``ray_rollouts``).
- :mod:`rewardlab.baselines.common`: KL reference context, log-probs, batches, logs, plots, checkpoints.
- :mod:`rewardlab.baselines.config`: the fields every trainer config shares (``TrainerConfig``), their
  checks, and the command line generated from a config dataclass.
- :mod:`rewardlab.baselines.trainers`: the registry of every trainer (``grpo``, ``ppo``, and TRL's
  GRPOTrainer as ``trl``), the ``Trainer`` shape and the ``TrainResult`` they return.

Each algorithm is one file, read top to bottom; run one with ``rewardlab train grpo|ppo|trl``.
Importing this package does not import torch.
"""
