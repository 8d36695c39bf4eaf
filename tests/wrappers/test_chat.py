import pytest

from rewardlab.wrappers import ChatHistory
from tests.conftest import EchoEnv

# Mistral-7B-Instruct-v0.1's chat template: it raises unless roles alternate user/assistant.
STRICT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token }}"
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}"
)


class ToolEchoEnv(EchoEnv):
    """EchoEnv with a tool schema in the reset info and no system prompt."""

    system_prompt = ""
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]

    def _start(self, task):
        observation, info = super()._start(task)
        return observation, {**info, "tools": self.tools}


def test_messages_follow_the_episode():
    env = ChatHistory(EchoEnv())
    _, info = env.reset(seed=0, options={"task_id": "t1"})
    assert info["messages"] == [
        {"role": "system", "content": "Repeat the target."},
        {"role": "user", "content": "say beta"},
    ]
    _, _, _, _, info = env.step("draft:be")
    _, _, terminated, _, info = env.step(12)  # non-text action: an action_error, recorded as its str()
    assert not terminated and info["action_error"]
    _, _, terminated, _, info = env.step("beta")
    assert terminated
    assert [(m["role"], m["content"]) for m in info["messages"][1:]] == [
        ("user", "say beta"),
        ("assistant", "draft:be"),
        ("user", "noted"),
        ("assistant", "12"),
        ("user", "action_error: action must be a string, got int"),
        ("assistant", "beta"),
        ("user", "done"),
    ]
    # info gets a copy: later steps do not change what an earlier info showed
    _, info = env.reset(seed=0, options={"task_id": "t0"})
    assert len(info["messages"]) == 2 and len(env.messages) == 2


def test_messages_render_with_a_strict_chat_template():
    chat_template_utils = pytest.importorskip("transformers.utils.chat_template_utils")
    env = ChatHistory(EchoEnv(max_turns=4))
    _, info = env.reset(seed=0)
    for action in ["draft:a", "draft:b", "draft:c"]:
        _, _, _, _, info = env.step(action)
    messages = info["messages"]
    # a system message folded into the first user turn, as users of Mistral templates do
    conversation = [{"role": "user", "content": messages[0]["content"] + "\n" + messages[1]["content"]}, *messages[2:]]
    rendered = chat_template_utils.render_jinja_template(
        [conversation], chat_template=STRICT_TEMPLATE, bos_token="<s>", eos_token="</s>"
    )
    text = rendered[0][0] if isinstance(rendered, tuple) else rendered
    assert str(text).count("[INST]") == 4
    bad = [*conversation, {"role": "user", "content": "twice"}]
    with pytest.raises(Exception, match="alternate"):
        chat_template_utils.render_jinja_template(
            [bad], chat_template=STRICT_TEMPLATE, bos_token="<s>", eos_token="</s>"
        )


def test_tools_are_passed_through_and_no_empty_system_message():
    env = ChatHistory(ToolEchoEnv())
    _, info = env.reset(seed=0)
    assert info["messages"][0]["role"] == "user"
    assert env.tools == ToolEchoEnv.tools
    _, _, _, _, info = env.step("draft:x")
    assert info["tools"] == ToolEchoEnv.tools


def test_envs_without_tools_get_no_tools_key():
    env = ChatHistory(EchoEnv())
    env.reset(seed=0)
    _, _, _, _, info = env.step("draft:x")
    assert "tools" not in info and env.tools is None
