"""The trainer registry: every entry loads, has the Trainer shape, and is what both commands offer."""

from __future__ import annotations

import argparse
import inspect

import pytest

from rewardlab.baselines.config import TrainerConfig
from rewardlab.baselines.trainers import REGISTRY, trainer
from rewardlab.cli import build_parser, main
from rewardlab.errors import ConfigError
from rewardlab.study import parse_spec
from tests.fresh_interpreter import modules_loaded_by


def _spec(kind: str) -> dict:
    """The smallest study spec, training with trainer ``kind``."""
    return {
        "study": {"name": "tiny", "baseline": "equal"},
        "env": {"id": "RewardLab/BFCL-v1"},
        "config": [{"name": "equal"}],
        "trainer": {"kind": kind, "steps": 1},
    }


def _train_sub_commands() -> list[str]:
    """The algorithms ``rewardlab train`` offers, as its parser lists them."""
    (train,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    (algorithms,) = [a for a in train.choices["train"]._actions if isinstance(a, argparse._SubParsersAction)]
    return list(algorithms.choices)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_entry_loads_a_trainer_config_and_a_train_function_taking_on_update(name):
    entry = trainer(name)
    assert entry.name == name
    cls = entry.config_class()
    assert issubclass(cls, TrainerConfig) and cls is not TrainerConfig
    assert isinstance(cls(env_id="RewardLab/BFCL-v1"), TrainerConfig)
    parameters = inspect.signature(entry.train_function()).parameters
    assert next(iter(parameters)) == "config"
    on_update = parameters["on_update"]
    assert on_update.kind is inspect.Parameter.KEYWORD_ONLY and on_update.default is None


def test_an_unknown_trainer_is_a_config_error_naming_the_closest():
    expected = r"unknown trainer 'gpro'; the trainers are \['grpo', 'ppo', 'trl'\]\. Did you mean 'grpo'\?"
    with pytest.raises(ConfigError, match=expected):
        trainer("gpro")
    with pytest.raises(ConfigError, match=r"\[trainer\] kind: unknown trainer 'pp0'.*Did you mean 'ppo'"):
        parse_spec(_spec("pp0"))


def test_train_help_lists_the_trainers_the_study_spec_accepts(capsys):
    assert _train_sub_commands() == list(REGISTRY)
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    help_text = capsys.readouterr().out
    for name in REGISTRY:
        assert f"\n    {name} " in help_text and REGISTRY[name].summary in " ".join(help_text.split())
        assert parse_spec(_spec(name)).trainer.kind == name


def test_importing_the_registry_imports_no_torch_and_no_integration():
    loaded = modules_loaded_by("import rewardlab.baselines.trainers", prefix="")
    heavy = {"torch", "transformers", "trl", "peft", "ray"}
    assert sorted(m for m in loaded if m.split(".")[0] in heavy or m.startswith("rewardlab.integrations")) == []
