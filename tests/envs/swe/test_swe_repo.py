"""RewardLab/SWERepo-v1: tasks built from real projects' sdists (issue 18)."""

from __future__ import annotations

import ast
import functools
import gzip
import io
import json
import random
import re
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

import gymnasium as gym
import pytest

from rewardlab.envs.swe.build.builder import BuildOptions, ProjectBuilder, leaks_fix, write_tasks
from rewardlab.envs.swe.build.mutations import apply_mutations, mutation_sites
from rewardlab.envs.swe.build.statements import failure_excerpts, problem_statement, subject_of
from rewardlab.envs.swe.loader import load_swebench_jsonl
from rewardlab.envs.swe.oracle import gold_actions
from rewardlab.envs.swe.patch import apply_patch, changed_files, parse_patch
from rewardlab.envs.swe.predictions import export_predictions, predictions_from
from rewardlab.envs.swe.repo_env import REPO_TASKS_FILE, SWERepoEnv, load_repo_tasks
from rewardlab.envs.swe.sources import (
    PROJECTS,
    Project,
    cache_dir,
    cached_sdist,
    clean_tree,
    drop_addopts,
    fetch_sdist,
    is_test_path,
    sdist_base_tree,
    unpack_sdist,
)
from rewardlab.errors import ConfigError
from tests.conftest import docker_or_skip

TASKS = load_repo_tasks()
with gzip.open(REPO_TASKS_FILE, "rt", encoding="utf-8") as _handle:
    ROWS = [json.loads(line) for line in _handle]


def one_task_per_project() -> list[str]:
    first: dict[str, str] = {}
    for task in TASKS:
        first.setdefault(task.data["repo"], task.id)
    return sorted(first.values())


# ---------------------------------------------------------------------- the shipped task file
def test_the_task_file_has_hundreds_of_tasks_across_disjoint_projects():
    per_project = Counter(task.data["repo"] for task in TASKS)
    assert len(TASKS) >= 500
    assert len(per_project) >= 8
    train = {t.data["repo"] for t in TASKS if t.split == "train"}
    test = {t.data["repo"] for t in TASKS if t.split == "test"}
    assert train and test and not train & test, "test projects must be unseen in train"
    assert {t.data["repo"]: t.split for t in TASKS} == {name: PROJECTS[name].split for name in per_project}


#: Calls that hand out frames; the seal refuses them to a function the agent changed.
FRAME_CALLS = re.compile(
    r"\b(_getframe|currentframe|_current_frames|settrace|setprofile|getouterframes)\b|inspect\.(stack|trace)\("
)


