"""RewardLab/BPMN-v2: the env contract, multi-turn repair, reward composition, oracle and random agents."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rewardlab  # noqa: F401  (registers the ids)
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.envs.bpmn.env import BPMNEnv
from rewardlab.envs.bpmn.parse import BPMN_NS
from rewardlab.envs.bpmn.rubric import COMPONENTS
from rewardlab.envs.bpmn.tasks import reference_xml
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode, summarize

TASK = "gen-loan-decision"
SCHEMA_INVALID = (
    f'<definitions xmlns="{BPMN_NS}" id="d" targetNamespace="x">'
    '<process id="p"><task id="t" name="Check order"/><oops/></process></definitions>'
)


@pytest.fixture
def env():
    env = gym.make("RewardLab/BPMN-v2")
    yield env
    env.close()


def reference(env) -> str:
    return reference_xml(env.unwrapped.task)


def test_check_env():
    base = BPMNEnv()
    check_env(base, skip_render_check=True)
    assert base.reward_component_names == COMPONENTS
    assert base.reward_space.shape == (5,)


def test_oracle_succeeds_on_every_task(env):
    oracle = OracleAgent(env)
    results = [run_episode(env, oracle, seed=0, task_id=task_id) for task_id in env.unwrapped.tasks.ids()]
    assert len(results) == 62
    failed = [r.task_id for r in results if not r.is_success]
    assert failed == []
    for result in results:
        assert result.steps == 1
        assert result.components["validity"] == 1.0 and result.components["semantic"] == pytest.approx(1.0)
    assert summarize(results)["reward"]["mean"] > 0.9


def test_random_agent_scores_low_but_not_always_zero(env):
    agent = RandomAgent(env, seed=0)
    results = [run_episode(env, agent, seed=i) for i in range(60)]
    summary = summarize(results)
    assert summary["success_rate"] == 0.0
    assert summary["reward"]["mean"] < 0.45
    assert summary["components"]["semantic"]["mean"] < 0.2
    assert any(r.components["validity"] == 1.0 for r in results), "some random answers should be valid BPMN"
    assert any(r.reward == 0.0 for r in results), "some random answers should be invalid"


def test_sample_action_is_seeded_bpmn_looking_text():
    base = BPMNEnv()
    first = [base.sample_action(np.random.default_rng(3)) for _ in range(3)]
    second = [base.sample_action(np.random.default_rng(3)) for _ in range(3)]
    assert first == second
    samples = [base.sample_action(np.random.default_rng(seed)) for seed in range(40)]
    assert all(s.startswith("<definitions") for s in samples)
    assert len(set(samples)) == 40


def test_same_seed_and_actions_give_same_observations_and_rewards():
    def play(seed: int) -> list:
        env = gym.make("RewardLab/BPMN-v2")
        observation, info = env.reset(seed=seed)
        trace = [observation, info["task_id"]]
        for action in ("not xml", SCHEMA_INVALID, reference_xml(env.unwrapped.task)):
            observation, reward, terminated, truncated, info = env.step(action)
            trace += [observation, reward, terminated, truncated, info.get("reward_components")]
            if terminated or truncated:
                break
        return trace

    assert play(7) == play(7)
    assert play(11) == play(11)


def test_reset_draws_tasks_with_the_seed_and_split(env):
    drawn = {env.reset(seed=s)[1]["task_id"] for s in range(40)}
    assert len(drawn) > 10 and drawn <= set(env.unwrapped.tasks.ids("train"))
    test_ids = set(env.unwrapped.tasks.ids("test"))
    assert {env.reset(seed=s, options={"split": "test"})[1]["task_id"] for s in range(20)} <= test_ids
    _, info = env.reset(options={"task_id": TASK})
    assert info["task_id"] == TASK and info["max_attempts"] == 3 and info["difficulty"] == 2
    assert "BPMN" in info["system_prompt"]


def test_invalid_attempt_reports_the_validator_and_allows_repair(env):
    env.reset(seed=0, options={"task_id": TASK})
    observation, reward, terminated, truncated, info = env.step(SCHEMA_INVALID)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert "not valid against the BPMN 2.0 XSD" in info["action_error"]
    assert "bpmn:oops" in observation and "attempt 2 of 3" in observation
    assert info["milestones"] == ["well_formed", "bpmn_root"] and info["progress"] == pytest.approx(2 / 3)
    assert "reward_components" not in info
    observation, reward, terminated, truncated, info = env.step(reference(env))
    assert terminated and not truncated and info["is_success"]
    assert info["milestones"] == ["schema_valid"] and info["progress"] == 1.0
    assert info["attempt"] == 2 and info["action_error"] is None
    assert reward == pytest.approx(info["score"]) and reward > 0.9


def test_attempt_limit_ends_the_episode_with_the_invalid_penalty():
    env = gym.make("RewardLab/BPMN-v2", max_attempts=2, invalid_penalty=-0.5)
    env.reset(seed=0, options={"task_id": TASK})
    *_, terminated, _, _ = env.step("no xml here")
    assert not terminated
    observation, reward, terminated, truncated, info = env.step(SCHEMA_INVALID)
    assert terminated and not truncated and "No attempts left" in observation
    assert reward == -0.5 and not info["is_success"]
    # well_formed, bpmn_root, scorable_model and bare_answer hold; schema_valid fails
    assert info["reward_components"]["syntactic"] == 0.0 and info["reward_components"]["validity"] == 0.8
    assert info["score"] == pytest.approx(0.8 / 5)


def test_single_shot_and_max_turns_truncation():
    single = gym.make("RewardLab/BPMN-v2", max_attempts=1)
    single.reset(seed=0, options={"task_id": TASK})
    *_, terminated, truncated, info = single.step("")
    assert terminated and not truncated and info["action_error"].startswith("the answer is empty")
    truncating = gym.make("RewardLab/BPMN-v2", max_attempts=3, max_turns=1)
    truncating.reset(seed=0, options={"task_id": TASK})
    _, reward, terminated, truncated, info = truncating.step(SCHEMA_INVALID)
    assert truncated and not terminated and reward == 0.0
    assert info["reward_components"]["validity"] == 0.8


def test_empty_and_non_text_actions_never_crash(env):
    env.reset(seed=0, options={"task_id": TASK})
    observation, reward, terminated, _, info = env.step("")
    assert not terminated and reward == 0.0 and "empty" in info["action_error"]
    observation, reward, terminated, _, info = env.step(None)
    assert info["action_error"] == "action must be a string, got NoneType" and info["attempt"] == 2
    observation, reward, terminated, _, info = env.step(12345)
    assert terminated and reward == 0.0 and info["attempt"] == 3


def test_components_times_weights_reproduce_the_reward():
    weights = {"validity": 1.0, "syntactic": 2.0, "pragmatic": 0.5, "semantic": 3.0, "correctness": 1.5}
    env = gym.make("RewardLab/BPMN-v2", reward_weights=weights)
    agents = [OracleAgent(env), RandomAgent(env, seed=1)]
    for i in range(24):
        observation, info = env.reset(seed=i)
        agent = agents[i % 2]
        while True:
            observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
            if terminated or truncated:
                break
        assert sum(info["reward_weights"].values()) == pytest.approx(1.0)
        assert info["reward_weights"]["semantic"] == pytest.approx(3.0 / 8.0)
        expected = sum(info["reward_weights"][k] * info["reward_components"][k] for k in COMPONENTS)
        assert info["score"] == pytest.approx(expected)
        gate_open = info["reward_components"]["validity"] == 1.0
        assert reward == pytest.approx(expected if gate_open else 0.0)


def test_weighting_aggregate_and_gate_options():
    only_semantic = gym.make(
        "RewardLab/BPMN-v2", reward_weights={"validity": 0, "syntactic": 0, "pragmatic": 0, "correctness": 0}
    )
    only_semantic.reset(seed=0, options={"task_id": TASK})
    _, reward, *_, info = only_semantic.step(reference_xml(only_semantic.unwrapped.task))
    assert reward == pytest.approx(info["reward_components"]["semantic"]) == pytest.approx(1.0)
    minimum = gym.make("RewardLab/BPMN-v2", aggregate="min")
    minimum.reset(seed=0, options={"task_id": "miwg-B.2.0"})
    _, reward, *_, info = minimum.step(reference_xml(minimum.unwrapped.task))
    assert reward == pytest.approx(min(info["reward_components"].values())) and reward < 1.0
    ungated = gym.make("RewardLab/BPMN-v2", gates={}, max_attempts=1)
    ungated.reset(seed=0, options={"task_id": TASK})
    broken = reference(ungated).replace("</process>", "<oops/></process>", 1)
    _, reward, *_, info = ungated.step(broken)
    assert info["reward_components"]["validity"] < 1 and info["reward_components"]["syntactic"] > 0
    assert reward == pytest.approx(info["score"]) and info["score"] > 0
    # an unrelated model earns no syntactic credit: the rules are scaled by semantic fidelity (0 here)
    ungated.reset(seed=0, options={"task_id": TASK})
    *_, info = ungated.step(SCHEMA_INVALID)
    assert info["reward_components"]["semantic"] == 0.0 and info["reward_components"]["syntactic"] == 0.0
    with pytest.raises(ConfigError, match="unknown reward component"):
        gym.make("RewardLab/BPMN-v2", reward_weights={"semantics": 1.0})


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3", True, None])
def test_max_attempts_is_validated(bad):
    with pytest.raises(ConfigError, match="max_attempts"):
        BPMNEnv(max_attempts=bad)


def test_metrics_expose_every_sub_metric(env):
    env.reset(seed=0, options={"task_id": "miwg-C.6.0"})
    *_, info = env.step(reference(env))
    metrics = info["metrics"]
    assert len(metrics) == 67 and len(metrics) >= 35
    groups = {name.split("/")[0] for name in metrics}
    assert groups == set(COMPONENTS)
    assert all(0.0 <= value <= 1.0 and math.isfinite(value) for value in metrics.values())
    for component in ("syntactic", "pragmatic"):
        values = [v for k, v in metrics.items() if k.startswith(component + "/")]
        expected = sum(values) / len(values) * info["reward_components"]["semantic"]
        assert info["reward_components"][component] == pytest.approx(expected)


def test_fenced_answer_fails_validity_and_asks_for_bare_xml(env):
    env.reset(seed=0, options={"task_id": TASK})
    answer = f"Here is the model:\n```xml\n{reference(env)}\n```\nHope this helps."
    observation, reward, terminated, _, info = env.step(answer)
    assert not terminated and "code fence" in info["action_error"] and "XML document only" in observation
    observation, reward, terminated, _, info = env.step(answer)
    observation, reward, terminated, _, info = env.step(answer)
    assert terminated and not info["is_success"] and reward == 0.0
    assert info["reward_components"]["validity"] == pytest.approx(0.8)
    assert info["metrics"]["validity/bare_answer"] == 0.0 and info["score"] < 0.2


def test_lenient_format_scores_the_extracted_model():
    env = BPMNEnv(strict_format=False)
    env.reset(seed=0, options={"task_id": TASK})
    answer = f"Here is the model:\n```xml\n{reference(env)}\n```\nHope this helps."
    observation, reward, terminated, _, info = env.step(answer)
    assert terminated and info["is_success"]
    assert "code fence" in info["action_error"]
    assert info["metrics"]["validity/bare_answer"] == 0.0


def test_render_ansi_and_close_twice():
    env = BPMNEnv(render_mode="ansi")
    env.reset(seed=0, options={"task_id": TASK})
    assert "task=gen-loan-decision" in env.render()
    env.close()
    env.close()
