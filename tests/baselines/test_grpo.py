"""GRPO mechanics on a tiny random model: loss, masking, advantages, KL, GSPO, accumulation, the loop."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from rewardlab.baselines.common import forward_logprobs, token_batch
from rewardlab.baselines.grpo import GRPOConfig, episode_advantages, grpo_loss, k3_kl, train, update
from rewardlab.baselines.rollout import Episode
from rewardlab.errors import ConfigError
from tests.agents.tiny import register_echo, tiny_model, tiny_tokenizer


def fixed_episodes(n: int = 4, prompt: int = 6, action: int = 5, seed: int = 0) -> list[Episode]:
    """Episodes with random tokens: a prompt, an action, an observation, a second action."""
    rng = np.random.default_rng(seed)
    episodes = []
    for i in range(n):
        e = Episode(task_id="t", group="t")
        e.add(rng.integers(10, 1000, size=prompt + i), agent=False)
        e.add(rng.integers(10, 1000, size=action), agent=True)
        e.add(rng.integers(10, 1000, size=3), agent=False)
        e.add(rng.integers(10, 1000, size=action), agent=True)
        e.reward = float(i % 2)
        episodes.append(e)
    return episodes


def test_loss_decreases_on_a_fixed_batch():
    model = tiny_model()
    episodes = fixed_episodes()
    batch = token_batch(episodes, pad_id=0)
    advantages = torch.tensor([1.0, -1.0, 1.0, -1.0])
    with torch.no_grad():
        old = forward_logprobs(model, batch)  # the sampling policy stays fixed, as over GRPO epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(8):
        loss, _ = grpo_loss(forward_logprobs(model, batch), old, advantages, batch.mask, clip_low=10.0, clip_high=10.0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[0] == pytest.approx(0.0, abs=1e-6)  # ratio 1 everywhere, advantages cancel
    assert losses[-1] < losses[0] - 0.1


def test_masked_tokens_get_no_gradient():
    model = tiny_model()
    episodes = fixed_episodes()
    batch = token_batch(episodes, pad_id=0)
    logprobs = forward_logprobs(model, batch)
    logprobs.retain_grad()
    loss, _ = grpo_loss(
        logprobs,
        logprobs.detach() - 0.05,
        torch.tensor([1.0, -1.0, 0.5, 2.0]),
        batch.mask,
        ref_logprobs=logprobs.detach() + 0.1,
        beta=0.1,
    )
    loss.backward()
    assert torch.all(logprobs.grad[batch.mask == 0] == 0)
    assert torch.all(logprobs.grad[batch.mask == 1] != 0)
    # the observation tokens sit between the two actions and are masked
    e = episodes[0]
    obs_positions = [p - batch.start for p, m in enumerate(e.action_mask) if m == 0 and p >= batch.start]
    assert obs_positions and torch.all(batch.mask[0, obs_positions] == 0)


def test_changing_masked_tokens_targets_leaves_the_loss_unchanged():
    model = tiny_model()
    episodes = fixed_episodes()
    batch = token_batch(episodes, pad_id=0)
    adv = torch.tensor([1.0, -1.0, 1.0, -1.0])
    logprobs = forward_logprobs(model, batch)
    loss, _ = grpo_loss(logprobs, logprobs.detach() + 0.1, adv, batch.mask)
    # the final token of episode 0 is an agent token; change an observation token instead
    obs = next(p for p, m in enumerate(episodes[0].action_mask) if m == 0 and p > episodes[0].prompt_length)
    obs_after = obs - batch.start
    perturbed = logprobs.detach().clone()
    perturbed[0, obs_after] -= 5.0
    loss2, _ = grpo_loss(perturbed, logprobs.detach() + 0.1, adv, batch.mask)
    assert float(loss2) == pytest.approx(float(loss.detach()))


def test_group_advantages_sum_to_zero_per_group():
    episodes = []
    rng = np.random.default_rng(1)
    for g in range(3):
        for _ in range(4):
            e = Episode(task_id=f"t{g}", group=f"t{g}#{g}", reward=float(rng.random()))
            e.components = {"a": float(rng.random()), "b": float(rng.integers(0, 2))}
            episodes.append(e)
    for per_component in (False, True):
        config = GRPOConfig(env_id="x", per_component=per_component)
        adv = episode_advantages(episodes, config, {"a": 0.5, "b": 0.5})
        for g in range(3):
            assert adv[4 * g : 4 * g + 4].sum() == pytest.approx(0.0, abs=1e-9)
        assert np.abs(adv).sum() > 0
    # scale_rewards=False only centres: the values are reward - group mean
    config = GRPOConfig(env_id="x", scale_rewards=False)
    adv = episode_advantages(episodes[:4], config, {})
    rewards = np.array([e.reward for e in episodes[:4]])
    np.testing.assert_allclose(adv, rewards - rewards.mean())


def test_kl_is_zero_at_step_zero_and_positive_after_a_change():
    model = tiny_model()
    reference = tiny_model()  # same seed: identical weights
    batch = token_batch(fixed_episodes(), pad_id=0)
    logprobs = forward_logprobs(model, batch)
    ref = forward_logprobs(reference, batch).detach()
    kl = k3_kl(logprobs, ref)
    assert torch.allclose(kl, torch.zeros_like(kl), atol=1e-6)
    _, stats = grpo_loss(logprobs, logprobs.detach(), torch.ones(4), batch.mask, ref_logprobs=ref, beta=0.1)
    assert stats["kl"] == pytest.approx(0.0, abs=1e-6)
    # k3 on hand values: d = log pi_ref - log pi = log 0.5 -> exp(d) - d - 1 = 0.5 + ln 2 - 1
    value = k3_kl(torch.tensor([0.0]), torch.tensor([np.log(0.5)]))
    assert float(value) == pytest.approx(0.5 + np.log(2) - 1)


def test_clipping_matches_the_formula_on_hand_values():
    logprobs = torch.log(torch.tensor([[1.5, 0.5, 1.0]])).requires_grad_()
    old = torch.zeros((1, 3))
    mask = torch.ones((1, 3))
    loss, stats = grpo_loss(logprobs, old, torch.tensor([2.0]), mask, clip_low=0.2, clip_high=0.2)
    # positive advantage: min(r A, clip(r) A) = [1.2*2, 0.5*2, 1*2] -> loss = -mean
    assert float(loss) == pytest.approx(-(2.4 + 1.0 + 2.0) / 3)
    assert stats["clip_ratio"] == pytest.approx(1 / 3)
    loss.backward()
    assert logprobs.grad[0, 0] == 0  # clipped token: no gradient


def test_gspo_uses_one_length_normalised_ratio_per_sequence():
    logprobs = torch.log(torch.tensor([[1.2, 1.0 / 1.2, 1.0, 1.0]])).requires_grad_()
    old = torch.zeros((1, 4))
    mask = torch.tensor([[1.0, 1.0, 0.0, 0.0]])
    loss, stats = grpo_loss(logprobs, old, torch.tensor([1.0]), mask, importance_sampling="sequence")
    # the geometric mean of the token ratios is 1: every token gets ratio 1, nothing is clipped
    assert float(loss) == pytest.approx(-1.0)
    assert stats["clip_ratio"] == 0.0
    loss.backward()
    np.testing.assert_allclose(logprobs.grad[0].numpy(), [-0.5, -0.5, 0.0, 0.0], atol=1e-6)


def test_gradient_accumulation_matches_one_big_batch():
    episodes = fixed_episodes(4)
    advantages = np.array([1.0, -0.5, 0.25, -0.75])
    grads = []
    for accumulation in (1, 2, 4):
        model = tiny_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
        config = GRPOConfig(
            env_id="x", tasks_per_step=2, group_size=2, gradient_accumulation_steps=accumulation, beta=0
        )
        update(model, optimizer, episodes, advantages, config, reference=None, pad_id=0, device="cpu")
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]))
    torch.testing.assert_close(grads[0], grads[1], atol=1e-6, rtol=1e-4)
    torch.testing.assert_close(grads[0], grads[2], atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"group_size": 1}, "group_size"),
        ({"steps": 0}, "steps"),
        ({"beta": -1.0}, "beta"),
        ({"importance_sampling": "tokens"}, "importance_sampling"),
        ({"max_new_tokens": 4096, "max_episode_tokens": 2048}, "max_new_tokens"),
        ({"gradient_accumulation_steps": 9}, "gradient_accumulation_steps"),
        ({"temperature": 0.0}, "temperature"),
    ],
)
def test_config_rejects_bad_values(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        GRPOConfig(env_id="RewardLab/BPMN-v1", **kwargs)


def test_clip_epsilon_high_defaults_to_clip_epsilon():
    assert GRPOConfig(env_id="x", clip_epsilon=0.1).clip_epsilon_high == 0.1
    assert GRPOConfig(env_id="x", clip_epsilon=0.1, clip_epsilon_high=0.28).clip_epsilon_high == 0.28


def test_clip_high_is_the_upper_bound_in_effect():
    config = GRPOConfig(env_id="x", clip_epsilon=0.1, clip_epsilon_high=0.28)
    assert config.clip_high == 0.28
    config.clip_epsilon_high = None
    assert config.clip_high == 0.1


def test_train_runs_and_writes_logs_curve_and_checkpoint(tmp_path):
    env_id = register_echo()
    config = GRPOConfig(
        env_id=env_id,
        steps=2,
        tasks_per_step=2,
        group_size=2,
        max_new_tokens=6,
        beta=0.04,
        gradient_accumulation_steps=2,
        output_dir=str(tmp_path),
        save_every=1,
        learning_rate=1e-3,
    )
    result = train(config, model=tiny_model(), tokenizer=tiny_tokenizer())
    assert [row["step"] for row in result.history] == [1, 2]
    row = result.history[0]
    for key in ("rewards/mean", "rewards/exact/mean", "rewards/length/mean", "losses/policy", "charts/kl"):
        assert key in row
    assert row["charts/kl"] == pytest.approx(0.0, abs=1e-6)  # step 1: policy == reference
    assert row["charts/agent_tokens_mean"] <= 6
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in lines] == [1, 2]
    header = (tmp_path / "metrics.csv").read_text().splitlines()[0].split(",")
    assert "rewards/exact/mean" in header and "rewards/length/mean" in header
    assert (tmp_path / "training_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "checkpoint-1" / "config.json").is_file()
    assert (tmp_path / "final" / "model.safetensors").is_file()


def test_train_with_lora_uses_the_adapter_free_model_as_reference(tmp_path):
    env_id = register_echo()
    config = GRPOConfig(
        env_id=env_id,
        steps=1,
        tasks_per_step=1,
        group_size=2,
        max_new_tokens=4,
        beta=0.1,
        lora=True,
        lora_rank=4,
        output_dir=str(tmp_path),
    )
    result = train(config, model=tiny_model(), tokenizer=tiny_tokenizer())
    trainable = [n for n, p in result.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    assert result.history[0]["charts/kl"] == pytest.approx(0.0, abs=1e-6)
    assert (tmp_path / "final" / "adapter_config.json").is_file()
