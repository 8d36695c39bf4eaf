"""Trainer configs: the fields every trainer shares, the checks on them, and the command line.

A config is a dataclass with a docstring under every field (CleanRL style).
:class:`TrainerConfig` holds the fields every trainer shares (env, model, budget, sampling, LoRA,
SFT warm start, device, seed, outputs), documented and checked once; each registered trainer's config
(:mod:`rewardlab.baselines.trainers`) subclasses it and adds its own. A subclass that redeclares a
field keeps the field's place and overrides its default (and its docstring, when it writes one):
``output_dir`` has none in the base, each trainer sets its own.

Each field becomes one flag, ``--learning-rate`` for ``learning_rate``, typed from its annotation:

- ``bool`` and ``bool | None`` -> ``--lora``/``--no-lora`` (unset stays ``None``);
- ``Literal[...]`` -> a choice among its values;
- ``dict[...]`` -> a JSON object (``--env-kwargs '{"aggregate": "min"}'``);
- ``int``, ``float``, ``str`` (or one of them ``| None``) -> that type.

Its help is the field's docstring and its default. ``env_id`` also answers to ``--env``.
:func:`parse_config` builds a config from ``argv`` (``python -m rewardlab.baselines.grpo``);
``rewardlab train`` builds its sub-commands with :func:`add_config_arguments`.

This module imports neither torch nor the CLI: the CLI imports the baselines, never the reverse.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import textwrap
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rewardlab.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

ConfigT = TypeVar("ConfigT", bound="DataclassInstance")

# ---------------------------------------------------------------------------- checks


def check_positive(config: Any, *names: str) -> None:
    """Raise :class:`ConfigError` unless each named field is a number > 0."""
    for name in names:
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ConfigError(f"{name} must be > 0, got {value!r}")


def check_range(config: Any, name: str, low: float, high: float) -> None:
    """Raise :class:`ConfigError` unless ``low <= field <= high``."""
    value = getattr(config, name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(f"{name} must be in [{low}, {high}], got {value!r}")


def check_count(config: Any, *names: str) -> None:
    """Raise :class:`ConfigError` unless each named field is an int >= 0."""
    for name in names:
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{name} must be an int >= 0, got {value!r}")


def config_dict(config: Any) -> dict[str, Any]:
    """A JSON-ready dict of a config dataclass."""
    return dataclasses.asdict(config)


# ---------------------------------------------------------------------------- the shared fields


@dataclass
class TrainerConfig:
    """The arguments every trainer shares; each trainer's config adds its own."""

    env_id: str
    """Env id to train on, e.g. ``RewardLab/ToolCall-v3``."""
    output_dir: str
    """Where metrics, the training curve and checkpoints go (each trainer's config sets a default)."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments for ``gym.make`` (reward_weights, aggregate, gates, ...)."""
    steps: int = 50
    """Number of updates, the run's budget (``max_time_s`` may end it sooner); each trainer's module says
    what one update is."""
    max_time_s: float | None = None
    """Time budget in seconds (SFT warm start included): stop after an update when one more update of the
    same duration would overrun it."""
    learning_rate: float = 1e-5
    """AdamW learning rate, constant over the run."""
    model: str = "smollm2"
    """``smollm2`` (the bundled SmolLM2-135M-Instruct), an HF model id or a local folder."""
    max_new_tokens: int = 128
    """Most tokens the model may generate per action."""
    max_episode_tokens: int = 2048
    """Most tokens per episode (prompt, actions and observations)."""
    temperature: float = 1.0
    """Sampling temperature for rollouts (log-probs are taken at this temperature too)."""
    top_p: float = 1.0
    """Nucleus sampling threshold for rollouts."""
    max_grad_norm: float = 1.0
    """Gradient clipping threshold."""
    lora: bool = False
    """Train a LoRA adapter (peft) instead of all weights; the reference is the adapter-free model."""
    lora_rank: int = 16
    """LoRA rank."""
    lora_alpha: float = 32.0
    """LoRA scaling numerator."""
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass to save memory."""
    sft_steps: int = 0
    """SFT warm-start steps on OracleAgent demonstrations before RL (0: none)."""
    sft_learning_rate: float = 5e-5
    """Learning rate of the SFT warm start."""
    bf16: bool | None = None
    """Train in bfloat16; default: on CUDA yes, on CPU no."""
    device: str = "auto"
    """``auto``, ``cpu``, ``cuda`` or ``cuda:N``."""
    seed: int = 0
    """Seed of torch, the task sampler and the envs."""
    save_every: int = 0
    """Save a checkpoint every N updates (0: only at the end)."""
    save_final: bool = True
    """Save the final model (or adapter; PPO: and its value head) in ``<output_dir>/final``."""

    def __post_init__(self) -> None:
        if not isinstance(self.env_id, str) or not self.env_id:
            raise ConfigError(f"env_id must be an env id such as 'RewardLab/BPMN-v2', got {self.env_id!r}")
        check_positive(self, "steps", "learning_rate")
        if self.max_time_s is not None:
            check_positive(self, "max_time_s")
        check_positive(self, "max_new_tokens", "max_episode_tokens", "max_grad_norm")
        check_positive(self, "lora_rank", "lora_alpha", "sft_learning_rate")
        check_range(self, "temperature", 1e-3, 10.0)
        check_range(self, "top_p", 0.0, 1.0)
        if self.max_new_tokens >= self.max_episode_tokens:
            raise ConfigError(
                f"max_new_tokens={self.max_new_tokens} must be below max_episode_tokens={self.max_episode_tokens}"
            )
        check_count(self, "save_every", "sft_steps")


# ---------------------------------------------------------------------------- the command line


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass (what the CLI shows as help).

    Base classes are read first, so a subclass that redeclares a field also overrides its docstring.
    """
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        first = tree.body[0] if tree.body else None
        body = first.body if isinstance(first, ast.ClassDef) else []
        for node, following in zip(body, body[1:], strict=False):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[node.target.id] = inspect.cleandoc(following.value.value)
    return docs


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def add_config_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """One flag per dataclass field, typed from its annotation, documented by its docstring."""
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        hint = hints[f.name]
        args = typing.get_args(hint)
        flags = [f"--{f.name.replace('_', '-')}"] + (["--env"] if f.name == "env_id" else [])
        kwargs: dict[str, Any] = {"dest": f.name, "help": docs.get(f.name, "")}
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kwargs["required"] = True
        elif f.default is not dataclasses.MISSING:
            kwargs["default"] = f.default
            kwargs["help"] += f" (default: {f.default})"
        if hint is bool or (bool in args and type(None) in args):
            kwargs["action"] = argparse.BooleanOptionalAction
        elif typing.get_origin(hint) is typing.Literal:
            kwargs["choices"] = list(args)
        elif typing.get_origin(hint) is dict:
            kwargs["type"] = _json_object
            kwargs["default"] = {}
        else:
            base = next((a for a in args if a is not type(None)), hint) if args else hint
            kwargs["type"] = base if base in (int, float, str) else str
        parser.add_argument(*flags, **kwargs)


def config_from_arguments(cls: type[ConfigT], args: argparse.Namespace) -> ConfigT:
    """Build ``cls`` from the flags :func:`add_config_arguments` added (its checks may raise ConfigError)."""
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.init})


def parse_config(cls: type[ConfigT], argv: list[str] | None = None) -> ConfigT:
    """Parse ``argv`` into ``cls`` (used by ``python -m rewardlab.baselines.grpo``)."""
    parser = argparse.ArgumentParser(description=cls.__doc__)
    add_config_arguments(parser, cls)
    return config_from_arguments(cls, parser.parse_args(argv))
