"""The demo's learning run: its config checks, its summaries and a run with a tiny model on the smallest budget."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from rewardlab.demo.learning import Evaluation, LearningConfig, LearningRun, held_out_tasks, run_learning, train_policy
from rewardlab.errors import ConfigError


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"held_out_tasks": 0}, "held_out_tasks must be an int >= 1"),
        ({"updates": 1.5}, "updates must be an int >= 1"),
        ({"group_size": True}, "group_size must be an int >= 1"),
        ({"sft_steps": -1}, "sft_steps must be an int >= 0"),
        ({"learning_rate": 0.0}, "learning_rate must be > 0"),
    ],
)
def test_config_refuses_bad_values(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        LearningConfig(**kwargs)


def test_evaluation_means_rewards_successes_and_components():
    episodes = [
        SimpleNamespace(reward=1.0, is_success=True, components={"format": 1.0, "values": 1.0}),
        SimpleNamespace(reward=0.25, is_success=False, components={"format": 1.0, "values": 0.0}),
    ]
    evaluation = Evaluation.of("after SFT", episodes, seconds=3.0)
    assert evaluation.reward == pytest.approx(0.625) and evaluation.success_rate == pytest.approx(0.5)
    assert evaluation.components == {"format": 1.0, "values": 0.5}
    assert math.isnan(Evaluation.of("empty", [], 0.0).reward)


def test_markdown_shows_each_evaluation_and_says_when_the_budget_cut_grpo():
    config = LearningConfig(updates=6)
    run = LearningRun(config, ["t1", "t2", "t3", "t4"], grpo_time_s=40.0, grpo_seconds=38.0, sft_seconds=20.0)
    run.evaluations = [
        Evaluation("untrained", 0.0, 0.0, {"format": 0.0}, 9.0),
        Evaluation("after SFT (4 steps)", 0.5, 0.25, {"format": 0.75}, 8.0),
        Evaluation("after GRPO (2 updates)", 0.625, 0.5, {"format": 1.0}, 8.0),
    ]
    run.updates = [{"step": 1, "rewards/mean": 0.4}, {"step": 2, "rewards/mean": 0.55}]
    text = run.markdown()
    assert "| untrained | 0.000 | 0% | 0.00 | 9 |" in text
    assert "| after GRPO (2 updates) | 0.625 | 50% | 1.00 | 8 |" in text
    assert "2 of at most 6 updates; the budget gave GRPO 40 s" in text and "0.40, 0.55" in text
    assert "One held-out task is 0.250 of the mean" in text
    assert run.to_json()["evaluations"][1]["reward"] == 0.5


def test_held_out_tasks_are_a_fixed_sample_of_the_test_split():
    config = LearningConfig()
    first = held_out_tasks(config.env_id, config.env_kwargs, 5)
    assert first == held_out_tasks(config.env_id, config.env_kwargs, 5) and len(set(first)) == 5
    import gymnasium as gym

    env = gym.make(config.env_id, **config.env_kwargs)
    assert set(first) <= set(env.unwrapped.tasks.ids("test"))
    env.close()


def test_train_policy_refuses_an_unknown_stage():
    with pytest.raises(ConfigError, match="stage must be 'sft' or 'grpo', got 'ppo'"):
        train_policy(None, None, LearningConfig(), stage="ppo")


def test_a_run_with_no_time_left_still_makes_one_update(tmp_path):
    """The smallest run: two held-out tasks, one SFT step, and a budget already spent, which caps GRPO at the
    one update it always makes."""
    pytest.importorskip("torch")
    from tests.agents.tiny import save_tiny_model

    model_dir = save_tiny_model(tmp_path / "tiny")
    config = LearningConfig(model=str(model_dir), held_out_tasks=2, sft_steps=1, updates=3, max_new_tokens=4)
    lines = []
    run = run_learning(config, time_left=lambda: 0.0, output_dir=tmp_path / "grpo", log=lines.append)
    assert [e.label for e in run.evaluations] == ["untrained", "after SFT (1 step)", "after GRPO (1 update)"]
    assert run.grpo_time_s == 1.0 and len(run.updates) == 1 and len(run.sft_losses) == 1
    assert all(0.0 <= e.reward <= 1.0 for e in run.evaluations)
    assert (tmp_path / "grpo" / "metrics.jsonl").is_file() and any("update 1" in line for line in lines)