@functools.cache
def function_spans(repo: str, path: str) -> list[tuple[int, int, str]]:
    """``(first line, last line, source)`` of every function of ``path`` in ``repo``'s clean tree."""
    source = clean_tree(PROJECTS[repo])[path]
    lines = source.splitlines()
    spans = [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    return [(first, last, "\n".join(lines[first - 1 : last])) for first, last in spans]


def test_no_task_asks_for_a_fix_the_verdict_refuses_to_every_agent():
    """No shipped task's bug sits in a function that obtains frames: its fix would change that function, and the
    seal refuses frames to a function the agent changed (the builder drops such bugs now; see
    ``test_a_bug_whose_fix_must_change_a_function_obtaining_frames_is_not_made_a_task``)."""
    refused = []
    for row in ROWS:
        for mutation in row["mutations"]:
            spans = function_spans(row["repo"], mutation["path"])
            enclosing = [source for first, last, source in spans if first <= mutation["line"] <= last]
            if any(FRAME_CALLS.search(source) for source in enclosing):
                refused.append(f"{row['instance_id']}: {mutation['path']}:{mutation['function']}")
    assert not refused


def test_every_row_is_a_swebench_instance_with_our_difficulty_fields():
    fields = {"instance_id", "repo", "version", "base_commit", "patch", "test_patch", "FAIL_TO_PASS"}
    fields |= {"PASS_TO_PASS", "problem_statement", "created_at", "difficulty", "files_touched", "num_fail_to_pass"}
    ids = [row["instance_id"] for row in ROWS]
    assert len(set(ids)) == len(ids)
    for row in ROWS:
        assert fields <= set(row), row["instance_id"]
        assert row["FAIL_TO_PASS"] and not set(row["FAIL_TO_PASS"]) & set(row["PASS_TO_PASS"])
        assert row["difficulty"] in {"easy", "medium", "hard"}
        assert row["files_touched"] == len(changed_files(row["patch"]))
        assert row["num_fail_to_pass"] == len(row["FAIL_TO_PASS"])
        assert row["sdist"] == {k: getattr(PROJECTS[row["repo"]], k) for k in ("name", "version", "sha256")}
    assert set(Counter(row["difficulty"] for row in ROWS)) == {"easy", "medium", "hard"}
    assert {m["kind"] for row in ROWS for m in row["mutations"]} >= {
        "invert_condition",
        "change_comparison",
        "change_arithmetic",
        "off_by_one",
        "remove_statement",
    }


def test_bugs_live_in_source_and_the_hidden_tests_come_back_through_the_test_patch():
    for row in ROWS:
        assert not any(is_test_path(path) for path in changed_files(row["patch"])), row["instance_id"]
        created = parse_patch(row["test_patch"])
        assert created and all(f.old_path is None and is_test_path(f.path) for f in created)
        hidden = {f.path for f in created}
        assert {t.split("::")[0] for t in row["FAIL_TO_PASS"]} <= hidden


def test_problem_statements_come_from_the_failures_not_from_the_patch():
    for row in ROWS:
        statement = row["problem_statement"]
        assert row["FAIL_TO_PASS"][0] in statement
        for file_patch in parse_patch(row["patch"]):
            for hunk in file_patch.hunks:
                for tag, text in hunk.lines:
                    line = text.strip()
                    if tag == "+" and len(line) > 12:  # the fixed code is never quoted
                        assert line not in statement, (row["instance_id"], line)
                assert not leaks_fix(statement, row["patch"]), row["instance_id"]


def test_loading_the_shipped_tasks_fetches_nothing_and_validation_is_available(tmp_path):
    row = next(r for r in ROWS if r["repo"] == "inflection")
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(row) + "\n")
    task = load_swebench_jsonl(path, validate=True).get(row["instance_id"])
    assert task.data["sdist"]["name"] == "inflection"
    lines = row["patch"].splitlines(keepends=True)
    removed = next(n for n, line in enumerate(lines) if line.startswith(("-", " ")) and not line.startswith("---"))
    lines[removed] = lines[removed][0] + "this line is in no file of the project\n"
    broken = {**row, "patch": "".join(lines)}
    path.write_text(json.dumps(broken) + "\n")
    with pytest.raises(ConfigError, match="does not apply"):
        load_swebench_jsonl(path, validate=True)


