"""The study spec: a TOML file read into frozen dataclasses, every key checked.

Sections (the reference with every key is ``docs/studies.md``)::

    [study]     name, mode ("train", the default, or "rescore": :mod:`rewardlab.study.rescore`), output (default
                results/<name>), seeds (default [0, 1, 2]), baseline
    [env]       id, kwargs (for gym.make; the reference rubric is the env made with these alone)
    [[config]]  name, then any of: preset (+ target_weight, gate_threshold, aggregate), reward_weights,
                gates, aggregate, invalid_penalty, [config.dynamic], [config.milestones],
                [config.shaping], [config.process], [config.trainer] (trainer field overrides)
    [trainer]   kind (a trainer of rewardlab.baselines.trainers: "grpo" | "ppo" | "trl"), model, steps
                and/or minutes, any field of the kind's config (GRPOConfig, PPOConfig, TRLGRPOConfig)
    [eval]      split, num_tasks, temperature (0: greedy), samples, max_new_tokens, max_episode_tokens,
                batch_size

With ``mode = "rescore"`` the spec has ``[study]`` (name, mode, output) and ``[rescore]`` instead
(:class:`RescoreStudySpec`, :func:`parse_rescore_spec`; the study itself is :mod:`rewardlab.study.rescore`).

An unknown key anywhere raises :class:`~rewardlab.errors.ConfigError` naming the key, its section and
the closest allowed key. Checks that need the env (a preset's component, a wrapper's arguments) run
when the runner builds each configuration's training env, before any run starts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardlab.baselines.trainers import TrainerEntry, trainer
from rewardlab.errors import ConfigError, MissingDependencyError, did_you_mean

SET_BY_STUDY: tuple[str, ...] = ("env_id", "env_kwargs", "seed", "output_dir", "max_time_s")
"""Trainer fields the study sets itself (``max_time_s`` comes from ``minutes``)."""

WRAPPER_KEYS: tuple[str, ...] = ("dynamic", "milestones", "shaping", "process")
"""``[config.<key>]`` tables, each the keyword arguments of one wrapper (see :mod:`rewardlab.study.envs`)."""

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class EnvSettings:
    """``[env]``: the env id and its ``gym.make`` kwargs (the reference env of every evaluation)."""

    id: str
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RewardConfig:
    """One ``[[config]]``: how the training reward differs from the reference env's.

    ``reward_weights``, ``gates``, ``invalid_penalty`` and, without a preset, ``aggregate`` are the
    training env's own keyword arguments (its rubric is configured with them). ``preset`` wraps it in
    :class:`~rewardlab.wrappers.ReweightRubric` with ``target_weight``, ``gate_threshold`` and
    ``aggregate``. ``wrappers`` holds the ``[config.<wrapper>]`` tables; ``trainer`` overrides fields of
    ``[trainer]`` for this configuration only.
    """

    name: str
    preset: str | None = None
    target_weight: float | None = None
    gate_threshold: float | None = None
    aggregate: str | None = None
    reward_weights: dict[str, float] | None = None
    gates: list[str] | dict[str, float] | None = None
    invalid_penalty: float | None = None
    wrappers: dict[str, dict[str, Any]] = field(default_factory=dict)
    trainer: dict[str, Any] = field(default_factory=dict)

    def env_kwargs(self, base: Mapping[str, Any]) -> dict[str, Any]:
        """The training env's ``gym.make`` kwargs: ``[env].kwargs`` updated with this config's rubric options."""
        own: dict[str, Any] = {
            "reward_weights": self.reward_weights,
            "gates": self.gates,
            "invalid_penalty": self.invalid_penalty,
        }
        if self.preset is None:
            own["aggregate"] = self.aggregate
        return {**base, **{k: v for k, v in own.items() if v is not None}}

    def reweight(self) -> dict[str, Any] | None:
        """``{"scheme": preset, ...ReweightRubric kwargs}``, or None without a preset."""
        if self.preset is None:
            return None
        options = {
            "aggregate": self.aggregate,
            "target_weight": self.target_weight,
            "gate_threshold": self.gate_threshold,
        }
        return {"scheme": self.preset, **{k: v for k, v in options.items() if v is not None}}


@dataclass(frozen=True)
class TrainerSettings:
    """``[trainer]``: the algorithm, the model, the budget and the trainer's own fields."""

    kind: str = "grpo"
    model: str = "smollm2"
    steps: int | None = None
    minutes: float | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    def config_fields(self, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """The trainer config's fields for one run (without env, seed and output dir).

        The budget: ``steps`` updates, or with ``minutes`` ``max_time_s = 60 * minutes`` and, when
        ``steps`` is not set, no step limit; with both, whichever comes first. ``save_final`` defaults to
        False (the study evaluates the model in memory; set it to keep each run's final model).
        """
        budget: dict[str, Any] = {"steps": self.steps if self.steps is not None else 10**9}
        if self.minutes is not None:
            budget["max_time_s"] = 60.0 * self.minutes
        return {"save_final": False, **self.fields, **overrides, "model": self.model, **budget}


@dataclass(frozen=True)
class EvalSettings:
    """``[eval]``: the held-out evaluation, always on the reference env (``[env]`` alone).

    ``temperature = 0`` is greedy decoding; with ``temperature > 0`` each task is played ``samples``
    times and the run also reports the output variability across samples. ``max_new_tokens`` and
    ``max_episode_tokens`` default to the trainer's.
    """

    split: str = "test"
    num_tasks: int | None = None
    temperature: float = 0.0
    samples: int = 1
    max_new_tokens: int | None = None
    max_episode_tokens: int | None = None
    batch_size: int = 8


@dataclass(frozen=True)
class StudySpec:
    """A whole study: every (configuration, seed) run trains with ``trainer`` and is evaluated with ``eval``."""

    name: str
    output: str
    seeds: tuple[int, ...]
    baseline: str
    env: EnvSettings
    configs: tuple[RewardConfig, ...]
    trainer: TrainerSettings
    eval: EvalSettings

    def config(self, name: str) -> RewardConfig:
        """The configuration called ``name``."""
        for config in self.configs:
            if config.name == name:
                return config
        names = [c.name for c in self.configs]
        raise ConfigError(f"no configuration {name!r} in the study; it has {names}." + did_you_mean(name, names))

    def run_fingerprint(self, config: str, seed: int) -> str:
        """A hash of everything that determines one run's result (not the output dir): a finished run whose
        fingerprint differs from the spec's was made with other settings."""
        settings = {
            "env": dataclasses.asdict(self.env),
            "config": dataclasses.asdict(self.config(config)),
            "trainer": dataclasses.asdict(self.trainer),
            "eval": dataclasses.asdict(self.eval),
            "seed": seed,
        }
        return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------- reading


def _toml_module() -> Any:
    """``tomllib`` (Python 3.11+), or its backport ``tomli`` on Python 3.10."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli
        except ModuleNotFoundError as exc:
            raise MissingDependencyError("reading a study spec on Python 3.10 needs tomli: pip install tomli") from exc
        return tomli


def load_spec(path: str | Path, *, output: str | None = None) -> StudySpec | RescoreStudySpec:
    """Read and check a study spec; ``output`` replaces ``[study].output``."""
    toml = _toml_module()
    try:
        with open(path, "rb") as f:
            data = toml.load(f)
    except OSError as exc:
        raise ConfigError(f"cannot read the study spec {str(path)!r}: {exc}") from exc
    except toml.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    spec = parse_spec(data)
    return dataclasses.replace(spec, output=output) if output is not None else spec


def _check_keys(section: str, table: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(
                f"unknown key {key!r} in {section}; allowed: {sorted(allowed)}." + did_you_mean(key, allowed)
            )


def _table(section: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{section} must be a table, got {value!r}")
    return dict(value)


def _check_type(where: str, value: Any, hint: Any) -> None:
    """Raise ConfigError unless ``value`` (from TOML) fits the type ``hint`` (ints pass as floats)."""
    if not _fits(value, hint):
        raise ConfigError(f"{where} must be {_type_name(hint)}, got {value!r}")


def _type_name(hint: Any) -> str:
    """``int``, ``float or None``, ``'token' or 'sequence'``: a type hint as the error messages show it."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args)
    if hint is type(None):
        return "None"
    return getattr(origin or hint, "__name__", str(hint))


def _fits(value: Any, hint: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if origin is typing.Literal:
        return value in args
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    base = origin or hint
    if base is bool:
        return isinstance(value, bool)
    if base is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if base is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, base) if isinstance(base, type) else True


def _trainer_entry(kind: str) -> TrainerEntry:
    """The registered trainer ``kind`` (ConfigError naming ``[trainer] kind``, the trainers and the closest)."""
    try:
        return trainer(kind)
    except ConfigError as exc:
        raise ConfigError(f"[trainer] kind: {exc}") from None


def trainer_fields(kind: str) -> dict[str, Any]:
    """``{field: type hint}`` of the fields a spec may set for trainer ``kind``."""
    cls = _trainer_entry(kind).config_class()
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init and f.name not in SET_BY_STUDY}


