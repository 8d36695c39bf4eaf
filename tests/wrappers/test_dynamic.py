import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.errors import ConfigError
from rewardlab.wrappers import DynamicRubric, discrimination_weights
from tests.wrappers.stairs import StairsEnv


def test_hand_computed_weights():
    rows = [
        {"a": 1.0, "b": 0.5, "c": 0.2},
        {"a": 0.0, "b": 0.5, "c": 0.4},
        {"a": 0.7, "b": 0.1, "c": 0.9},  # a group of one: ignored
    ]
    weights = discrimination_weights(rows, ["x", "x", "y"], floor=0.1)
    var_a, var_c = 0.25, 0.01  # population variances within group x
    assert weights["b"] == pytest.approx(0.1)
    assert weights["a"] == pytest.approx(0.1 + 0.7 * var_a / (var_a + var_c))
    assert weights["c"] == pytest.approx(0.1 + 0.7 * var_c / (var_a + var_c))


def test_equal_weights_without_within_group_spread():
    rows = [{"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 1.0}]
    assert discrimination_weights(rows, ["x", "y"]) == {"a": 0.5, "b": 0.5}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=20),
    st.floats(0.01, 1 / 3),
)
def test_weights_sum_to_one_and_never_drop_below_the_floor(batch, floor):
    rows = [{"a": b[1], "b": b[2], "c": b[3]} for b in batch]
    weights = discrimination_weights(rows, [b[0] for b in batch], floor=floor)
    assert sum(weights.values()) == pytest.approx(1.0)
    assert min(weights.values()) >= floor - 1e-12


def test_wrapper_upweights_the_component_that_varies_within_a_task():
    env = DynamicRubric(StairsEnv(), floor=0.05)
    assert env.weights == pytest.approx({"reached": 1 / 3, "closeness": 1 / 3, "format": 1 / 3})
    # on task s5 (target 5) every episode is all-valid actions, so "format" never varies; heights differ
    for n_up in [5, 1, 3, 5, 0, 2]:
        env.reset(seed=0, options={"task_id": "s5"})
        for _ in range(n_up):
            env.step("up")
        _, reward, _, _, info = env.step("submit")
    assert env.weights["format"] == pytest.approx(0.05)
    assert env.weights["closeness"] > env.weights["format"] and env.weights["reached"] > env.weights["format"]
    # the last episode was scored with the weights from the five before it
    used = info["dynamic_rubric"]["weights"]
    components = info["reward_components"]
    assert reward == pytest.approx(sum(used[k] * components[k] for k in components))
    assert used != env.weights


def test_window_keeps_only_recent_episodes():
    env = DynamicRubric(StairsEnv(), window=2)
    for _ in range(4):
        env.reset(seed=0, options={"task_id": "s0"})
        env.step("submit")
    assert len(env.history) == 2
    assert env.weights == pytest.approx({k: 1 / 3 for k in env.weights})  # identical episodes: no spread


def test_groups_are_tasks():
    env = DynamicRubric(StairsEnv(), floor=0.1)
    # one episode per task: heights differ across tasks, but no task has two rollouts
    for task_id, ups in [("s0", 2), ("s1", 0), ("s2", 4)]:
        env.reset(seed=0, options={"task_id": task_id})
        for _ in range(ups):
            env.step("up")
        env.step("submit")
    assert env.weights == pytest.approx({k: 1 / 3 for k in env.weights})
    assert [g for g, _ in env.history] == ["s0", "s1", "s2"]


@pytest.mark.parametrize(
    ("kwargs", "match"), [({"floor": 0.0}, "floor"), ({"floor": 0.5}, r"\(0, 0.3333\]"), ({"window": 1}, "window")]
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        DynamicRubric(StairsEnv(), **kwargs)


def test_outcome_replacing_wrappers_do_not_stack():
    from rewardlab.wrappers import PotentialShaping, ReweightRubric

    with pytest.raises(ConfigError, match="both replace the outcome reward"):
        DynamicRubric(PotentialShaping(ReweightRubric(StairsEnv(), "min")))
    with pytest.raises(ConfigError, match="both replace the outcome reward"):
        ReweightRubric(DynamicRubric(StairsEnv()))


def test_running_sums_match_the_batch_function_over_the_window():
    env = DynamicRubric(StairsEnv(), floor=0.02, window=7)
    rng = np.random.default_rng(0)
    for _ in range(25):  # evictions included
        env.reset(seed=0, options={"task_id": str(rng.choice(["s0", "s1", "s2"]))})
        for _ in range(int(rng.integers(0, 4))):
            env.step(str(rng.choice(["up", "down", "jump"])))
        env.step("submit")
        groups, rows = zip(*env.history, strict=True)
        assert env.weights == pytest.approx(discrimination_weights(rows, groups, floor=0.02))


def test_the_env_rubric_with_the_current_weights_recombines_the_components():
    env = DynamicRubric(StairsEnv(gates=["format"]), floor=0.05)
    assert env.rubric.gate_thresholds == {} and env.rubric.aggregate == "mean"
    for n_up in [5, 1, 3]:
        env.reset(seed=0, options={"task_id": "s5"})
        for _ in range(n_up):
            env.step("up")
        env.step("submit")
    assert env.rubric.normalized_weights == env.weights
    components = {"reached": 1.0, "closeness": 0.5, "format": 0.0}  # no gate of its own: format 0 is just 0
    assert env.outcome_reward(components) == (
        pytest.approx(env.weights["reached"] + 0.5 * env.weights["closeness"]),
        None,
    )
