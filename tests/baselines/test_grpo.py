"""GRPO mechanics on a tiny random model: loss, masking, advantages, KL, GSPO, accumulation, shared prefixes,
dynamic sampling, memory across updates, the config, the loop."""

from __future__ import annotations

import gc
import json

import gymnasium as gym
import numpy as np
import pytest
import torch

from rewardlab.baselines.common import batch_tokens, forward_logprobs, microbatches, shared_token_batch, token_batch
from rewardlab.baselines.config import config_dict, parse_config
from rewardlab.baselines.grpo import (
    GRPOConfig,
    episode_advantages,
    grpo_loss,
    k3_kl,
    sample_groups,
    signal_groups,
    train,
    update,
)
from rewardlab.baselines.rollout import Episode, make_envs
from rewardlab.envs.echo import EchoEnv
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
        GRPOConfig(env_id="RewardLab/BPMN-v2", **kwargs)


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


def group_episodes(seed: int = 0) -> list[Episode]:
    """Two groups of three: in each, one prompt (of a different length per group), then per episode its own
    action, observation and second action, of different lengths."""
    rng = np.random.default_rng(seed)
    episodes = []
    for g, prompt_length in enumerate((11, 7)):
        prompt = rng.integers(10, 1000, size=prompt_length)
        for k in range(3):
            e = Episode(task_id=f"t{g}", group=f"t{g}#{g}", reward=float(k == g))
            e.add(prompt, agent=False)
            e.add(rng.integers(10, 1000, size=3 + k), agent=True)
            e.add(rng.integers(10, 1000, size=2), agent=False)
            e.add(rng.integers(10, 1000, size=4 - k), agent=True)
            episodes.append(e)
    return episodes


def test_shared_prefix_batch_scores_the_agent_tokens_of_the_plain_batch():
    model, episodes = tiny_model(), group_episodes()
    plain = token_batch(episodes, pad_id=0)
    shared = shared_token_batch(episodes, pad_id=0)
    assert shared is not None and shared.shared.prefix_ids.shape == (2, 10)  # each prompt but its last token
    with torch.no_grad():
        a, b = forward_logprobs(model, plain), forward_logprobs(model, shared)
    for i in range(len(episodes)):
        assert int(plain.mask[i].sum()) == int(shared.mask[i].sum()) == episodes[i].agent_tokens
        torch.testing.assert_close(a[i][plain.mask[i] == 1], b[i][shared.mask[i] == 1], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("beta", [0.0, 0.1])
def test_shared_prefix_update_gives_the_gradient_of_the_plain_batch(beta):
    episodes = group_episodes()
    advantages = np.array([1.0, -0.5, -0.5, 0.3, 0.9, -1.2])
    grads = []
    for share, recompute, max_tokens in ((False, False, 0), (True, False, 0), (True, True, 0), (True, True, 40)):
        model = tiny_model()
        model.train()
        reference = tiny_model(seed=1) if beta else None  # a different reference: the KL term has a gradient
        config = GRPOConfig(env_id="x", tasks_per_step=2, group_size=3, beta=beta, share_prefix=share)
        config.recompute_prefix, config.max_batch_tokens = recompute, max_tokens
        update(
            model,
            torch.optim.SGD(model.parameters(), lr=0.0),
            episodes,
            advantages,
            config,
            reference=reference,
            pad_id=0,
            device="cpu",
        )
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]))
    torch.testing.assert_close(grads[1], grads[0], atol=1e-6, rtol=1e-4)
    torch.testing.assert_close(grads[2], grads[0], atol=1e-6, rtol=1e-4)  # the prompt's pass run again in backward
    torch.testing.assert_close(grads[3], grads[0], atol=1e-6, rtol=1e-4)  # split into more micro-batches


def test_microbatches_respect_the_token_budget_and_keep_groups_together():
    episodes = group_episodes()
    assert microbatches(episodes, count=1, max_tokens=0, share=True) == [list(range(6))]
    parts = microbatches(episodes, count=1, max_tokens=40, share=True)
    assert [i for part in parts for i in part] == list(range(6)) and len(parts) > 1
    assert all(batch_tokens([episodes[i] for i in part], share=True) <= 40 for part in parts)
    # one group's prompt counted once: sharing fits more episodes in the same budget
    assert batch_tokens(episodes[:3], share=True) < batch_tokens(episodes[:3], share=False)
    assert len(microbatches(episodes, count=3, max_tokens=0)) == 3