def _check_trainer_fields(section: str, table: Mapping[str, Any], kind: str) -> None:
    fields = trainer_fields(kind)
    for key, value in table.items():
        if key in SET_BY_STUDY:
            hint = " (use minutes)" if key == "max_time_s" else ""
            raise ConfigError(f"{section} cannot set {key!r}: the study sets it{hint}")
        if key not in fields:
            raise ConfigError(f"unknown key {key!r} in {section} for kind {kind!r}." + did_you_mean(key, fields))
        _check_type(f"{section} {key}", value, fields[key])


def _parse_study(data: Mapping[str, Any], mode: str = "train") -> dict[str, Any]:
    study = _table("[study]", data.get("study"))
    study.pop("mode", None)
    _check_keys("[study]", study, ("name", "output", "seeds", "baseline") if mode == "train" else ("name", "output"))
    name = study.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"[study] name must be a name of letters, digits, '_', '.' or '-', got {name!r}")
    seeds = study.get("seeds", [0, 1, 2])
    if not (
        isinstance(seeds, list)
        and seeds
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
        and len(set(seeds)) == len(seeds)
    ):
        raise ConfigError(f"[study] seeds must be a non-empty list of distinct ints >= 0, got {seeds!r}")
    output = study.get("output", f"results/{name}")
    _check_type("[study] output", output, str)
    if mode != "train":
        return {"name": name, "output": output}
    if "baseline" not in study:
        raise ConfigError("[study] needs baseline = '<config name>': the configuration the others are compared to")
    return {"name": name, "output": output, "seeds": tuple(seeds), "baseline": study["baseline"]}


