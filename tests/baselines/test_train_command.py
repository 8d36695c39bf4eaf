"""``rewardlab train``: flags generated from the config dataclasses, documented, and a real run."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

import rewardlab.baselines
from rewardlab.baselines.config import TrainerConfig, field_docs, parse_config
from rewardlab.baselines.grpo import GRPOConfig
from rewardlab.baselines.ppo import PPOConfig
from rewardlab.baselines.sft import SFTConfig
from rewardlab.cli import build_parser, main
from rewardlab.errors import ConfigError
from rewardlab.integrations.trl_train import TRLGRPOConfig
from tests.agents.tiny import register_echo, save_tiny_model


@pytest.mark.parametrize("cls", [TrainerConfig, GRPOConfig, PPOConfig, TRLGRPOConfig, SFTConfig])
def test_every_config_field_has_a_docstring(cls):
    docs = field_docs(cls)
    missing = [f.name for f in dataclasses.fields(cls) if f.init and not docs.get(f.name)]
    assert missing == []


def _default(f: dataclasses.Field) -> object:
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


@pytest.mark.parametrize(
    ("cls", "output_dir"),
    [(GRPOConfig, "results/grpo"), (PPOConfig, "results/ppo"), (TRLGRPOConfig, "results/trl_grpo")],
)
def test_trainer_configs_share_the_base_fields_and_their_defaults(cls, output_dir):
    """Every base field keeps the base's default, but output_dir, which the base leaves to each trainer."""
    shared = {f.name: _default(f) for f in dataclasses.fields(TrainerConfig)}
    assert (shared["env_id"], shared["output_dir"]) == (dataclasses.MISSING, dataclasses.MISSING)
    config = cls(env_id="RewardLab/BPMN-v2")
    expected = {**shared, "env_id": "RewardLab/BPMN-v2", "output_dir": output_dir}
    assert {name: getattr(config, name) for name in shared} == expected
    assert isinstance(config, TrainerConfig)


@pytest.mark.parametrize("cls", [GRPOConfig, PPOConfig, TRLGRPOConfig])
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"env_id": ""}, "env_id"),
        ({"temperature": 0.0}, "temperature"),
        ({"top_p": 1.5}, "top_p"),
        ({"max_new_tokens": 4096, "max_episode_tokens": 2048}, "max_new_tokens"),
        ({"lora_rank": 0}, "lora_rank"),
        ({"save_every": -1}, "save_every"),
        ({"sft_steps": 1.5}, "sft_steps"),
        ({"steps": 0}, "steps"),
        ({"learning_rate": -1e-5}, "learning_rate"),
        ({"max_time_s": 0.0}, "max_time_s"),
    ],
)
def test_trainer_configs_check_the_shared_fields(cls, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        cls(**{"env_id": "RewardLab/BPMN-v2", **kwargs})


def _imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


def test_the_baselines_never_import_the_cli():
    package = Path(rewardlab.baselines.__file__).parent
    offenders = {
        path.name: sorted(m for m in _imported_modules(path) if m == "rewardlab.cli" or m.startswith("rewardlab.cli."))
        for path in sorted(package.glob("*.py"))
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_flags_are_typed_from_the_dataclass():
    config = parse_config(
        GRPOConfig,
        [
            "--env",
            "RewardLab/BPMN-v2",
            "--steps",
            "3",
            "--lora",
            "--importance-sampling",
            "sequence",
            "--env-kwargs",
            '{"aggregate": "min"}',
            "--clip-epsilon-high",
            "0.28",
            "--no-scale-rewards",
        ],
    )
    assert config.env_id == "RewardLab/BPMN-v2" and config.steps == 3 and config.lora is True
    assert config.importance_sampling == "sequence" and config.env_kwargs == {"aggregate": "min"}
    assert config.clip_epsilon_high == 0.28 and config.scale_rewards is False
    assert config.bf16 is None  # tri-state: unset means "on CUDA"
    with pytest.raises(SystemExit):
        parse_config(GRPOConfig, ["--env", "x", "--importance-sampling", "tokens"])


def test_help_shows_the_field_docstrings(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "ppo", "--help"])
    out = capsys.readouterr().out
    assert "--env" in out and "GAE" in out and "--value-clip" in out


def test_train_grpo_runs_from_the_command_line(tmp_path, capsys):
    model_dir = save_tiny_model(tmp_path / "model")
    out = tmp_path / "run"
    code = main(
        [
            "train",
            "grpo",
            "--env",
            register_echo(),
            "--model",
            str(model_dir),
            "--steps",
            "2",
            "--tasks-per-step",
            "1",
            "--group-size",
            "2",
            "--max-new-tokens",
            "4",
            "--output-dir",
            str(out),
        ]
    )
    assert code == 0
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    assert "final batch reward" in capsys.readouterr().out


def test_bad_config_is_reported_not_raised(capsys):
    assert main(["train", "grpo", "--env", "RewardLab/BPMN-v2", "--group-size", "1"]) == 2
    assert "group_size" in capsys.readouterr().out
