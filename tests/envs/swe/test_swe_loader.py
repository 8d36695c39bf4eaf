"""Loading SWE-bench-format JSONL that points at a local git repository built by the test."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from rewardlab.agents import OracleAgent
from rewardlab.envs.swe import SWEEnv, load_swebench_jsonl
from rewardlab.envs.swe.patch import make_patch
from rewardlab.errors import ConfigError
from rewardlab.evaluation import run_episode
from rewardlab.sandbox import Limits, SandboxedExecution

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
FAST = SandboxedExecution(backend="local", timeout=20, limits=Limits(cpu_seconds=10, max_processes=32))

BASE = {
    "shout/__init__.py": "from shout.core import shout\n",
    "shout/core.py": "def shout(text: str, times: int = 1) -> str:\n"
    '    """Upper-case ``text`` and add ``times`` exclamation marks."""\n'
    '    return text.upper() + "!" * (times - 1)\n',
    "tests/test_core.py": "from shout import shout\n\n\ndef test_upper():\n    assert shout('hi').startswith('HI')\n",
    "README.md": "# shout\n",
}
FIXED = {**BASE, "shout/core.py": BASE["shout/core.py"].replace('"!" * (times - 1)', '"!" * times')}
WITH_TESTS = {
    **BASE,
    "tests/test_core.py": BASE["tests/test_core.py"] + "\n\ndef test_marks():\n    assert shout('hi', 2) == 'HI!!'\n",
}


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "shout"
    path.mkdir()
    git(path, "init", "-q")
    for name, text in BASE.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    (path / "logo.png").write_bytes(b"\x89PNG\x00\x01binary")
    git(path, "add", ".")
    git(path, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "base")
    base_commit = git(path, "rev-parse", "HEAD")
    (path / "shout/core.py").write_text("def shout(text, times=1):\n    return 'later change'\n")
    git(path, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-am", "later")
    return path, base_commit


def write_jsonl(tmp_path, rows):
    path = tmp_path / "instances.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def instance(base_commit, **overrides):
    row = {
        "instance_id": "shout__shout-1",
        "repo": "shout",
        "base_commit": base_commit,
        "problem_statement": "shout('hi', 2) gives 'HI!' but should give 'HI!!'",
        "patch": make_patch(BASE, FIXED),
        "test_patch": make_patch(BASE, WITH_TESTS),
        "FAIL_TO_PASS": json.dumps(["tests/test_core.py::test_marks"]),
        "PASS_TO_PASS": ["tests/test_core.py::test_upper"],
    }
    row.update(overrides)
    return row


def test_loaded_task_is_playable_and_checked_out_at_base_commit(tmp_path, repo):
    _, base_commit = repo
    tasks = load_swebench_jsonl(write_jsonl(tmp_path, [instance(base_commit)]))
    task = tasks.get("shout__shout-1")
    assert task.split == "test" and task.data["FAIL_TO_PASS"] == ["tests/test_core.py::test_marks"]
    env = SWEEnv(tasks=tasks, sandbox=FAST)
    try:
        obs, _ = env.reset(options={"task_id": "shout__shout-1"})
        assert "shout/core.py" in obs and "logo.png" not in obs  # binary files are not checked out
        assert '"!" * (times - 1)' in env.workspace.read("shout/core.py")  # base, not the later commit
        episode = run_episode(env, OracleAgent(env), task_id="shout__shout-1")
        assert episode.is_success and episode.components["resolved"] == 1.0
        env.reset(options={"task_id": "shout__shout-1"})
        _, reward, _, _, info = env.step("submit")
        assert info["reward_components"]["resolved"] == 0.0 and reward == 0.0
    finally:
        env.close()


def test_env_accepts_a_jsonl_path(tmp_path, repo):
    _, base_commit = repo
    path = write_jsonl(tmp_path, [instance(base_commit, split="train")])
    env = SWEEnv(tasks=str(path), sandbox=FAST)
    try:
        assert env.tasks.ids("train") == ["shout__shout-1"]
    finally:
        env.close()


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"base_commit": "0" * 40}, "cannot read commit"),
        ({"repo": "missing"}, "not a local git repository"),
        ({"patch": "--- a/shout/core.py\n+++ b/shout/core.py\n@@ -1 +1 @@\n-nope\n+x\n"}, "patch does not apply"),
        ({"FAIL_TO_PASS": "not json"}, "FAIL_TO_PASS must be a list"),
        ({"FAIL_TO_PASS": []}, "FAIL_TO_PASS is empty"),
        ({"split": "dev"}, "split must be one of"),
        ({"patch": None, "test_patch": None}, "does not apply|missing"),
    ],
)
def test_bad_instances_raise_config_errors(tmp_path, repo, overrides, match):
    _, base_commit = repo
    row = {**instance(base_commit), **overrides}
    row = {k: v for k, v in row.items() if v is not None}
    with pytest.raises(ConfigError, match=match):
        load_swebench_jsonl(write_jsonl(tmp_path, [row]))


def test_not_json_is_a_config_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(ConfigError, match="not JSON"):
        load_swebench_jsonl(path)
