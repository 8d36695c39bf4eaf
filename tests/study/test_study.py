"""``rewardlab study``: the spec's checks, the training envs, the runner (local and Ray), resuming and the report.

The studies run the tiny random model (tests/agents/tiny.py) for one GRPO update per run on
BFCL-v1's simple_python tasks, so they test the mechanics, not learning.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import shutil
import statistics
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.cli import main
from rewardlab.errors import ConfigError
from rewardlab.study import load_spec, parse_spec, run_study, status, validate
from rewardlab.study.envs import WRAPPERS, training_env_id
from rewardlab.study.evaluation import reference_env, summarize_records
from rewardlab.study.layout import plan, write_json
from rewardlab.study.report import summarize
from rewardlab.study.runner import current_reward_versions, trainer_config
from rewardlab.study.spec import WRAPPER_KEYS, EvalSettings
from rewardlab.study.stats import paired_bootstrap, t_interval
from rewardlab.wrappers import MilestoneReward, PotentialShaping, ProcessReward, ReweightRubric

ENV = "RewardLab/BFCL-v1"
COMPONENTS = ("format", "count", "function", "parameters", "types", "values")
NO_SUCH_FUNCTION = '{"name": "nope", "arguments": {}}'
"""A BFCL answer that earns only ``count`` (one call): 1/6 under equal weights."""
PNG = b"\x89PNG\r\n\x1a\n"

SPEC = """
[study]
name = "tiny"
seeds = [0, 1]
baseline = "equal"

[env]
id = "RewardLab/BFCL-v1"
kwargs = {{ categories = ["simple_python"] }}

[[config]]
name = "equal"
preset = "equal"

[[config]]
name = "count_only"
preset = "targeted:count"
target_weight = 1.0

[trainer]
kind = "grpo"
model = "{model}"
steps = 1
tasks_per_step = 1
group_size = 2
max_new_tokens = 2

