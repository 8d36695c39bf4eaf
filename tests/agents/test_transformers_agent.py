"""TransformersAgent: the prompt it renders (messages, tools, own history) and that it plays episodes."""

from __future__ import annotations

import pytest

from rewardlab.agents import TransformersAgent
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode
from rewardlab.wrappers import ChatHistory
from tests.agents.tiny import tiny_model, tiny_tokenizer
from tests.conftest import EchoEnv

TOOLS = [{"type": "function", "function": {"name": "lookup", "description": "Find a thing.", "parameters": {}}}]


class RecordingAgent(TransformersAgent):
    """Keeps what it rendered, so tests can compare it with the chat template."""

    def prompt_ids(self, messages, tools):
        self.rendered = (messages, tools)
        return super().prompt_ids(messages, tools)


def make_agent(**kwargs) -> RecordingAgent:
    return RecordingAgent(tiny_model(), tiny_tokenizer(), max_new_tokens=4, **kwargs)


def test_renders_info_messages_when_present():
    agent = make_agent()
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    agent.act("ignored", {"messages": messages, "system_prompt": "other"})
    assert agent.rendered == (messages, None)
    text = tiny_tokenizer().apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert agent.prompt_ids(messages, None) == tiny_tokenizer()(text, add_special_tokens=False)["input_ids"]


def test_builds_system_and_user_messages_and_keeps_its_own_history():
    agent = make_agent()
    first = agent.act("say alpha", {"system_prompt": "Repeat the target.", "task_id": "t0"})
    assert agent.rendered[0] == [
        {"role": "system", "content": "Repeat the target."},
        {"role": "user", "content": "say alpha"},
    ]
    agent.act("noted", {"task_id": "t0"})
    assert agent.rendered[0][2:] == [{"role": "assistant", "content": first}, {"role": "user", "content": "noted"}]
    agent.reset()
    agent.act("say beta", {"system_prompt": "", "task_id": "t1"})
    assert agent.rendered[0] == [{"role": "user", "content": "say beta"}]


def test_passes_the_env_tools_to_the_chat_template():
    tokenizer = tiny_tokenizer()
    template = (
        "{% if tools %}TOOLS:{% for t in tools %}{{ t.function.name }};{% endfor %}\n{% endif %}"
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    agent = RecordingAgent(tiny_model(), tokenizer, max_new_tokens=2)
    original = tokenizer.chat_template
    tokenizer.chat_template = template
    try:
        agent.act("find it", {"system_prompt": "", "tools": TOOLS})
        assert agent.rendered[1] == TOOLS
        text = tokenizer.decode(agent.prompt_ids(*agent.rendered))
        assert text.startswith("TOOLS:lookup;")
        agent.act("result", {})  # later turns keep the tools given at reset
        assert agent.rendered[1] == TOOLS
    finally:
        tokenizer.chat_template = original


def test_plays_an_episode_and_greedy_decoding_repeats():
    env = ChatHistory(EchoEnv())
    agent = TransformersAgent(tiny_model(), tiny_tokenizer(), max_new_tokens=5)
    first = run_episode(env, agent, seed=0, task_id="t0")
    second = run_episode(env, agent, seed=0, task_id="t0")
    assert first.actions == second.actions and isinstance(first.actions[0], str)
    assert set(first.components) == {"exact", "length"}
    sampled = TransformersAgent(tiny_model(), tiny_tokenizer(), max_new_tokens=5, temperature=1.0, seed=7)
    a = run_episode(env, sampled, seed=0, task_id="t0").actions
    sampled.seed = 7
    assert run_episode(env, sampled, seed=0, task_id="t0").actions == a


@pytest.mark.parametrize(("kwargs", "match"), [({"max_new_tokens": 0}, "max_new_tokens"), ({"top_p": 0}, "top_p")])
def test_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        TransformersAgent(None, None, **kwargs)
