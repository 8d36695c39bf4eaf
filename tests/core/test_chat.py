"""The one conversation helper (rewardlab.core.chat) and the consumers that build their chat with it."""

from __future__ import annotations

from rewardlab.agents.chat import ChatState
from rewardlab.core.chat import Conversation, opening_messages
from rewardlab.envs.echo import EchoEnv
from rewardlab.wrappers import ChatHistory, ProcessReward

TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]


def test_the_opening_has_a_system_message_only_for_a_non_empty_prompt():
    assert opening_messages("obs", {"system_prompt": "sys"}) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "obs"},
    ]
    assert opening_messages("obs", {"system_prompt": ""}) == [{"role": "user", "content": "obs"}]
    assert opening_messages("obs", {}) == [{"role": "user", "content": "obs"}]


def test_a_conversation_alternates_and_records_non_text_as_str():
    chat = Conversation()
    chat.start("say beta", {"system_prompt": "Repeat.", "tools": TOOLS})
    chat.act(12)
    chat.observe("action_error: action must be a string, got int")
    chat.act("beta")
    assert [m["role"] for m in chat.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert chat.messages[2]["content"] == "12" and chat.tools == TOOLS
    chat.start("say alpha", {"system_prompt": ""})  # a new episode forgets the old one and its tools
    assert chat.messages == [{"role": "user", "content": "say alpha"}] and chat.tools is None


def test_adopt_takes_a_copy_of_the_envs_own_chat_only_when_there_is_one():
    chat = Conversation()
    chat.start("obs", {})
    kept = [{"role": "user", "content": "kept by the env"}]
    assert not chat.adopt({"messages": []}) and chat.messages == [{"role": "user", "content": "obs"}]
    assert chat.adopt({"messages": kept}) and chat.messages == kept
    chat.messages[0]["content"] = "changed"
    assert kept[0]["content"] == "kept by the env"


def play(env, actions):
    observation, info = env.reset(seed=0, options={"task_id": "t1"})
    steps = [(observation, info)]
    for action in actions:
        observation, _, _, _, info = env.step(action)
        steps.append((observation, info))
    return steps


def test_every_consumer_builds_the_same_chat():
    actions = ["draft:be", 7, "beta"]
    history = ChatHistory(EchoEnv())
    final = play(history, actions)[-1][1]["messages"]
    recorded = []
    process = ProcessReward(EchoEnv(), lambda h, a, o: recorded.append(list(h)) or 0.0)
    play(process, actions)
    assert process.history == final and recorded[-1] == final[:-2]
    agent = ChatState()
    for (observation, info), action in zip(play(EchoEnv(), actions), [*actions, None], strict=True):
        messages = agent.turn(observation, info)
        if action is not None:
            agent.record(str(action))
    assert messages == final


def test_the_agent_follows_the_envs_chat_and_remembers_tools():
    agent = ChatState()
    messages = agent.turn("obs", {"system_prompt": "", "tools": TOOLS, "messages": [{"role": "user", "content": "x"}]})
    assert messages == [{"role": "user", "content": "x"}] and agent.tools == TOOLS
    agent.record("answer")
    assert agent.turn("next", {})[-2:] == [
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "next"},
    ]
    agent.reset()
    assert agent.messages == [] and agent.tools is None
