"""Trainer configs: the checks they run on their fields, and the command line generated from them.

A config is a dataclass with a docstring under every field (CleanRL style). Each field becomes
one flag, ``--learning-rate`` for ``learning_rate``, typed from its annotation:

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


def config_dict(config: Any) -> dict[str, Any]:
    """A JSON-ready dict of a config dataclass."""
    return dataclasses.asdict(config)


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
