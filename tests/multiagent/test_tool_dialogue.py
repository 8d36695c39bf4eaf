import json

import pytest
from pettingzoo.test import api_test, seed_test

from rewardlab.errors import ConfigError
from rewardlab.multiagent import STOP, ScriptedUser, ToolDialogue, goal_pieces

ASK = "Happy to help. What else do you need?"


class DialogueOracle:
    """Asks until the user has said everything, then plays the task's reference solution and answer."""

    def __init__(self, env: ToolDialogue):
        self.env = env
        self.turn = 0

    def act(self, observation, info):
        data = self.env.tool_env.unwrapped.task.data
        user_lines = [text for role, text in self.env.transcript if role == "user"]
        if len(user_lines) < len(goal_pieces(self.env.goal)):
            return ASK
        self.turn += 1
        if self.turn > len(data["solution"]):
            return data["final_answer"]
        calls = data["solution"][self.turn - 1]
        return json.dumps(calls[0] if len(calls) == 1 else calls)


def run_scripted(env, task_id, assistant=None, seed=0):
    env.reset(seed=seed, options={"task_id": task_id})
    assistant = assistant or DialogueOracle(env)
    final = {}
    for agent in env.agent_iter(max_iter=200):
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = (reward, dict(info))
        env.step(None if terminated or truncated else assistant.act(observation, info))
    return final


def test_api_and_seed_tests_pass():
    api_test(ToolDialogue(), num_cycles=30)
    api_test(ToolDialogue(user="external"), num_cycles=30)
    seed_test(ToolDialogue, num_cycles=30)


def test_goal_is_revealed_one_sentence_at_a_time():
    env = ToolDialogue()
    env.reset(seed=0, options={"task_id": "hw-retail-001"})
    pieces = goal_pieces(env.goal)
    assert len(pieces) == 2
    assert env.observe("assistant") == f"User: {pieces[0]}"
    assert pieces[1] not in env.observe("assistant")
    env.step(ASK)
    assert env.observe("assistant") == f"User: {pieces[1]}"


def test_oracle_assistant_succeeds_with_the_scripted_user():
    env = ToolDialogue()
    task_ids = env.tool_env.unwrapped.tasks.ids("test")
    for task_id in task_ids[:40]:
        reward, info = run_scripted(env, task_id)["assistant"]
        assert info["is_success"], (task_id, info["reward_components"])
        assert reward == pytest.approx(sum(info["reward_weights"][k] * v for k, v in info["reward_components"].items()))


def test_tool_results_go_to_the_assistant_and_state_changes():
    env = ToolDialogue()
    env.reset(seed=0, options={"task_id": "hw-retail-001"})
    env.step(ASK)
    env.step(json.dumps({"name": "find_customer_by_email", "arguments": {"email": "ada@example.com"}}))
    assert "C001" in env.observe("assistant") and env.agent_selection == "assistant"
    env.step('{"name": "find_customer_by_email", "arguments": {"email": 5}}')
    assert env.infos["assistant"]["action_error"]


def test_external_user_controls_the_conversation():
    env = ToolDialogue(user="external")
    env.reset(seed=0, options={"task_id": "hw-retail-001"})
    assert env.agent_selection == "user" and "Your goal:" in env.observe("user")
    env.step(ScriptedUser().act("", env.infos["user"]))
    assert env.agent_selection == "assistant"
    env.step("Done, anything else?")
    assert env.agent_selection == "user" and "Done, anything else?" in env.observe("user")
    env.step(STOP)
    assert all(env.terminations.values())
    assert env.rewards["user"] == env.rewards["assistant"] and not env.infos["assistant"]["is_success"]


def test_turn_budget_truncates_and_scores():
    env = ToolDialogue(max_turns=3)
    env.reset(seed=0, options={"task_id": "hw-retail-001"})
    for _ in range(3):
        env.step('{"name": "get_order", "arguments": {"order_id": "O1001"}}')
    assert all(env.truncations.values()) and "reward_components" in env.infos["assistant"]


@pytest.mark.parametrize("action", [None, 7, b"\xff", "x" * 1_000_000, '{"name": ' * 5000, "\x00🤖", STOP])
@pytest.mark.parametrize("user", ["scripted", "external"])
def test_bad_input_from_any_agent_never_crashes(action, user):
    env = ToolDialogue(user=user, max_turns=4)
    env.reset(seed=0)
    for _ in range(12):
        if all(env.terminations.values()) or all(env.truncations.values()):
            break
        env.step(action)
    assert all(env.terminations.values()) or all(env.truncations.values())


def test_config_errors():
    with pytest.raises(ConfigError, match="user"):
        ToolDialogue(user="llm")
    with pytest.raises(ConfigError, match="max_turns"):
        ToolDialogue(max_turns=0)