[eval]
num_tasks = 2
"""


def short_judge(history, action, observation) -> float:
    """A step scorer for ``[config.process]`` (imported as ``tests.study.test_study:short_judge``)."""
    return 1.0 if len(action) < 80 else 0.0


def base_spec(model: str = "smollm2") -> dict:
    """The spec of :data:`SPEC` as the dict a TOML reader returns."""
    return {
        "study": {"name": "tiny", "seeds": [0, 1], "baseline": "equal"},
        "env": {"id": ENV, "kwargs": {"categories": ["simple_python"]}},
        "config": [
            {"name": "equal", "preset": "equal"},
            {"name": "count_only", "preset": "targeted:count", "target_weight": 1.0},
        ],
        "trainer": {"kind": "grpo", "model": model, "steps": 1, "tasks_per_step": 1, "group_size": 2},
        "eval": {"num_tasks": 2},
    }


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory) -> Path:
    from tests.agents.tiny import save_tiny_model

    return save_tiny_model(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture(scope="module")
def study(tmp_path_factory, tiny_model_dir):
    """The two-configuration, two-seed study, run once: ``(spec path, output folder, StudyResult)``."""
    root = tmp_path_factory.mktemp("study")
    path = root / "tiny.toml"
    path.write_text(SPEC.format(model=tiny_model_dir))
    output = root / "out"
    result = run_study(load_spec(path, output=str(output)), log=lambda line: None)
    return path, output, result


# ------------------------------------------------------------------------------ the report
def test_every_run_ran_and_wrote_its_files(study):
    _, output, result = study
    assert sorted(run.label for run in result.ran) == [
        "count_only/seed0",
        "count_only/seed1",
        "equal/seed0",
        "equal/seed1",
    ]
    assert result.skipped == []
    for config in ("equal", "count_only"):
        for seed in (0, 1):
            directory = output / "runs" / config / f"seed{seed}"
            (row,) = [json.loads(line) for line in (directory / "metrics.jsonl").read_text().splitlines()]
            assert all(f"rewards/{name}/mean" in row for name in COMPONENTS)  # the curve has every component
            assert (directory / "metrics.csv").is_file()
            assert (directory / "training_curve.png").read_bytes()[:8] == PNG
            assert len((directory / "eval.jsonl").read_text().splitlines()) == 2  # num_tasks, one sample each
            done = json.loads((directory / "done.json").read_text())
            assert (done["config"], done["seed"], done["updates"]) == (config, seed, 1)
            assert not (directory / "final").exists()  # save_final defaults to False in a study


def test_the_summary_table_has_both_configs_both_seeds_cis_and_the_paired_difference(study):
    _, output, _ = study
    summary = json.loads((output / "summary.json").read_text())
    assert summary["baseline"] == "equal" and summary["missing"] == []
    assert summary["metrics"] == ["reward", "success", *(f"component/{name}" for name in COMPONENTS)]
    for config in ("equal", "count_only"):
        entry = summary["configs"][config]
        assert entry["seeds"] == [0, 1] and entry["episodes"] == 4
        reward = entry["metrics"]["reward"]
        assert reward["n"] == 2 and len(reward["values"]) == 2
        assert reward["low"] <= reward["mean"] <= reward["high"]
        assert sorted(summary["runs"][config]) == ["0", "1"]
    assert list(summary["paired"]) == ["count_only"]
    pair = summary["paired"]["count_only"]
    assert pair["seeds"] == [0, 1] and pair["metrics"]["reward"]["n"] == 2
    assert summary["bootstrap"]["resamples"] == 10_000

    markdown = (output / "summary.md").read_text()
    header = "| config | seeds | reward | success | " + " | ".join(COMPONENTS) + " | episodes |"
    assert header in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| equal (baseline) | 2 |")]
    assert len(rows) == 1 and rows[0].count(" ± ") == 2 + len(COMPONENTS)
    assert any(line.startswith("| count_only | 2 |") and " ± " in line for line in markdown.splitlines())
    assert "## Paired differences against equal" in markdown
    assert any(line.startswith("| count_only − equal | 2 | ") and "[" in line for line in markdown.splitlines())
    for config in ("equal", "count_only"):
        for seed in (0, 1):
            assert f"| {config} | {seed} | 1 |" in markdown  # the runs table

    page = (output / "summary.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "count_only" in page and "Paired differences" in page
    assert (output / "plots" / "RewardLab_BFCL-v1.png").read_bytes()[:8] == PNG


def test_the_evaluation_uses_the_reference_rubric_whatever_the_training_weights(study):
    """count_only trains with every weight on ``count``; its held-out episodes are scored by the equal-weight
    rubric of the env made with [env] alone, and report every component."""
    path, output, _ = study
    for line in (output / "runs" / "count_only" / "seed0" / "eval.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert list(record["components"]) == list(COMPONENTS)
        assert {name: record["logs"][f"weight/{name}"] for name in COMPONENTS} == pytest.approx(
            dict.fromkeys(COMPONENTS, 1 / 6)
        )
    done = json.loads((output / "runs" / "count_only" / "seed0" / "done.json").read_text())
    train_env = gym.make(done["train_env"])
    spec = load_spec(path)
    evaluation_env = reference_env(spec)
    try:
        assert train_env.get_wrapper_attr("weights") == {name: float(name == "count") for name in COMPONENTS}
        rewards = []
        for env in (train_env, evaluation_env):
            env.reset(options={"task_id": "simple_python_0"})
            rewards.append(env.step(NO_SUCH_FUNCTION)[1])
        assert rewards == pytest.approx([1.0, 1 / 6])
    finally:
        train_env.close()
        evaluation_env.close()


# ------------------------------------------------------------------------------ resuming
def test_a_rerun_redoes_only_the_unfinished_run_from_scratch(study, tmp_path):
    path, output, _ = study
    copy_dir = tmp_path / "out"
    shutil.copytree(output, copy_dir)
    spec = load_spec(path, output=str(copy_dir))
    unfinished = copy_dir / "runs" / "count_only" / "seed1"
    (unfinished / "done.json").unlink()  # as if killed before the end
    (unfinished / "left-over.txt").write_text("from the killed run")
    before = {run.label: (run.directory / "done.json").stat().st_mtime_ns for run in plan(spec) if run.seed == 0}
    assert [status(spec, run) for run in plan(spec)] == ["done", "done", "done", "partial"]

    result = run_study(spec, log=lambda line: None)

    assert [run.label for run in result.ran] == ["count_only/seed1"]
    assert len(result.skipped) == 3
    assert not (unfinished / "left-over.txt").exists() and (unfinished / "done.json").is_file()
    after = {run.label: (run.directory / "done.json").stat().st_mtime_ns for run in plan(spec) if run.seed == 0}
    assert after == before
    assert json.loads((copy_dir / "summary.json").read_text())["configs"]["count_only"]["seeds"] == [0, 1]
    assert run_study(spec, log=lambda line: None).ran == []  # all finished: only the report is rewritten


def test_finished_runs_made_with_other_settings_stop_the_study(study, tmp_path):
    path, output, _ = study
    copy_dir = tmp_path / "out"
    shutil.copytree(output, copy_dir)
    changed = tmp_path / "changed.toml"
    changed.write_text(path.read_text().replace("num_tasks = 2", "num_tasks = 3"))
    spec = load_spec(changed, output=str(copy_dir))
    assert {status(spec, run) for run in plan(spec)} == {"stale"}
    with pytest.raises(ConfigError, match="finished with other settings"):
        run_study(spec, log=lambda line: None)


# ------------------------------------------------------------------------------ reward provenance
def test_every_run_records_the_reward_versions_it_trained_and_was_evaluated_under(study):
    path, output, _ = study
    current = current_reward_versions(load_spec(path))
    assert current["equal"]["eval"] == current["count_only"]["eval"]  # one reference env
    assert current["equal"]["train"] != current["count_only"]["train"]  # other weights, another reward
    for config in ("equal", "count_only"):
        for seed in (0, 1):
            directory = output / "runs" / config / f"seed{seed}"
            assert json.loads((directory / "done.json").read_text())["reward_version"] == current[config]
            records = [json.loads(line) for line in (directory / "eval.jsonl").read_text().splitlines()]
            assert {r["reward_version"] for r in records} == {current[config]["eval"]}
    summary = json.loads((output / "summary.json").read_text())
    assert summary["reward_versions"]["eval"] == current["equal"]["eval"]
    assert summary["reward_versions"]["train"] == {c: current[c]["train"] for c in current}
    assert summary["reward_versions"]["apart"] == {}


def restamp(output: Path, config: str, seed: int, **versions: str) -> None:
    """Rewrite a finished run's recorded reward versions, as if its reward had been another."""
    done_file = output / "runs" / config / f"seed{seed}" / "done.json"
    done = json.loads(done_file.read_text())
    done["reward_version"] = {**done["reward_version"], **versions}
    write_json(done_file, done)


