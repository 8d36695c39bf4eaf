"""``rewardlab train grpo|ppo --env ID --model ... --steps ...``: train a baseline with a progress bar.

Every field of :class:`~rewardlab.baselines.grpo.GRPOConfig` / :class:`~rewardlab.baselines.ppo.PPOConfig`
is a flag (``--learning-rate``, ``--lora``/``--no-lora`` ...), its help the field's docstring;
``--env`` is short for ``--env-id`` and ``--env-kwargs`` takes JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import typing
from typing import Any

HELP = "Train a GRPO or PPO baseline on an env (logs, training curve and checkpoints in --output-dir)."

ALGORITHMS = {"grpo": "rewardlab.baselines.grpo:GRPOConfig", "ppo": "rewardlab.baselines.ppo:PPOConfig"}


def _config_class(algorithm: str) -> type:
    import importlib

    module, name = ALGORITHMS[algorithm].split(":")
    return getattr(importlib.import_module(module), name)


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
    from rewardlab.baselines.common import field_docs

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    algorithms = parser.add_subparsers(dest="algorithm", required=True, metavar="ALGORITHM")
    for name in ALGORITHMS:
        cls = _config_class(name)
        sub = algorithms.add_parser(name, help=f"{name.upper()} ({cls.__name__})", description=cls.__doc__)
        add_config_arguments(sub, cls)


def parse_config(cls: type, argv: list[str] | None = None) -> Any:
    """Parse ``argv`` into ``cls`` (used by ``python -m rewardlab.baselines.grpo``)."""
    parser = argparse.ArgumentParser(description=cls.__doc__)
    add_config_arguments(parser, cls)
    args = parser.parse_args(argv)
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.init})


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    import rewardlab  # noqa: F401  (registers the env ids)
    from rewardlab.errors import RewardLabError

    cls = _config_class(args.algorithm)
    try:
        config = cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.init})
    except RewardLabError as exc:
        print(f"error: {exc}")
        return 2
    if args.algorithm == "grpo":
        from rewardlab.baselines.grpo import train
    else:
        from rewardlab.baselines.ppo import train
    bar = tqdm(total=config.steps, desc=f"{args.algorithm} on {config.env_id}", unit="update")

    def on_update(row: dict[str, float]) -> None:
        bar.update(1)
        bar.set_postfix(reward=f"{row['rewards/mean']:.3f}", success=f"{row['charts/success_rate']:.2f}")

    try:
        result = train(config, on_update=on_update)
    finally:
        bar.close()
    last = result.history[-1]
    print(f"final batch reward {last['rewards/mean']:.3f}; logs, curve and model in {result.output_dir}")
    return 0
