"""RewardLab/BFCL-v1: contract, rewards on known answers, every bad input, the checker's rules."""

from __future__ import annotations

import json
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed (pip install 'rewardlab[bfcl]')")

import rewardlab  # noqa: E402, F401  (registers the ids)
from rewardlab.agents import OracleAgent, RandomAgent  # noqa: E402
from rewardlab.envs.bfcl import BFCLEnv  # noqa: E402
from rewardlab.envs.bfcl.checker import AnswerSpec, satisfiable, standardize_string  # noqa: E402
from rewardlab.envs.bfcl.constants import CATEGORIES  # noqa: E402
from rewardlab.envs.bfcl.loader import load_tasks, split_of  # noqa: E402
from rewardlab.errors import ConfigError, MissingDependencyError  # noqa: E402

TRIANGLE = "simple_python_0"  # calculate_triangle_area(base: int = 10, height: int = 5, unit: str = "units" | omitted)
SPOTIFY = "parallel_0"  # spotify.play(artist="Taylor Swift", duration=20) and (artist="Maroon 5", duration=15)
IRRELEVANT = "irrelevance_0"  # a triangle area question, only determine_body_mass_index on offer
GOLD = {"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}
SIXTH = 1 / 6


@pytest.fixture(scope="module")
def env():
    env = BFCLEnv()
    yield env
    env.close()


def answer(env, task_id: str, action) -> tuple[float, dict]:
    env.reset(seed=0, options={"task_id": task_id})
    _, reward, terminated, truncated, info = env.step(action)
    assert terminated and not truncated
    return reward, info


def call(name: str = "calculate_triangle_area", **arguments) -> str:
    return json.dumps({"name": name, "arguments": arguments})


# ---------------------------------------------------------------------------- contract
def test_check_env_and_registration(env):
    check_env(env, skip_render_check=True)
    made = gym.make("RewardLab/BFCL-v1", categories=["simple_python"])
    assert isinstance(made.unwrapped, BFCLEnv) and made.unwrapped.categories == ("simple_python",)
    made.close()


def test_tasks_splits_and_categories(env):
    categories = {task.data["category"] for task in env.tasks}
    assert categories == set(CATEGORIES)
    train, test = env.tasks.ids("train"), env.tasks.ids("test")
    assert len(train) + len(test) == len(env.tasks) > 3400
    assert 0.15 < len(test) / len(env.tasks) < 0.25
    assert all(env.tasks.get(task_id).split == split_of(task_id) for task_id in test[:50] + train[:50])


def test_reset_info_has_tools_and_prompt(env):
    observation, info = env.reset(seed=0, options={"task_id": "multiple_0"})
    assert "triangle" in observation.lower() and "Available functions:" in observation
    assert info["category"] == "multiple" and info["system_prompt"] == BFCLEnv.system_prompt
    names = [tool["function"]["name"] for tool in info["tools"]]
    assert "triangle_properties.get" in names
    for tool in info["tools"]:
        assert tool["type"] == "function" and tool["function"]["parameters"]["type"] == "object"
        types = {p.get("type") for p in tool["function"]["parameters"]["properties"].values()}
        assert types <= {"string", "integer", "number", "boolean", "array", "object"}


def test_same_seed_same_trajectory(env):
    def run(seed):
        agent = RandomAgent(env, seed=seed)
        observation, info = env.reset(seed=seed)
        action = agent.act(observation, info)
        return observation, action, env.step(action)[:4]

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_oracle_succeeds_on_every_task(env):
    oracle = OracleAgent(env)
    for task_id in env.tasks.ids():
        observation, info = env.reset(options={"task_id": task_id})
        _, reward, _, _, info = env.step(oracle.act(observation, info))
        assert info["is_success"], (task_id, info["bfcl_errors"])
        assert reward == pytest.approx(1.0), task_id


def test_random_agent_scores_low_and_components_reproduce_reward(env):
    agent = RandomAgent(env, seed=0)
    scores, successes = [], 0
    for seed in range(150):
        observation, info = env.reset(seed=seed)
        _, reward, _, _, info = env.step(agent.act(observation, info))
        components, weights = info["reward_components"], info["reward_weights"]
        assert reward == pytest.approx(sum(weights[k] * components[k] for k in components))
        assert all(0.0 <= v <= 1.0 for v in components.values())
        scores.append(reward)
        successes += info["is_success"]
    assert np.mean(scores) < 0.5 and successes < 0.2 * len(scores)


def test_unsatisfiable_entries_are_left_out():
    functions = [{"name": "f", "parameters": {"properties": {"a": {"type": "string"}}, "required": ["a"]}}]
    assert satisfiable(functions, [{"f": {"a": ["x"]}}], simple=True)
    assert not satisfiable(functions, [{"f": {"a": []}}], simple=True)  # no possible value
    assert not satisfiable(functions, [{"f": {"a": ["x"], "b": ["y"]}}], simple=True)  # b undocumented, needed
    assert satisfiable(functions, [{"f": {"a": ["x"], "b": ["y", ""]}}], simple=True)
    assert not satisfiable(functions, [{"f": {}}], simple=True)  # required a has no answer
    assert not satisfiable(functions, [{"g": {"a": ["x"]}}], simple=False)  # g is not described


# ---------------------------------------------------------------------------- rewards on known answers
def test_gold_answer_scores_one(env):
    reward, info = answer(env, TRIANGLE, json.dumps(GOLD))
    assert reward == pytest.approx(1.0) and info["is_success"] and info["action_error"] is None
    assert info["bfcl_errors"] == []


HALF = {"format": 0.5, "count": 1.0, "function": 1.0, "parameters": 0.5, "types": 0.5, "values": 0.5}
"""One of the two needed values (base, height) right: every value-scaled component at 1/2."""


@pytest.mark.parametrize(
    ("action", "components"),
    [
        (call(base=10, height="5"), {**HALF, "types": 0.0}),  # wrong type
        (call(base=11, height=5), HALF),  # wrong value
        (call(base=10), {**HALF, "parameters": 0.0}),  # missing required parameter
        (  # an unexpected parameter: 2 of the 3 parameters in play are right
            call(base=10, height=5, colour="red"),
            {"format": 2 / 3, "count": 1.0, "function": 1.0, "parameters": 0.0, "types": 2 / 3, "values": 2 / 3},
        ),
        (call(base=10.0, height=5), {**HALF, "types": 0.0}),  # a float for an integer
        (  # unknown function
            call("calculate_area", base=10, height=5),
            {"format": 0.0, "count": 1.0, "function": 0.0, "parameters": 0.0, "types": 0.0, "values": 0.0},
        ),
    ],
)
def test_each_checker_error_lowers_its_component(env, action, components):
    reward, info = answer(env, TRIANGLE, action)
    assert info["reward_components"] == pytest.approx(components)
    assert reward == pytest.approx(sum(components.values()) / 6)
    assert not info["is_success"] and info["bfcl_errors"]


def test_form_without_values_earns_only_function_and_count(env):
    # The right function and documented types, placeholder values: the call's form is copied from
    # the documentation, so it earns nothing until the values are right.
    reward, info = answer(env, TRIANGLE, call(base=1, height=1))
    assert info["reward_components"] == {
        "format": 0.0, "count": 1.0, "function": 1.0, "parameters": 0.0, "types": 0.0, "values": 0.0
    }  # fmt: skip
    assert reward == pytest.approx(2 * SIXTH) and not info["is_success"]
    # Giving every optional parameter (its "omitted" value is a possible answer) adds nothing.
    assert answer(env, TRIANGLE, call(base=1, height=1, unit=""))[0] == pytest.approx(reward)


def test_bfcl_string_rules(env):
    # "units" may be given in any case and with BFCL's ignored punctuation, or left out.
    for unit in ("units", "UNITS", "u-n_i.t s"):
        assert answer(env, TRIANGLE, call(base=10, height=5, unit=unit))[1]["is_success"]
    assert not answer(env, TRIANGLE, call(base=10, height=5, unit="cm"))[1]["is_success"]


def test_extra_and_missing_calls_cost_count(env):
    reward, info = answer(env, TRIANGLE, json.dumps([GOLD, GOLD]))
    assert info["reward_components"] == {
        "format": 0.5, "count": 0.5, "function": 0.5, "parameters": 0.5, "types": 0.5, "values": 0.5
    }  # fmt: skip
    assert reward == pytest.approx(0.5) and not info["is_success"]
    assert info["bfcl_errors"][0]["kind"] == "wrong_count"


def test_parallel_calls_in_any_order(env):
    taylor = {"name": "spotify.play", "arguments": {"artist": "Taylor Swift", "duration": 20}}
    maroon = {"name": "spotify.play", "arguments": {"artist": "Maroon 5", "duration": 15}}
    for calls in ([taylor, maroon], [maroon, taylor]):
        assert answer(env, SPOTIFY, json.dumps(calls))[1]["is_success"]
    reward, info = answer(env, SPOTIFY, json.dumps([maroon]))
    assert info["reward_components"]["count"] == 0.5 and info["reward_components"]["values"] == 0.5
    swapped = [{**taylor, "arguments": {"artist": "Taylor Swift", "duration": 15}}, maroon]
    reward, info = answer(env, SPOTIFY, json.dumps(swapped))
    assert info["reward_components"]["values"] == 0.75 and not info["is_success"]  # 1 of Taylor's 2 values wrong


def test_irrelevance_wants_no_call(env):
    reward, info = answer(env, IRRELEVANT, "None of these functions computes a triangle's area.")
    assert reward == pytest.approx(1.0) and info["is_success"]
    bmi = call("determine_body_mass_index", weight=70, height=1.8)
    reward, info = answer(env, IRRELEVANT, bmi)
    assert set(info["reward_components"].values()) == {0.0} and reward == 0.0  # a call where none fits
    assert not info["is_success"]


def test_plain_text_on_a_call_task(env):
    # No call at all: no value is right, so even the well-formed text earns no format credit.
    reward, info = answer(env, TRIANGLE, "The area is 25 square units.")
    assert reward == 0.0 and not info["is_success"] and info["metrics"]["format/parse_error"] == 0.0
    reward, info = answer(env, TRIANGLE, "")
    assert reward == 0.0 and info["action_error"] is None


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("action", "message"),
    [
        ('{"name": "calculate_triangle_area", "arguments": {"base": 10,', "invalid JSON"),
        ('{"name": "calculate_triangle_area", "arguments": {"base": NaN, "height": 5}}', "NaN"),
        ('{"name": "calculate_triangle_area", "arguments": {"base": Infinity, "height": 5}}', "Infinity"),
        ('{"name": "calculate_triangle_area", "arguments": {"base": 1e999, "height": 5}}', "infinity"),
        ('{"name": "calculate_triangle_area", "arguments": {"base": 10, "base": 5, "height": 5}}', "duplicate key"),
        ("[" * 10_000 + "]" * 10_000, "nested deeper"),
        (call(base=10, height=5, unit="x" * 10_000_000), "characters; the limit"),
    ],
    ids=["truncated", "nan", "infinity", "overflow", "duplicate-keys", "deep", "10MB"],
)
def test_malformed_answers_fail_format_with_a_clear_error(env, action, message):
    reward, info = answer(env, TRIANGLE, action)
    assert message in info["action_error"]
    assert info["reward_components"]["format"] == 0.0 and reward == 0.0 and not info["is_success"]


