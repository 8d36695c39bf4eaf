"""SWE-v2 reward fidelity (issue 14): results come from a channel the tested code cannot forge.

- The runner's signed records are the only result: a no-op ``runtest``, a plugin registered at
  run time, a forged result file and test files rewritten during the run are caught by the
  collector alone (these tests call :func:`run_tests` directly, without the static check).
- The test process starts so that nothing in the repository shadows a module.
- The static check flags changed test machinery files and "always equal" values, and passes
  every gold patch (what added code does is judged by the sealed run: tests/envs/swe/test_swe_verdict.py).
- Patches that fix no FAIL_TO_PASS test (comments, the right file broken) earn 0; an honest
  partial fix outscores every degenerate strategy of the audit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rewardlab  # noqa: F401  (registers the ids)
from rewardlab.audit import audit_env
from rewardlab.core.tasks import Task, TaskSet
from rewardlab.envs.swe import SWEEnv, load_tasks
from rewardlab.envs.swe.audit import RUNTEST_NOOP
from rewardlab.envs.swe.patch import apply_patch, changed_files
from rewardlab.envs.swe.tampering import (
    changes_code,
    code_features,
    evaluation_tree,
    find_tampering,
    top_level_packages,
)
from rewardlab.envs.swe.tasks import base_tree
from rewardlab.envs.swe.testrun import config_names, run_tests
from rewardlab.sandbox import Limits, LocalSandbox, SandboxedExecution

DEGENERATE = ("degenerate",)
"""The battery these tests read (the rewrite batteries on the same tasks: tests/audit/test_audit_envs.py)."""

TASKS = load_tasks()
FAST = SandboxedExecution(backend="local", timeout=20, limits=Limits(cpu_seconds=10, max_processes=32))
TASK = TASKS.get("textkit-1")
IDS = [*TASK.data["FAIL_TO_PASS"], *TASK.data["PASS_TO_PASS"]]
BASE = base_tree(TASK.data)
GOLD = apply_patch(BASE, TASK.data["patch"])
PARTIAL_FIX = "edit textkit/wrap.py 19:19\n            if current:\n                lines.append(current)"


def evaluated_files(data) -> set[str]:
    return {t.split("::")[0] for t in [*data["FAIL_TO_PASS"], *data["PASS_TO_PASS"]]} | set(
        changed_files(data["test_patch"])
    )


@pytest.fixture(scope="module")
def sandbox():
    return LocalSandbox(limits=FAST.limits)


def evaluate(sandbox, tmp_path, tree):
    """The hidden run of ``tree`` (test patch on top), without the static check."""
    return run_tests(sandbox, apply_patch(tree, TASK.data["test_patch"]), tmp_path / "eval", IDS, timeout=20)


def appended(tree, path, code):
    return {**tree, path: tree[path] + "\n" + code}


# ---------------------------------------------------------------------- the trusted channel
def test_verdicts_of_base_and_gold(sandbox, tmp_path):
    base, gold = evaluate(sandbox, tmp_path, BASE), evaluate(sandbox, tmp_path, GOLD)
    assert not base.tampering and not gold.tampering
    assert [base.passed[t] for t in TASK.data["FAIL_TO_PASS"]] == [False]
    assert all(base.passed[t] for t in TASK.data["PASS_TO_PASS"])
    assert all(gold.passed.values()) and set(gold.statuses.values()) == {"passed"}


def test_runtest_noop_is_caught_by_the_collector(sandbox, tmp_path):
    run = evaluate(sandbox, tmp_path, appended(BASE, "textkit/__init__.py", RUNTEST_NOOP))
    assert any("Function.runtest was replaced" in reason for reason in run.tampering), run.tampering


def test_a_plugin_registered_at_run_time_is_caught(sandbox, tmp_path):
    payload = (
        "import gc\nimport _pytest.config\n\n\nclass _Pass:\n"
        "    def pytest_runtest_makereport(self, item, call):\n        call.excinfo = None\n\n\n"
        "for _config in [o for o in gc.get_objects() if isinstance(o, _pytest.config.Config)]:\n"
        "    _config.pluginmanager.register(_Pass())\n"
    )
    run = evaluate(sandbox, tmp_path, appended(BASE, "textkit/__init__.py", payload))
    assert any("gc.get_objects" in reason for reason in run.tampering), run.tampering
    assert not any(run.passed.values())


def test_hooks_from_the_repository_must_come_from_vouched_files(sandbox, tmp_path):
    """A base ``pytest_plugins`` module may implement hooks; the same module changed by the agent may not."""
    plugin = "def pytest_runtest_setup(item):\n    pass\n"
    tree = {**BASE, "tests/conftest.py": 'pytest_plugins = ["helper_plugin"]\n', "helper_plugin.py": plugin}
    patched = apply_patch(tree, TASK.data["test_patch"])
    trusted = run_tests(sandbox, patched, tmp_path / "a", IDS, timeout=20, vouched=["helper_plugin.py"])
    assert not trusted.tampering and trusted.statuses
    untrusted = run_tests(sandbox, patched, tmp_path / "b", IDS, timeout=20)
    assert any("helper_plugin.py" in reason for reason in untrusted.tampering), untrusted.tampering


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc")
def test_a_child_process_cannot_read_the_collectors_memory(sandbox, tmp_path):
    """The collector is not dumpable: a process the tested code starts cannot open its memory (and key)."""
    probe = "import os; open('/proc/%d/mem' % os.getppid(), 'rb'); print('opened')"
    payload = (
        "import subprocess\nimport sys\n\n"
        f"_child = subprocess.run([sys.executable, '-c', {probe!r}], capture_output=True, text=True)\n"
        "with open('probe.txt', 'w') as _handle:\n    _handle.write(_child.stdout + _child.stderr)\n"
    )
    evaluate(sandbox, tmp_path, appended(BASE, "textkit/__init__.py", payload))
    probe_output = (tmp_path / "eval" / "repo" / "probe.txt").read_text()
    assert "PermissionError" in probe_output and "opened" not in probe_output


def test_exiting_at_import_leaves_no_verdict(sandbox, tmp_path):
    run = evaluate(sandbox, tmp_path, appended(BASE, "textkit/__init__.py", "import os\nos._exit(0)\n"))
    assert run.result.exit_code == 0 and run.statuses == {} and not any(run.passed.values())


def test_a_result_file_rewritten_at_exit_does_not_verify(sandbox, tmp_path):
    payload = (
        "import atexit\nimport json\nimport os\n\n\ndef _forge():\n"
        "    for root, _, names in os.walk('..'):\n        for name in names:\n"
        "            if name.endswith('.json'):\n"
        "                with open(os.path.join(root, name), 'w') as handle:\n"
        "                    handle.write(json.dumps({'body': json.dumps({'tests': {}}), 'mac': '0' * 64}))\n\n\n"
        "atexit.register(_forge)\n"
    )
    run = evaluate(sandbox, tmp_path, appended(BASE, "textkit/__init__.py", payload))
    assert run.tampering == ("the test result was forged or altered (a record does not verify)",)
    assert not any(run.passed.values())


def test_test_files_rewritten_during_the_run_are_caught(sandbox, tmp_path):
    payload = (
        "with open('tests/test_wrap.py', 'w') as _handle:\n"
        "    _handle.write('def test_wrap_packs_words():\\n    pass\\n')\n"
    )
    run = evaluate(sandbox, tmp_path, appended(BASE, "textkit/__init__.py", payload))
    assert "runner: tests/test_wrap.py changed during the run" in run.tampering


def test_nothing_in_the_repository_shadows_a_module(sandbox, tmp_path):
    names = ("json.py", "re.py", "unicodedata.py", "tests/json.py", "tests/decimal.py", "sitecustomize.py")
    shadows = {name: "raise SystemExit(3)\n" for name in names}
    run = evaluate(sandbox, tmp_path, {**GOLD, **shadows})
    assert not run.tampering and all(run.passed.values())


def test_a_pythonpath_setting_does_not_put_the_repository_first(sandbox, tmp_path):
    slug = GOLD["textkit/slug.py"].replace("import re\n", "import re\nimport colorsys\n")  # pytest never imports it
    tree = {**GOLD, "textkit/slug.py": slug, "pytest.ini": "[pytest]\npythonpath = .\n", "colorsys.py": "x = ("}
    run = run_tests(
        sandbox, apply_patch(tree, TASK.data["test_patch"]), tmp_path / "eval", IDS, timeout=20, config="pytest.ini"
    )
    assert not run.tampering and all(run.passed.values())


INSTALLED_TWIN = {  # a repository whose packages share their names with installed ones
    "six/__init__.py": "ORIGIN = 'repository'\n",
    "tests/__init__.py": "",
    "tests/conftest.py": "",
    "tests/test_twin.py": "import six\n\n\ndef test_repository_package_wins():\n"
    "    assert six.ORIGIN == 'repository'\n",
}


def test_the_repository_s_own_packages_win_over_installed_ones(sandbox, tmp_path):
    pytest.importorskip("six")  # installed here, like the stray top-level 'tests' package some wheels ship
    ids = ["tests/test_twin.py::test_repository_package_wins"]
    packages = top_level_packages(INSTALLED_TWIN)
    assert packages == ["six", "tests"]
    run = run_tests(sandbox, INSTALLED_TWIN, tmp_path / "a", ids, timeout=20, packages=packages)
    assert not run.tampering and run.passed == {ids[0]: True}
    without = run_tests(sandbox, INSTALLED_TWIN, tmp_path / "b", ids, timeout=20)
    assert without.passed == {ids[0]: False}  # what the finder fixes: the installed six stood in


def test_standard_library_and_runner_names_never_come_from_the_repository():
    tree = {"json/__init__.py": "", "pytest.py": "", "sitecustomize.py": "", "mylib/__init__.py": "", "tool.py": ""}
    assert top_level_packages(tree) == ["mylib", "tool"]


def test_unittest_test_cases_are_not_tampering(sandbox, tmp_path):
    tree = {
        "tests/test_case.py": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n"
        "        self.assertEqual(1, 1)\n"
    }
    run = run_tests(sandbox, tree, tmp_path / "u", ["tests/test_case.py::T::test_a"], timeout=20)
    assert not run.tampering and all(run.passed.values())


def test_a_function_subclass_from_the_repository_is_still_caught(sandbox, tmp_path):
    lenient = (  # a conftest (guarded, so its hooks are allowed) that gives every item a no-op runtest
        "from _pytest.python import Function\n\n\nclass Lenient(Function):\n    def runtest(self):\n        pass\n\n\n"
        "def pytest_collection_modifyitems(items):\n    for item in items:\n        item.__class__ = Lenient\n"
    )
    run = evaluate(sandbox, tmp_path, {**BASE, "tests/conftest.py": lenient})
    assert any("runtest" in reason for reason in run.tampering), run.tampering


def test_scratch_files_with_standard_library_names_are_not_tampering():
    snapshot = {**GOLD, "test.py": "from textkit import slugify\nprint(slugify('Crème'))\n", "json.py": "x = 1\n"}
    assert find_tampering(BASE, snapshot, evaluated_files(TASK.data)) == []


def test_config_names_come_from_the_installed_pytest():
    from _pytest.config.findpaths import CONFIG_LOADERS_BY_NAME

    assert set(CONFIG_LOADERS_BY_NAME) <= set(config_names())
    assert {".pytest.ini", "pytest.toml", "pyproject.toml", "setup.cfg", "tox.ini"} <= set(config_names())


# ---------------------------------------------------------------------- the static check
@pytest.mark.parametrize("task", list(TASKS), ids=lambda t: t.id)
def test_gold_patches_pass_the_static_check(task):
    base = base_tree(task.data)
    gold = apply_patch(base, task.data["patch"])
    assert find_tampering(base, gold, evaluated_files(task.data)) == []
    assert changes_code(base, gold)


@pytest.mark.parametrize(
    ("path", "text", "reason"),
    [
        ("textkit/slug.py", "class A(str):\n    def __eq__(self, other):\n        return True\n", "ignores what it"),
        ("textkit/slug.py", "class A:\n    __eq__ = lambda self, other: True\n", "ignores what it"),
        ("textkit/slug.py", "class A(str):\n    def __eq__(self, other):\n        return other is other\n", "str sub"),
        (".pytest.ini", "[pytest]\naddopts = -p evil\n", "changes pytest configuration"),
        ("pytest.toml", '[pytest]\naddopts = ["-p", "evil"]\n', "changes pytest configuration"),
        ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "--co"\n', "changes pytest configuration"),
        ("tests/conftest.py", "x = 1\n", "changes a conftest.py"),
        ("tests/__init__.py", "", "__init__.py in a test directory"),
        ("usercustomize.py", "x = 1\n", "interpreter start-up hook"),
        ("evil.pth", "import os\n", "interpreter start-up hook"),
        ("pytest.py", "x = 1\n", "shadows the module 'pytest'"),
        ("tests/_pytest/__init__.py", "x = 1\n", "shadows the module '_pytest'"),
    ],
)
def test_tampering_is_found(path, text, reason):
    snapshot = {**BASE, path: BASE.get(path, "") + text}
    found = find_tampering(BASE, snapshot, evaluated_files(TASK.data))
    assert any(reason in r for r in found), found


@settings(max_examples=80, deadline=None)
@given(
    st.text(st.characters(codec=None), max_size=300),
    st.sampled_from(["textkit/new.py", "textkit/slug.py", "setup.cfg", "pytest.toml"]),
)
def test_the_static_check_never_raises_on_any_text(text, path):
    found = find_tampering(BASE, {**BASE, path: text}, evaluated_files(TASK.data))
    assert isinstance(found, list) and all(isinstance(reason, str) for reason in found)
    assert isinstance(changes_code(BASE, {**BASE, path: text}), bool)


def test_the_static_check_counts_against_the_base():
    """Code the repository already had is not held against the agent; docstrings may name anything."""
    base = {"pkg/cli.py": "import sys\n\n\ndef main():\n    sys.exit(0)\n"}
    more = {"pkg/cli.py": base["pkg/cli.py"] + '\n\ndef helper():\n    """Run under pytest."""\n    return 1\n'}
    assert find_tampering(base, more, set()) == []
    assert code_features("import sys\nsys.exit(1)\nsys.exit(2)\n") == {}  # what code does is judged by the run
    assert find_tampering(base, {"pkg/cli.py": "import subprocess, threading\nx = eval('1')\n"}, set()) == []
    project = {"pyproject.toml": '[project]\nname = "x"\n'}
    bumped = {"pyproject.toml": '[project]\nname = "x"\nversion = "2"\n'}
    assert find_tampering(project, bumped, set()) == []  # pytest reads nothing new from it


def test_comment_and_docstring_edits_change_no_code():
    base = {"a.py": 'def f():\n    """Doc."""\n    return 1\n'}
    assert not changes_code(base, {"a.py": '# fixed!\ndef f():\n    """Better doc."""\n\n    return 1  # yes\n'})
    assert changes_code(base, {"a.py": 'def f():\n    """Doc."""\n    return 2\n'})
    assert changes_code(base, {**base, "NOTES.md": "x"})


def test_the_evaluation_resets_every_config_name_and_tests_init():
    tf = evaluated_files(TASK.data)
    snapshot = {**BASE, "tests/__init__.py": "x", "tests/conftest.py": "x", "rl.py": "x"}
    snapshot |= {name: "[pytest]\n" for name in config_names()}
    tree = evaluation_tree(snapshot, BASE, tf)
    assert "rl.py" in tree and not set(config_names()) & set(tree)
    assert "tests/__init__.py" not in tree and "tests/conftest.py" not in tree


# ---------------------------------------------------------------------- the env
@pytest.fixture(scope="module")
def env():
    environment = SWEEnv(sandbox=FAST)
    yield environment
    environment.close()


def test_tampering_scores_zero_and_says_why(env):
    env.reset(options={"task_id": "textkit-1"})
    env.step(f"edit textkit/__init__.py 1:0\n{RUNTEST_NOOP}")
    _, _, _, _, info = env.step("test")
    assert "all_tests_pass" not in info["milestones"] and "first_fail_to_pass" not in info["milestones"]
    _, reward, terminated, _, info = env.step("submit")
    assert terminated and reward == 0.0 and not info["is_success"]
    assert set(info["reward_components"].values()) == {0.0}
    assert any("Function.runtest was replaced" in reason for reason in info["tampering"])
    assert info["metrics"]["tests/tampering"] == 1.0


def test_tampering_is_reported_when_the_turn_budget_ends_the_episode():
    short = SWEEnv(sandbox=FAST, max_turns=2)
    try:
        short.reset(options={"task_id": "tabular-4"})
        short.step("create tests/conftest.py\nimport pytest\n")
        _, reward, terminated, truncated, info = short.step("list")
        assert truncated and not terminated and reward == 0.0
        assert info["tampering"] == ["tests/conftest.py: changes a conftest.py"]
    finally:
        short.close()


def test_a_comment_in_the_bug_file_earns_nothing(env):
    env.reset(options={"task_id": "textkit-1"})
    _, reward, _, _, info = env.step("edit textkit/slug.py 1:0\n# Fixed: keep accented letters.")
    _, reward, _, _, info = env.step("submit")
    assert reward == 0.0 and info["tampering"] == []
    assert info["metrics"]["applies/changes_code"] == 0.0 and info["metrics"]["localization/f1"] == 1.0


def test_honest_partial_fix_outscores_every_degenerate_strategy(env):
    """textkit-3 has two FAIL_TO_PASS tests; an honest agent that fixes one of them and stops earns
    (0 + ½ + ½·p2p + ½ + ½)/5 ≈ 0.4, above every strategy of the audit on the same task."""
    env.reset(options={"task_id": "textkit-3"})
    for action in ["view textkit/wrap.py", "python\nfrom textkit import wrap\nprint(wrap('a ' * 3, 1))", PARTIAL_FIX]:
        env.step(action)
    _, reward, _, _, info = env.step("submit")
    assert not info["is_success"] and info["tampering"] == []
    components, p2p = info["reward_components"], info["metrics"]["regression/pass_to_pass_fraction"]
    assert components == pytest.approx(
        {"resolved": 0.0, "tests": 0.5, "regression": 0.5 * p2p, "applies": 0.5, "localization": 0.5}
    )
    assert reward == pytest.approx((1.5 + 0.5 * p2p) / 5) and reward > 0.35

    only = TaskSet(
        [Task("textkit-3", "test", TASKS.get("textkit-3").prompt, TASKS.get("textkit-3").data), TASKS.get("textkit-1")]
    )
    report = audit_env("RewardLab/SWE-v2", env_kwargs={"tasks": only, "sandbox": FAST}, batteries=DEGENERATE)
    assert report.oracle.successes == 1
    assert len(report.rows) >= 20
    best = max(report.rows, key=lambda row: row.mean_reward)
    assert reward > best.mean_reward, report.format_table()
    assert not report.flagged, report.format_table()
