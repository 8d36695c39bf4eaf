"""``rewardlab swe build``: SWE-bench tasks from real projects, SWE-smith style.

For each pinned project (:mod:`rewardlab.envs.swe.sources`):

1. fetch and verify its sdist, unpack the normalised tree;
2. run the whole test suite in the sandbox twice, through the trusted collector the env grades
   with (its test modules named, so that each is an evaluated test file, as in a task's run); the
   *stable* tests are the test-file tests that pass in both runs (and, when a Docker engine answers
   and the build runs locally, in one run on the Docker image too, so every kept test passes on
   both backends);
3. draw candidate bugs with :func:`~rewardlab.envs.swe.build.mutations.sample_candidates`
   (single changes and pairs: in one function, one file, or two files), seeded per project;
4. run the whole suite on each buggy tree. FAIL_TO_PASS = stable tests that no longer pass. A
   candidate is dropped when none fails, when more than ``max_fail_to_pass`` fail, when a stable
   test is not reported at all (a collection or import error), or when the run times out;
5. the test files holding FAIL_TO_PASS tests are hidden from the agent (removed from the base,
   given back by ``test_patch``); PASS_TO_PASS = the other stable tests of those files;
6. validate through the env's own evaluation path: on the base plus ``test_patch`` every
   FAIL_TO_PASS test fails again (a second run: flaky failures are dropped) and every
   PASS_TO_PASS test passes; with the gold ``patch`` applied every one of them passes, judged as the
   env judges an agent's identical fix (:func:`~rewardlab.envs.swe.tampering.evaluation_trust`: the
   functions the fix changes are not vouched for, so a bug whose fix must change a function that
   obtains frames, which the seal refuses to changed code, is never made a task);
7. write the problem statement from the failing behaviour
   (:mod:`~rewardlab.envs.swe.build.statements`) and one SWE-bench row.

Difficulty, from the number of failing tests and files touched::

    points = 2·(files_touched − 1) + (changes − 1) + 1[|FAIL_TO_PASS| ≤ 2]
    difficulty = "easy" (0), "medium" (1–2), "hard" (≥ 3)

(few failing tests give little signal to localise the bug; every further file or change is more
to find). Rows are written in project order, then candidate order: the same seed and pins give
the same file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardlab.envs.swe.build.mutations import Mutation, apply_mutations, sample_candidates
from rewardlab.envs.swe.build.statements import failure_excerpts, problem_statement
from rewardlab.envs.swe.history import init_repository
from rewardlab.envs.swe.patch import apply_patch, make_patch, parse_patch
from rewardlab.envs.swe.sources import Project, clean_tree, is_test_module, is_test_path, source_files
from rewardlab.envs.swe.tampering import Trust, evaluation_trust, top_level_packages
from rewardlab.envs.swe.testrun import PYTEST_ENV, TestRun, base_config, pytest_command, run_tests
from rewardlab.envs.swe.workspace import Workspace
from rewardlab.sandbox import Sandbox, make_sandbox


@dataclass(frozen=True)
class BuildOptions:
    """How many tasks to build and how.

    Attributes:
        tasks_per_project: Stop a project once this many tasks are kept.
        candidates_per_project: Most candidate bugs tried per project.
        pair_fraction: Share of candidates that combine two changes.
        max_fail_to_pass: Candidates breaking more stable tests than this are dropped.
        seed: Seeds every project's candidate draw (with the project's name).
        backend: Sandbox the suites run in: ``"local"`` or ``"docker"``.
        workers: Projects built at the same time (one sandbox each).
        cross_check: Also run the clean suite on the other backend when it is available, and
            keep only tests that pass on both.
    """

    tasks_per_project: int = 60
    candidates_per_project: int = 220
    pair_fraction: float = 0.3
    max_fail_to_pass: int = 40
    seed: int = 0
    backend: str = "local"
    workers: int = 2
    cross_check: bool = True


@dataclass
class ProjectReport:
    """What building one project did."""

    project: str
    split: str
    stable_tests: int = 0
    candidates: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    backends: list[str] = field(default_factory=list)


def test_modules(tree: Mapping[str, str]) -> list[str]:
    """The test modules of ``tree`` (:func:`~rewardlab.envs.swe.sources.is_test_module`)."""
    return sorted(path for path in tree if is_test_module(path))


class ProjectBuilder:
    """Builds the tasks of one project in its own sandbox (see the module docstring)."""

    def __init__(self, project: Project, options: BuildOptions, log: Callable[[str], None]):
        self.project = project
        self.options = options
        self.log = log
        self.sandbox: Sandbox = make_sandbox(options.backend)  # type: ignore[arg-type]
        self.python = getattr(self.sandbox, "python", sys.executable)
        self.scratch = Path(tempfile.mkdtemp(prefix=f"rewardlab-swe-build-{project.name}-"))
        self.report = ProjectReport(project.name, project.split)

    def close(self) -> None:
        self.sandbox.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    # ------------------------------------------------------------------ runs
    def _run(
        self,
        tree: Mapping[str, str],
        tests: Sequence[str],
        *,
        timeout: float,
        sandbox: Sandbox | None = None,
        trust: Trust | None = None,
    ) -> TestRun:
        """Run ``tests`` on ``tree`` (none: the whole suite, named by its test modules, so that the runner treats
        them as the evaluated tests they are, as a task's run does; a test compiling code of its own file is no
        tampering); ``trust`` as the env's verdict grants it (default: every file vouched for, the repository as
        it is)."""
        tests = list(tests) or test_modules(tree)
        sandbox = sandbox or self.sandbox
        python = getattr(sandbox, "python", sys.executable)
        config = base_config(tree, tests)
        return run_tests(
            sandbox,
            tree,
            self.scratch / "run",
            list(tests),
            timeout=timeout,
            python=python,
            config=config,
            packages=top_level_packages(tree),
            retry_late=False,  # a candidate that is late is dropped, however late
            **(trust or evaluation_trust(tree, tree, ())),
        )

    def stable_tests(self, clean: Mapping[str, str]) -> tuple[list[str], float]:
        """Test-file tests passing in two runs (and on the other backend, when cross-checking)."""
        started = time.perf_counter()
        runs = [self._run(clean, [], timeout=600)]
        seconds = time.perf_counter() - started
        runs.append(self._run(clean, [], timeout=600))
        self.report.backends = [self.sandbox.backend]
        other = "docker" if self.sandbox.backend == "local" else "local"
        if self.options.cross_check:
            try:
                second = make_sandbox(other)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - no engine: build on one backend only
                second = None
            if second is not None and second.backend == other:
                try:
                    runs.append(self._run(clean, [], timeout=600, sandbox=second))
                    self.report.backends.append(other)
                finally:
                    second.close()
        for run in runs:
            if run.infra_error or run.tampering:
                raise RuntimeError(
                    f"{self.project.name}: the clean suite could not run: {run.infra_error or run.tampering}"
                )
        passing = [
            test
            for test, status in runs[0].statuses.items()
            if status == "passed"
            and is_test_path(test.split("::")[0])
            and all(r.statuses.get(test) == "passed" for r in runs)
        ]
        return sorted(passing), seconds

    # ------------------------------------------------------------------ candidates
    def build(self) -> list[dict[str, Any]]:
        started = time.perf_counter()
        project, options = self.project, self.options
        clean = clean_tree(project)
        stable, suite_seconds = self.stable_tests(clean)
        self.report.stable_tests = len(stable)
        self.log(f"{project.name}: {len(stable)} stable tests, suite {suite_seconds:.2f} s")
        rng = random.Random(f"{options.seed}:{project.name}")
        candidates = sample_candidates(
            clean,
            source_files(project, clean),
            rng,
            count=options.candidates_per_project,
            pair_fraction=options.pair_fraction,
        )
        timeout = max(10.0, 5 * suite_seconds)
        rows: list[dict[str, Any]] = []
        seen: set[str] = set()
        for candidate in candidates:
            if len(rows) >= options.tasks_per_project:
                break
            self.report.candidates += 1
            row, reason = self.try_candidate(clean, stable, candidate, timeout, rng)
            if row is None or row["instance_id"] in seen:
                self.report.dropped[reason or "duplicate"] += 1
                continue
            seen.add(row["instance_id"])
            rows.append(row)
        self.report.kept = len(rows)
        self.report.seconds = time.perf_counter() - started
        self.log(
            f"{project.name}: kept {len(rows)} of {self.report.candidates} candidates in {self.report.seconds:.0f} s "
            f"(dropped: {dict(self.report.dropped)})"
        )
        return rows

    def try_candidate(
        self,
        clean: Mapping[str, str],
        stable: Sequence[str],
        mutations: tuple[Mutation, ...],
        timeout: float,
        rng: random.Random,
    ) -> tuple[dict[str, Any] | None, str | None]:
        """One SWE-bench row for ``mutations``, or ``(None, why it was dropped)``."""
        try:
            buggy = apply_mutations(clean, mutations)
        except ValueError:
            return None, "does not apply"
        run = self._run(buggy, [], timeout=timeout)
        if run.infra_error:
            return None, "infrastructure error"
        if run.result.killed_reason or run.tampering:
            return None, "timeout or crash"
        if any(test not in run.statuses for test in stable):
            return None, "breaks collection"
        fail_to_pass = [test for test in stable if run.statuses[test] != "passed"]
        if not fail_to_pass:
            return None, "no test fails"
        if len(fail_to_pass) > self.options.max_fail_to_pass:
            return None, "too many tests fail"
        hidden = sorted({test.split("::")[0] for test in fail_to_pass})
        pass_to_pass = [t for t in stable if t.split("::")[0] in hidden and t not in fail_to_pass]
        changed = sorted({m.path for m in mutations})
        base = {path: text for path, text in buggy.items() if path not in hidden}
        test_patch = make_patch({}, {path: clean[path] for path in hidden})
        bug_patch = make_patch({p: clean[p] for p in changed}, {p: buggy[p] for p in changed})
        gold = make_patch({p: buggy[p] for p in changed}, {p: clean[p] for p in changed})
        tests = [*fail_to_pass, *pass_to_pass]
        again = self._run(apply_patch(base, test_patch), tests, timeout=timeout)
        if any(again.passed[t] for t in fail_to_pass) or not all(again.passed[t] for t in pass_to_pass):
            return None, "flaky"
        # The gold fix is judged as the env judges an agent's identical fix: its changed functions are not vouched
        # for (a fix that must change a function obtaining frames is refused by the seal, so no such task is made).
        fixed_tree = apply_patch(apply_patch(base, gold), test_patch)
        trust = evaluation_trust(buggy, fixed_tree, changed)
        fixed = self._run(fixed_tree, tests, timeout=timeout, trust=trust)
        if not all(fixed.passed.values()) or fixed.tampering:
            return None, "gold patch does not pass"
        excerpts = self.excerpts(buggy, fail_to_pass)
        statement = problem_statement(self.project.name, self.project.version, fail_to_pass, excerpts, rng)
        if leaks_fix(statement, gold):  # a traceback that quotes the fix or names a changed file: leave it out
            statement = problem_statement(self.project.name, self.project.version, fail_to_pass, {}, rng)
        return self.row(base, gold, bug_patch, test_patch, fail_to_pass, pass_to_pass, mutations, statement), None

    def excerpts(self, buggy: Mapping[str, str], fail_to_pass: Sequence[str]) -> dict[str, str]:
        """The builder's own plain pytest run of the first failing tests, read for the bug report."""
        root = self.scratch / "report"
        shutil.rmtree(root, ignore_errors=True)
        Workspace(root, buggy)
        shown = list(fail_to_pass[:3])
        argv = [*pytest_command(shown, python=self.python), "--tb=short"]
        result = self.sandbox.run(argv, workdir=root, timeout=60, env=PYTEST_ENV)
        return failure_excerpts(result.stdout, shown, is_test_path)

    def row(
        self,
        base: Mapping[str, str],
        gold: str,
        bug_patch: str,
        test_patch: str,
        fail_to_pass: list[str],
        pass_to_pass: list[str],
        mutations: tuple[Mutation, ...],
        statement: str,
    ) -> dict[str, Any]:
        project = self.project
        files = len({m.path for m in mutations})
        points = 2 * (files - 1) + (len(mutations) - 1) + (1 if len(fail_to_pass) <= 2 else 0)
        digest = hashlib.sha256(bug_patch.encode()).hexdigest()[:10]
        return {
            "instance_id": f"{project.name}__{project.name}-{digest}",
            "repo": project.name,
            "version": project.version,
            "base_commit": self.commit(base),
            "patch": gold,
            "test_patch": test_patch,
            "FAIL_TO_PASS": fail_to_pass,
            "PASS_TO_PASS": pass_to_pass,
            "problem_statement": statement,
            "created_at": "2026-12-01T00:00:00Z",
            "split": project.split,
            "sdist": {"name": project.name, "version": project.version, "sha256": project.sha256},
            "bug_patch": bug_patch,
            "difficulty": "easy" if points == 0 else "medium" if points <= 2 else "hard",
            "difficulty_points": points,
            "files_touched": files,
            "num_fail_to_pass": len(fail_to_pass),
            "mutations": [{"kind": m.kind, "path": m.path, "line": m.line, "function": m.function} for m in mutations],
        }

    def commit(self, base: Mapping[str, str]) -> str:
        """The hash of the one-commit history the env gives the agent (see :mod:`~rewardlab.envs.swe.history`)."""
        root = self.scratch / "commit"
        shutil.rmtree(root, ignore_errors=True)
        Workspace(root, base)
        return init_repository(root)


