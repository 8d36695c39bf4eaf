"""TRL integration: reward functions per component, the environment_factory classes (the env's own tools as
methods, or ``act``), and both examples."""

from __future__ import annotations

import inspect
import json
import keyword
import re
import runpy
import string
from pathlib import Path

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rewardlab  # noqa: F401
from rewardlab.core.env import Turn
from rewardlab.core.toolcalls import parse_tool_calls
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import ConfigError
from rewardlab.integrations.tool_methods import tool_method, toolset_key
from rewardlab.integrations.trl import (
    EPISODE_OVER,
    REPLY_TOOL,
    RewardFunctions,
    completion_text,
    environment_class,
    environment_classes,
    environment_reward_funcs,
    task_dataset,
)
from tests.agents.tiny import register_echo, save_tiny_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BFCL = "RewardLab/BFCL-v1"
BFCL_KWARGS = {"categories": ["simple_python"]}
TOOLCALL = "RewardLab/ToolCall-v3"
BFCL_MULTI = "RewardLab/BFCLMultiTurn-v1"
SLIDES_AGENT = "RewardLab/SlidesAgent-v2"
TOOL_ENVS = [TOOLCALL, BFCL_MULTI, SLIDES_AGENT]
FAULTY_ECHO = "RewardLabTest/FaultyEcho-v0"


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("tiny"))


def oracle_answer(env_id, task_id, env_kwargs=None):
    import gymnasium as gym

    from rewardlab.agents import OracleAgent

    env = gym.make(env_id, **(env_kwargs or {}))
    observation, info = env.reset(options={"task_id": task_id})
    action = OracleAgent(env).act(observation, info)
    env.close()
    return action


def test_single_turn_dataset_and_reward_functions_match_the_env():
    dataset = task_dataset(BFCL, env_kwargs=BFCL_KWARGS, limit=3)
    row = dataset[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"] and "Available functions" in row["prompt"][1][
        "content"
    ]
    rewards = RewardFunctions(BFCL, env_kwargs=BFCL_KWARGS)
    names = [f.__name__ for f in rewards.funcs]
    assert names == ["reward", "format", "count", "function", "parameters", "types", "values"]
    assert rewards.weights == [1.0] + [0.0] * 6
    good = [{"role": "assistant", "content": oracle_answer(BFCL, row["task_id"], BFCL_KWARGS)}]
    bad = [{"role": "assistant", "content": "I cannot help with that."}]
    task_ids = [row["task_id"], row["task_id"]]
    values = {f.__name__: f(completions=[good, bad], task_id=task_ids, prompts=None) for f in rewards.funcs}
    assert values["reward"][0] == pytest.approx(1.0) and values["function"] == [1.0, 0.0]
    assert values["reward"][1] < 0.5
    # components x normalised weights reproduce the reward (mean aggregate, no gates)
    weights = RewardFunctions(BFCL, env_kwargs=BFCL_KWARGS, train_on="components").weights
    for i in range(2):
        combined = sum(w * values[n][i] for w, n in zip(weights[1:], names[1:], strict=True))
        assert combined == pytest.approx(values["reward"][i])
    assert len(rewards.cache) == 2  # each completion played once, shared by the seven functions
    rewards.close()


def test_reward_functions_refuse_multi_turn_envs():
    rewards = RewardFunctions(register_echo())
    with pytest.raises(ConfigError, match="environment_class"):
        rewards.funcs[0](completions=["draft:x"], task_id=["t0"])


def test_completion_text_reads_every_completion_shape():
    assert completion_text("plain") == "plain"
    assert completion_text([{"role": "assistant", "content": "x"}]) == "x"
    assert completion_text([{"role": "assistant", "content": [{"type": "text", "text": "y"}]}]) == "y"
    assert completion_text([]) == ""
    assert completion_text([{"role": "assistant", "content": "x"}, {"role": "tool", "content": "{}"}]) == ""