OTHER = "rv-000000000000"


def test_a_finished_run_under_another_reward_version_is_not_resumed_unless_mixing_is_allowed(study, tmp_path, capsys):
    path, output, _ = study
    copy_dir = tmp_path / "out"
    shutil.copytree(output, copy_dir)
    restamp(copy_dir, "count_only", 1, train=OTHER)
    spec = load_spec(path, output=str(copy_dir))
    current = current_reward_versions(spec)["count_only"]["train"]
    with pytest.raises(ConfigError, match="other reward versions") as refused:
        run_study(spec, log=lambda line: None)
    assert all(part in str(refused.value) for part in ("count_only/seed1", OTHER, current, "--output", "--allow-mixed"))
    capsys.readouterr()
    assert main(["study", str(path), "--output", str(copy_dir)]) == 2
    assert "count_only/seed1" in capsys.readouterr().out
    assert main(["study", str(path), "--output", str(copy_dir), "--dry-run"]) == 0
    changed = [line for line in capsys.readouterr().out.splitlines() if "under another reward" in line]
    assert len(changed) == 1 and "count_only/seed1" in changed[0] and OTHER in changed[0] and current in changed[0]

    result = run_study(spec, log=lambda line: None, allow_mixed=True)
    assert result.ran == [] and len(result.skipped) == 4  # kept as it is, not redone
    apart = f"count_only [train {OTHER}, eval {current_reward_versions(spec)['equal']['eval']}]"
    summary = json.loads((copy_dir / "summary.json").read_text())
    assert summary["configs"]["count_only"]["seeds"] == [0] and summary["configs"][apart]["seeds"] == [1]
    assert list(summary["paired"]) == ["count_only"] and summary["reward_versions"]["apart"][apart]["train"] == OTHER
    assert f"Listed apart (--allow-mixed): {apart}" in (copy_dir / "summary.md").read_text()
    assert main(["study", str(path), "--output", str(copy_dir), "--allow-mixed"]) == 0


