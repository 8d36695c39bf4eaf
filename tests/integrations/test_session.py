"""The episode-session kernel every trainer adapter is a translation onto (rewardlab.integrations.session)."""

from __future__ import annotations

import doctest
import gc

import gymnasium as gym
import pytest

import rewardlab.integrations.session as session_module
from rewardlab.core.chat import opening_messages
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import ConfigError, ResetNeeded
from rewardlab.integrations.session import EpisodeSession, task_prompts
from tests.agents.tiny import register_echo


class CloseCounter(gym.Wrapper):
    """A real env that counts how often it is closed."""

    closes = 0

    def close(self):
        type(self).closes += 1
        super().close()


class FaultyEcho(EchoEnv):
    def _act(self, action):
        return self.infra_failure("the sandbox died") if action == "crash" else super()._act(action)


def counted(env_class=EchoEnv):
    CloseCounter.closes = 0
    return lambda: CloseCounter(env_class())


def test_an_episode_turn_by_turn():
    session = EpisodeSession(env_factory=EchoEnv)
    opening = session.start("t1")
    env = EchoEnv()
    assert opening == opening_messages(*env.reset(options={"task_id": "t1"})) and session.task_id == "t1"
    draft = session.play("draft:be")
    assert (draft.observation, draft.reward, draft.done, draft.truncated) == ("noted", 0.0, False, False)
    assert draft.reply == [{"role": "user", "content": "noted"}] and session.scored_return is None
    assert session.logs == {} and session.final is None
    assert session.rollout_logs() == {
        "reward/exact": 0.0,
        "reward/length": 0.0,
        "score": 0.0,
        "is_success": 0.0,
        "progress": 0.5,
        "infra_error": 0.0,
        "finished": 0.0,
    }
    last = session.play("beta")
    assert last.done and last.reply == [] and session.steps == 2 and session.rewards == [0.0, 1.0]
    assert session.scored_return == 1.0 and session.final.is_success and session.logs["reward/exact"] == 1.0
    assert [m["role"] for m in session.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert session.rollout_logs()["finished"] == 1.0 and session.component_names == ("exact", "length")
    with pytest.raises(ResetNeeded):
        session.play("again")
    session.close()


def test_start_selects_the_task_by_id_or_split_and_seeds_the_reset():
    with EpisodeSession(env_factory=EchoEnv) as session:
        test_ids = session.open().unwrapped.tasks.ids("test")
        assert session.start(split="test", seed=3) == session.start(split="test", seed=3)
        assert session.task_id in test_ids and session.info["split"] == "test"
        session.start(test_ids[-1], split="train")  # an id wins over the split
        assert session.task_id == test_ids[-1]


def test_playing_before_start_or_after_close_needs_a_reset():
    session = EpisodeSession(env_factory=EchoEnv)
    with pytest.raises(ResetNeeded, match="start"):
        session.play("alpha")
    session.start("t0")
    session.close()
    with pytest.raises(ResetNeeded):
        session.play("alpha")


def test_close_closes_once_and_a_later_start_makes_a_new_env():
    session = EpisodeSession(env_factory=counted())
    session.start("t0")
    first = session.env
    session.close()
    session.close()
    assert CloseCounter.closes == 1 and session.env is None
    session.start("t0")
    assert session.env is not first and CloseCounter.closes == 1
    with session:
        pass
    assert CloseCounter.closes == 2
    abandoned = EpisodeSession(env_factory=counted())
    abandoned.start("t0")
    del abandoned
    gc.collect()
    assert CloseCounter.closes == 1


def test_an_infra_fault_is_flagged_never_scored():
    with EpisodeSession(env_factory=FaultyEcho) as session:
        session.start("t0")
        session.play("draft:alpha")
        turn = session.play("crash")
        assert turn.done and session.infra_error == "the sandbox died"
        assert session.scored_return is None and session.final.infra_error == "the sandbox died"
        assert session.logs["infra_error"] == 1.0 and session.rollout_logs()["infra_error"] == 1.0
        assert not session.final.is_success


def test_the_reward_version_is_the_final_infos_that_of_the_outermost_reward_wrapper():
    from rewardlab.wrappers import ChatHistory, MilestoneReward

    session = EpisodeSession(env_factory=lambda: ChatHistory(MilestoneReward(EchoEnv(), per_milestone=0.2)))
    assert session.reward_version is None  # nothing started
    session.start("t0")
    stamp = MilestoneReward(EchoEnv(), per_milestone=0.2).reward_version
    assert session.reward_version == stamp != EchoEnv().reward_version
    session.play("alpha")
    assert session.final.reward_version == session.reward_version == stamp
    session.close()


def test_finish_plays_the_last_action_then_empty_ones_until_the_env_ends():
    with EpisodeSession(env_factory=EchoEnv) as session:
        session.start("t0")
        assert not session.finish("draft:alpha", limit=1) and session.steps == 1
        assert session.finish("draft:x") and session.steps == 3  # Echo takes the empty action as its answer
        assert [m["content"] for m in session.messages[-3:]] == ["draft:x", "noted", ""]
        assert session.finish("ignored") and session.steps == 3  # nothing more once it ended


def test_the_env_is_resolved_from_an_id_with_the_trainers_turn_budget():
    env_id = register_echo()
    with pytest.raises(ConfigError, match="set it in the row"):
        EpisodeSession(None, missing_env_id="set it in the row")
    budget = EpisodeSession(env_id, max_turns=2)
    assert budget.open().unwrapped.max_turns == 2
    own = EpisodeSession(env_id, {"max_turns": 5}, max_turns=2)
    assert own.open().unwrapped.max_turns == 5
    factory = EpisodeSession("ignored", max_turns=2, env_factory=EchoEnv)
    assert factory.open().unwrapped.max_turns is None
    for session in (budget, own, factory):
        session.close()


def test_task_prompts_are_the_openings_of_a_splits_tasks():
    env_id = register_echo()
    rows = list(task_prompts(env_id, "test"))
    env = EchoEnv()
    assert [task_id for task_id, _, _ in rows] == env.tasks.ids("test")
    for task_id, messages, info in rows:
        assert messages == opening_messages(*env.reset(options={"task_id": task_id})) and info["task_id"] == task_id
    assert len(list(task_prompts(env_id, limit=1))) == 1
    with pytest.raises(ConfigError, match="validation"):
        list(task_prompts(env_id, "validation"))


def test_the_module_example_runs():
    result = doctest.testmod(session_module)
    assert result.failed == 0 and result.attempted > 0
