"""RewardLab/BFCLMultiTurn-v1: contract, BFCL's turn checks, bad input, agreement with bfcl-eval."""

from __future__ import annotations

import itertools
import json
import random
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
from rewardlab.envs.bfcl.loader import load_multi_turn_tasks  # noqa: E402
from rewardlab.envs.bfcl.multi_turn import STEPS_PER_TURN, BFCLMultiTurnEnv  # noqa: E402
from rewardlab.envs.bfcl.worlds import APIWorld  # noqa: E402
from rewardlab.errors import MissingDependencyError  # noqa: E402
from rewardlab.evaluation import run_episode  # noqa: E402

FILES = "multi_turn_base_0"
# Turn 0: cd(folder='document'), mkdir(dir_name='temp'), mv(source='final_report.pdf', destination='temp');
# turn 1: cd(folder='temp'), grep(...); turn 2: sort(...); turn 3: cd(..), mv(...), cd(...), diff(...).

Script = list[list[list[tuple[str, dict]]]]  # per user turn, per step, the calls


@pytest.fixture(scope="module")
def env():
    env = BFCLMultiTurnEnv()
    yield env
    env.close()


def reference_script(env, task_id: str) -> Script:
    """BFCL's ground truth as keyword calls: one step per user turn (none for an empty turn)."""
    task = env.tasks.get(task_id)
    world = APIWorld(task.data["initial_config"], task.data["involved_classes"])
    return [[[world.keyword_call(source) for source in turn]] if turn else [] for turn in task.data["ground_truth"]]


def play(env, task_id: str, script: Script) -> tuple[float, dict, list[dict]]:
    """Play a script: each step's calls as one JSON list, then "Done." to end each user turn."""
    env.reset(seed=0, options={"task_id": task_id})
    infos = []
    for steps in script:
        for calls in steps:
            action = json.dumps([{"name": name, "arguments": arguments} for name, arguments in calls])
            _, reward, terminated, _, info = env.step(action)
            infos.append(info)
            assert not terminated
        _, reward, terminated, truncated, info = env.step("Done.")
        infos.append(info)
    assert terminated and not truncated
    return reward, info, infos


# ---------------------------------------------------------------------------- contract
def test_check_env_and_registration(env):
    check_env(env, skip_render_check=True)
    made = gym.make("RewardLab/BFCLMultiTurn-v1")
    assert isinstance(made.unwrapped, BFCLMultiTurnEnv)
    made.close()
    assert len(env.tasks) == 200 and env.tasks.ids("test") and env.tasks.ids("train")


def test_oracle_succeeds_on_every_task(env):
    oracle = OracleAgent(env)
    for task_id in env.tasks.ids():
        result = run_episode(env, oracle, task_id=task_id)
        assert result.is_success, (task_id, result.components)
        assert result.reward == pytest.approx(1.0)


def test_same_seed_same_trajectory_and_random_scores_low(env):
    first = run_episode(env, RandomAgent(env, seed=4), seed=4)
    again = run_episode(env, RandomAgent(env, seed=4), seed=4)
    assert (first.observations, first.reward, first.actions) == (again.observations, again.reward, again.actions)
    results = [run_episode(env, RandomAgent(env, seed=s), seed=s) for s in range(15)]
    assert np.mean([r.score for r in results]) < 0.5 and not any(r.is_success for r in results)


def test_reset_shows_the_first_request_and_the_tools(env):
    observation, info = env.reset(seed=0, options={"task_id": FILES})
    assert observation.startswith("Move 'final_report.pdf'") and "Available functions:" in observation
    names = {tool["function"]["name"] for tool in info["tools"]}
    assert {"cd", "mkdir", "mv", "post_tweet"} <= names and "cp" not in names  # cp is excluded in this task
    assert info["turn"] == 0 and env.milestone_names() == ("turn_0", "turn_1", "turn_2", "turn_3")