@pytest.mark.parametrize(
    "action",
    [
        f"Sure! Here is the call:\n```json\n{json.dumps(GOLD)}\n```",
        f"I will call {json.dumps(GOLD)} now.",
        f"<tool_call>{json.dumps(GOLD)}</tool_call>",
        json.dumps({"name": GOLD["name"], "arguments": json.dumps(GOLD["arguments"])}),
    ],
    ids=["code-fence", "prose", "tags", "string-arguments"],
)
def test_lenient_answers_count_against_format_only(env, action):
    reward, info = answer(env, TRIANGLE, action)
    assert info["reward_components"]["format"] == 0.0
    assert reward == pytest.approx(5 * SIXTH) and info["is_success"]
    assert "documented format" in info["action_error"]


def test_unknown_function_is_named_in_the_error(env):
    _, info = answer(env, TRIANGLE, call("rm_rf", path="/"))
    assert "unknown function(s) ['rm_rf']" in info["action_error"]
    assert info["metrics"]["function/unknown"] == 1.0


def test_non_text_action_ends_the_episode_scored(env):
    reward, info = answer(env, TRIANGLE, None)
    assert "must be a string" in info["action_error"] and reward == 0.0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
CALLS = st.builds(
    lambda name, arguments: json.dumps({"name": name, "arguments": arguments}),
    st.sampled_from(["calculate_triangle_area", "area", ""]),
    st.dictionaries(st.sampled_from(["base", "height", "unit", "x"]), JSON, max_size=4),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300) | CALLS | st.lists(CALLS, max_size=3).map(lambda c: "[" + ", ".join(c) + "]"))