def test_the_report_refuses_to_summarise_runs_scored_under_different_reward_versions(study, tmp_path):
    path, output, _ = study
    copy_dir = tmp_path / "out"
    shutil.copytree(output, copy_dir)
    restamp(copy_dir, "equal", 0, eval=OTHER)
    spec = load_spec(path, output=str(copy_dir))
    reference = current_reward_versions(spec)["equal"]["eval"]
    with pytest.raises(ConfigError, match="different reward versions") as refused:
        summarize(spec)
    message = str(refused.value)
    assert OTHER in message and reference in message and "seeds [0]" in message and "--allow-mixed" in message
    summary = summarize(spec, allow_mixed=True)
    assert summary["reward_versions"]["eval"] == reference
    (apart,) = summary["reward_versions"]["apart"]
    assert apart.startswith("equal [train ") and apart.endswith(f"eval {OTHER}]")
    assert summary["configs"]["equal"]["seeds"] == [1] and summary["configs"][apart]["seeds"] == [0]
    assert summary["paired"]["count_only"]["seeds"] == [1]  # paired only with the baseline's runs under its stamp


def test_dry_run_prints_the_runs_and_their_state(study, capsys):
    path, output, _ = study
    assert main(["study", str(path), "--output", str(output), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "study tiny: 4 runs" in out
    assert all(f"{label}" in out for label in ("equal/seed0", "equal/seed1", "count_only/seed0", "count_only/seed1"))
    assert out.count(" done") == 4


# ------------------------------------------------------------------------------ Ray
@pytest.mark.slow
@pytest.mark.serial  # a local Ray instance of its own
def test_the_ray_runner_runs_the_same_spec_in_parallel_with_sampled_evaluation(tmp_path, tiny_model_dir):
    ray = pytest.importorskip("ray")
    data = base_spec(str(tiny_model_dir))
    data["config"] = data["config"][:1]
    data["trainer"]["max_new_tokens"] = 2
    data["eval"] = {"num_tasks": 2, "temperature": 1.0, "samples": 2}
    spec = dataclasses.replace(parse_spec(data), output=str(tmp_path / "out"))
    ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        result = run_study(spec, runner="ray", log=lambda line: None)
    finally:
        ray.shutdown()
    assert sorted(run.label for run in result.ran) == ["equal/seed0", "equal/seed1"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["configs"]["equal"]["seeds"] == [0, 1]
    assert summary["configs"]["equal"]["episodes"] == 8  # 2 seeds x 2 tasks x 2 samples
    variability = summary["configs"]["equal"]["metrics"]["variability/distinct_fraction"]
    assert all(0.5 <= value <= 1.0 for value in variability["values"])
    assert "## Output variability across samples" in (tmp_path / "out" / "summary.md").read_text()


# ------------------------------------------------------------------------------ the spec
def mutated(change) -> dict:
    data = copy.deepcopy(base_spec())
    change(data)
    return data


SPEC_ERRORS = [
    (lambda d: d.update(studdy={}), r"unknown key 'studdy' in the study spec.*Did you mean 'study'"),
    (lambda d: d["study"].update(seed=[0]), r"unknown key 'seed' in \[study\].*Did you mean 'seeds'"),
    (lambda d: d["study"].update(seeds=[]), r"seeds must be a non-empty list"),
    (lambda d: d["study"].update(baseline="equals"), r"baseline 'equals' is not a configuration.*'equal'"),
    (lambda d: d["env"].update(kwarg={}), r"unknown key 'kwarg' in \[env\].*Did you mean 'kwargs'"),
    (lambda d: d["config"][0].update(presets="min"), r"unknown key 'presets'.*Did you mean 'preset'"),
    (lambda d: d["config"][1].update(name="equal"), r"unique; repeated: \['equal'\]"),
    (lambda d: d["config"][1].update(reward_weights={"count": 1}), r"preset or reward_weights, not both"),
    (lambda d: d["config"][0].pop("preset") and d["config"][0].update(target_weight=0.5), r"option of a preset"),
    (lambda d: d["config"][0].update(trainer={"steps": 5}), r"cannot set 'steps'"),
    (lambda d: d["config"][0].update(trainer={"per_componet": True}), r"'per_componet'.*Did you mean 'per_component'"),
    (lambda d: d["config"][1].update(trainer={"per_component": True}), r"'preset' would have no effect"),
    (lambda d: d["trainer"].update(learning_rat=1e-5), r"'learning_rat' in \[trainer\].*Did you mean 'learning_rate'"),
    (lambda d: d["trainer"].update(group_size="4"), r"\[trainer\] group_size must be int"),
    (lambda d: d["trainer"].update(seed=3), r"cannot set 'seed': the study sets it"),
    (lambda d: d["trainer"].update(kind="trl", per_component=True), r"'per_component' in \[trainer\] for kind 'trl'"),
    (lambda d: d["trainer"].update(kind="ppo"), r"'tasks_per_step' in \[trainer\] for kind 'ppo'.*'episodes_per_step'"),
    (lambda d: d["trainer"].pop("steps"), r"needs a budget per run"),
    (lambda d: d["eval"].update(samples=4), r"samples > 1 needs temperature > 0"),
    (lambda d: d["eval"].update(split_="test"), r"unknown key 'split_' in \[eval\].*Did you mean 'split'"),
]


@pytest.mark.parametrize(("change", "message"), SPEC_ERRORS)
def test_spec_errors_name_the_key_and_the_closest_match(change, message):
    with pytest.raises(ConfigError, match=message):
        parse_spec(mutated(change))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["config"][1].update(preset="targeted:cont"), r"'count_only'.*unknown reward component 'cont'"),
        (lambda d: d["config"][0].update(shaping={"gama": 1.0}), r"'gama' in \[config.shaping\].*'gamma'"),
        (lambda d: d["config"][0].update(process={"scorer": "tests.study:nothing"}), r"cannot import"),
        (lambda d: d["trainer"].update(group_size=1), r"trainer: group_size must be >= 2"),
        (lambda d: d["env"]["kwargs"].update(categories=["no_such"]), r"unknown BFCL category 'no_such'"),
        (lambda d: d["eval"].update(split="tests"), r"split must be one of.*Did you mean 'test'"),
    ],
)
def test_what_needs_the_env_is_checked_before_any_run(change, message):
    spec = parse_spec(mutated(change))
    with pytest.raises(ConfigError, match=message):
        validate(spec)


