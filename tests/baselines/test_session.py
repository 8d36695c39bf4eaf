"""The shared set-up of a training run: policy, KL reference, and envs built the same way by GRPO and PPO."""

from __future__ import annotations

import pytest
import torch

import rewardlab.baselines.grpo as grpo
import rewardlab.baselines.ppo as ppo
from rewardlab.baselines.config import parse_config
from rewardlab.baselines.rollout import make_envs
from rewardlab.baselines.session import frozen_reference, load_policy, make_training_envs, play_episodes, warm_start
from rewardlab.errors import ConfigError
from rewardlab.wrappers import ChatHistory
from tests.agents.tiny import register_echo, tiny_model, tiny_tokenizer


def test_load_policy_puts_the_model_on_the_device_in_float32_on_cpu():
    config = grpo.GRPOConfig(env_id=register_echo(), device="cpu")
    policy, tokenizer, device = load_policy(config, tiny_model(), tiny_tokenizer())
    assert device == "cpu" and tokenizer.pad_token_id is not None
    assert {p.dtype for p in policy.parameters()} == {torch.float32}
    with pytest.raises(ConfigError, match="tokenizer"):
        load_policy(config, tiny_model(), None)


def test_frozen_reference_only_without_lora_and_with_a_kl_term():
    config = ppo.PPOConfig(env_id=register_echo())
    policy = tiny_model()
    reference = frozen_reference(policy, config, kl_coefficient=0.05)
    assert reference is not policy and not any(p.requires_grad for p in reference.parameters())
    assert all(torch.equal(a, b) for a, b in zip(reference.parameters(), policy.parameters(), strict=True))
    assert frozen_reference(policy, config, kl_coefficient=0.0) is None
    assert frozen_reference(policy, ppo.PPOConfig(env_id=register_echo(), lora=True), kl_coefficient=0.05) is None


def test_local_training_envs_are_chat_envs():
    envs = make_training_envs(register_echo(), 3)
    assert len(envs) == 3 and all(isinstance(env, ChatHistory) for env in envs)
    assert len({id(env.unwrapped) for env in envs}) == 3


def test_ppo_config_accepts_ray_rollouts_like_grpo():
    env_id = register_echo()
    for cls in (grpo.GRPOConfig, ppo.PPOConfig):
        assert cls(env_id=env_id).ray_rollouts is False
        assert cls(env_id=env_id, ray_rollouts=True).ray_rollouts is True
        assert parse_config(cls, ["--env", env_id, "--ray-rollouts"]).ray_rollouts is True


@pytest.mark.parametrize(
    ("module", "config", "count"),
    [
        (grpo, grpo.GRPOConfig(env_id=register_echo(), steps=1, tasks_per_step=1, group_size=2), 2),
        (ppo, ppo.PPOConfig(env_id=register_echo(), steps=1, episodes_per_step=2, num_minibatches=1), 2),
    ],
    ids=["grpo", "ppo"],
)
def test_both_trainers_build_their_envs_through_the_shared_function(module, config, count, tmp_path, monkeypatch):
    calls = []

    def recording_envs(env_id, n, env_kwargs=None, *, ray_rollouts=False):
        calls.append((env_id, n, env_kwargs, ray_rollouts))
        return make_envs(env_id, n, env_kwargs)  # local envs stand in for the Ray actors

    monkeypatch.setattr(module, "make_training_envs", recording_envs)
    config.ray_rollouts = True
    config.env_kwargs = {"max_turns": 1}
    config.max_new_tokens = 4
    config.output_dir = str(tmp_path)
    config.save_final = False
    result = module.train(config, model=tiny_model(), tokenizer=tiny_tokenizer())
    assert calls == [(register_echo(), count, {"max_turns": 1}, True)]
    assert len(result.history) == 1


def test_warm_start_runs_the_sft_warm_start_only_when_the_config_asks_for_one(monkeypatch):
    import rewardlab.baselines.sft as sft

    calls = []
    monkeypatch.setattr(sft, "sft_warm_start", lambda *args, **kwargs: calls.append((args, kwargs)))
    envs = ["env"]
    warm_start("policy", "tokenizer", envs, ppo.PPOConfig(env_id=register_echo()), device="cpu")
    assert calls == []
    config = grpo.GRPOConfig(env_id=register_echo(), sft_steps=3, sft_learning_rate=1e-3, seed=7)
    warm_start("policy", "tokenizer", envs, config, device="cpu", mmap_threshold_kib=0)
    ((args, kwargs),) = calls
    assert args == (
        "policy",
        "tokenizer",
        envs,
        sft.SFTConfig(steps=3, learning_rate=1e-3, seed=7, mmap_threshold_kib=0),
    )
    assert kwargs == {"device": "cpu"}


def test_play_episodes_samples_as_the_config_says(monkeypatch):
    import rewardlab.baselines.session as session

    calls = []

    def recording_episodes(*args, **kwargs):
        calls.append((args, kwargs))
        return []

    monkeypatch.setattr(session, "collect_episodes", recording_episodes)
    config = ppo.PPOConfig(env_id=register_echo(), max_new_tokens=7, max_episode_tokens=99, temperature=0.5, top_p=0.9)
    assert play_episodes(["env"], "policy", "tokenizer", ["t0"], config, seed=3, groups=["g"], share_prefix=False) == []
    ((args, kwargs),) = calls
    assert args == (["env"], "policy", "tokenizer", ["t0"])
    assert kwargs == {
        "max_new_tokens": 7,
        "temperature": 0.5,
        "top_p": 0.9,
        "max_episode_tokens": 99,
        "seed": 3,
        "groups": ["g"],
        "share_prefix": False,
    }