def _episode(group: str, reward: float, components: dict[str, float] | None = None) -> Episode:
    e = Episode(task_id=group, group=group, reward=reward)
    e.components = components or {"a": reward}
    return e


def test_signal_groups_are_those_with_a_nonzero_advantage():
    episodes = [_episode("same", 1.0) for _ in range(3)] + [_episode("mixed", r) for r in (0.0, 1.0, 0.0)]
    episodes += [_episode("zeros", 0.0) for _ in range(3)]
    assert signal_groups(episodes, GRPOConfig(env_id="x"), {}) == ["mixed"]
    # equal aggregates, different components: GDPO has a signal where GRPO has none
    split = [_episode("g", 0.5, {"a": 1.0, "b": 0.0}), _episode("g", 0.5, {"a": 0.0, "b": 1.0})]
    assert signal_groups(split, GRPOConfig(env_id="x"), {"a": 0.75, "b": 0.25}) == []
    assert signal_groups(split, GRPOConfig(env_id="x", per_component=True), {"a": 0.75, "b": 0.25}) == ["g"]


CONSTANT_TASKS = ("t0", "t1")


class ConstantOnSomeTasks(gym.Wrapper):
    """Echo whose tasks t0 and t1 pay 1.0 whatever the answer (every group of them has equal rewards) and
    the others the answer's length in characters (random answers differ)."""

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self.constant = self.env.unwrapped.task.id in CONSTANT_TASKS
        return observation, info

    def step(self, action):
        observation, _, terminated, truncated, info = self.env.step(action)
        return observation, 1.0 if self.constant else float(len(action)), terminated, truncated, info


def register_half_constant() -> str:
    env_id = "RewardLabTest/HalfConstantEcho-v0"
    if env_id not in gym.registry:
        gym.register(id=env_id, entry_point=lambda **kwargs: ConstantOnSomeTasks(EchoEnv(**kwargs)))
    return env_id


def test_dynamic_sampling_replaces_equal_reward_groups_by_new_tasks():
    envs = make_envs(register_half_constant(), 6)
    config = GRPOConfig(env_id="x", tasks_per_step=2, group_size=3, max_new_tokens=6, max_resamples=3)
    draws = iter([["t0", "t2"], ["t1"], ["t3"]])
    torch.manual_seed(0)
    sample = sample_groups(envs, tiny_model(), tiny_tokenizer(), config, lambda n: next(draws)[:n], {}, seed=0)
    # t0 (round 0) and t1 (round 1) are skipped; t2 and t3 pay random answers' lengths: a signal
    assert (sample.groups_played, sample.groups_skipped, sample.rounds) == (4, 2, 2)
    assert sorted({e.task_id for e in sample.episodes}) == ["t2", "t3"] and len(sample.episodes) == 6
    assert len(sample.played) == 12 and {e.task_id for e in sample.played} == {"t0", "t1", "t2", "t3"}
    for env in envs:
        env.close()


class InfraFaultOnT0(gym.Wrapper):
    """Echo whose task t0 always ends with an infrastructure fault (``info["infra_error"]``)."""

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and self.env.unwrapped.task.id == "t0":
            info = {**info, "infra_error": "sandbox lost"}
        return observation, reward, terminated, truncated, info


def test_rollouts_ended_by_an_infra_fault_are_dropped_not_scored():
    env_id = "RewardLabTest/InfraFaultEcho-v0"
    if env_id not in gym.registry:
        gym.register(id=env_id, entry_point=lambda **kwargs: InfraFaultOnT0(EchoEnv(**kwargs)))
    envs = make_envs(env_id, 6)
    config = GRPOConfig(env_id="x", tasks_per_step=2, group_size=3, max_new_tokens=4, max_resamples=0)
    torch.manual_seed(0)
    sample = sample_groups(envs, tiny_model(), tiny_tokenizer(), config, lambda n: ["t0", "t2"][:n], {}, seed=0)
    assert sample.infra_errors == 3 and all(e.task_id == "t2" for e in sample.played)
    assert {e.task_id for e in sample.episodes} <= {"t2"} and sample.groups_skipped >= 1  # t0 left no episode
    for env in envs:
        env.close()