def test_a_toml_error_is_a_config_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[study\nname = 1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_spec(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_spec(tmp_path / "missing.toml")


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12))
def test_any_unknown_eval_key_is_refused_by_name(key):
    if key in EvalSettings.__dataclass_fields__:
        return
    with pytest.raises(ConfigError, match=f"unknown key '{key}' in \\[eval\\]"):
        parse_spec(mutated(lambda d: d["eval"].update({key: 1})))


@pytest.mark.parametrize("name", ["bfcl_weighting.toml", "bfcl_weighting_small.toml"])
def test_the_example_specs_are_valid(name):
    spec = load_spec(Path(__file__).resolve().parents[2] / "examples" / "studies" / name)
    validate(spec)
    assert spec.baseline in [c.name for c in spec.configs] and len(plan(spec)) == len(spec.configs) * len(spec.seeds)


# ------------------------------------------------------------------------------ the training envs
def test_a_configuration_stacks_its_wrappers_in_order_and_its_options_reach_the_trainer():
    data = base_spec()
    data["config"].append(
        {
            "name": "dense",
            "reward_weights": {"values": 3.0},
            "milestones": {"per_milestone": 0.1, "budget": 0.2, "gate": "success"},
            "shaping": {"gamma": 1.0, "scale": 0.5},
            "process": {"scorer": "tests.study.test_study:short_judge", "weight": 0.2},
            "trainer": {"beta": 0.0},
        }
    )
    data["config"].append({"name": "dynamic", "dynamic": {"window": 8, "floor": 0.1}})
    data["config"].append({"name": "gdpo", "reward_weights": {"values": 2.0}, "trainer": {"per_component": True}})
    spec = parse_spec(data)
    validate(spec)
    env = gym.make(training_env_id(spec, spec.config("dynamic")))
    assert (env.get_wrapper_attr("window"), env.get_wrapper_attr("floor")) == (8, 0.1)
    env.close()
    env = gym.make(training_env_id(spec, spec.config("dense")))
    try:
        stack, layer = [], env
        while isinstance(layer, gym.Wrapper):
            stack.append(type(layer))
            layer = layer.env
        ours = [cls for cls in stack if cls in (ReweightRubric, MilestoneReward, PotentialShaping, ProcessReward)]
        assert ours == [ProcessReward, PotentialShaping, MilestoneReward]  # outermost first
        assert env.unwrapped.rubric.weights["values"] == 3.0  # reward_weights configure the env's own rubric
        assert env.get_wrapper_attr("scorer") is short_judge
    finally:
        env.close()
    assert tuple(WRAPPERS) == WRAPPER_KEYS
    config = trainer_config(spec, "dense", 1, Path("unused"))
    assert (config.beta, config.seed, config.steps, config.save_final) == (0.0, 1, 1, False)
    assert trainer_config(spec, "gdpo", 0, Path("unused")).per_component
    assert not trainer_config(spec, "equal", 0, Path("unused")).per_component
    assert trainer_config(spec, "equal", 0, Path("unused")).beta == 0.04  # GRPOConfig's default
    minutes = parse_spec(mutated(lambda d: d["trainer"].update(minutes=2.5)))
    assert trainer_config(minutes, "equal", 0, Path("unused")).max_time_s == 150.0


