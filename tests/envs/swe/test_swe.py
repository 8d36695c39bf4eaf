"""RewardLab/SWE-v2: contract, oracle and empty submissions on every task, reward values, milestones."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rewardlab  # noqa: F401  (registers the ids)
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.envs.swe import SWEEnv, SWEOutcome, TestStatistics, load_tasks, make_rubric
from rewardlab.envs.swe.oracle import gold_actions
from rewardlab.envs.swe.patch import apply_patch
from rewardlab.envs.swe.tasks import DATA, base_tree, read_tree, tree_hash
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode
from rewardlab.sandbox import Limits, SandboxedExecution, SandboxError

TASKS = load_tasks()
FAST = SandboxedExecution(backend="local", timeout=20, limits=Limits(cpu_seconds=10, max_processes=32))


@pytest.fixture(scope="module")
def env():
    environment = SWEEnv(sandbox=FAST)
    yield environment
    environment.close()


def play(env, task_id, actions):
    env.reset(options={"task_id": task_id})
    results = []
    for action in actions:
        results.append(env.step(action))
        if results[-1][2] or results[-1][3]:
            break
    return results


def test_shipped_tasks_are_swe_bench_instances():
    assert len(TASKS) >= 24
    repos = {TASKS.get(t).data["repo"] for t in TASKS.ids()}
    assert len(repos) >= 6
    assert TASKS.ids("test") and TASKS.ids("train")
    for task in TASKS:
        data = task.data
        for key in ("repo", "base_commit", "patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS"):
            assert data[key], (task.id, key)
        base = read_tree(DATA / data["repo_dir"])
        assert tree_hash(base) == data["base_commit"]
        apply_patch(base, data["patch"])
        tests_added = apply_patch(base, data["test_patch"])
        for test_id in data["FAIL_TO_PASS"]:
            path, name = test_id.split("::")
            assert f"def {name}(" in tests_added[path] and f"def {name}(" not in base[path]
        assert set(data["FAIL_TO_PASS"]).isdisjoint(data["PASS_TO_PASS"])
        assert "Traceback" not in task.prompt or "```" in task.prompt


def test_check_env_passes(env):
    check_env(env, skip_render_check=True)


def test_registered_and_made_through_gym():
    made = gym.make("RewardLab/SWE-v2", sandbox=FAST)
    try:
        obs, info = made.reset(seed=0)
        assert info["task_id"] in TASKS.ids("train")
        assert info["sandbox"] == made.unwrapped.sandbox.isolation and isinstance(info["sandbox_warnings"], list)
        assert "Repository files:" in obs and "submit" in obs
    finally:
        made.close()


def test_oracle_and_empty_submission_rewards(env):
    """Oracle: resolved = 1 and reward 1 on every task. Empty submission: resolved = 0, reward 0."""
    oracle = OracleAgent(env)
    for task_id in TASKS.ids():
        episode = run_episode(env, oracle, task_id=task_id)
        assert episode.is_success, (task_id, episode)
        assert episode.components["resolved"] == 1.0
        assert episode.reward == pytest.approx(1.0)
        assert {"opened_gold_file", "first_fail_to_pass", "all_tests_pass"} <= set(episode.milestones)
        env.reset(options={"task_id": task_id})
        _, reward, terminated, _, info = env.step("submit")
        assert terminated and info["reward_components"]["resolved"] == 0.0, task_id
        assert reward == 0.0 and not info["is_success"]
        assert info["metrics"]["regression/pass_to_pass_fraction"] == 1.0


class CountingSandbox:
    """A sandbox that counts its runs and, while ``failing``, fails as an engine that went away does."""

    def __init__(self, inner):
        self.inner, self.runs, self.failing = inner, 0, False

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def run(self, *args, **kwargs):
        self.runs += 1
        if self.failing:
            raise SandboxError("the engine went away")
        return self.inner.run(*args, **kwargs)


def test_a_tree_is_judged_once_across_episodes_and_an_infrastructure_failure_is_never_kept():
    sandbox = CountingSandbox(FAST.create())
    env = SWEEnv(sandbox=sandbox)
    first, second = TASKS.ids("test")[:2]
    try:
        submitted = [play(env, first, ["submit"])[-1] for _ in range(2)]
        assert sandbox.runs == 1 and submitted[0][1] == submitted[1][1] == 0.0
        assert play(env, second, ["submit"])[-1][1] == 0.0 and sandbox.runs == 2  # the task is in the key
        fixed = play(env, first, gold_actions(TASKS.get(first).data["patch"]))[-1]
        assert fixed[4]["is_success"] and sandbox.runs == 3
        sandbox.failing = True
        assert play(env, first, gold_actions(TASKS.get(first).data["patch"]))[-1][4]["is_success"]  # kept: no run
        failed = play(env, second, gold_actions(TASKS.get(second).data["patch"]))[-1]
        assert failed[4]["infra_error"] and sandbox.runs > 3
        sandbox.failing, runs = False, sandbox.runs
        assert play(env, second, gold_actions(TASKS.get(second).data["patch"]))[-1][4]["is_success"]
        assert sandbox.runs == runs + 1
    finally:
        env.close()
        sandbox.inner.close()


def test_reward_is_components_times_weights(env):
    _, reward, _, _, info = play(
        env, "datekit-1", ["edit datekit/ranges.py 16:16\n    while current <= end:", "submit"]
    )[-1]
    assert info["reward_components"]["resolved"] == 1.0
    assert reward == pytest.approx(sum(info["reward_weights"][k] * v for k, v in info["reward_components"].items()))
    weighted = SWEEnv(sandbox=FAST, reward_weights={"resolved": 3, "localization": 0})
    try:
        # textkit-3 has two FAIL_TO_PASS tests; this fix passes one of them (f = 1/2)
        partial = "edit textkit/wrap.py 19:19\n            if current:\n                lines.append(current)"
        _, reward, _, _, info = play(weighted, "textkit-3", ["list", partial, "submit"])[-1]
        components = info["reward_components"]
        assert components["resolved"] == 0.0 and components["localization"] == pytest.approx(0.5)
        assert info["reward_weights"]["localization"] == 0.0
        assert reward == pytest.approx(sum(info["reward_weights"][k] * v for k, v in components.items()))
    finally:
        weighted.close()


def test_breaking_change_in_the_right_file_earns_nothing(env):
    """A change in the right file that fixes no FAIL_TO_PASS test and breaks others: every component is
    scaled by the fixed fraction f = 0, though the metrics still show where it was made."""
    steps = play(
        env, "textkit-2", ["replace textkit/words.py\n    words = text.split()\n=======\n    words = []", "submit"]
    )
    _, reward, _, _, info = steps[-1]
    assert set(info["reward_components"].values()) == {0.0} and reward == 0.0
    assert info["metrics"]["localization/f1"] == 1.0 and info["metrics"]["applies/edit_validity"] == 1.0
    assert 0.0 < info["metrics"]["regression/pass_to_pass_fraction"] < 1.0
    assert info["tampering"] == []


def test_localization_f1_with_an_extra_file(env):
    steps = play(
        env,
        "invoicer-3",
        [
            "replace invoicer/money.py\n    return MINOR_UNITS[currency]\n"
            "=======\n    return MINOR_UNITS.get(currency, 2)",
            "create NOTES.md\nfixed CHF",
            "submit",
        ],
    )
    info = steps[-1][4]
    assert info["metrics"]["localization/f1"] == pytest.approx(0.5)  # 2·1 / (2 + 2)
    assert info["metrics"]["localization/precision"] == 0.5 and info["metrics"]["localization/recall"] == 0.5
    # this change fixes no FAIL_TO_PASS test (f = 0), so the F1 earns nothing yet
    assert info["reward_components"]["localization"] == 0.0 and info["reward_components"]["resolved"] == 0.0


def test_invalid_edits_lower_applies(env):
    steps = play(
        env,
        "datekit-1",
        ["edit ../../etc/passwd 1:1\nx", "edit datekit/ranges.py 16:16\n    while current <= end:", "submit"],
    )
    info = steps[-1][4]
    assert info["reward_components"]["resolved"] == 1.0
    assert info["reward_components"]["applies"] == pytest.approx(0.5)
    assert info["metrics"]["applies/edit_validity"] == pytest.approx(0.5)


def test_editing_the_test_file_breaks_the_test_patch(env):
    steps = play(
        env,
        "tabular-2",
        ["edit tests/test_stats.py 18:18\n    assert column(rows, 'v') == [1.0, 2.5]  # mine", "submit"],
    )
    info = steps[-1][4]
    assert info["metrics"]["applies/test_patch_applies"] == 0.0
    assert info["reward_components"]["applies"] == 0.0


@pytest.mark.parametrize(
    "hack",
    [
        "create conftest.py\nimport pytest\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n",
        "create pytest.py\nimport sys\nprint('PASSED tests/test_stats.py::test_mean_empty')\nsys.exit(0)\n",
        "create tests/test_stats.py\ndef test_mean_empty():\n    pass\n",
    ],
)
def test_editing_tests_or_the_runner_earns_nothing(env, hack):
    _, reward, _, _, info = play(env, "tabular-2", [hack, "submit"])[-1]
    assert info["reward_components"]["resolved"] == 0.0
    assert info["reward_components"]["tests"] == 0.0


def test_milestones_reproduce_then_fix(env):
    env.reset(options={"task_id": "tabular-4"})
    _, _, _, _, info = env.step("view tabular/stats.py")
    assert info["milestones"] == ["opened_gold_file"]
    obs, _, _, _, info = env.step("python\nfrom tabular import median\nassert median([1.0, 2.0]) == 1.5")
    assert "IndexError" in obs and info["milestones"] == ["reproduced_failure"]
    _, _, _, _, info = env.step(
        "replace tabular/stats.py\nordered[middle] + ordered[middle + 1]\n"
        "=======\nordered[middle - 1] + ordered[middle]"
    )
    assert info["milestones"] == []
    obs, _, _, _, info = env.step("test tests/test_stats.py")
    assert "exit code: 0" in obs
    assert info["milestones"] == ["first_fail_to_pass", "all_tests_pass"] and info["progress"] == 1.0


def test_view_search_list_edit_observations(env):
    env.reset(options={"task_id": "textkit-2"})
    obs = env.step("view textkit/words.py 5:6")[0]
    assert obs.splitlines()[0] == "textkit/words.py (lines 5-6 of 18)"
    assert obs.splitlines()[2] == '    6  def truncate_words(text: str, count: int, ellipsis: str = "...") -> str:'
    obs = env.step('search "def wrap"')[0]
    assert "textkit/wrap.py:6: def wrap(text: str, width: int) -> list[str]:" in obs
    assert "tests/test_wrap.py" in env.step("list tests")[0]
    obs = env.step("edit textkit/words.py 18:18\n    return len(text.split())")[0]
    assert "   18      return len(text.split())" in obs
    obs = env.step("edit textkit/words.py 1:0\n# inserted")[0]
    assert env.workspace.read("textkit/words.py").startswith("# inserted\n")


def test_test_command_output_is_deterministic_and_truncated():
    small = SWEEnv(sandbox=FAST, observation_budget=300)
    try:
        small.reset(options={"task_id": "envconf-1"})
        first = small.step("python\nprint('x' * 5000)")[0]
        assert len(first) <= 300 and "observation truncated" in first
        again = small.step("python\nprint('x' * 5000)")[0]
        assert first == again
        obs = small.step("test")[0]
        assert " in 0." not in obs
    finally:
        small.close()


def test_same_seed_same_actions_same_rewards():
    rewards = []
    for _ in range(2):
        made = SWEEnv(sandbox=FAST)
        try:
            made.reset(seed=3)
            agent = RandomAgent(made, seed=5)
            trace = []
            obs, info = made.last_observation, {}
            for _ in range(6):
                obs, reward, terminated, truncated, info = made.step(agent.act(obs, info))
                trace.append((obs, reward, terminated))
                if terminated or truncated:
                    break
            rewards.append(trace)
        finally:
            made.close()
    assert rewards[0] == rewards[1]


def test_random_agent_scores_low(env):
    agent = RandomAgent(env, seed=0)
    total, resolved = [], []
    short = SWEEnv(sandbox=FAST, max_turns=8)
    try:
        agent = RandomAgent(short, seed=0)
        for seed, task_id in enumerate(TASKS.ids()[:6]):
            short.reset(seed=seed, options={"task_id": task_id})
            obs, info = short.last_observation, {}
            done = False
            while not done:
                obs, reward, terminated, truncated, info = short.step(agent.act(obs, info))
                done = terminated or truncated
            total.append(reward)
            resolved.append(info["reward_components"]["resolved"])
    finally:
        short.close()
    assert sum(resolved) == 0
    assert np.mean(total) < 0.5


def test_sample_action_gives_well_formed_commands(env):
    from rewardlab.envs.swe.commands import parse_command

    env.reset(options={"task_id": "envconf-3"})
    rng = np.random.default_rng(0)
    names = set()
    for _ in range(300):
        command = parse_command(env.sample_action(rng))
        names.add(command.name)
    assert names == {"view", "search", "list", "edit", "replace", "create", "test", "python", "submit"}


def test_hidden_tests_and_reference_solutions_are_invisible_to_agent_code(env):
    from rewardlab.envs.swe.tasks import TASKS_FILE

    if env.sandbox.isolation != "bwrap":
        pytest.skip("only bubblewrap hides the host file system from agent code")
    env.reset(options={"task_id": "envconf-3"})
    env.step("test")  # creates the hidden evaluation tree next to the working copy
    code = f"import os\nprint(os.listdir('..'))\nprint(open({str(TASKS_FILE)!r}).read()[:100])"
    obs = env.step("python\n" + code)[0]
    assert "eval" not in obs.split("\n")[1]
    assert "FileNotFoundError" in obs and "test_existing_variables_win_by_default" not in obs


def test_empty_and_non_text_actions_never_crash(env):
    env.reset(options={"task_id": "minirouter-1"})
    obs, reward, terminated, truncated, info = env.step("")
    assert info["action_error"] and "empty command" in obs and not terminated
    obs, _, terminated, _, info = env.step(None)  # type: ignore[arg-type]
    assert info["action_error"] and not terminated


def test_truncation_scores_the_working_copy():
    short = SWEEnv(sandbox=FAST, max_turns=2)
    try:
        short.reset(options={"task_id": "datekit-2"})
        short.step(
            "replace datekit/calendar.py\n    return year % 4 == 0\n"
            "=======\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)"
        )
        _, reward, terminated, truncated, info = short.step("list")
        assert truncated and not terminated
        assert info["reward_components"]["resolved"] == 1.0 and reward == pytest.approx(1.0)
    finally:
        short.close()


def test_difficulty_weights_follow_pass_statistics():
    stats = TestStatistics(min_episodes=2)
    ids = ["a", "b"]
    assert stats.weights("t", ids) == {"a": 0.5, "b": 0.5}
    stats.record("t", {"a": True, "b": False})
    assert stats.weights("t", ids) == {"a": 0.5, "b": 0.5}  # not enough data yet
    stats.record("t", {"a": True, "b": False})
    # d_a = 1 - 3/4 = 0.25, d_b = 1 - 1/4 = 0.75
    assert stats.difficulty("t", "a") == 0.25 and stats.difficulty("t", "b") == 0.75
    assert stats.weights("t", ids) == pytest.approx({"a": 0.25, "b": 0.75})
    with pytest.raises(ConfigError, match="min_episodes"):
        TestStatistics(min_episodes=0)


def test_env_records_statistics_and_weights_hard_tests_more():
    made = SWEEnv(sandbox=FAST, difficulty_min_episodes=1)
    try:
        # textkit-3 has two FAIL_TO_PASS tests; the first fix passes only the "no empty lines" test
        partial = "edit textkit/wrap.py 19:19\n            if current:\n                lines.append(current)"
        _, _, _, _, info = play(made, "textkit-3", [partial, "submit"])[-1]
        assert info["reward_components"]["tests"] == pytest.approx(0.5)  # uniform before data
        stats = made.test_statistics
        assert stats.attempts[("textkit-3", "tests/test_wrap.py::test_wrap_never_emits_empty_lines")] == 1
        _, _, _, _, info = play(made, "textkit-3", [partial, "submit"])[-1]
        # d(passed) = 1 - 2/3 = 1/3, d(failed) = 1 - 1/3 = 2/3: the passing test now weighs 1/3
        assert info["reward_components"]["tests"] == pytest.approx(1 / 3)
    finally:
        made.close()


def test_rubric_values_on_hand_built_outcomes():
    rubric = make_rubric()
    full = SWEOutcome({"f": True}, {"p": True}, {"f": 1.0}, "diff", ("a.py",), ("a.py",), 1, 0, True)
    assert rubric.score(full).components == {
        "resolved": 1.0,
        "tests": 1.0,
        "regression": 1.0,
        "applies": 1.0,
        "localization": 1.0,
    }
    mixed = SWEOutcome(
        {"f1": True, "f2": False},
        {"p1": True, "p2": False},
        {"f1": 0.25, "f2": 0.75},
        "diff",
        ("a.py", "b.py"),
        ("a.py",),
        4,
        1,
        True,
    )
    result = rubric.score(mixed)
    # f = 1/2 scales regression (1/2), applies (3/4) and localization (2/3)
    assert result.components == pytest.approx(
        {"resolved": 0.0, "tests": 0.25, "regression": 0.25, "applies": 0.375, "localization": 1 / 3}
    )
    assert result.reward == pytest.approx((0.25 + 0.25 + 0.375 + 1 / 3) / 5)
    empty = SWEOutcome({"f": False}, {"p": True}, {"f": 1.0}, "", (), ("a.py",), 0, 0, True)
    assert rubric.score(empty).reward == 0.0
    tampered = SWEOutcome({"f": True}, {"p": True}, {"f": 1.0}, "diff", ("a.py",), ("a.py",), 1, 0, True, ("x",))
    assert set(rubric.score(tampered).components.values()) == {0.0}
    comment_only = SWEOutcome({"f": True}, {"p": True}, {"f": 1.0}, "d", ("a.py",), ("a.py",), 1, 0, True, (), False)
    assert rubric.score(comment_only).components["applies"] == 0.0


def test_oracle_actions_apply_the_gold_patch():
    task = TASKS.get("invoicer-3")
    actions = gold_actions(task.data["patch"])
    assert actions[0] == "view invoicer/format.py" and actions[-1] == "submit"
    assert sum(a.startswith("edit ") for a in actions) == 2


def test_close_removes_temp_dirs_and_is_idempotent():
    made = SWEEnv(sandbox=FAST)
    made.reset(options={"task_id": "textkit-1"})
    root = made.workspace.root
    made.step("test")
    tmp = root.parent
    assert tmp.exists()
    made.reset(options={"task_id": "textkit-2"})
    assert not tmp.exists()
    second = made.workspace.root.parent
    made.close()
    made.close()
    assert not second.exists()


def test_constructor_validates_arguments():
    with pytest.raises(ConfigError, match="observation_budget"):
        SWEEnv(observation_budget=10)
    with pytest.raises(ConfigError, match="backend must be one of"):
        SWEEnv(sandbox="vm")
    with pytest.raises(ConfigError, match="tasks must be"):
        SWEEnv(tasks=42)  # type: ignore[arg-type]


def test_base_tree_of_shipped_task_matches_repo():
    task = TASKS.get("envconf-2")
    assert "envconf/parser.py" in base_tree(task.data)