def _parse_env(data: Mapping[str, Any]) -> EnvSettings:
    env = _table("[env]", data.get("env"))
    _check_keys("[env]", env, ("id", "kwargs"))
    if not isinstance(env.get("id"), str) or not env["id"]:
        raise ConfigError(f"[env] id must be an env id such as 'RewardLab/BFCL-v1', got {env.get('id')!r}")
    return EnvSettings(id=env["id"], kwargs=_table("[env] kwargs", env.get("kwargs", {})))


CONFIG_KEYS: dict[str, Any] = {
    "name": str,
    "preset": str,
    "target_weight": float,
    "gate_threshold": float,
    "aggregate": str,
    "reward_weights": dict,
    "gates": list | dict,
    "invalid_penalty": float,
    **dict.fromkeys(WRAPPER_KEYS, dict),
    "trainer": dict,
}


def _parse_config(index: int, entry: Any, trainer: TrainerSettings) -> RewardConfig:
    where = f"[[config]] #{index + 1}"
    entry = _table(where, entry)
    _check_keys(where, entry, list(CONFIG_KEYS))
    name = entry.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"{where} needs a name of letters, digits, '_', '.' or '-', got {name!r}")
    where = f"[[config]] {name!r}"
    for key, value in entry.items():
        _check_type(f"{where} {key}", value, CONFIG_KEYS[key])
    if "preset" not in entry:
        for key in ("target_weight", "gate_threshold"):
            if key in entry:
                raise ConfigError(f"{where}: {key} is an option of a preset; set preset too")
    elif "reward_weights" in entry:
        raise ConfigError(f"{where}: set preset or reward_weights, not both (the preset sets the weights)")
    if "preset" in entry and "dynamic" in entry:
        raise ConfigError(f"{where}: preset and dynamic both replace the outcome reward; use one of them")
    overrides = entry.get("trainer", {})
    shared = [key for key in ("model", "steps") if key in overrides]
    if shared:
        raise ConfigError(f"{where} trainer cannot set {shared[0]!r}: every configuration has the same model and steps")
    _check_trainer_fields(f"{where} trainer", overrides, trainer.kind)
    replacing = [key for key in ("preset", *WRAPPER_KEYS) if key in entry]
    if {**trainer.fields, **overrides}.get("per_component") and replacing:
        raise ConfigError(
            f"{where}: with per_component = true (GDPO) the trainer learns from the components, weighted by the "
            f"training env's own rubric, so {replacing[0]!r} would have no effect; use reward_weights, gates or "
            "aggregate instead"
        )
    return RewardConfig(
        name=name,
        preset=entry.get("preset"),
        target_weight=entry.get("target_weight"),
        gate_threshold=entry.get("gate_threshold"),
        aggregate=entry.get("aggregate"),
        reward_weights=entry.get("reward_weights"),
        gates=entry.get("gates"),
        invalid_penalty=entry.get("invalid_penalty"),
        wrappers={key: dict(entry[key]) for key in WRAPPER_KEYS if key in entry},
        trainer=dict(entry.get("trainer", {})),
    )