def leaks_fix(statement: str, gold: str) -> bool:
    """Whether ``statement`` names a file the gold patch changes or quotes one of its added lines
    (longer than 12 characters)."""
    for file_patch in parse_patch(gold):
        if re.search(rf"(?<![\w./-]){re.escape(file_patch.path)}(?!\w)", statement):  # not inside tests/test_x.py
            return True
        added = (text.strip() for hunk in file_patch.hunks for tag, text in hunk.lines if tag == "+")
        if any(len(line) > 12 and line in statement for line in added):
            return True
    return False


def build_tasks(
    projects: Sequence[Project], options: BuildOptions, log: Callable[[str], None] = print
) -> tuple[list[dict[str, Any]], list[ProjectReport]]:
    """Rows and per-project reports for ``projects``, ``options.workers`` projects at a time."""

    def one(project: Project) -> tuple[list[dict[str, Any]], ProjectReport]:
        builder = ProjectBuilder(project, options, log)
        try:
            return builder.build(), builder.report
        finally:
            builder.close()

    with ThreadPoolExecutor(max_workers=max(1, options.workers)) as pool:
        results = list(pool.map(one, projects))
    return [row for rows, _ in results for row in rows], [report for _, report in results]


def write_tasks(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write ``rows`` as JSONL (gzip-compressed, reproducibly, when ``path`` ends in ``.gz``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows).encode("utf-8")
    if path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=9, mtime=0)
    path.write_bytes(data)
    return path
