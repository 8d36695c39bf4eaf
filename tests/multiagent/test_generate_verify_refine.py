import gymnasium as gym
import pytest
from pettingzoo.test import api_test, seed_test

from rewardlab.errors import ConfigError
from rewardlab.multiagent import GenerateVerifyRefine, parse_verdict
from tests.conftest import EchoEnv


class DrawnTargetEnv(EchoEnv):
    """EchoEnv whose target gets a number drawn from ``np_random`` at reset: scoring an answer twice
    gives the same result only if the second scoring replays the episode's random state."""

    def _start(self, task):
        self.target = f"{task.data['target']}{int(self.np_random.integers(1000))}"
        self.answer = ""
        return f"say {self.target}", {}

    def _outcome(self):
        return {"answer": self.answer, "target": self.target}, True


ECHO = "Test/EchoGVR-v0"
DRAWN = "Test/DrawnTargetGVR-v0"
for env_id, entry_point in ((ECHO, EchoEnv), (DRAWN, DrawnTargetEnv)):
    if env_id not in gym.registry:
        gym.register(env_id, entry_point=entry_point)


def play(env, actions, task_id="t0", seed=0):
    env.reset(seed=seed, options={"task_id": task_id})
    for action in actions:
        env.step(action)
    return env


def test_api_and_seed_tests_pass():
    api_test(GenerateVerifyRefine(ECHO), num_cycles=20)
    seed_test(lambda: GenerateVerifyRefine(ECHO), num_cycles=20)


def test_observations_grow_with_the_transcript():
    env = GenerateVerifyRefine(ECHO)
    env.reset(seed=0, options={"task_id": "t1"})
    assert env.observe("generator").startswith("Task:\nsay beta") and "Candidate" not in env.observe("generator")
    env.step("bet")
    assert "Candidate answer:\nbet" in env.observe("verifier")
    env.step("too short. VERDICT: FAIL")
    refiner_view = env.observe("refiner")
    assert "Candidate answer:\nbet" in refiner_view and "Critique:\ntoo short" in refiner_view


def test_joint_credit_pays_the_final_score_to_everyone():
    env = play(GenerateVerifyRefine(ECHO), ["alph", "VERDICT: FAIL", "alpha"])
    assert env._cumulative_rewards == {"generator": 1.0, "verifier": 1.0, "refiner": 1.0}
    assert all(env.terminations.values())
    assert env.infos["refiner"]["reward_components"] == {"exact": 1.0, "length": 1.0}
    assert env.infos["generator"]["reward_components"] == {"exact": 0.0, "length": 0.8}


def test_role_credit():
    env = play(GenerateVerifyRefine(ECHO, credit="role"), ["alph", "looks fine\nVERDICT: PASS", "alpha"])
    # generator: R(g) = mean(0, 0.8); verifier wrong (g failed, said PASS); refiner: 1 - 0.4
    assert env._cumulative_rewards == pytest.approx({"generator": 0.4, "verifier": 0.0, "refiner": 0.6})
    env = play(GenerateVerifyRefine(ECHO, credit="role"), ["alph", "VERDICT: PASS then VERDICT: FAIL", "alp"])
    assert env._cumulative_rewards["verifier"] == 1.0  # the last verdict counts and is right
    assert env._cumulative_rewards["refiner"] == pytest.approx(0.3 - 0.4)


def test_missing_verdict_is_an_action_error_and_wrong():
    env = GenerateVerifyRefine(ECHO, credit="role")
    env.reset(seed=0, options={"task_id": "t0"})
    env.step("alpha")
    env.step("I have no opinion")
    assert "VERDICT" in env.infos["verifier"]["action_error"]
    env.step("alpha")
    assert env._cumulative_rewards["verifier"] == 0.0


@pytest.mark.parametrize("seed", [0, 1, 7, None])
@pytest.mark.parametrize("options", [None, {"split": "test"}, {"task_id": "t2"}])
def test_both_answers_are_scored_as_the_underlying_env_scores_them(seed, options):
    team = GenerateVerifyRefine(DRAWN, credit="role")
    team.reset(seed=seed, options=options)
    answer = team.task_prompt.removeprefix("say ")
    for action in (answer, "VERDICT: PASS", answer):
        team.step(action)
    # the refiner repeated the generator's correct answer: both full marks, no improvement
    assert team.infos["generator"]["reward_components"] == {"exact": 1.0, "length": 1.0}
    assert team.infos["refiner"]["reward_components"] == {"exact": 1.0, "length": 1.0}
    assert team._cumulative_rewards == {"generator": 1.0, "verifier": 1.0, "refiner": 0.0}
    if seed is not None:  # the same seed and options give the same task in the single-agent env
        single = gym.make(DRAWN, max_turns=1)
        assert single.reset(seed=seed, options=options)[0] == team.task_prompt


@pytest.mark.parametrize("action", [None, 42, b"\xff\xfe", "x" * 1_000_000, "\x00🤖"])
def test_bad_input_never_crashes(action):
    env = GenerateVerifyRefine(ECHO)
    env.reset(seed=0)
    for _ in range(3):
        env.step(action)
    assert all(env.terminations.values())


def test_parse_verdict_and_config_errors():
    assert parse_verdict("ok\nverdict: pass") is True and parse_verdict("VERDICT:FAIL") is False
    assert parse_verdict("no verdict") is None
    with pytest.raises(ConfigError, match="credit"):
        GenerateVerifyRefine(ECHO, credit="shared")