def _parse_trainer(data: Mapping[str, Any]) -> TrainerSettings:
    trainer = _table("[trainer]", data.get("trainer", {}))
    kind = trainer.pop("kind", "grpo")
    _check_type("[trainer] kind", kind, str)
    _trainer_entry(kind)
    model = trainer.pop("model", "smollm2")
    _check_type("[trainer] model", model, str)
    steps, minutes = trainer.pop("steps", None), trainer.pop("minutes", None)
    if steps is None and minutes is None:
        raise ConfigError("[trainer] needs a budget per run: steps = N (updates), minutes = M, or both")
    if steps is not None and not (isinstance(steps, int) and not isinstance(steps, bool) and steps > 0):
        raise ConfigError(f"[trainer] steps must be an int > 0, got {steps!r}")
    if minutes is not None:
        _check_type("[trainer] minutes", minutes, float)
        if not minutes > 0:
            raise ConfigError(f"[trainer] minutes must be > 0, got {minutes!r}")
    _check_trainer_fields("[trainer]", trainer, kind)
    return TrainerSettings(kind=kind, model=model, steps=steps, minutes=minutes, fields=trainer)


def _parse_eval(data: Mapping[str, Any]) -> EvalSettings:
    table = _table("[eval]", data.get("eval", {}))
    hints = typing.get_type_hints(EvalSettings)
    _check_keys("[eval]", table, list(hints))
    for key, value in table.items():
        _check_type(f"[eval] {key}", value, hints[key])
    settings = EvalSettings(**table)
    for key in ("num_tasks", "max_new_tokens", "max_episode_tokens"):
        value = getattr(settings, key)
        if value is not None and value < 1:
            raise ConfigError(f"[eval] {key} must be >= 1, got {value!r}")
    if settings.samples < 1 or settings.batch_size < 1:
        raise ConfigError(f"[eval] samples and batch_size must be >= 1, got {settings.samples}, {settings.batch_size}")
    if settings.temperature < 0:
        raise ConfigError(f"[eval] temperature must be >= 0 (0: greedy), got {settings.temperature!r}")
    if settings.samples > 1 and settings.temperature == 0:
        raise ConfigError("[eval] samples > 1 needs temperature > 0: greedy decoding repeats the same output")
    return settings


def study_mode(data: Mapping[str, Any]) -> str:
    """``[study] mode``: ``"train"`` (the default) or ``"rescore"``."""
    mode = _table("[study]", data.get("study")).get("mode", "train")
    if mode not in MODES:
        raise ConfigError(f"[study] mode must be one of {list(MODES)}, got {mode!r}" + did_you_mean(str(mode), MODES))
    return str(mode)


def parse_spec(data: Mapping[str, Any]) -> StudySpec | RescoreStudySpec:
    """Check a spec read from TOML and build the :class:`StudySpec`, or with ``mode = "rescore"`` the
    :class:`~rewardlab.study.rescore.RescoreStudySpec` (ConfigError on any problem)."""
    if study_mode(data) == "rescore":
        return parse_rescore_spec(_parse_study(data, "rescore"), data)
    _check_keys("the study spec", data, ("study", "env", "config", "trainer", "eval"))
    study = _parse_study(data)
    env = _parse_env(data)
    trainer = _parse_trainer(data)
    entries = data.get("config")
    if not isinstance(entries, list) or not entries:
        raise ConfigError("the study spec needs at least one [[config]] table")
    configs = tuple(_parse_config(i, entry, trainer) for i, entry in enumerate(entries))
    names = [c.name for c in configs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"configuration names must be unique; repeated: {duplicates}")
    if study["baseline"] not in names:
        raise ConfigError(
            f"[study] baseline {study['baseline']!r} is not a configuration; they are {names}."
            + did_you_mean(study["baseline"], names)
        )
    return StudySpec(**study, env=env, configs=configs, trainer=trainer, eval=_parse_eval(data))


# ---------------------------------------------------------------------------- the rescore mode

MODES: tuple[str, ...] = ("train", "rescore")
"""``[study] mode``: ``train`` (the default: every configuration trained with every seed) or ``rescore``."""

COMPOSITION_KEYS: dict[str, Any] = {
    "name": str,
    "preset": str,
    "weights": dict,
    "aggregate": str,
    "target_weight": float,
    "gate_threshold": float,
}
GRID_KEYS: tuple[str, ...] = ("levels", "aggregates", "components")
RESCORE_KEYS: tuple[str, ...] = (
    "episodes",
    "compositions",
    "grid",
    "honest",
    "defective",
    "group_by",
    "allow_mixed",
)