@pytest.mark.parametrize("kind", ["ppo", "trl"])
def test_every_trainer_kind_takes_a_time_budget(kind):
    def change(d):
        d["trainer"] = {"kind": kind, "model": "smollm2", "minutes": 0.5}

    config = trainer_config(parse_spec(mutated(change)), "equal", 0, Path("unused"))
    assert type(config).__name__ == {"ppo": "PPOConfig", "trl": "TRLGRPOConfig"}[kind]
    assert config.max_time_s == 30.0


# ------------------------------------------------------------------------------ TRL's GRPOTrainer
def test_a_trl_study_trains_with_grpotrainer_and_reports_like_the_others(tmp_path, tiny_model_dir):
    """kind = "trl": each run is TRL's GRPOTrainer on the configuration's training env (its metrics rows carry
    TRL's per-component logs), evaluated under the reference rubric like a baseline run."""
    pytest.importorskip("trl")
    data = base_spec(str(tiny_model_dir))
    data["study"]["seeds"] = [0]
    data["trainer"] = {
        "kind": "trl",
        "model": str(tiny_model_dir),
        "steps": 2,
        "tasks_per_step": 1,
        "group_size": 2,
        "max_new_tokens": 4,
        "device": "cpu",
    }
    spec = dataclasses.replace(parse_spec(data), output=str(tmp_path / "out"))
    result = run_study(spec, log=lambda line: None)
    assert [run.label for run in result.ran] == ["equal/seed0", "count_only/seed0"]
    for run in result.ran:
        done = json.loads((run.directory / "done.json").read_text())
        assert done["updates"] == 2 and done["trainer"]["group_size"] == 2
        assert done["eval"]["episodes"] == 2
        rows = [json.loads(line) for line in (run.directory / "metrics.jsonl").read_text().splitlines()]
        assert [row["step"] for row in rows] == [1.0, 2.0]
        assert all(f"rewards/{c}/mean" in rows[0] for c in COMPONENTS) and "rewards/mean" in rows[0]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert set(summary["configs"]) == {"equal", "count_only"}


