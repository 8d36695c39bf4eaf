"""RewardLab/ToolCall-v3: the env contract, rewards on known inputs, bad input, order independence."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.envs.toolcall.env import ToolCallEnv
from rewardlab.envs.toolcall.rubric import COMPONENTS
from rewardlab.envs.toolcall.worlds import RetailWorld, make_world
from rewardlab.envs.toolcall.worlds.base import tool
from rewardlab.errors import ConfigError, ResetNeeded
from rewardlab.evaluation import run_episode


@pytest.fixture(scope="module")
def env():
    env = ToolCallEnv()
    yield env
    env.close()


def act(env, *calls) -> tuple:
    """Step with one call, or several as a parallel list; calls are (name, arguments) pairs."""
    payload = [{"name": n, "arguments": a} for n, a in calls]
    return env.step(json.dumps(payload[0] if len(payload) == 1 else payload))


def test_check_env_and_registration():
    env = gym.make("RewardLab/ToolCall-v3")
    check_env(env.unwrapped, skip_render_check=True)
    _, info = env.reset(seed=0, options={"task_id": "retail-order_status-000"})
    names = [t["function"]["name"] for t in info["tools"]]
    assert names == list(RetailWorld.tool_specs) and info["domain"] == "retail"
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in info["tools"])
    assert "final answer" in info["system_prompt"] and "customer-service" in info["system_prompt"]
    assert env.unwrapped.reward_component_names == COMPONENTS
    env.close()


def test_oracle_full_reward_on_every_task(env):
    oracle = OracleAgent(env)
    for task_id in env.tasks.ids("train") + env.tasks.ids("test"):
        result = run_episode(env, oracle, seed=0, task_id=task_id)
        assert result.is_success, task_id
        assert result.components == dict.fromkeys(COMPONENTS, 1.0), task_id
        assert result.reward == pytest.approx(1.0)
        assert sorted(result.milestones) == sorted(e["name"] for e in env.tasks.get(task_id).data["effects"])


def test_random_agent_scores_low(env):
    results = [run_episode(env, RandomAgent(env, seed=s), seed=s) for s in range(40)]
    mean = np.mean([r.reward for r in results])
    assert mean < 0.55
    assert sum(r.is_success for r in results) <= 3
    assert np.mean([r.components["state"] for r in results]) < 0.5


def test_same_seed_and_actions_same_observations_and_rewards(env):
    def play(seed):
        agent = RandomAgent(env, seed=seed)
        observation, info = env.reset(seed=seed)
        trace = [observation]
        for _ in range(env.max_turns):
            observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
            trace.append((observation, reward, info["action_error"], info["milestones"]))
            if terminated or truncated:
                return trace, info["reward_components"]
        raise AssertionError("episode did not end")

    assert play(3) == play(3)
    assert play(3) != play(4)


def test_components_times_weights_reproduce_the_reward():
    weights = {"format": 2, "schema": 1, "execution": 0, "state": 3, "answer": 1, "efficiency": 0.5}
    env = ToolCallEnv(reward_weights=weights)
    for seed in range(10):
        result = run_episode(env, RandomAgent(env, seed=seed), seed=seed)
        total = sum(weights.values())
        expected = sum(weights[k] / total * v for k, v in result.components.items())
        assert result.reward == pytest.approx(expected)


def test_empty_action_after_reset_ends_scored(env):
    env.reset(seed=0, options={"task_id": "retail-order_status-000"})
    _, reward, terminated, truncated, info = env.step("")
    assert terminated and not truncated and info["is_success"] is False
    # no call was made on a task that needs one: schema and execution are not given away; the
    # read-only task's state is not earned without its read, and format is scaled by progress (none)
    assert info["reward_components"] == dict.fromkeys(COMPONENTS, 0.0)
    assert info["metrics"]["state/reference_calls"] == 0.0
    assert reward == 0.0
    with pytest.raises(ResetNeeded):
        env.step("again")


def test_rewards_on_a_known_trajectory(env):
    # retail-order_status-000: one get_order call, then the status in the answer
    task = env.tasks.get("retail-order_status-000")
    order_id = task.data["solution"][0][0]["arguments"]["order_id"]
    env.reset(seed=0, options={"task_id": task.id})
    fenced = json.dumps({"name": "get_order", "arguments": {"order_id": 5}})
    _, _, _, _, info = env.step(f"Let me check.\n```json\n{fenced}\n```")
    assert "invalid arguments for get_order: order_id: 5 is not of type 'string'" in info["action_error"]
    observation, _, _, _, info = act(env, ("get_order", {"order_id": order_id}))
    assert json.loads(observation)["result"]["id"] == order_id and info["call_results"] == ["ok"]
    status = task.data["answer_required"][0][0]
    _, reward, terminated, _, info = env.step(f"Your order is {status.upper()}.")
    assert terminated and info["is_success"]
    components = info["reward_components"]
    # 3 actions, 2 in the documented format; 2 calls, 1 schema-valid and executed
    assert components["format"] == pytest.approx(2 / 3)
    assert components["schema"] == pytest.approx(1 / 2)
    assert components["execution"] == 1.0 and components["state"] == 1.0 and components["answer"] == 1.0
    # efficiency = ½·(1+1)/(2+1) + ½·2/3
    assert components["efficiency"] == pytest.approx(0.5 * 2 / 3 + 0.5 * 2 / 3)
    assert info["metrics"]["efficiency/calls"] == pytest.approx(2 / 3)
    assert reward == pytest.approx(np.mean(list(components.values())))


def test_tolerated_refusal_keeps_execution_but_extra_refusals_cost(env):
    # hw-travel-001: FL100 is sold out by design; the reference books FL101 after the refusal
    env.reset(seed=0, options={"task_id": "hw-travel-001"})
    act(env, ("find_traveller", {"name": "Alan Turing"}))
    _, _, _, _, info = act(env, ("book_flight", {"traveller_id": "TR01", "flight_id": "FL100"}))
    assert info["call_results"] == ["tool_error"] and info["action_error"] is None
    _, _, _, _, info = act(env, ("book_flight", {"traveller_id": "TR01", "flight_id": "FL9999"}))
    assert info["call_results"] == ["tool_error"]
    act(env, ("book_flight", {"traveller_id": "TR01", "flight_id": "FL101"}))
    _, _, _, _, info = env.step("Booked FL101.")
    assert info["is_success"]
    # 4 valid calls, 2 refusals of which 1 tolerated: 2 ok / (4 - 1)
    assert info["reward_components"]["execution"] == pytest.approx(2 / 3)
    assert info["metrics"]["execution/refusals"] == pytest.approx(0.5)


BAD_INPUTS = [
    ('{"name": "get_order", "arguments": {"order_id": }', "invalid JSON", "format"),
    ('{"name": "get_order", "arguments": {"order_id": "O1001", "order_id": "O1002"}}', "duplicate key", "format"),
    ('{"name": "get_order", "arguments": {"order_id": NaN}}', "NaN is not allowed", "format"),
    ('{"name": "get_order", "arguments": {"order_id": Infinity}}', "Infinity is not allowed", "format"),
    ("[" * 10_000 + "]" * 10_000, "nested deeper than", "format"),
    ('{"name": "get_order", "arguments": {"order_id": "' + "x" * 10_000_000 + '"}}', "the limit is 200,000", "format"),
    ('{"name": "drop_tables", "arguments": {}}', "unknown tool 'drop_tables'", "schema"),
    (
        '{"name": "cancel_order", "arguments": {"order_id": 1001, "reason": "no_longer_needed"}}',
        "not of type",
        "schema",
    ),
    ('{"name": "cancel_order", "arguments": {"order_id": "O1001"}}', "'reason' is a required property", "schema"),
    ('{"name": "get_order", "arguments": {"order_id": "' + "x" * 100_000 + '"}}', "is too long", "schema"),
]


@pytest.mark.parametrize(("action", "message", "component"), BAD_INPUTS, ids=[m for _, m, _ in BAD_INPUTS])
def test_bad_input_is_an_error_observation_that_changes_nothing(env, action, message, component):
    env.reset(seed=0, options={"task_id": "hw-retail-002"})
    before = env.world.state()
    observation, reward, terminated, truncated, info = env.step(action)
    assert not terminated and not truncated and reward == 0.0
    assert message in info["action_error"] and message in observation and "error" in observation
    assert len(observation) < 2_000
    assert env.world.state() == before
    result = run_episode_from_here(env)
    assert result["is_success"]
    assert result["reward_components"][component] < 1.0
    others = {"format", "schema", "execution"} - {component}
    assert all(result["reward_components"][k] == 1.0 for k in others)


def run_episode_from_here(env) -> dict:
    oracle = env.make_oracle()
    observation, info = env.last_observation, {}
    while True:
        observation, _, terminated, truncated, info = env.step(oracle.act(observation, info))
        if terminated or truncated:
            return info


class BuggyRetailWorld(RetailWorld):
    """A retail world with a tool that writes and then raises, as a buggy tool would."""

    @tool("Discount an order, then crash.", {"order_id": {"type": "string"}}, writes=True)
    def discount_order(self, order_id: str) -> dict:
        self.update("orders", order_id, total=0.0, status="cancelled")
        return {"ratio": 1 / 0}


def test_a_tool_that_raises_is_rolled_back_and_costs_execution(env):
    env.reset(seed=0, options={"task_id": "hw-retail-002"})
    fresh = make_world("retail", 0)
    env.world = BuggyRetailWorld(fresh.db, counters=fresh.counters)
    before = env.world.state()
    observation, _, terminated, _, info = act(env, ("discount_order", {"order_id": "O1001"}))
    assert not terminated and info["call_results"] == ["crash"]
    assert "discount_order failed internally: ZeroDivisionError" in info["action_error"] and "error" in observation
    assert env.world.state() == before and env.world.db["orders"]["O1001"]["status"] == "pending"
    result = run_episode_from_here(env)
    assert result["is_success"] and result["reward_components"]["execution"] < 1.0
    # the crashing call is schema-valid but unrelated to the task: it dilutes schema (6 related of 7)
    assert result["reward_components"]["schema"] == pytest.approx(6 / 7)


def test_parallel_calls_are_separate_transactions(env):
    env.reset(seed=0, options={"task_id": "hw-retail-002"})
    observation, _, _, _, info = act(
        env,
        ("cancel_order", {"order_id": "O1001", "reason": "no_longer_needed"}),
        ("cancel_order", {"order_id": "O1002", "reason": "no_longer_needed"}),
        ("get_order", {"order_id": "O1001"}),
    )
    results = json.loads(observation)
    assert info["call_results"] == ["ok", "tool_error", "ok"]
    assert results[1]["error"] == "order O1002 is delivered; only pending orders can be cancelled"
    assert results[2]["result"]["status"] == "cancelled"
    assert info["milestones"] == ["order O1001 cancelled"] and info["progress"] == 0.5


@pytest.mark.parametrize(
    ("task_id", "turns"),
    [
        # reference: freeze + list_payees, then pay; alternative: list_payees, then pay and freeze together
        (
            "hw-bank-002",
            [
                [("list_payees", {})],
                [
                    ("pay_bill", {"account_id": "A101", "payee_id": "Y01", "amount": 45.5}),
                    ("freeze_card", {"card_id": "K01"}),
                ],
            ],
        ),
        # two created events in the opposite order get each other's generated ids; the state still matches
        (
            "hw-calendar-002",
            [
                [
                    (
                        "create_event",
                        {
                            "title": "Review report",
                            "date": "2025-03-11",
                            "start": "17:00",
                            "end": "17:30",
                            "attendees": ["me@example.com"],
                        },
                    ),
                    (
                        "create_event",
                        {
                            "title": "Write report",
                            "date": "2025-03-11",
                            "start": "08:00",
                            "end": "09:00",
                            "attendees": ["me@example.com"],
                        },
                    ),
                ]
            ],
        ),
        # return before cancel, and the reads in another order
        (
            "hw-retail-002",
            [
                [("find_customer_by_email", {"email": "ada@example.com"})],
                [("get_customer", {"customer_id": "C001"})],
                [("get_order", {"order_id": "O1002"}), ("get_order", {"order_id": "O1001"})],
                [
                    ("return_order", {"order_id": "O1002"}),
                    ("cancel_order", {"order_id": "O1001", "reason": "no_longer_needed"}),
                ],
            ],
        ),
    ],
)
def test_milestones_are_order_independent(env, task_id, turns):
    task = env.tasks.get(task_id)
    env.reset(seed=0, options={"task_id": task_id})
    reached = []
    for turn in turns:
        *_, info = act(env, *turn)
        reached += info["milestones"]
    assert sorted(reached) == sorted(e["name"] for e in task.data["effects"])
    assert reached != [e["name"] for e in task.data["effects"]]  # not the reference order
    _, reward, terminated, _, info = env.step(task.data["final_answer"])
    assert terminated and info["is_success"] and reward == pytest.approx(1.0)


def test_truncation_scores_without_an_answer():
    env = ToolCallEnv(max_turns=2)
    env.reset(seed=0, options={"task_id": "hw-bank-003"})
    act(env, ("find_customer", {"name": "Ada Lovelace"}))
    _, _, terminated, truncated, info = act(env, ("list_accounts", {"customer_id": "U01"}))
    assert truncated and not terminated and info["is_success"] is False
    assert info["reward_components"]["answer"] == 0.0 and info["metrics"]["answer/given"] == 0.0


def test_sample_action_is_well_formed(env):
    env.reset(seed=0, options={"task_id": "hw-calendar-001"})
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(200):
        action = env.sample_action(rng)
        if action.startswith(("{", "[")):
            value = json.loads(action)
            for call in value if isinstance(value, list) else [value]:
                assert call["name"] in env.world.tool_specs
                kinds.add(env.world.call(call["name"], call["arguments"]).kind)
        else:
            kinds.add("answer")
    assert {"ok", "answer"} <= kinds and "unknown_tool" not in kinds


def test_constructor_arguments_are_validated():
    env = ToolCallEnv(domains=["bank"])
    assert {env.tasks.get(i).data["domain"] for i in env.tasks.ids()} == {"bank"}
    with pytest.raises(ConfigError, match="Did you mean 'retail'"):
        ToolCallEnv(domains=["retial"])
    with pytest.raises(ConfigError, match="max_action_chars"):
        ToolCallEnv(max_action_chars=0)
    env = ToolCallEnv(max_action_chars=50)
    env.reset(seed=0)
    assert (
        "the limit is 50"
        in env.step(json.dumps({"name": "list_payees", "arguments": {"x": "y" * 60}}))[4]["action_error"]
    )


def test_render_ansi():
    env = ToolCallEnv(render_mode="ansi")
    env.reset(seed=0, options={"task_id": "hw-bank-002"})
    act(env, ("freeze_card", {"card_id": "K01"}))
    text = env.render()
    assert "task=hw-bank-002" in text and "calls=1 valid=1 ok=1" in text and "card K01 frozen" in text
    env.close()
    env.close()


@pytest.mark.parametrize(
    "template",
    [
        "Sure, let me cancel it: {call} and then I'll confirm.",
        "```json\n{call}\n```",
        "<tool_call>{call}</tool_call>",
    ],
)
def test_calls_in_prose_or_fences_run_but_count_against_format(env, template):
    env.reset(seed=0, options={"task_id": "hw-retail-003"})
    call = json.dumps({"name": "return_order", "arguments": {"order_id": "O1002"}})
    _, _, _, _, info = env.step(template.format(call=call))
    assert info["call_results"] == ["ok"] and info["action_error"] is None
    assert info["milestones"] == ["return of order O1002 requested"]
    _, _, terminated, _, info = env.step("Started a return, refund $454.13.")
    assert terminated and info["is_success"]
    assert info["reward_components"]["format"] == pytest.approx(1 / 2)
    assert info["reward_components"]["schema"] == 1.0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    actions=st.lists(
        st.text(max_size=200) | st.text(alphabet='{}[]":, name argumts0123456789', max_size=200), max_size=4
    )
)
def test_any_text_is_handled_and_only_successful_calls_change_the_world(env, actions):
    env.reset(seed=0, options={"task_id": "hw-bank-002"})
    for action in actions:
        before = env.world.state()
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(observation, str) and 0.0 <= reward <= 1.0
        if "ok" not in info.get("call_results", []):
            assert env.world.state() == before
        if terminated or truncated:
            assert set(info["reward_components"]) == set(COMPONENTS)
            break


def test_format_gate_zeroes_the_reward_but_not_the_success_criterion():
    env = ToolCallEnv(gates=["format"])
    env.reset(seed=0, options={"task_id": "hw-bank-004"})
    _, reward, terminated, _, info = env.step('I\'ll answer directly. {"name": "list_payees", "arguments": {}}')
    assert info["call_results"] == ["ok"] and not terminated
    _, reward, terminated, _, info = env.step("Paris.")
    assert terminated and reward == 0.0 and info["is_success"] is True
    assert info["reward_components"]["format"] == 0.5 and info["reward_components"]["state"] == 0.0