@dataclass(frozen=True)
class GridSettings:
    """``[rescore.grid]``: every weighting of ``components`` (default: all of the env's) with each weight in
    ``levels``, under each of ``aggregates`` (:func:`rewardlab.rescore.weight_grid`)."""

    levels: tuple[float, ...]
    aggregates: tuple[str, ...] = ("mean",)
    components: tuple[str, ...] | None = None


@dataclass(frozen=True)
class RescoreStudySpec:
    """A ``mode = "rescore"`` study (:mod:`rewardlab.study.rescore`): ``[study]`` name and output, then ``[rescore]``.

    Attributes:
        episodes: RecordEpisodes JSONL files, paths or globs relative to the working directory.
        compositions: Preset names (``"equal"``, ``"targeted:<c>"``, ``"recorded"``...) or tables ``{name, preset
            or weights, aggregate, target_weight, gate_threshold}``; the first is the reference.
        grid: ``[rescore.grid]``, the weightings added after ``compositions``.
        honest, defective: Labels of honest episodes and of episodes with a known defect (both or neither).
        group_by: The record key that names an agent or checkpoint.
        allow_mixed: Accept records of several reward versions, each reported apart.
    """

    name: str
    output: str
    episodes: tuple[str, ...]
    compositions: tuple[Any, ...]
    grid: GridSettings | None = None
    honest: tuple[str, ...] = ()
    defective: tuple[str, ...] = ()
    group_by: str = "label"
    allow_mixed: bool = False
    mode: str = field(default="rescore", init=False)


def parse_rescore_spec(study: Mapping[str, Any], data: Mapping[str, Any]) -> RescoreStudySpec:
    """The rescore spec from TOML: ``study`` is ``[study]`` already checked (name, output), ``data`` the whole
    file; ConfigError naming the key for anything wrong."""
    _check_keys("the study spec", data, ("study", "rescore"))
    table = _table("[rescore]", data.get("rescore"))
    _check_keys("[rescore]", table, RESCORE_KEYS)
    episodes = table.get("episodes")
    if not (isinstance(episodes, list) and episodes and all(isinstance(e, str) and e for e in episodes)):
        raise ConfigError(f"[rescore] episodes must be a non-empty list of paths or globs, got {episodes!r}")
    compositions = table.get("compositions", [])
    if not isinstance(compositions, list):
        raise ConfigError(f"[rescore] compositions must be a list, got {compositions!r}")
    for index, entry in enumerate(compositions):
        if isinstance(entry, str):
            continue
        where = f"[rescore] compositions #{index + 1}"
        entry = _table(where, entry)
        _check_keys(where, entry, list(COMPOSITION_KEYS))
        for key, value in entry.items():
            _check_type(f"{where} {key}", value, COMPOSITION_KEYS[key])
        if not entry.get("name"):
            raise ConfigError(f"{where} needs a name")
        if ("preset" in entry) == ("weights" in entry):
            raise ConfigError(f"{where} ({entry['name']!r}) needs a preset or weights, one of them")
    grid = None
    if "grid" in table:
        raw = _table("[rescore.grid]", table["grid"])
        _check_keys("[rescore.grid]", raw, GRID_KEYS)
        levels = raw.get("levels")
        _check_type("[rescore.grid] levels", levels, list)
        components = raw.get("components")
        if components is not None:
            _check_type("[rescore.grid] components", components, list)
        grid = GridSettings(
            levels=tuple(levels or ()),
            aggregates=tuple(raw.get("aggregates", ["mean"])),
            components=None if components is None else tuple(components),
        )
    if not compositions and grid is None:
        raise ConfigError("[rescore] needs compositions = [...] or a [rescore.grid], or both")
    labels = {}
    for key in ("honest", "defective"):
        value = table.get(key, [])
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ConfigError(f"[rescore] {key} must be a list of labels, got {value!r}")
        labels[key] = tuple(value)
    if bool(labels["honest"]) != bool(labels["defective"]):
        raise ConfigError("[rescore] honest and defective go together: the defects are judged against the honest mean")
    group_by = table.get("group_by", "label")
    _check_type("[rescore] group_by", group_by, str)
    allow_mixed = table.get("allow_mixed", False)
    _check_type("[rescore] allow_mixed", allow_mixed, bool)
    return RescoreStudySpec(
        name=study["name"],
        output=study["output"],
        episodes=tuple(episodes),
        compositions=tuple(compositions),
        grid=grid,
        honest=labels["honest"],
        defective=labels["defective"],
        group_by=group_by,
        allow_mixed=allow_mixed,
    )