def test_any_text_is_scored_without_raising(env, text):
    env.reset(seed=0, options={"task_id": TRIANGLE})
    observation, reward, terminated, _, info = env.step(text)
    assert terminated and 0.0 <= reward <= 1.0 and isinstance(observation, str)
    assert reward == pytest.approx(sum(info["reward_weights"][k] * v for k, v in info["reward_components"].items()))


# ---------------------------------------------------------------------------- the checker's rules
def spec(param_type: dict, options: list, **extra) -> AnswerSpec:
    function = {"name": "f", "parameters": {"properties": {"p": param_type, **extra}, "required": []}}
    return AnswerSpec.compile([function], [{"f": {"p": options}}], simple=True)


@pytest.mark.parametrize(
    ("param_type", "options", "value", "valid"),
    [
        ({"type": "float"}, [2.0], 2, True),  # an int is accepted for a float
        ({"type": "integer"}, [2], 2.0, False),  # not the other way round
        ({"type": "integer"}, [1], True, False),  # a boolean is not an integer
        ({"type": "string"}, ["New York, NY"], "new york ny", True),  # standardised strings
        ({"type": "string"}, [7], 7, True),  # a "variable": the possible answer's own type
        ({"type": "array", "items": {"type": "string"}}, [["a", "b"]], ["A", "b"], True),
        ({"type": "array", "items": {"type": "string"}}, [["a", "b"]], ["b", "a"], False),  # lists keep order
        ({"type": "array", "items": {"type": "integer"}}, [[1, 2]], [1, "2"], False),  # item types
        ({"type": "array", "items": {"type": "integer"}}, ["", [1]], [], True),  # "" admits an empty list
        ({"type": "dict"}, [{"a": [1], "b": ["", 2]}], {"a": 1}, True),  # a dict key that may be omitted
        ({"type": "dict"}, [{"a": [1], "b": ["", 2]}], {"a": 1, "c": 3}, False),  # an unknown key
        ({"type": "array", "items": {"type": "dict"}}, [[{"a": ["X"]}]], [{"a": "x"}], True),
        ({"type": "mystery"}, ["x"], "x", False),  # a type BFCL does not know
    ],
)
def test_parameter_rules(param_type, options, value, valid):
    assert spec(param_type, options).check([("f", {"p": value})]).valid is valid