def test_the_trl_trainer_stops_on_its_time_budget_and_refuses_multi_turn_envs(tmp_path, tiny_model_dir):
    pytest.importorskip("trl")
    from rewardlab.integrations.trl_train import TRLGRPOConfig, train

    config = TRLGRPOConfig(
        env_id=ENV,
        env_kwargs={"categories": ["simple_python"]},
        model=str(tiny_model_dir),
        steps=50,
        tasks_per_step=1,
        group_size=2,
        max_new_tokens=4,
        device="cpu",
        max_time_s=1e-3,
        save_final=False,
        output_dir=str(tmp_path / "budget"),
    )
    rows: list[dict[str, float]] = []
    result = train(config, on_update=rows.append)
    assert len(result.history) == 1  # the first step already ran past the budget
    assert rows == result.history and result.output_dir == tmp_path / "budget"
    with pytest.raises(ConfigError, match="multi-turn"):
        train(TRLGRPOConfig(env_id="RewardLab/ToolCall-v3", model=str(tiny_model_dir), output_dir=str(tmp_path)))


# ------------------------------------------------------------------------------ the statistics
def test_variability_is_the_mean_over_tasks_of_the_std_and_of_the_distinct_fraction():
    def record(task, sample, reward, output, infra_error=False):
        return {
            "task_id": task,
            "sample": sample,
            "reward": reward,
            "is_success": reward == 1.0,
            "components": {"a": reward},
            "output": output,
            "infra_error": infra_error,
        }

    records = [
        record("t1", 0, 0.0, "x"),
        record("t1", 1, 1.0, "y"),
        record("t2", 0, 0.5, "z"),
        record("t2", 1, 0.5, "z"),
        record("t2", 2, 0.0, "", infra_error=True),  # dropped, never scored as 0
    ]
    summary = summarize_records(records)
    assert (summary["episodes"], summary["dropped"]) == (5, 1)
    metrics = summary["metrics"]
    assert metrics["reward"] == pytest.approx(0.5) and metrics["success"] == pytest.approx(0.25)
    assert metrics["component/a"] == pytest.approx(0.5)
    assert metrics["variability/reward_std"] == pytest.approx((statistics.stdev([0.0, 1.0]) + 0.0) / 2)
    assert metrics["variability/distinct_fraction"] == pytest.approx((2 / 2 + 1 / 2) / 2)
    assert "variability/reward_std" not in summarize_records([record("t1", 0, 1.0, "x")])["metrics"]


@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=8))
def test_the_t_interval_is_scipys(values):
    result = t_interval(values)
    if np.std(values) == 0:
        assert result["ci95"] == pytest.approx(0.0, abs=1e-12)
        return
    low, high = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert (result["low"], result["high"]) == pytest.approx((low, high), abs=1e-9)
    assert result["n"] == len(values)


@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=8))
def test_the_paired_bootstrap_stays_within_the_differences_and_repeats(differences):
    result = paired_bootstrap(differences, resamples=500)
    tolerance = 1e-12
    assert min(differences) - tolerance <= result["low"] <= result["high"] <= max(differences) + tolerance
    assert result == paired_bootstrap(differences, resamples=500)
    assert result["mean"] == pytest.approx(float(np.mean(differences)))


def test_missing_values_are_left_out_of_the_statistics():
    assert t_interval([1.0, math.nan, 3.0])["n"] == 2
    assert math.isnan(t_interval([1.0])["ci95"])
    assert paired_bootstrap([math.nan])["n"] == 0
    assert paired_bootstrap([0.25, 0.25]) == {"mean": 0.25, "low": 0.25, "high": 0.25, "n": 2}
