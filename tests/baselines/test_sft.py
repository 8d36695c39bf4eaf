"""SFT warm start: oracle demonstrations, loss on the oracle's tokens only, and it learns them."""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch

from rewardlab.baselines.common import forward_logprobs, token_batch
from rewardlab.baselines.rollout import make_envs
from rewardlab.baselines.sft import SFTConfig, oracle_demonstrations, sft_loss, sft_warm_start
from rewardlab.errors import ConfigError
from tests.agents.tiny import register_echo, tiny_model, tiny_tokenizer


def test_demonstrations_are_the_oracle_actions_on_train_tasks():
    envs = make_envs(register_echo(), 2)
    demos = oracle_demonstrations(envs, tiny_tokenizer(), envs[0].unwrapped.tasks.ids("train"), max_episode_tokens=512)
    assert [d.actions for d in demos] == [["alpha"], ["beta"], ["gamma"], ["delta"]]
    assert all(d.is_success for d in demos)


def test_sft_lowers_the_nll_of_the_oracle_actions():
    tokenizer = tiny_tokenizer()
    envs = make_envs(register_echo(), 2)
    model = tiny_model()
    demos = oracle_demonstrations(envs, tokenizer, ["t0", "t1", "t2", "t3"], max_episode_tokens=512)
    batch = token_batch(demos, pad_id=tokenizer.pad_token_id)
    with torch.no_grad():
        before = float(sft_loss(forward_logprobs(model, batch), batch.mask))
    losses = sft_warm_start(model, tokenizer, envs, SFTConfig(steps=15, batch_size=4, learning_rate=1e-2))
    with torch.no_grad():
        after = float(sft_loss(forward_logprobs(model, batch), batch.mask))
    assert after < before - 1.0
    assert losses[-1] < losses[0]


def test_sft_config_validation():
    with pytest.raises(ConfigError, match="gradient_accumulation_steps"):
        SFTConfig(batch_size=2, gradient_accumulation_steps=4)


def test_sft_warm_start_needs_rewardlab_envs():
    with pytest.raises(ConfigError, match="TextEnv"):
        sft_warm_start(tiny_model(), tiny_tokenizer(), [gym.make("CartPole-v1")], SFTConfig(steps=1))


def test_the_token_budget_splits_a_step_without_changing_its_loss():
    tokenizer = tiny_tokenizer()
    envs = make_envs(register_echo(), 2)
    losses = []
    for budget in (0, 40):  # one forward pass for the 4 demonstrations, or one each
        config = SFTConfig(steps=1, batch_size=4, gradient_accumulation_steps=1, max_batch_tokens=budget)
        losses += sft_warm_start(tiny_model(), tokenizer, envs, config)
    # the mean NLL over the step's agent tokens, however the step is split (the gradient is its derivative)
    assert losses[1] == pytest.approx(losses[0], rel=1e-5)
    demos = oracle_demonstrations(envs, tokenizer, ["t0", "t1", "t2", "t3"], max_episode_tokens=512)
    assert 4 * max(len(d.token_ids) for d in demos) > 40 >= max(len(d.token_ids) for d in demos)