def trl_tools(environment) -> dict:
    """The tools TRL builds for an environment instance: its class's public functions (but ``reset`` and
    ``get_reward``), bound, keyed by ``__name__`` (GRPOTrainer's ``_sync_tool_dicts``)."""
    return {
        getattr(environment, name).__name__: getattr(environment, name)
        for name, _ in inspect.getmembers(type(environment), predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }


def one_line(text) -> str:
    return " ".join(str(text).split()) if text else ""


def schema_view(function: dict) -> dict:
    """What a rendered tool must match: name, description, parameters (type, items type, enum,
    description) and the required set; descriptions with whitespace collapsed, as transformers does."""
    parameters = function.get("parameters") or {}
    return {
        "name": function["name"],
        "description": one_line(function.get("description")),
        "properties": {
            name: (
                spec.get("type"),
                (spec.get("items") or {}).get("type"),
                spec.get("enum"),
                one_line(spec.get("description")),
            )
            for name, spec in (parameters.get("properties") or {}).items()
        },
        "required": sorted(parameters.get("required") or []),
    }


def env_view(tool: dict) -> dict:
    """:func:`schema_view` of an env's tool, with the documented stand-ins: a tool without a description is
    described by its name, a parameter without one by its JSON schema."""
    function = tool["function"]
    view = schema_view(function)
    view["description"] = view["description"] or function["name"]
    for name, spec in function["parameters"].get("properties", {}).items():
        if not one_line(spec.get("description")):
            view["properties"][name] = (*view["properties"][name][:3], json.dumps(spec))
    return view


@pytest.mark.parametrize("env_id", TOOL_ENVS)
def test_tool_methods_render_every_tasks_tool_schema(env_id):
    """For every task, each tool it offers renders (transformers' get_json_schema, as TRL's chat template
    call does) with the env's own schema: in the union class and in the task's own tool-set class."""
    from transformers.utils import get_json_schema

    union = trl_tools(environment_class(env_id)())
    per_set = {key: trl_tools(cls()) for key, cls in environment_classes(env_id).items()}
    env = gym.make(env_id)
    for task in env.unwrapped.tasks:
        tools = env.reset(options={"task_id": task.id})[1]["tools"]
        own = per_set[toolset_key(tools)]
        assert set(own) == {t["function"]["name"] for t in tools} | ({REPLY_TOOL} if env_id == BFCL_MULTI else set())
        for tool in tools:
            name = tool["function"]["name"]
            assert schema_view(get_json_schema(union[name])["function"]) == env_view(tool), name
            assert get_json_schema(own[name]) == get_json_schema(union[name])
    assert set(union) == set().union(*per_set.values())
    env.close()


def test_every_bfcl_single_turn_tool_renders_with_its_schema():
    """BFCL-v1's 3,471 tasks in 1,930 tool sets, with the hard cases counted: dotted and private names,
    ``enum`` on an array, ``enum`` values not of the declared type (``boolean`` with ``"dontcare"``)."""
    from transformers.utils import get_json_schema

    classes = environment_classes(BFCL)
    env = gym.make(BFCL)
    cases = {"dotted": 0, "private": 0, "array enum": 0, "enum of another type": 0}
    for task in env.unwrapped.tasks:
        tools = env.reset(options={"task_id": task.id})[1]["tools"]
        methods = trl_tools(classes[toolset_key(tools)]())
        for tool in tools:
            name = tool["function"]["name"]
            assert schema_view(get_json_schema(methods[name])["function"]) == env_view(tool)
            specs = tool["function"]["parameters"].get("properties", {}).values()
            cases["dotted"] += "." in name
            cases["private"] += name.startswith("_")
            cases["array enum"] += any(s.get("type") == "array" and "enum" in s for s in specs)
            cases["enum of another type"] += any(s.get("type") == "boolean" and "enum" in s for s in specs)
    assert len(classes) == 1930 and all(cases.values()), cases
    env.close()


JSON_SCALAR_SCHEMAS = st.sampled_from([{"type": t} for t in ("string", "integer", "number", "boolean")])
DESCRIPTIONS = st.text(alphabet=string.ascii_letters + string.digits + " .,'-", max_size=40)
PARAMETER_SCHEMAS = st.one_of(
    JSON_SCALAR_SCHEMAS,
    st.builds(lambda items: {"type": "array", "items": items}, JSON_SCALAR_SCHEMAS),
    st.builds(
        lambda values: {"type": "string", "enum": values},
        st.lists(st.text(string.ascii_letters, min_size=1), min_size=1, unique=True),
    ),
    st.builds(
        lambda values: {"type": "boolean", "enum": values},
        st.lists(st.sampled_from(["True", "False", "dontcare"]), min_size=1, unique=True),
    ),
    st.just({"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}),
    st.just({"type": "string", "minLength": 1, "pattern": "^[A-Z]+$"}),
)


@given(
    name=st.from_regex(r"[a-z][a-z0-9_.]{0,15}", fullmatch=True),
    description=DESCRIPTIONS,
    parameters=st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
            lambda n: not keyword.iskeyword(n) and n != "self"
        ),
        st.tuples(PARAMETER_SCHEMAS, DESCRIPTIONS, st.booleans()),
        max_size=5,
    ),
)
@settings(max_examples=150, deadline=None)
def test_tool_method_round_trips_generated_schemas(name, description, parameters):
    from transformers.utils import get_json_schema

    properties = {p: {**spec, **({"description": d} if d.strip() else {})} for p, (spec, d, _) in parameters.items()}
    function = {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": [p for p, (_, _, r) in parameters.items() if r],
        },
    }
    rendered = get_json_schema(tool_method({"type": "function", "function": function}))
    assert schema_view(rendered["function"]) == env_view({"function": function})
    assert set(rendered["function"]) == {"name", "description", "parameters"}  # no "return": the env's shape