# ---------------------------------------------------------------------------- BFCL's checks per turn
def test_each_passed_turn_is_a_milestone(env):
    script = reference_script(env, FILES)
    reward, info, infos = play(env, FILES, script[:1] + [[] for _ in script[1:]])
    assert infos[1]["milestones"] == ["turn_0"] and infos[1]["progress"] == 0.25
    # Turns 1 and 2 only read files (the working directory is private state), so doing nothing keeps
    # their state matching, which earns no state credit: a read-only turn needs its calls made and its
    # results obtained. Turn 3 moves a file. Execution: the 3 of the 10 reference calls made.
    content = {"execution": 0.3, "state": 0.25, "response": 0.25, "turns": 0.25}
    assert info["reward_components"] == pytest.approx({"format": sum(content.values()) / 4, **content})
    assert info["metrics"]["state/matches"] == 0.75 and info["metrics"]["format/strict_actions"] == 1.0
    assert reward == pytest.approx(sum(info["reward_components"].values()) / 5) and not info["is_success"]


def test_calls_split_over_steps_still_pass(env):
    script = reference_script(env, FILES)
    one_call_per_step = [[[c] for c in itertools.chain.from_iterable(steps)] for steps in script]
    reward, info, _ = play(env, FILES, one_call_per_step)
    assert info["is_success"] and reward == pytest.approx(1.0)


def test_a_wrong_argument_fails_state(env):
    script = reference_script(env, FILES)
    script[0][0][1] = ("mkdir", {"dir_name": "tmp"})  # the wrong directory name
    _, info, _ = play(env, FILES, script)
    assert not info["is_success"] and info["reward_components"]["state"] < 1


def test_doing_nothing_passes_no_turn(env):
    _, info, _ = play(env, FILES, [[] for _ in range(4)])
    assert info["reward_components"]["turns"] == 0.0 and not info["is_success"]


# ---------------------------------------------------------------------------- bad input
def test_bad_actions_are_reported_and_the_turn_goes_on(env):
    env.reset(seed=0, options={"task_id": FILES})
    cases = [
        ('{"name": "cd", "arguments": {"folder": "document"', "invalid JSON", "format"),
        ('{"name": "cd", "arguments": {"folder": NaN}}', "NaN", "format"),
        ('{"name": "cd", "arguments": {"folder": "a", "folder": "b"}}', "duplicate key", "format"),
        ("[" * 10_000 + "]" * 10_000, "nested deeper", "format"),
        (json.dumps({"name": "cd", "arguments": {"folder": "x" * 10_000_000}}), "characters; the limit", "format"),
        (json.dumps({"name": "rm_rf", "arguments": {}}), "unknown function 'rm_rf'", "execution"),
        (json.dumps({"name": "cd", "arguments": {"bogus": 1}}), "unexpected keyword argument", "execution"),
        (f"Let me do it: ```json\n{json.dumps({'name': 'ls', 'arguments': {}})}\n```", "documented format", "format"),
    ]
    for action, message, _ in cases:
        observation, reward, terminated, truncated, info = env.step(action)
        assert message in info["action_error"] and not terminated and reward == 0.0
    _, _, terminated, _, info = env.step("Done.")
    assert not terminated and info["turn"] == 1
    final = play_rest(env)
    metrics = final["metrics"]
    assert metrics["format/strict_actions"] == pytest.approx(1 - 6 / 12)  # 6 of 12 actions (8 + 4 "Done.") not bare
    assert metrics["execution/failed_calls"] == pytest.approx(2 / 3)  # rm_rf and cd(bogus) failed, the fenced ls ran
    assert final["reward_components"]["execution"] == 0.0  # and no call did what a reference call did
    assert final["reward_components"]["format"] == 0.0  # format is scaled by the content, here none


def play_rest(env) -> dict:
    while True:
        _, _, terminated, truncated, info = env.step("Done.")
        if terminated or truncated:
            return info


def test_step_limit_per_user_turn_ends_the_episode(env):
    env.reset(seed=0, options={"task_id": FILES})
    for step in range(STEPS_PER_TURN):
        _, _, terminated, _, info = env.step(json.dumps({"name": "pwd", "arguments": {}}))
        assert terminated == (step == STEPS_PER_TURN - 1)
    assert not info["is_success"] and info["reward_components"]["turns"] == 0.0


def test_truncation_scores_the_turns_played(env):
    truncated_env = BFCLMultiTurnEnv(max_turns=2)
    truncated_env.reset(seed=0, options={"task_id": FILES})
    calls = reference_script(truncated_env, FILES)[0][0]
    truncated_env.step(json.dumps([{"name": n, "arguments": a} for n, a in calls]))
    _, _, terminated, truncated, info = truncated_env.step("Done.")
    assert truncated and not terminated and not info["is_success"]
    assert info["reward_components"]["turns"] == 0.25


