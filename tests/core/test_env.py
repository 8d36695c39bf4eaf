import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.core import TextSpace, truncate
from rewardlab.errors import ConfigError, ResetNeeded, UnknownTaskError
from rewardlab.evaluation import run_episode, summarize
from tests.conftest import EchoEnv


def test_check_env_passes(echo_env):
    check_env(echo_env, skip_render_check=True)


def test_reset_info_and_task_selection(echo_env):
    obs, info = echo_env.reset(seed=0, options={"task_id": "t2"})
    assert obs == "say gamma"
    assert info == {
        "task_id": "t2",
        "split": "train",
        "system_prompt": "Repeat the target.",
        "milestones": [],
        "progress": 0.0,
        "action_error": None,
        "reward_version": echo_env.unwrapped.reward_version,
    }
    _, info = echo_env.reset(seed=1, options={"split": "test"})
    assert info["split"] == "test"
    with pytest.raises(UnknownTaskError):
        echo_env.reset(options={"task_id": "nope"})
    with pytest.raises(ConfigError, match="unknown reset options"):
        echo_env.reset(options={"taskid": "t1"})


def test_final_step_reports_decomposition(echo_env):
    echo_env.reset(seed=0, options={"task_id": "t0"})
    obs, reward, terminated, truncated, info = echo_env.step("draft:alp")
    assert (reward, terminated, info["milestones"], info["progress"]) == (0.0, False, ["drafted"], 0.5)
    assert "reward_components" not in info
    obs, reward, terminated, truncated, info = echo_env.step("alphx")
    assert terminated and not truncated
    assert info["reward_components"] == {"exact": 0.0, "length": 1.0}
    assert reward == pytest.approx(sum(info["reward_weights"][k] * v for k, v in info["reward_components"].items()))
    assert info["metrics"] == {"length/chars": 0.05}
    assert info["progress"] == 1.0 and info["is_success"] is False
    with pytest.raises(ResetNeeded):
        echo_env.step("again")


def test_step_before_reset_raises():
    with pytest.raises(ResetNeeded):
        EchoEnv().step("x")


def test_reward_weights_kwarg_through_gym_make():
    gym.register("Test/Echo-v0", entry_point=EchoEnv)
    env = gym.make("Test/Echo-v0", reward_weights={"exact": 0}, aggregate="min", max_turns=2)
    env.reset(seed=0, options={"task_id": "t1"})
    env.step("draft:x")
    _, reward, terminated, truncated, info = env.step("draft:bet")
    # the turn budget ends the episode, and the env still scores the outcome
    assert truncated and not terminated
    assert info["reward_weights"] == {"exact": 0.0, "length": 1.0}
    assert reward == pytest.approx(0.75)
    env.close()


def test_non_text_actions_become_action_errors(echo_env):
    echo_env.reset(seed=0)
    _, reward, terminated, _, info = echo_env.step(12345)
    assert info["action_error"] == "action must be a string, got int" and not terminated
    _, _, terminated, _, info = echo_env.step(b"\xff\xfebytes")
    assert terminated and info["action_error"] is None


def test_oracle_and_random_agents(echo_env):
    oracle = run_episode(echo_env, OracleAgent(echo_env), seed=0, task_id="t3")
    assert oracle.is_success and oracle.reward == 1.0
    random = [run_episode(echo_env, RandomAgent(echo_env, seed=s), seed=s) for s in range(5)]
    assert summarize(random)["success_rate"] == 0.0


def test_determinism(echo_env):
    def trajectory(seed):
        obs, _ = echo_env.reset(seed=seed)
        return obs, echo_env.step("draft:a")[:4], echo_env.step("beta")[:4]

    assert trajectory(7) == trajectory(7)


def test_render_and_bad_render_mode():
    env = EchoEnv(render_mode="ansi")
    env.reset(seed=0, options={"task_id": "t0"})
    assert "task=t0" in env.render()
    with pytest.raises(ConfigError, match="render_mode"):
        EchoEnv(render_mode="human")


def test_text_space_accepts_real_text_and_truncate():
    space = TextSpace(max_length=50)
    assert space.contains("naïve 日本語 🤖 \x00\n") and not space.contains("x" * 51) and not space.contains(3)
    assert space.contains(space.sample())
    cut = truncate("x" * 1000, 200)
    assert len(cut) <= 200 and "truncated" in cut and "1000" in cut
    assert truncate("short", 200) == "short"


def test_reward_space_matches_components(echo_env):
    assert echo_env.reward_space.shape == (2,) and echo_env.reward_component_names == ("exact", "length")
    assert isinstance(echo_env.reward_space.sample(), np.ndarray)