def test_tool_method_refuses_parameters_that_cannot_be_keyword_arguments():
    schema = {
        "name": "route",
        "description": "d",
        "parameters": {"type": "object", "properties": {"from": {"type": "string"}}},
    }
    with pytest.raises(ConfigError, match="route"):
        tool_method(schema)


def test_an_env_without_tools_keeps_the_act_tool():
    from transformers.utils import get_json_schema

    Env = environment_class(register_echo())
    env = Env()
    assert list(trl_tools(env)) == ["act"]
    assert get_json_schema(env.act)["function"]["parameters"]["required"] == ["action"]
    dataset = task_dataset(register_echo(), multi_turn=True)
    assert set(dataset["environment"]) == set(environment_classes(register_echo())) == {toolset_key([])}
    assert env.reset(**dataset[0]) == "say alpha"
    assert env.act("draft:alp") == "noted"
    funcs = environment_reward_funcs(Env)
    assert [f.__name__ for f in funcs] == ["reward", "exact", "length"]
    alpha, beta = [[{"role": "assistant", "content": "alpha"}]], [[{"role": "assistant", "content": "beta"}]]
    assert [f(completions=alpha, environments=[env])[0] for f in funcs] == [1.0, 1.0, 1.0]
    assert env.act("anything") == EPISODE_OVER
    assert [f(completions=beta, environments=[env])[0] for f in funcs] == [1.0, 1.0, 1.0]  # scored once


