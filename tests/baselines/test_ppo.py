"""PPO mechanics: GAE against hand-computed values, reward placement, value loss, the loop."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rewardlab.baselines.common import forward_logprobs, token_batch
from rewardlab.baselines.ppo import PPOConfig, gae, make_value_head, ppo_loss, token_rewards, train
from rewardlab.baselines.rollout import Episode
from rewardlab.errors import ConfigError
from tests.agents.tiny import register_echo, tiny_model, tiny_tokenizer
from tests.baselines.test_grpo import fixed_episodes


def test_gae_matches_hand_computed_values_and_skips_observation_tokens():
    # tokens: [agent, agent, obs, agent]; reward 1 on token 1 (end of action 1), 2 on token 3
    rewards = torch.tensor([[0.0, 1.0, 0.0, 2.0]])
    values = torch.tensor([[0.5, 0.4, 9.0, 0.3]])  # the observation's value must not be used
    mask = torch.tensor([[1.0, 1.0, 0.0, 1.0]])
    gamma, lam = 0.9, 0.8
    adv, ret = gae(rewards, values, mask, gamma=gamma, lam=lam)
    d3 = 2.0 + gamma * 0.0 - 0.3
    d1 = 1.0 + gamma * 0.3 - 0.4
    d0 = 0.0 + gamma * 0.4 - 0.5
    a3 = d3
    a1 = d1 + gamma * lam * a3
    a0 = d0 + gamma * lam * a1
    np.testing.assert_allclose(adv[0].numpy(), [a0, a1, 0.0, a3], rtol=1e-6)
    np.testing.assert_allclose(ret[0].numpy(), [a0 + 0.5, a1 + 0.4, 0.0, a3 + 0.3], rtol=1e-6)


def test_gae_with_lambda_one_and_no_discount_is_return_minus_value():
    rewards = torch.tensor([[0.0, 0.0, 1.0, 0.0]])
    values = torch.tensor([[0.2, 0.3, 0.4, 0.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0, 0.0]])
    adv, ret = gae(rewards, values, mask, gamma=1.0, lam=1.0)
    np.testing.assert_allclose(adv[0].numpy(), [0.8, 0.7, 0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(ret[0].numpy(), [1.0, 1.0, 1.0, 0.0], rtol=1e-6)


def test_turn_rewards_sit_on_the_last_token_of_each_action():
    e = Episode(task_id="t", group="t")
    e.add([1, 2], agent=False)
    e.add([3, 4], agent=True)
    e.action_ends.append(3)
    e.add([5], agent=False)
    e.add([6, 7, 8], agent=True)
    e.action_ends.append(7)
    e.step_rewards = [0.25, 1.0]
    np.testing.assert_allclose(token_rewards([e])[0], [0, 0, 0, 0.25, 0, 0, 0, 1.0])


def test_value_loss_decreases_on_a_fixed_batch():
    model = tiny_model()
    head = make_value_head(model)
    batch = token_batch(fixed_episodes(), pad_id=0)
    with torch.no_grad():
        logprobs, hidden = forward_logprobs(model, batch, hidden=True)
    returns = torch.rand(batch.mask.shape) * batch.mask
    optimizer = torch.optim.Adam(head.parameters(), lr=5e-2)
    losses = []
    for _ in range(30):
        values = head(hidden).squeeze(-1)
        loss, stats = ppo_loss(
            logprobs,
            logprobs,
            values,
            values.detach(),
            torch.zeros_like(values),
            returns,
            batch.mask,
            clip_epsilon=0.2,
            value_clip=100.0,
            vf_coef=1.0,
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(stats["value"])
    assert losses[-1] < 0.5 * losses[0]


def test_value_clipping_bounds_the_update():
    values = torch.tensor([[2.0]], requires_grad=True)
    loss, stats = ppo_loss(
        torch.zeros(1, 1),
        torch.zeros(1, 1),
        values,
        torch.zeros(1, 1),
        torch.zeros(1, 1),
        torch.zeros(1, 1),
        torch.ones(1, 1),
        clip_epsilon=0.2,
        value_clip=0.5,
        vf_coef=1.0,
    )
    # max((2 - 0)^2, (0.5 - 0)^2) / 2 = 2
    assert stats["value"] == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"gamma": 1.5}, "gamma"),
        ({"lam": -0.1}, "lam"),
        ({"num_minibatches": 16}, "num_minibatches"),
        ({"max_time_s": 0.0}, "max_time_s"),
    ],
)
def test_config_rejects_bad_values(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        PPOConfig(env_id="RewardLab/BPMN-v2", **kwargs)


def test_train_runs_and_logs_value_metrics(tmp_path):
    config = PPOConfig(
        env_id=register_echo(),
        steps=2,
        episodes_per_step=4,
        max_new_tokens=5,
        output_dir=str(tmp_path),
        learning_rate=1e-3,
    )
    result = train(config, model=tiny_model(), tokenizer=tiny_tokenizer())
    assert len(result.history) == 2
    assert {"losses/value", "losses/policy", "charts/explained_variance", "rewards/exact/mean"} <= set(
        result.history[0]
    )
    assert result.history[0]["charts/kl"] == pytest.approx(0.0, abs=1e-6)
    assert (tmp_path / "final" / "value_head.pt").is_file()
    assert (tmp_path / "training_curve.png").is_file()


def test_train_stops_on_its_time_budget(tmp_path):
    """With ``max_time_s`` PPO stops after the update that leaves no room for another as long."""
    config = PPOConfig(
        env_id=register_echo(),
        steps=50,
        episodes_per_step=2,
        num_minibatches=1,
        max_new_tokens=3,
        output_dir=str(tmp_path),
        max_time_s=1e-3,
        save_final=False,
    )
    assert len(train(config, model=tiny_model(), tokenizer=tiny_tokenizer()).history) == 1


def test_episodes_ended_by_an_infra_fault_are_dropped_before_the_update(tmp_path, monkeypatch):
    """The update sees only scored episodes; a step whose every episode hit a fault skips its update."""
    import gymnasium as gym

    from rewardlab.baselines import ppo
    from rewardlab.envs.echo.env import EchoEnv
    from tests.baselines.test_grpo import InfraFaultOnT0

    env_id = "RewardLabTest/InfraFaultEcho-v0"
    if env_id not in gym.registry:
        gym.register(id=env_id, entry_point=lambda **kwargs: InfraFaultOnT0(EchoEnv(**kwargs)))
    updated: list[list[str]] = []
    real_update = ppo.update

    def recording_update(policy, value_head, optimizer, episodes, *args, **kwargs):
        updated.append([e.task_id for e in episodes])
        return real_update(policy, value_head, optimizer, episodes, *args, **kwargs)

    monkeypatch.setattr(ppo, "update", recording_update)
    config = PPOConfig(env_id=env_id, steps=3, episodes_per_step=4, max_new_tokens=4, output_dir=str(tmp_path))
    config.save_final = False
    result = train(config, model=tiny_model(), tokenizer=tiny_tokenizer())
    assert all("t0" not in ids for ids in updated), updated
    for row, ids in zip([r for r in result.history if not r["charts/update_skipped"]], updated, strict=True):
        assert row["charts/infra_error_ratio"] == pytest.approx(1 - len(ids) / 4)
    assert any(row["charts/infra_error_ratio"] > 0 for row in result.history), "no step drew t0: pick another seed"