def test_only_offered_methods_run_and_nothing_is_evaluated(env):
    env.reset(seed=0, options={"task_id": FILES})
    for name in ("__import__", "_load_scenario", "eval", "cp"):  # cp exists but is excluded in this task
        assert env.world.execute(name, {}) == f"Error during execution: unknown function {name!r}"
    with pytest.raises(ValueError, match="not a plain function call"):
        env.world.keyword_call("os.system('ls')")


def test_costly_math_is_refused_and_decimal_precision_is_contained():
    import decimal

    world = APIWorld({}, ["MathAPI"])
    precision = decimal.getcontext().prec
    assert world.execute("power", {"base": 10, "exponent": 10**9}).startswith("Error during execution: power result")
    assert world.execute("power", {"base": 1, "exponent": 10**9}) == '{"result": 1}'
    assert world.execute("power", {"base": 2, "exponent": 10}) == '{"result": 1024}'
    assert "precision above" in world.execute("square_root", {"number": 2, "precision": 10**9})
    assert "1.4142" in world.execute("square_root", {"number": 2, "precision": 5})
    assert decimal.getcontext().prec == precision


ACTIONS = st.text(max_size=200) | st.sampled_from(['{"name": "ls", "arguments": {"a": 1}}', "[]", "Done."])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=st.lists(ACTIONS, max_size=4))
def test_any_text_never_raises(env, actions):
    env.reset(seed=0, options={"task_id": FILES})
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(observation, str) and 0.0 <= reward <= 1.0
        if terminated or truncated:
            break


# ---------------------------------------------------------------------------- agreement with bfcl-eval
def as_source(name: str, arguments: dict) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def variants(script: Script, rng: random.Random) -> list[Script]:
    """The reference, and versions with a turn skipped, a turn delayed, a value changed, a call repeated."""
    turns = [k for k, steps in enumerate(script) if steps]
    result = [script]
    k = rng.choice(turns)
    result.append([[] if i == k else steps for i, steps in enumerate(script)])
    if k + 1 < len(script):
        result.append([[] if i == k else script[k] + steps if i == k + 1 else steps for i, steps in enumerate(script)])
    changed = json.loads(json.dumps(script))
    name, arguments = changed[k][0][rng.randrange(len(changed[k][0]))]
    for key, value in arguments.items():
        if isinstance(value, str):
            arguments[key] = value + "_x"
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            arguments[key] = value + 1
    result.append([[[tuple(call) for call in step] for step in steps] for steps in changed])
    repeated = [list(steps) for steps in script]
    repeated[k] = repeated[k] + [[repeated[k][0][-1]]]
    result.append(repeated)
    return result


def test_agreement_with_bfcl_multi_turn_checker(env):
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    rng = random.Random(3)
    compared = agree = passed = 0
    for number, task_id in enumerate(env.tasks.ids()[::4]):
        task = env.tasks.get(task_id)
        for variant, script in enumerate(variants(reference_script(env, task_id), rng)):
            _, info, _ = play(env, task_id, script)
            decoded = [[[as_source(name, args) for name, args in calls] for calls in steps] for steps in script]
            entry = {"id": task_id, **task.data}
            model_name = f"rl{number}x{variant}"  # bfcl-eval caches API instances per model name and task id
            theirs = multi_turn_checker(decoded, task.data["ground_truth"], entry, "multi_turn_base", model_name)
            compared += 1
            agree += info["is_success"] == theirs["valid"]
            passed += theirs["valid"]
    print(f"\nBFCL multi-turn agreement: {agree}/{compared} trajectories ({passed} pass in bfcl-eval)")
    assert compared >= 200 and 0.2 * compared < passed < 0.8 * compared
    assert agree / compared >= 0.99


def test_missing_bfcl_eval_names_the_extra(monkeypatch):
    load_multi_turn_tasks.cache_clear()
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    try:
        with pytest.raises(MissingDependencyError, match=r"rewardlab\[bfcl\]"):
            BFCLMultiTurnEnv()
    finally:
        load_multi_turn_tasks.cache_clear()