def test_tool_methods_follow_trls_contract():
    """ToolCall-v3: TRL sees the worlds' tools (no ``act``), renders them in the prompt with the chat template
    TRL ships, and a tool call plays the env's action; the final message ends the episode."""
    import trl

    from tests.agents.tiny import tiny_tokenizer

    Env = environment_class(TOOLCALL, {"max_turns": 4})
    env = Env()
    tools = trl_tools(env)
    assert "act" not in tools and {"get_order", "cancel_order", "search_flights"} <= set(tools) and len(tools) == 33
    dataset = task_dataset(TOOLCALL, env_kwargs={"max_turns": 4}, multi_turn=True)
    assert dataset[0]["prompt"][-1] == {"role": "user", "content": ""}
    assert len(set(dataset["environment"])) == 4  # one tool set per world
    template = (Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja").read_text()
    prompt = tiny_tokenizer().apply_chat_template(
        dataset[0]["prompt"], tools=list(tools.values()), chat_template=template, tokenize=False
    )
    assert '"name": "get_order"' in prompt and '"order_id"' in prompt
    order_id = re.search(r"O1\d{3}", env.reset(**dataset[0])).group()
    reply = json.loads(tools["get_order"](order_id=order_id))
    assert reply["name"] == "get_order" and reply["result"]["id"] == order_id
    funcs = environment_reward_funcs(Env)
    assert [f.__name__ for f in funcs] == ["reward", "format", "schema", "execution", "state", "answer", "efficiency"]
    completions = [[{"role": "assistant", "content": "Done."}]]
    values = [f(completions=completions, environments=[env])[0] for f in funcs]
    assert all(0.0 <= v <= 1.0 for v in values[1:])
    assert tools["get_order"](order_id=order_id) == EPISODE_OVER
    assert [f(completions=completions, environments=[env])[0] for f in funcs] == values  # scored once


def test_trls_parser_calls_the_tool_methods_with_arguments_typed_by_their_schemas():
    """A Qwen-format tool call in a completion, parsed by TRL's ``parse_response`` with the tool methods (as
    GRPOTrainer does): the arguments are typed by the rendered schemas (``"3"`` becomes the integer ``limit``
    3) and the call plays the env's action."""
    import copy

    import trl
    from trl.chat_template_utils import add_response_schema, parse_response

    from tests.agents.tiny import tiny_tokenizer

    tokenizer = copy.deepcopy(tiny_tokenizer())
    tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja").read_text()
    tokenizer = add_response_schema(tokenizer)
    env = environment_class(TOOLCALL)()
    tools = trl_tools(env)
    observation = env.reset(task_id="bank-balance-000")
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": observation}],
        tools=list(tools.values()),
        add_generation_prompt=True,
        return_dict=False,
    )
    account = re.search(r"A\d+", observation).group()  # "What's the balance of account A137?"
    text = json.dumps({"name": "list_transactions", "arguments": {"account_id": account, "limit": "3"}})
    ids = tokenizer(f"<tool_call>\n{text}\n</tool_call><|im_end|>", add_special_tokens=False)["input_ids"]
    (call,) = parse_response(tokenizer, ids, prefix=prompt, tools=list(tools.values()))["tool_calls"]
    arguments = call["function"]["arguments"]
    assert call["function"]["name"] == "list_transactions" and arguments["limit"] == 3
    reply = tools["list_transactions"](**arguments)
    assert "result" in json.loads(reply)
    assert reply == in_process_observation(TOOLCALL, "bank-balance-000", "list_transactions", arguments)


def oracle_episode(env_id, task_id):
    """The oracle's actions on a task, with the in-process episode's reward and final info."""
    from rewardlab.agents import OracleAgent

    env = gym.make(env_id)
    observation, info = env.reset(options={"task_id": task_id})
    agent = OracleAgent(env)
    actions = []
    while True:
        actions.append(agent.act(observation, info))
        observation, reward, terminated, truncated, info = env.step(actions[-1])
        if terminated or truncated:
            env.close()
            return actions, reward, info


def play_through_tools(Env, task_id, actions):
    """Play the oracle's actions as TRL would: each call through its tool method, a text reply before the
    last action through ``reply_to_user``, the last text as the final message scored by the reward functions."""
    env = Env()
    env.reset(task_id=task_id)
    tools = trl_tools(env)
    final = ""
    for index, action in enumerate(actions):
        parsed = parse_tool_calls(action)
        for call in parsed.calls:
            tools[call.name](**call.arguments)
        if not parsed.calls:
            if index == len(actions) - 1:
                final = action
            else:
                tools[REPLY_TOOL](action)
    completion = [{"role": "assistant", "content": final}]
    values = {f.__name__: f(completions=[completion], environments=[env])[0] for f in environment_reward_funcs(Env)}
    return values, env._finish(final)  # the episode the reward functions finished: its final info


@pytest.mark.parametrize(("env_id", "limit"), [(TOOLCALL, None), (BFCL_MULTI, None), (SLIDES_AGENT, 3)])
def test_oracle_episodes_through_the_tool_methods_score_as_in_process(env_id, limit):
    """Every oracle episode played through the tool methods succeeds with the in-process reward and components,
    except where the oracle calls tools in parallel (ToolCall-v3): TRL runs each call as its own action, so
    ``efficiency`` (which counts actions) is lower there, and only there."""
    Env = environment_class(env_id)
    parallel_tasks = 0
    for task_id in gym.make(env_id).unwrapped.tasks.ids("train")[:limit]:
        actions, reward, info = oracle_episode(env_id, task_id)
        values, outcome = play_through_tools(Env, task_id, actions)
        assert outcome["is_success"] and info["is_success"], task_id
        expected = {"reward": reward, **info["reward_components"]}
        parallel = any(parse_tool_calls(a).parallel for a in actions)
        parallel_tasks += parallel
        if parallel:
            assert values["efficiency"] < expected["efficiency"]
            expected = {k: v for k, v in expected.items() if k not in ("efficiency", "reward")}
        assert {k: values[k] for k in expected} == pytest.approx(expected), task_id
    assert (parallel_tasks > 0) == (env_id == TOOLCALL)