def test_an_infra_failure_ends_the_episode_unusable_and_never_a_success():
    class FaultyEcho(EchoEnv):
        def _act(self, action):
            return self.infra_failure("the browser died") if action == "crash" else super()._act(action)

    env = FaultyEcho(invalid_penalty=-0.5)
    env.reset(seed=0, options={"task_id": "t0"})
    env.step("draft:alpha")  # the outcome would score full marks
    observation, reward, terminated, truncated, info = env.step("crash")
    assert terminated and not truncated and reward == -0.5
    assert info["infra_error"] == "the browser died" and observation == "infra_error: the browser died"
    assert info["usable"] is False and info["is_success"] is False
    assert info["reward_components"]["exact"] == 1.0  # still computed and reported


def test_common_arguments_are_declared_once_and_readable():
    import inspect
    import typing

    from rewardlab.core import CommonArgs
    from rewardlab.core.env import COMMON_ARGS

    assert COMMON_ARGS == ("reward_weights", "aggregate", "gates", "invalid_penalty", "max_turns", "render_mode")
    assert set(typing.get_type_hints(CommonArgs)) == set(COMMON_ARGS)
    parameter = inspect.signature(EchoEnv.__init__).parameters["common"]
    assert parameter.kind is inspect.Parameter.VAR_KEYWORD and "CommonArgs" in str(parameter.annotation)
    env = EchoEnv(reward_weights={"exact": 3}, aggregate="min", max_turns=4, render_mode="ansi", invalid_penalty=-1)
    assert env.rubric.normalized_weights == {"exact": 0.75, "length": 0.25} and env.rubric.aggregate == "min"
    assert (env.max_turns, env.render_mode, env.rubric.invalid_penalty) == (4, "ansi", -1)


def test_an_unknown_keyword_argument_raises_a_type_error_naming_the_closest():
    with pytest.raises(TypeError, match=r"EchoEnv\(\) got an unexpected keyword argument 'max_turn'.*'max_turns'"):
        EchoEnv(max_turn=3)


def test_core_counts_actions_and_valid_actions_per_episode():
    from rewardlab.core import Turn

    class Counted(EchoEnv):
        def _act(self, action):
            if action == "bad":
                return Turn(observation="no", action_error="bad action")
            return super()._act(action)

    env = Counted()
    env.reset(seed=0, options={"task_id": "t0"})
    env.step("draft:a")
    env.step("bad")
    env.step(12345)  # not text: refused before _act, so not an action
    assert (env.elapsed_steps, env.actions_taken, env.valid_actions) == (3, 2, 1)
    env.reset(seed=0, options={"task_id": "t0"})
    assert (env.actions_taken, env.valid_actions) == (0, 0)


def test_a_done_turn_without_outcome_scores_outcome_after_the_counts():
    from dataclasses import dataclass

    from rewardlab.core import Rubric, Turn
    from rewardlab.core.criteria import validity_criterion

    @dataclass
    class Counts:
        actions: int
        valid_actions: int

    class Answer(EchoEnv):
        def _act(self, action):
            if action == "bad":
                return Turn(observation="no", action_error="bad action")
            return Turn(observation="done", done=True)

        def _outcome(self):
            return Counts(self.actions_taken, self.valid_actions), True

    env = Answer()
    env.rubric = Rubric([validity_criterion()])
    env.reset(seed=0, options={"task_id": "t0"})
    env.step("bad")
    _, reward, terminated, _, info = env.step("final")  # the final answer counts as valid before scoring
    assert terminated and reward == 0.5 and info["metrics"] == {"validity/valid_fraction": 0.5}


def test_the_turn_budget_hook_completes_the_last_turn():
    class Closing(EchoEnv):
        def _at_turn_budget(self, turn):
            turn = super()._at_turn_budget(turn)
            turn.observation += f"\nout of turns; scored {turn.outcome['answer']!r}"
            return turn

    env = Closing(max_turns=2)
    env.reset(seed=0, options={"task_id": "t0"})
    assert env.step("draft:alp")[0] == "noted"
    observation, reward, terminated, truncated, info = env.step("draft:alpha")
    assert truncated and not terminated and observation == "noted\nout of turns; scored 'alpha'"
    assert reward == 1.0 and info["is_success"]


def test_text_reaches_the_env_coerced_whether_ascii_or_not(echo_env):
    from rewardlab.core import coerce_action

    echo_env.reset(seed=0, options={"task_id": "t0"})
    for action in ("draft:naïve \ud800", "draft:plain"):  # a lone surrogate is replaced; ASCII passes as it is
        echo_env.step(action)
        assert echo_env.answer == coerce_action(action)[0].removeprefix("draft:")
    assert "\ud800" not in coerce_action("naïve \ud800")[0] and echo_env.answer == "plain"
