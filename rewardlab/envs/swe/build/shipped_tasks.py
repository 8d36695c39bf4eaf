"""Build ``data/tasks.jsonl``: the SWE-v2 tasks, from the repositories in ``data/repos``.

This script turns the specs of :mod:`rewardlab.envs.swe.build.shipped_specs` (one bug each) into
SWE-bench instances (``patch``, ``test_patch``, ``FAIL_TO_PASS``, ``PASS_TO_PASS``) and checks
each one by running pytest in the sandbox: every FAIL_TO_PASS test fails at the base with the test
patch and passes with the gold patch; PASS_TO_PASS are the tests that pass in both states. Run it
after changing a repository or a spec::

    python -m rewardlab.envs.swe.build.shipped_tasks
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from rewardlab.envs.swe.build.shipped_specs import SPECS, Spec
from rewardlab.envs.swe.patch import apply_patch, make_patch
from rewardlab.envs.swe.tasks import DATA, TASKS_FILE, read_tree, tree_hash
from rewardlab.envs.swe.testrun import run_tests
from rewardlab.sandbox import LocalSandbox

REPOS = DATA / "repos"


def _replace(tree: dict[str, str], edits: tuple[tuple[str, str, str], ...]) -> dict[str, str]:
    tree = dict(tree)
    for path, old, new in edits:
        if tree[path].count(old) != 1:
            raise ValueError(f"{path}: expected exactly one occurrence of {old!r}")
        tree[path] = tree[path].replace(old, new)
    return tree


def _append(tree: dict[str, str], additions: tuple[tuple[str, str], ...]) -> dict[str, str]:
    tree = dict(tree)
    for path, code in additions:
        tree[path] = tree.get(path, "") + code
    return tree


def build_task(spec: Spec, sandbox: LocalSandbox) -> dict:
    """The SWE-bench instance of ``spec``, verified by running its tests."""
    base = read_tree(REPOS / spec.repo)
    gold = _replace(base, spec.gold)
    with_tests = _append(base, spec.tests)
    patch = make_patch(base, gold)
    test_patch = make_patch(base, with_tests)
    before = _run_all(sandbox, apply_patch(base, test_patch))
    after = _run_all(sandbox, apply_patch(gold, test_patch))
    for test_id in spec.fail_to_pass:
        if before.get(test_id, True) or not after.get(test_id, False):
            raise ValueError(f"{spec.id}: {test_id} must fail before and pass after the gold patch")
    pass_to_pass = sorted(t for t in before if before[t] and after.get(t) and t not in spec.fail_to_pass)
    return {
        "id": spec.id,
        "split": spec.split,
        "prompt": spec.issue,
        "repo": spec.repo,
        "repo_dir": f"repos/{spec.repo}",
        "base_commit": tree_hash(base),
        "patch": patch,
        "test_patch": test_patch,
        "FAIL_TO_PASS": list(spec.fail_to_pass),
        "PASS_TO_PASS": pass_to_pass,
    }


def _run_all(sandbox: LocalSandbox, tree: dict[str, str]) -> dict[str, bool]:
    """Whether each test of ``tree`` passes."""
    scratch = Path(tempfile.mkdtemp(prefix="rewardlab-swe-build-"))
    try:
        run = run_tests(sandbox, tree, scratch / "eval", (), timeout=60)
        return {test_id: status == "passed" for test_id, status in run.statuses.items()}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    """Build every task of :data:`SPECS` and write them to ``data/tasks.jsonl``."""
    sandbox = LocalSandbox()
    rows = [build_task(spec, sandbox) for spec in SPECS]
    with open(TASKS_FILE, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} tasks to {TASKS_FILE}")


if __name__ == "__main__":
    main()