def in_process_observation(env_id, task_id, name, arguments, env_kwargs=None) -> str:
    env = gym.make(env_id, **(env_kwargs or {}))
    env.reset(options={"task_id": task_id})
    observation = env.step(json.dumps({"name": name, "arguments": arguments}))[0]
    env.close()
    return observation


@pytest.mark.parametrize(
    ("env_id", "name", "arguments", "error"),
    [
        (TOOLCALL, "transfer", {"from_account": "A1", "to_account": "A2", "amount": 1}, "unknown tool"),
        (TOOLCALL, "get_order", {"order_id": 1001}, "order_id"),
        (TOOLCALL, "get_order", {}, "order_id"),
        (TOOLCALL, "get_order", {"order_id": "O1001", "self": "x"}, "self"),
        (BFCL_MULTI, "lockDoors", {"unlock": True, "door": ["driver"]}, "error"),
        (SLIDES_AGENT, "delete_slide", {"index": 7}, "no slide 7"),
        (SLIDES_AGENT, "write_slide", {"index": 1, "slide": {"layout": "poster"}}, "error"),
    ],
)
def test_a_wrong_tool_or_bad_arguments_get_the_envs_own_error(env_id, name, arguments, error):
    """A tool the task does not offer (the union class has every world's) or arguments the schema refuses:
    the method returns exactly what the env answers that action in process, and nothing raises."""
    env = environment_class(env_id)()
    task_id = gym.make(env_id).unwrapped.tasks.ids("train")[0]
    env.reset(task_id=task_id)
    observation = trl_tools(env)[name](**arguments)
    assert observation == in_process_observation(env_id, task_id, name, arguments)
    assert error in observation.lower()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def toolcall_tools():
    """A ToolCall-v3 union-class environment, its TRL tools and 20 train task ids."""
    env = environment_class(TOOLCALL)()
    return env, trl_tools(env), gym.make(TOOLCALL).unwrapped.tasks.ids("train")[:20]


@given(data=st.data())
@settings(max_examples=80, deadline=None)
def test_tool_methods_never_raise_on_any_json_arguments(toolcall_tools, data):
    """Any tool, any JSON arguments (unknown names, ``self``, NaN, deep values): the env's own answer."""
    env, tools, task_ids = toolcall_tools
    name = data.draw(st.sampled_from(sorted(tools)))
    parameters = list(inspect.signature(tools[name]).parameters)
    keys = st.sampled_from(parameters or ["x"]) | st.sampled_from(["self", ""]) | st.text(max_size=8)
    arguments = data.draw(st.dictionaries(keys, JSON_VALUES, max_size=5))
    task_id = data.draw(st.sampled_from(task_ids))
    env.reset(task_id=task_id)
    observation = tools[name](**arguments)
    assert isinstance(observation, str) and observation
    assert observation == in_process_observation(TOOLCALL, task_id, name, arguments)


class FaultyEcho(EchoEnv):
    """Echo whose answer ``crash`` is an infrastructure fault, reported through the core's ``infra_failure``."""

    def _act(self, action: str) -> Turn:
        return self.infra_failure("the sandbox stopped") if action == "crash" else super()._act(action)


def test_an_infra_fault_is_unscored_and_logged_as_infra_error():
    """A faulted rollout gets None from every reward function (TRL drops it instead of scoring 0); the batch's
    episode logs reach TRL's ``log_metric``, with ``infra_error`` the share of faulted rollouts."""
    if FAULTY_ECHO not in gym.registry:
        gym.register(id=FAULTY_ECHO, entry_point=FaultyEcho)
    Env = environment_class(FAULTY_ECHO)
    environments = [Env(), Env()]
    for env in environments:
        env.reset(task_id="t0")
    assert environments[0].act("crash") == "infra_error: the sandbox stopped"
    logged = []
    completions = [[{"role": "assistant", "content": "ignored"}], [{"role": "assistant", "content": "alpha"}]]
    funcs = environment_reward_funcs(Env)
    values = {
        f.__name__: f(completions=completions, environments=environments, log_metric=lambda *m: logged.append(m))
        for f in funcs
    }
    assert values == {"reward": [None, 1.0], "exact": [None, 1.0], "length": [None, 1.0]}
    metrics = dict(logged)
    assert len(logged) == len(metrics)  # logged once per batch, by the ``reward`` function
    assert metrics["infra_error"] == 0.5 and metrics["is_success"] == 1.0
    assert metrics["reward/exact"] == 1.0  # the faulted rollout's components are not averaged in


