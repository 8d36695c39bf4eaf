"""Run every (configuration, seed) of a study, locally one after another or in parallel on Ray.

Each run trains with the study's trainer on its configuration's training env
(:func:`rewardlab.study.envs.training_env_id`) and is then evaluated on the reference env
(:mod:`rewardlab.study.evaluation`). The trainer is the spec's ``[trainer] kind``, looked up in
:mod:`rewardlab.baselines.trainers`. A run writes into ``<output>/runs/<config>/seed<k>/`` the files
:mod:`rewardlab.study.layout` lists, ``done.json`` last; after the runs, :func:`run_study` writes the
report (:mod:`rewardlab.study.report`).

Resuming: a run with a ``done.json`` whose fingerprint matches the spec is finished and skipped. A
run without one (killed, or failed) is redone from scratch: its folder is deleted first, since a
partly trained model cannot be continued. A ``done.json`` with another fingerprint was made with
other settings: the study stops with a ConfigError rather than mixing results (use another output).

Reward provenance: every run records in ``done.json`` the ``reward_version`` of the env it trained on and of
the reference env it was evaluated on (``{"train": ..., "eval": ...}``, :mod:`rewardlab.core.provenance`), and
each ``eval.jsonl`` record its episode's. A finished run whose stamps differ from those of the envs the code
and data make now (:func:`current_reward_versions`) was scored under another reward: the study refuses to
resume next to it (ConfigError naming both stamps and the runs) unless ``allow_mixed``, which keeps it as it is
and has the report list it apart (:func:`rewardlab.study.report.summarize`).

On Ray (``runner="ray"``) every run is one task (``ray.remote`` with ``cpus_per_run`` CPUs and
``gpus_per_run`` GPUs), so as many runs go at once as the cluster has room for; the spec and the
files are the same either way. Runs must see the output folder (one node, or a shared filesystem).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym

from rewardlab.baselines.config import TrainerConfig, config_dict
from rewardlab.baselines.trainers import trainer
from rewardlab.errors import ConfigError, require
from rewardlab.study.envs import check_training_env, training_env_id
from rewardlab.study.layout import (
    Run,
    json_ready,
    plan,
    read_done,
    recorded_reward_versions,
    run_of,
    write_json,
)
from rewardlab.study.report import write_report
from rewardlab.study.spec import StudySpec

Status = Literal["done", "todo", "partial", "stale"]


@dataclass
class StudyResult:
    """What :func:`run_study` did: the runs it ran and those it found finished, and the report it wrote."""

    ran: list[Run] = field(default_factory=list)
    skipped: list[Run] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)


def status(spec: StudySpec, run: Run) -> Status:
    """``done`` (finished with these settings), ``stale`` (finished with others), ``partial`` (started,
    unfinished: redone from scratch) or ``todo``."""
    done = read_done(run)
    if done is not None:
        return "done" if done.get("fingerprint") == spec.run_fingerprint(run.config, run.seed) else "stale"
    return "partial" if run.directory.exists() else "todo"


def trainer_config(spec: StudySpec, config: str, seed: int, output_dir: Path) -> TrainerConfig:
    """The trainer config of one run (its checks may raise ConfigError)."""
    cls = trainer(spec.trainer.kind).config_class()
    fields = spec.trainer.config_fields(spec.config(config).trainer)
    env_id = training_env_id(spec, spec.config(config))
    return cls(env_id=env_id, env_kwargs={}, seed=seed, output_dir=str(output_dir), **fields)


def validate(spec: StudySpec) -> None:
    """Build the reference env and each configuration's training env and trainer config once, so that a bad
    split, preset, wrapper argument or trainer value fails before any run starts."""
    from rewardlab.study.evaluation import reference_env

    env = reference_env(spec)
    try:
        if not env.get_wrapper_attr("tasks").ids(spec.eval.split):
            raise ConfigError(f"[eval] split {spec.eval.split!r} of {spec.env.id} has no tasks")
    finally:
        env.close()
    for config in spec.configs:
        check_training_env(spec, config)
        try:
            trainer_config(spec, config.name, spec.seeds[0], Path(spec.output))
        except ConfigError as exc:
            raise ConfigError(f"[[config]] {config.name!r}: trainer: {exc}") from exc


def current_reward_versions(spec: StudySpec, configs: list[str] | None = None) -> dict[str, dict[str, str]]:
    """Per configuration (default: all), ``{"train": ..., "eval": ...}``: the ``reward_version`` of its training
    env and of the reference env, made now as a run makes them."""
    from rewardlab.study.evaluation import reference_env

    reference = reference_env(spec)
    try:
        evaluation = str(reference.get_wrapper_attr("reward_version"))
    finally:
        reference.close()
    versions = {}
    for name in configs if configs is not None else [c.name for c in spec.configs]:
        env = gym.make(training_env_id(spec, spec.config(name)))
        try:
            versions[name] = {"train": str(env.get_wrapper_attr("reward_version")), "eval": evaluation}
        finally:
            env.close()
    return versions


def reward_change(run: Run, current: dict[str, dict[str, str]]) -> str | None:
    """How the reward of a finished ``run`` differs from the envs made now (``current``, by configuration:
    :func:`current_reward_versions`), e.g. ``"train rv-a, eval rv-b; now train rv-a, eval rv-c"``; None when it
    is unchanged or unfinished. A run written before stamps existed recorded ``None``: its reward is unknown, so
    it differs too."""
    done = read_done(run)
    recorded = recorded_reward_versions(done) if done is not None else None
    now = current[run.config]
    if recorded is None or recorded == now:
        return None
    return f"train {recorded['train']}, eval {recorded['eval']}; now train {now['train']}, eval {now['eval']}"


def check_reward_versions(spec: StudySpec, runs: list[Run], current: dict[str, dict[str, str]]) -> None:
    """ConfigError when a finished run of ``runs`` recorded other reward versions than ``current``."""
    changed = [f"{run.label} ({change})" for run in runs if (change := reward_change(run, current)) is not None]
    if changed:
        raise ConfigError(
            f"{spec.output} holds finished runs scored under other reward versions than the envs the code and "
            f"data make now: {'; '.join(changed)}. Their results do not compare with new runs: use another output "
            "folder (--output), delete those runs to redo them, or pass --allow-mixed to keep them and have the "
            "report list them apart"
        )


def run_one(spec: StudySpec, config: str, seed: int) -> dict[str, Any]:
    """Train and evaluate one run from scratch; returns what it wrote to ``done.json``."""
    import rewardlab  # noqa: F401  (registers the env ids, e.g. in a Ray worker)
    from rewardlab.study.evaluation import evaluate_model, summarize_records

    run = run_of(spec, config, seed)
    shutil.rmtree(run.directory, ignore_errors=True)
    run.directory.mkdir(parents=True)
    started = time.perf_counter()
    settings = trainer_config(spec, config, seed, run.directory)
    result = trainer(spec.trainer.kind).train_function()(settings)
    train_s = time.perf_counter() - started
    records = evaluate_model(
        result.model,
        result.tokenizer,
        spec,
        seed=seed,
        max_new_tokens=spec.eval.max_new_tokens or settings.max_new_tokens,
        max_episode_tokens=spec.eval.max_episode_tokens or settings.max_episode_tokens,
    )
    with run.eval_file.open("w") as f:
        f.writelines(json.dumps(json_ready(r)) + "\n" for r in records)
    versions = current_reward_versions(spec, [config])[config]
    evaluated = {str(r["reward_version"]) for r in records if r.get("reward_version")}
    if len(evaluated) == 1:  # the stamp of the reference env the episodes were scored in
        versions["eval"] = evaluated.pop()
    done = {
        "config": config,
        "seed": seed,
        "fingerprint": spec.run_fingerprint(config, seed),
        "reward_version": versions,
        "train_env": settings.env_id,
        "trainer": config_dict(settings),
        "updates": len(result.history),
        "last_update": result.history[-1] if result.history else None,
        "eval": summarize_records(records),
        "train_s": train_s,
        "eval_s": time.perf_counter() - started - train_s,
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }
    write_json(run.done_file, done)
    return done


def run_study(
    spec: StudySpec,
    *,
    runner: Literal["local", "ray"] = "local",
    cpus_per_run: float = 1,
    gpus_per_run: float = 0,
    ray_address: str | None = None,
    log: Callable[[str], None] = print,
    allow_mixed: bool = False,
) -> StudyResult:
    """Run every unfinished run of ``spec`` (see the module docstring), then write the report. ``allow_mixed``
    keeps finished runs scored under other reward versions, reported apart, instead of refusing them."""
    spec = dataclasses.replace(spec, output=str(Path(spec.output).resolve()))
    validate(spec)
    runs = plan(spec)
    states = {run: status(spec, run) for run in runs}
    stale = [run.label for run, state in states.items() if state == "stale"]
    if stale:
        raise ConfigError(
            f"{spec.output} holds runs finished with other settings ({', '.join(stale)}): "
            "use another output folder (--output) or delete those runs"
        )
    if not allow_mixed:
        check_reward_versions(
            spec, [run for run, state in states.items() if state == "done"], current_reward_versions(spec)
        )
    result = StudyResult(skipped=[run for run, state in states.items() if state == "done"])
    todo = [run for run, state in states.items() if state != "done"]
    log(f"study {spec.name}: {len(runs)} runs, {len(result.skipped)} finished, {len(todo)} to run ({runner})")
    if runner == "local":
        for i, run in enumerate(todo, 1):
            log(
                f"[{i}/{len(todo)}] {run.label}"
                + (" (unfinished: redone from scratch)" if states[run] == "partial" else "")
            )
            _log_done(log, run, run_one(spec, run.config, run.seed))
            result.ran.append(run)
    elif runner == "ray":
        result.ran = _run_on_ray(spec, todo, cpus_per_run, gpus_per_run, ray_address, log)
    else:
        raise ConfigError(f"runner must be 'local' or 'ray', got {runner!r}")
    result.report = write_report(spec, allow_mixed=allow_mixed)
    return result


def _log_done(log: Callable[[str], None], run: Run, done: dict[str, Any]) -> None:
    metrics = done["eval"]["metrics"]
    log(
        f"  {run.label}: {done['updates']} updates in {done['train_s']:.0f} s; held-out reward "
        f"{metrics['reward']:.3f}, success {metrics['success']:.2f}"
    )


def _run_on_ray(
    spec: StudySpec,
    todo: list[Run],
    cpus_per_run: float,
    gpus_per_run: float,
    address: str | None,
    log: Callable[[str], None],
) -> list[Run]:
    """One Ray task per run; waits for all of them, then raises the first failure (the rest are kept)."""
    ray = require("ray", "dist")
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False)
    try:
        task = ray.remote(num_cpus=cpus_per_run, num_gpus=gpus_per_run)(run_one)
        pending = {task.remote(spec, run.config, run.seed): run for run in todo}
        ran, failures = [], []
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            run = pending.pop(ready)
            try:
                _log_done(log, run, ray.get(ready))
                ran.append(run)
            except Exception as exc:  # noqa: BLE001 - reported below, after the other runs finish
                log(f"  {run.label} failed: {exc}")
                failures.append(exc)
        if failures:
            raise failures[0]
        return ran
    finally:
        if started_here:
            ray.shutdown()