def test_train_skips_the_update_when_no_group_has_a_signal_and_logs_the_fraction(tmp_path):
    common = {"steps": 2, "tasks_per_step": 2, "group_size": 2, "max_new_tokens": 4, "learning_rate": 1e-2}
    common |= {"output_dir": str(tmp_path), "save_final": False, "max_resamples": 1}
    # exact match only: a random model never matches, every group has reward 0
    kwargs = {"env_id": register_echo(), "env_kwargs": {"reward_weights": {"exact": 1.0, "length": 0.0}}}
    model = tiny_model()
    before = [p.detach().clone() for p in model.parameters()]
    result = train(GRPOConfig(**kwargs, **common), model=model, tokenizer=tiny_tokenizer())
    for row in result.history:
        assert row["charts/update_skipped"] == 1.0 and row["charts/skipped_group_ratio"] == 1.0
        assert (row["charts/groups_played"], row["charts/resample_rounds"]) == (4.0, 1.0)
        assert row["losses/policy"] == 0.0 and row["rewards/mean"] == 0.0
    assert all(torch.equal(a, b) for a, b in zip(before, result.model.parameters(), strict=True))
    # without dynamic sampling the zero-advantage groups stay in the update; the fraction is still logged
    config = GRPOConfig(**kwargs, **common, dynamic_sampling=False)
    result = train(config, model=tiny_model(), tokenizer=tiny_tokenizer())
    logged = [
        (r["charts/update_skipped"], r["charts/skipped_group_ratio"], r["charts/groups_played"]) for r in result.history
    ]
    assert logged == [(0.0, 1.0, 2.0)] * 2


def _live_tensors() -> int:
    gc.collect()
    return sum(1 for obj in gc.get_objects() if issubclass(type(obj), torch.Tensor))


def test_memory_does_not_grow_across_updates(tmp_path):
    counts, peaks = {}, {}

    def record(row):
        counts[row["step"]] = _live_tensors()
        peaks[row["step"]] = row["memory/update_peak_rss_gb"]

    config = GRPOConfig(
        env_id=register_echo(),
        steps=10,
        tasks_per_step=2,
        group_size=2,
        max_new_tokens=6,
        beta=0.04,
        learning_rate=1e-3,
        output_dir=str(tmp_path),
        save_final=False,
    )
    result = train(config, model=tiny_model(), tokenizer=tiny_tokenizer(), on_update=record)
    assert len(result.history) == 10
    assert counts[10] <= counts[3]  # no tensor kept from one update to the next
    assert all(p.grad is None for p in result.model.parameters())  # gradients freed after each step
    assert peaks[10] <= peaks[3] + 0.05  # GB: the update's peak RSS does not creep up
    assert all(row["memory/rollout_peak_rss_gb"] > 0 for row in result.history)


def test_config_round_trips_through_its_dict_and_the_command_line():
    config = GRPOConfig(
        env_id="RewardLab/ToolCall-v3",
        env_kwargs={"aggregate": "min"},
        learning_rate=3e-6,
        group_size=8,
        beta=0.02,
        epochs=2,
        max_batch_tokens=2048,
        share_prefix=False,
        recompute_prefix=False,
        dynamic_sampling=False,
        max_resamples=4,
        mmap_threshold_kib=0,
        torch_threads=1,
    )
    data = config_dict(config)
    assert GRPOConfig(**data) == config
    assert GRPOConfig(**json.loads(json.dumps(data))) == config
    argv = []
    for name, value in data.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + flag[2:])
        elif value is not None:
            argv += [flag, json.dumps(value) if isinstance(value, dict) else str(value)]
    assert parse_config(GRPOConfig, argv) == config


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"max_batch_tokens": -1}, "max_batch_tokens"),
        ({"max_resamples": 1.5}, "max_resamples"),
        ({"mmap_threshold_kib": -1}, "mmap_threshold_kib"),
        ({"torch_threads": -2}, "torch_threads"),
    ],
)
def test_config_rejects_bad_sampling_and_batching_values(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        GRPOConfig(env_id="x", **kwargs)


def test_train_sets_the_torch_threads(tmp_path):
    threads = torch.get_num_threads()
    config = GRPOConfig(
        env_id=register_echo(),
        steps=1,
        tasks_per_step=1,
        group_size=2,
        max_new_tokens=2,
        output_dir=str(tmp_path),
        save_final=False,
        torch_threads=1,
    )
    try:
        train(config, model=tiny_model(), tokenizer=tiny_tokenizer())
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