def test_each_rollouts_reward_version_reaches_trls_completions_table():
    """TRL logs only numbers as metrics: the stamp goes to the completions table through ``log_extra``, once per
    batch (by ``reward``), and into every dataset row."""
    env_id = register_echo()
    stamp = EchoEnv().reward_version
    assert set(task_dataset(env_id, multi_turn=True)["reward_version"]) == {stamp}
    Env = environment_class(env_id)
    environments = [Env(), Env()]
    for env in environments:
        env.reset(task_id="t0")
    extra = []
    completions = [[{"role": "assistant", "content": "alpha"}], [{"role": "assistant", "content": "alp"}]]
    for f in environment_reward_funcs(Env):
        f(completions=completions, environments=environments, log_extra=lambda *column: extra.append(column))
    assert extra == [("reward_version", [stamp, stamp])]

    rows = task_dataset(BFCL, env_kwargs=BFCL_KWARGS, limit=2)
    rewards = RewardFunctions(BFCL, env_kwargs=BFCL_KWARGS)
    bfcl_stamp = gym.make(BFCL, **BFCL_KWARGS).unwrapped.reward_version
    assert rows["reward_version"] == [bfcl_stamp, bfcl_stamp] and bfcl_stamp != stamp
    extra.clear()
    for f in rewards.funcs:
        f(completions=["x", "y"], task_id=rows["task_id"], log_extra=lambda *column: extra.append(column))
    assert extra == [("reward_version", [bfcl_stamp, bfcl_stamp])] and rewards.reward_version == bfcl_stamp
    rewards.close()


def run_example(name: str, model_dir, output_dir, *extra: str) -> list[dict]:
    """Two training steps of ``examples/<name>`` on the tiny model; the log rows that carry a reward."""
    main = runpy.run_path(str(EXAMPLES / name), run_name="example")["main"]
    arguments = ["--model", str(model_dir), "--steps", "2", "--max-completion-length", "8", "--num-generations", "2"]
    result = main([*arguments, "--output-dir", str(output_dir), *extra])
    logged = [row for row in result["log_history"] if "reward" in row]
    assert len(logged) == 2
    return logged


def test_single_turn_example_trains_two_steps_and_logs_each_component(tiny_model_dir, tmp_path):
    logged = run_example("trl_grpo_single_turn.py", tiny_model_dir, tmp_path)
    for name in ("reward", "format", "count", "function", "parameters", "types", "values"):
        assert f"rewards/{name}/mean" in logged[0]


@pytest.mark.parametrize(
    "options",
    [[], ["--union-tools", "--env-kwargs", '{"max_turns": 6, "domains": ["travel"]}']],
    ids=["per-task-tools", "union-tools"],
)
def test_multi_turn_example_trains_two_steps_with_the_tool_methods(tiny_model_dir, tmp_path, options):
    """GRPOTrainer renders ToolCall-v3's tool methods into the prompts (per tool set through TRL's
    multi-environment mode, or one class through a single factory), runs its tool loop and logs every
    component and the episode logs. The union run keeps one world: all four worlds' 33 tools make
    3,500-token prompts, and the tiny model's log-probabilities over SmolLM2's vocabulary cost ~1 min."""
    logged = run_example("trl_multi_turn.py", tiny_model_dir, tmp_path, *options)
    for name in ("reward", "format", "schema", "execution", "state", "answer", "efficiency"):
        assert f"rewards/{name}/mean" in logged[0]
        if name != "reward":
            assert f"reward/{name}" in logged[0]  # episode_logs, through TRL's log_metric
    assert logged[0]["infra_error"] == 0.0 and "is_success" in logged[0]
    assert "tools/call_frequency" in logged[0]  # TRL's tool loop over the env's tools
