"""Every trainer, in one registry: its name, its config class and its train function, loaded on demand.

``rewardlab train NAME``, a study's ``[trainer] kind = "NAME"`` and anything else that trains by name
look trainers up here (:func:`trainer`), never in a table of their own.

======== ============================================ ==================================================
name     config                                       train
======== ============================================ ==================================================
grpo     :class:`rewardlab.baselines.grpo.GRPOConfig`  GRPO / GSPO / GDPO, CleanRL style, multi-turn
ppo      :class:`rewardlab.baselines.ppo.PPOConfig`    PPO with a value head and GAE
trl      ``rewardlab.integrations.trl_train``          TRL's ``GRPOTrainer``, single-turn envs
======== ============================================ ==================================================

A trainer is a config class extending :class:`~rewardlab.baselines.config.TrainerConfig` and a function
of the :class:`Trainer` shape, ``train(config, *, on_update=None) -> TrainResult``, that calls
``on_update`` with each update's metrics row (the row it writes to ``metrics.jsonl``).

Entries name their config class and train function as ``"module:attribute"`` strings, imported when
first asked for, for two reasons: importing this registry imports no torch, transformers or TRL (the
command line lists the trainers without them), and the TRL trainer lives in
:mod:`rewardlab.integrations`, a layer above the baselines that no baseline module may import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from rewardlab.baselines.config import TrainerConfig
from rewardlab.errors import ConfigError, did_you_mean

ConfigT_contra = TypeVar("ConfigT_contra", bound=TrainerConfig, contravariant=True)

OnUpdate = Callable[[dict[str, float]], None]
"""Called with each update's metrics row (``rewards/mean``, ``losses/policy`` ...), e.g. a progress bar."""


@dataclass
class TrainResult:
    """What every trainer returns."""

    model: Any
    """The trained policy (with LoRA, the peft model holding the adapter)."""
    tokenizer: Any
    """The policy's tokenizer."""
    history: list[dict[str, float]]
    """One metrics row per update, as written to ``<output_dir>/metrics.jsonl``."""
    output_dir: Path
    """Where the metrics, the training curve and the checkpoints went."""
    value_head: Any = None
    """PPO's value head; None for trainers without one."""


class Trainer(Protocol[ConfigT_contra]):
    """A train function: runs a training as configured, calling ``on_update`` with each metrics row."""

    def __call__(self, config: ConfigT_contra, *, on_update: OnUpdate | None = None) -> TrainResult: ...


def _load(path: str) -> Any:
    """The attribute named by ``"module:attribute"``, its module imported."""
    module, attribute = path.split(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class TrainerEntry:
    """One registered trainer: its name, a one-line summary and where its config and train function live."""

    name: str
    """What ``rewardlab train`` and a study's ``[trainer] kind`` call it."""
    summary: str
    """One line for ``rewardlab train --help``."""
    config: str
    """``"module:attribute"`` of its config class, a :class:`TrainerConfig`."""
    train: str
    """``"module:attribute"`` of its :class:`Trainer` function."""

    def config_class(self) -> type[TrainerConfig]:
        """The config class (its module imported; no torch)."""
        cls: type[TrainerConfig] = _load(self.config)
        return cls

    def train_function(self) -> Trainer[Any]:
        """The train function (its module imported; torch only when it runs)."""
        train: Trainer[Any] = _load(self.train)
        return train


REGISTRY: dict[str, TrainerEntry] = {
    entry.name: entry
    for entry in (
        TrainerEntry(
            "grpo",
            "GRPO with group-normalised advantages, CleanRL style (GRPOConfig)",
            "rewardlab.baselines.grpo:GRPOConfig",
            "rewardlab.baselines.grpo:train",
        ),
        TrainerEntry(
            "ppo",
            "PPO with a value head and GAE (PPOConfig)",
            "rewardlab.baselines.ppo:PPOConfig",
            "rewardlab.baselines.ppo:train",
        ),
        TrainerEntry(
            "trl",
            "TRL's GRPOTrainer, single-turn envs (TRLGRPOConfig)",
            "rewardlab.integrations.trl_train:TRLGRPOConfig",
            "rewardlab.integrations.trl_train:train",
        ),
    )
}
"""Trainer name -> its entry, in the order ``rewardlab train --help`` lists them."""


def trainer(name: str) -> TrainerEntry:
    """The entry of trainer ``name`` (ConfigError naming the trainers, and the closest, for an unknown one)."""
    if name not in REGISTRY:
        raise ConfigError(
            f"unknown trainer {name!r}; the trainers are {list(REGISTRY)}." + did_you_mean(name, REGISTRY)
        )
    return REGISTRY[name]