# ---------------------------------------------------------------------- sources
def _sdist(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"demo-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_unpacking_flattens_src_drops_binaries_egg_info_and_addopts():
    tree = unpack_sdist(
        _sdist(
            {
                "src/demo/__init__.py": b"X = 1\n",
                "tests/test_demo.py": b"def test(): pass\n",
                "demo.egg-info/PKG-INFO": b"x",
                "data.bin": b"\x00\x01",
                "setup.cfg": b"[tool:pytest]\naddopts =\n    --cov=demo\n    --doctest-modules\ntestpaths = tests\n",
                "pyproject.toml": b'[tool.pytest.ini_options]\naddopts = "--cov=demo"\nx = 1\n',
            }
        )
    )
    assert sorted(tree) == ["demo/__init__.py", "pyproject.toml", "setup.cfg", "tests/test_demo.py"]
    assert tree["setup.cfg"] == "[tool:pytest]\ntestpaths = tests\n"
    assert tree["pyproject.toml"] == "[tool.pytest.ini_options]\nx = 1\n"


def test_drop_addopts_leaves_other_files_and_settings_alone():
    assert drop_addopts("docs/setup.cfg", "addopts = -x") == "addopts = -x"
    assert drop_addopts("README.md", "addopts = -x\n") == "addopts = -x\n"
    assert drop_addopts("tox.ini", "[pytest]\nminversion = 6") == "[pytest]\nminversion = 6"
    assert drop_addopts("pyproject.toml", "addopts = [\n  '-x',\n]\nkeep = 1\n") == "keep = 1\n"


def test_a_cached_sdist_with_the_wrong_hash_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("REWARDLAB_CACHE", str(tmp_path))
    project = Project("demo", "1.0", "0" * 64)
    folder = cache_dir() / "demo-1.0"
    folder.mkdir(parents=True)
    (folder / "demo-1.0.tar.gz").write_bytes(_sdist({"demo.py": b"X = 1\n"}))
    assert cached_sdist(project) is None


class _Index:
    """A package index served over real HTTP: one project page (PEP 691 JSON or PEP 503 HTML) and its files."""

    def __init__(self, files: dict[str, bytes], *, as_json: bool, listed_hash: str | None = None):
        import hashlib
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        def page() -> tuple[str, bytes]:
            rows = [(name, listed_hash or hashlib.sha256(body).hexdigest()) for name, body in files.items()]
            if as_json:
                listing = {
                    "files": [{"filename": n, "url": f"../../files/{n}", "hashes": {"sha256": h}} for n, h in rows]
                }
                return "application/vnd.pypi.simple.v1+json", json.dumps(listing).encode()
            links = "".join(f'<a href="../../files/{n}#sha256={h}">{n}</a>' for n, h in rows)
            return "text/html", f"<html><body>{links}</body></html>".encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                name = self.path.rsplit("/", 1)[-1]
                kind, body = page() if self.path == "/simple/demo/" else ("application/gzip", files.get(name, b""))
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", kind)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("as_json", [True, False], ids=["pep691-json", "pep503-html"])
def test_an_sdist_is_fetched_from_the_index_by_its_pinned_hash(tmp_path, monkeypatch, as_json):
    import hashlib

    wanted = _sdist({"demo.py": b"X = 1\n"})
    index = _Index(
        {"demo-1.0.tar.gz": wanted, "demo-1.0-other.tar.gz": _sdist({"demo.py": b"X = 2\n"})}, as_json=as_json
    )
    try:
        monkeypatch.setenv("REWARDLAB_CACHE", str(tmp_path))
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        project = Project("demo", "1.0", hashlib.sha256(wanted).hexdigest())
        path = fetch_sdist(project)
        assert path.read_bytes() == wanted and path.name == "demo-1.0.tar.gz"
        assert cached_sdist(project) == path
    finally:
        index.close()


def test_an_index_without_the_pinned_file_or_with_a_lying_listing_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("REWARDLAB_CACHE", str(tmp_path))
    body = _sdist({"demo.py": b"X = 1\n"})
    missing = _Index({"demo-1.0.tar.gz": body}, as_json=True)
    lying = _Index({"demo-1.0.tar.gz": body}, as_json=False, listed_hash="1" * 64)
    try:
        monkeypatch.setenv("PIP_INDEX_URL", missing.url)
        with pytest.raises(ConfigError, match="no file with the pinned sha256"):
            fetch_sdist(Project("demo", "1.0", "2" * 64))
        monkeypatch.setenv("PIP_INDEX_URL", lying.url)  # lists the pinned hash for a file that has another
        with pytest.raises(ConfigError, match="does not have the pinned sha256"):
            fetch_sdist(Project("demo", "1.0", "1" * 64))
        assert not list(Path(tmp_path).rglob("*.tar.gz"))
    finally:
        missing.close()
        lying.close()


def test_an_unreachable_index_is_an_infrastructure_failure(tmp_path, monkeypatch):
    import socket

    from rewardlab.sandbox import SandboxError

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setenv("REWARDLAB_CACHE", str(tmp_path))
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{port}/simple")
    with pytest.raises(SandboxError, match="could not fetch the sdist of demo==1.0"):
        fetch_sdist(Project("demo", "1.0", "3" * 64))


def test_the_base_tree_is_the_clean_tree_with_the_bug_and_without_the_hidden_tests():
    task = TASKS.get(one_task_per_project()[0])
    clean = clean_tree(PROJECTS[task.data["repo"]])
    base = sdist_base_tree(task.data)
    hidden = set(changed_files(task.data["test_patch"]))
    assert hidden <= set(clean) and not hidden & set(base)
    assert apply_patch(base, task.data["patch"]) == {p: t for p, t in clean.items() if p not in hidden}


# ---------------------------------------------------------------------- the env
@pytest.fixture(scope="module")
def env():
    env = gym.make("RewardLab/SWERepo-v1")
    yield env
    env.close()


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", f"safe.directory={root}", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def test_the_working_copy_has_one_commit_of_the_buggy_state_and_no_fix(env):
    task_id = one_task_per_project()[0]
    env.reset(options={"task_id": task_id})
    inner = env.unwrapped
    root, task = inner.workspace.root, inner.task
    assert _git(root, "rev-parse", "HEAD").strip() == task.data["base_commit"]
    assert _git(root, "rev-list", "--all").split() == [task.data["base_commit"]]
    assert _git(root, "status", "--porcelain") == ""
    assert not (root / ".git" / "logs").exists()
    objects = _git(root, "cat-file", "--batch-all-objects", "--batch-check").splitlines()
    committed = _git(root, "ls-tree", "-r", "-t", "HEAD").splitlines()
    assert len(objects) == len(committed) + 2  # the blobs and trees of HEAD, the root tree and the commit
    clean = clean_tree(PROJECTS[task.data["repo"]])
    for path in changed_files(task.data["patch"]):
        assert (root / path).read_text() != clean[path]
    for path in changed_files(task.data["test_patch"]):
        assert not (root / path).exists()


@pytest.mark.parametrize("task_id", one_task_per_project())
def test_the_gold_patch_resolves_and_the_empty_submission_does_not(env, task_id):
    env.reset(options={"task_id": task_id})
    info = {}
    for action in gold_actions(env.unwrapped.task.data["patch"]):
        _, reward, terminated, truncated, info = env.step(action)
    assert info["is_success"] and reward == pytest.approx(1.0), info
    env.reset(options={"task_id": task_id})
    _, reward, *_, info = env.step("submit")
    assert not info["is_success"] and reward == 0.0


def test_the_agent_cannot_read_the_original_source(env):
    task_id = one_task_per_project()[0]
    env.reset(options={"task_id": task_id})
    sdist = cached_sdist(PROJECTS[env.unwrapped.task.data["repo"]])
    assert sdist is not None
    script = f"import os\nprint('visible' if os.path.exists({str(sdist)!r}) else 'hidden')"
    observation, *_ = env.step(f"python\n{script}")
    assert "hidden" in observation and "visible" not in observation


def test_swerepo_on_docker_resolves_with_the_gold_patch():
    docker_or_skip()
    env = SWERepoEnv(sandbox="docker")
    try:
        for task_id in one_task_per_project()[:4]:
            env.reset(options={"task_id": task_id})
            info = {}
            for action in gold_actions(env.unwrapped.task.data["patch"]):
                *_, info = env.step(action)
            run = env.unwrapped._final.run  # what the sandbox said, should the verdict be a failure
            assert info["is_success"], (task_id, info, run.statuses, run.result.timed_out, run.result.stderr[-2000:])
            env.reset(options={"task_id": task_id})
            *_, info = env.step("submit")
            assert not info["is_success"]
    finally:
        env.close()


# ---------------------------------------------------------------------- building
def test_a_small_build_yields_validated_tasks_the_env_resolves(tmp_path):
    options = BuildOptions(tasks_per_project=2, candidates_per_project=25, cross_check=False, workers=1)
    builder = ProjectBuilder(PROJECTS["inflection"], options, log=lambda line: None)
    try:
        rows = builder.build()
    finally:
        builder.close()
    assert len(rows) == 2
    assert builder.report.dropped or builder.report.candidates == 2
    path = write_tasks(rows, tmp_path / "tasks.jsonl.gz")
    tasks = load_swebench_jsonl(path, validate=True)
    env = SWERepoEnv(tasks=tasks)
    try:
        for task in tasks:
            env.reset(options={"task_id": task.id})
            info = {}
            for action in gold_actions(task.data["patch"]):
                *_, info = env.step(action)
            assert info["is_success"], info
    finally:
        env.close()
    again = ProjectBuilder(PROJECTS["inflection"], options, log=lambda line: None)
    try:
        assert [r["instance_id"] for r in again.build()] == [r["instance_id"] for r in rows]  # seeded
    finally:
        again.close()


def test_a_bug_whose_fix_must_change_a_function_obtaining_frames_is_not_made_a_task():
    """The builder checks a gold fix with the verdict the env gives an agent's identical fix. boltons'
    ``make_sentinel`` calls ``sys._getframe``; the seal refuses frames to a function the agent changed, so no fix of
    a bug planted there can pass, and such a task would teach a policy that a correct fix earns 0 (three such tasks
    were shipped before the builder checked this way)."""
    project = PROJECTS["boltons"]
    clean = clean_tree(project)
    path = "boltons/typeutils.py"
    site = next(
        site
        for site in mutation_sites(path, clean[path])
        if site.function == "make_sentinel" and "sys._getframe(2)" in apply_mutations(clean, [site])[path]
    )
    stable = [f"tests/test_typeutils.py::test_sentinel_{name}" for name in ("pickle", "copy", "falsiness")]
    builder = ProjectBuilder(project, BuildOptions(cross_check=False, workers=1), log=lambda line: None)
    try:
        row, why = builder.try_candidate(clean, stable, (site,), 60, random.Random(0))
        assert row is None and why == "gold patch does not pass"
        fixed = builder._run(clean, stable, timeout=60)  # the same fix, every file vouched for: passes
        assert all(fixed.passed.values()) and not fixed.tampering
    finally:
        builder.close()


# ---------------------------------------------------------------------- statements
PYTEST_OUTPUT = """\
=================================== FAILURES ===================================
__________________________ TestCache.test_get[1] ___________________________
tests/test_cache.py:12: in test_get
    assert cache.get(1) == 2
lib/cache.py:40: in get
    return self.data[key] + 1
E   AssertionError: assert 3 == 2
=========================== short test summary info ============================
FAILED tests/test_cache.py::TestCache::test_get[1] - AssertionError: assert 3 == 2
FAILED tests/test_cache.py::test_other - ValueError: bad
"""


def test_failure_excerpts_keep_test_frames_and_drop_library_lines():
    ids = ["tests/test_cache.py::TestCache::test_get[1]", "tests/test_cache.py::test_other"]
    excerpts = failure_excerpts(PYTEST_OUTPUT, ids, is_test_path)
    assert "tests/test_cache.py:12: in test_get" in excerpts[ids[0]]
    assert "E   AssertionError: assert 3 == 2" in excerpts[ids[0]]
    assert "lib/cache.py" not in excerpts[ids[0]] and "self.data" not in excerpts[ids[0]]
    assert excerpts[ids[1]] == "E   ValueError: bad"


def test_a_changed_file_is_named_only_as_a_whole_path():
    gold = "diff --git a/xmltodict.py b/xmltodict.py\n--- a/xmltodict.py\n+++ b/xmltodict.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert not leaks_fix("tests/test_xmltodict.py::test_x fails", gold)
    assert leaks_fix("the bug is in xmltodict.py, line 3", gold)


def test_problem_statement_names_the_failing_tests():
    import random

    ids = [f"tests/test_a.py::test_case_{n}" for n in range(10)]
    text = problem_statement("demo", "1.0", ids, {ids[0]: "E   boom"}, random.Random(0))
    assert "10 test(s) fail" in text and ids[0] in text and "... and 2 more" in text and "E   boom" in text
    assert subject_of("tests/test_cache.py::TestLRU::test_get_missing[1]") == "LRU get missing"


# ---------------------------------------------------------------------- predictions
def test_export_predictions_from_recorded_oracle_episodes(tmp_path):
    from rewardlab.cli import main

    episodes, predictions = tmp_path / "episodes.jsonl", tmp_path / "predictions.jsonl"
    evaluation = ["eval", "RewardLab/SWERepo-v1", "--episodes", "2", "--output", str(tmp_path / "e.json")]
    assert main([*evaluation, "--record", str(episodes)]) == 0
    assert main(["swe", "export-predictions", str(episodes), "--model", "oracle", "--output", str(predictions)]) == 0
    rows = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert len(rows) == 2 and {r["model_name_or_path"] for r in rows} == {"oracle"}
    for row in rows:
        task = TASKS.get(row["instance_id"])
        assert apply_patch(sdist_base_tree(task.data), row["model_patch"]) == apply_patch(
            sdist_base_tree(task.data), task.data["patch"]
        )
    export_predictions([episodes], predictions, model="m")  # idempotent rewrite
    with pytest.raises(ConfigError, match="no recorded patch"):
        predictions_from([{"task_id": "x", "info": {}}], model="m")
    assert predictions_from([{"task_id": "x", "info": {"patch": "", "infra_error": "engine died"}}], model="m") == []


def test_run_output_is_the_same_for_identical_runs():
    from rewardlab.envs.swe.testrun import stable_output

    first = "self = <x.Handler object at 0x7fa2026c9590>\n1 failed in 0.31s"
    second = "self = <x.Handler object at 0x7f90ed2a7890>\n1 failed in 0.52s"
    assert stable_output(first) == stable_output(second) == "self = <x.Handler object at 0x…>\n1 failed"
    assert stable_output("assert 0x10 == 16") == "assert 0x10 == 16"  # short hex literals stay


def test_an_installed_copy_of_a_project_is_hidden_from_the_local_sandbox(tmp_path):
    """A user's venv may hold a pinned project (cachetools comes with google-auth): its source is hidden."""
    pytest.importorskip("six")  # installed here; it stands in for a pinned project
    from rewardlab.envs.swe.repo_env import installed_copies
    from rewardlab.sandbox import LocalSandbox, isolation_modes

    if "bwrap" not in isolation_modes():
        pytest.skip("hiding paths needs bubblewrap")
    paths = installed_copies((Project("six", "1", "0" * 64, source=("six.py",)),))
    assert len(paths) == 1 and paths[0].endswith("six.py")
    script = ["-c", "import six; print('visible' if hasattr(six, 'moves') else 'hidden')"]
    shown = LocalSandbox(isolation="bwrap").run([sys.executable, *script], workdir=tmp_path, timeout=30)
    hidden = LocalSandbox(isolation="bwrap", hidden_paths=list(paths)).run(
        [sys.executable, *script], workdir=tmp_path, timeout=30
    )
    assert "visible" in shown.stdout, shown
    assert "visible" not in hidden.stdout and ("hidden" in hidden.stdout or "ModuleNotFoundError" in hidden.stderr)
    env = SWERepoEnv()
    try:
        env.reset(options={"task_id": one_task_per_project()[0]})
        sandbox = env.unwrapped.sandbox
        if sandbox.root is None:  # the host's allow-list: installed copies are hidden
            assert set(installed_copies()) <= set(sandbox.hidden_paths)
        else:  # the minimal root holds no project at all (tests/sandbox/test_minimal_root.py)
            for path in installed_copies():
                name = Path(path).name.removesuffix(".py")
                found = sandbox.run(["python3", "-c", f"import {name}"], timeout=30)
                assert "ModuleNotFoundError" in found.stderr, (name, found)
    finally:
        env.close()