def test_missing_optional_and_every_error_reported():
    function = {
        "name": "f",
        "parameters": {"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]},
    }
    answer_spec = AnswerSpec.compile([function], [{"f": {"a": [1], "b": ["x"]}}], simple=True)
    verdict = answer_spec.check([("f", {"a": "1", "z": 0})])
    assert not verdict.valid
    assert [kind for kind, _ in verdict.errors] == ["type_error", "unexpected_param", "missing_optional"]


def test_standardize_string_matches_bfcl():
    assert standardize_string("It's A-b_c.d/e*f^g, h") == 'it"sabcdefgh'


# ---------------------------------------------------------------------------- configuration
def test_category_selection_and_validation():
    env = BFCLEnv(categories=["parallel", "irrelevance"])
    assert {t.data["category"] for t in env.tasks} == {"parallel", "irrelevance"}
    with pytest.raises(ConfigError, match="Did you mean 'parallel'"):
        BFCLEnv(categories=["paralel"])
    with pytest.raises(ConfigError, match="list of names"):
        BFCLEnv(categories="simple_python")
    with pytest.raises(ConfigError, match="empty"):
        BFCLEnv(categories=[])


def test_underscore_names_for_apis_that_forbid_dots():
    env = BFCLEnv(categories=["simple_python"], underscore_names=True)
    observation, info = env.reset(seed=0, options={"task_id": "simple_python_1"})  # math.factorial(number=5)
    assert info["tools"][0]["function"]["name"] == "math_factorial" and "math.factorial" not in observation
    for name, success in (("math_factorial", True), ("math.factorial", False)):
        _, info = answer(env, "simple_python_1", call(name, number=5))
        assert info["is_success"] is success
    with pytest.raises(ConfigError, match="underscore_names must be True or False"):
        BFCLEnv(categories=["simple_python"], underscore_names="yes")


def test_missing_bfcl_eval_names_the_extra(monkeypatch):
    load_tasks.cache_clear()
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    try:
        with pytest.raises(MissingDependencyError, match=r"rewardlab\[bfcl\]"):
            BFCLEnv(categories=["simple_python"])
    finally:
        load_tasks.cache_clear()
