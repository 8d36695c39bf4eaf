"""SWE-v2's external grader: the answer exported as a SWE-bench prediction, graded by swebench's own report.

swebench's harness builds a Docker image per instance, applies the prediction and runs the
instance's eval script in a container, then grades the container's log. The images come from a
hub, which is not allowed here, so the container is replaced; everything after it is swebench's:

1. **Export.** The episode's final ``info`` goes through :func:`rewardlab.envs.swe.predictions.predictions_from`
   (``rewardlab swe export-predictions``) into ``{"instance_id", "model_name_or_path", "model_patch"}``.
2. **Apply, as the harness does.** In a scratch git repository holding the task's base tree, the
   ``model_patch`` is applied with the harness's commands in its order (``git apply --verbose``,
   ``--3way``, ``--reject``, then ``patch --batch --forward --fuzz=5 -p1``; a pristine tree before each
   retry), the test patch's files are reset to the base (``git checkout``) and the test patch applied
   with ``git apply -v``, as the instance's eval script does.
3. **Run plain pytest** in the env's sandbox (``env.sandbox``, the env's time and resource limits):
   ``python -m pytest -rA <test files>`` between swebench's ``START_TEST_OUTPUT``/``END_TEST_OUTPUT``
   markers, the exit status recorded by swebench's own ``record_test_exit_code``. Not our sealed
   collector: the tested code shares pytest's process and its output, as in the harness. The test
   files are the test patch's files plus the files naming a FAIL_TO_PASS or PASS_TO_PASS test (in
   SWE-bench those lists come from the test patch's files; here PASS_TO_PASS may name others).
4. **Grade with swebench.** The log is written as the harness writes it (``APPLY_PATCH_FAIL`` when the
   patch does not apply, ``TESTS_TIMEOUT`` when the run is stopped) and read by
   ``swebench.harness.grading.get_eval_report`` with a ``TestSpec`` whose parser is
   ``parse_log_pytest`` and eval type ``pass_and_fail``.

With ``F`` / ``P`` the FAIL_TO_PASS / PASS_TO_PASS tests and the report's ``tests_status``::

    success = report["resolved"]                                   (swebench's ResolvedStatus.FULL)
    score   = (#F success + #P success) / (#F + #P)                 (0 when nothing could be graded)

An empty ``model_patch`` is not evaluated by the harness (an "empty patch" instance, never
resolved): success False, score 0. An answer whose episode ended on an infrastructure error is not
exported, so it gets no verdict.

Where the verdicts differ, the usual reason is tampering: plain pytest reports what the tested code
lets it report (a no-op ``Function.runtest``, a ``conftest.py`` or ``addopts`` plugin forcing reports
to "passed"), so swebench may resolve a submission our sealed runner refuses. Those disagreements
are findings in our favour, and :meth:`SWEBenchReportGrader.explain` says so.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardlab.crosscheck.answers import Answer
from rewardlab.crosscheck.grader import ExternalVerdict
from rewardlab.errors import ConfigError, MissingDependencyError

MODEL = "rewardlab-crosscheck"
"""``model_name_or_path`` written on every exported prediction."""

GIT_APPLY_CMDS: tuple[str, ...] = (
    "git apply --verbose",
    "git apply --verbose --3way",
    "git apply --verbose --reject",
    "patch --batch --forward --fuzz=5 -p1 -i",
)
"""``swebench.harness.run_evaluation.GIT_APPLY_CMDS`` (swebench 5.0.2), tried in order. Copied rather than
imported: that module imports the Docker client and the hub's dataset tools at import time."""

GIT_TIMEOUT_S = 60.0
"""The longest one git command may take on the scratch repository."""


class SWEBenchReportGrader:
    """swebench's ``get_eval_report`` on plain pytest's log of the exported prediction, run in our sandbox."""

    name = "swebench-report"
    description = (
        "the answer exported as a SWE-bench prediction, applied as swebench's harness applies it, the test files run "
        "with plain pytest -rA in the env's sandbox (no Docker image), and the log graded by swebench's own "
        "get_eval_report (parse_log_pytest, pass_and_fail); success = resolved, score = passing share of "
        "FAIL_TO_PASS + PASS_TO_PASS by swebench's parse."
    )

    def __init__(self) -> None:
        try:
            from swebench.harness import constants  # type: ignore[import-untyped]
            from swebench.harness.grading import get_eval_report  # type: ignore[import-untyped]
            from swebench.harness.utils import record_test_exit_code  # type: ignore[import-untyped]
            from swebench.types import TestSpec  # type: ignore[import-untyped]
        except ImportError as exc:
            raise MissingDependencyError(
                f"swebench's grading cannot be imported ({exc}); install it: pip install swebench"
            ) from exc
        self._constants = constants
        self._report = get_eval_report
        self._record_exit_code = record_test_exit_code
        self._spec = TestSpec

    # ------------------------------------------------------------------ grading
    def grade(self, env: Any, task_id: str, actions: Sequence[str], info: Mapping[str, Any]) -> ExternalVerdict:
        from rewardlab.envs.swe.predictions import predictions_from

        if info.get("infra_error"):
            raise RuntimeError(f"the episode ended on an infrastructure error ({info['infra_error']}); not exported")
        try:
            (prediction,) = predictions_from([{"task_id": task_id, "info": dict(info)}], model=MODEL)
        except ConfigError as exc:  # no recorded patch: this answer cannot be exported
            raise RuntimeError(str(exc)) from exc
        data = env.tasks.get(task_id).data
        if not prediction["model_patch"].strip():
            return ExternalVerdict(False, 0.0, "empty patch: swebench's harness does not evaluate it (not resolved)")
        spec = self.test_spec(task_id, data)
        log = self.evaluation_log(env, data, prediction["model_patch"], test_files(data))
        report = self.report(spec, prediction, log)
        return self.verdict(report)

    def test_spec(self, task_id: str, data: Mapping[str, Any]) -> Any:
        """swebench's ``TestSpec`` of the task: no image, pytest's log parser, pass-and-fail grading."""
        return self._spec(
            instance_id=task_id,
            image="",
            eval_script_list=[],
            repo=str(data.get("repo", "")),
            version="",
            FAIL_TO_PASS=list(data["FAIL_TO_PASS"]),
            PASS_TO_PASS=list(data["PASS_TO_PASS"]),
            log_parser="parse_log_pytest",
            eval_type=self._constants.EvalType.PASS_AND_FAIL.value,
        )

    def report(self, spec: Any, prediction: Mapping[str, str], log: str) -> dict[str, Any]:
        """swebench's ``get_eval_report`` on ``log`` (written to a scratch file, as the harness reads a file)."""
        from rewardlab.leases import owned_tempdir, remove_owned_tempdir

        scratch = owned_tempdir("rewardlab-crosscheck-swe-log-")
        try:
            path = scratch / "test_output.txt"
            path.write_text(log, encoding="utf-8")
            report: dict[str, Any] = self._report(spec, dict(prediction), str(path), include_tests_status=True)
        finally:
            remove_owned_tempdir(scratch)
        return dict(report[spec.instance_id])

    def verdict(self, report: Mapping[str, Any]) -> ExternalVerdict:
        """Success and score from one instance's report (see the module docstring)."""
        c = self._constants
        status = report.get("tests_status")
        if status is None:  # swebench found no gradable log: not applied, timed out or never ran
            reason = report.get("infra_failure_reason") or "the patch did not apply or the tests did not run"
            return ExternalVerdict(False, 0.0, f"not resolved: no gradable test log ({reason})")
        f2p, p2p = status[c.FAIL_TO_PASS], status[c.PASS_TO_PASS]
        passed = len(f2p["success"]) + len(p2p["success"])
        total = passed + len(f2p["failure"]) + len(p2p["failure"])
        failing = [*f2p["failure"], *p2p["failure"]]
        f2p_total, p2p_total = len(f2p["success"]) + len(f2p["failure"]), len(p2p["success"]) + len(p2p["failure"])
        detail = (
            f"resolved={report['resolved']}; FAIL_TO_PASS {len(f2p['success'])}/{f2p_total}, "
            f"PASS_TO_PASS {len(p2p['success'])}/{p2p_total} pass by parse_log_pytest"
        )
        if failing:
            detail += "; failing: " + ", ".join(failing[:5]) + (" …" if len(failing) > 5 else "")
        return ExternalVerdict(bool(report["resolved"]), passed / total if total else 0.0, detail)

    # ------------------------------------------------------------------ the harness's steps, without Docker
    def evaluation_log(self, env: Any, data: Mapping[str, Any], model_patch: str, files: Sequence[str]) -> str:
        """The harness's log of one evaluation: the patch applied, then plain pytest's output between markers."""
        from rewardlab.envs.swe.tasks import base_tree
        from rewardlab.leases import owned_tempdir, remove_owned_tempdir

        c = self._constants
        scratch = owned_tempdir("rewardlab-crosscheck-swe-")
        try:
            repo = scratch / "repo"
            _write_tree(repo, base_tree(data))
            _git(repo, "init", "-q")
            _git(repo, "add", "-A")
            _git(
                repo,
                "-c",
                "user.name=base",
                "-c",
                "user.email=base@localhost",
                "-c",
                "commit.gpgsign=false",
                "commit",
                "-q",
                "-m",
                "base",
            )
            (scratch / "model.patch").write_text(model_patch, encoding="utf-8")
            applied, log = _apply_model_patch(repo, scratch / "model.patch")
            if not applied:
                return log + f"\n{c.APPLY_PATCH_FAIL}\n"
            log += f"\n{c.APPLY_PATCH_PASS}\n"
            test_patch_files = [
                p for p in _patch_files(data["test_patch"]) if _git_ok(repo, "cat-file", "-e", f"HEAD:{p}")
            ]
            if test_patch_files:
                _git(repo, "checkout", "HEAD", "--", *test_patch_files)
            (scratch / "test.patch").write_text(data["test_patch"], encoding="utf-8")
            done = _run(["git", "apply", "-v", str(scratch / "test.patch")], repo)
            log += done.stdout + done.stderr
            if done.returncode != 0:
                return log + f"\n{c.APPLY_PATCH_FAIL}\n"
            tree = _read_files(repo)
        finally:
            remove_owned_tempdir(scratch)
        return log + self._run_tests(env, tree, files)

    def _run_tests(self, env: Any, tree: Mapping[str, str], files: Sequence[str]) -> str:
        c = self._constants
        command = " ".join(shlex.quote(a) for a in [env.python, "-m", "pytest", "-rA", *files]) + " 2>&1"
        script = self._record_exit_code(
            [f"echo {shlex.quote(c.START_TEST_OUTPUT)}", command, f"echo {shlex.quote(c.END_TEST_OUTPUT)}"]
        )
        result = env.sandbox.run(
            ["sh", "-c", "\n".join(script)],
            files=dict(tree),
            timeout=env.execution.timeout,
            limits=env.execution.limits,
        )
        log = result.stdout + result.stderr
        if result.timed_out:
            log += f"\n{c.TESTS_TIMEOUT}\n"
        return log

    # ------------------------------------------------------------------ explanations
    def explain(self, answer: Answer, verdict: ExternalVerdict) -> str:
        """Tampering our sealed runner caught and plain pytest reported as passing (a finding in our favour),
        else the tests on which the two runs differ."""
        tampering = answer.info.get("tampering") or []
        components = answer.info.get("reward_components") or {}
        if verdict.success and tampering:
            return (
                "tampering that fools plain pytest but not our sealed runner: our static check or collector found "
                f"{'; '.join(str(t) for t in tampering[:3])}, so every component is 0, while plain pytest's log, "
                f"which the tested code shares, reads {verdict.detail} (a finding in our favour)"
            )
        if verdict.success:
            return (
                f"swebench resolves it ({verdict.detail}) but our collector did not pass every FAIL_TO_PASS and "
                f"PASS_TO_PASS test (components {json.dumps(components)}); the same tests ran in the same sandbox, "
                "once through the sealed runner and once as plain pytest"
            )
        return (
            f"our collector passed every FAIL_TO_PASS and PASS_TO_PASS test (components {json.dumps(components)}) but "
            f"swebench reads {verdict.detail}: the harness's patch application or plain pytest over whole test files "
            "differs from our evaluation here"
        )

    def close(self) -> None:
        """Nothing to release (the sandbox belongs to the env)."""


def test_files(data: Mapping[str, Any]) -> list[str]:
    """The files plain pytest runs: the test patch's, then those naming a FAIL_TO_PASS or PASS_TO_PASS test."""
    files = dict.fromkeys(_patch_files(data["test_patch"]))
    for test in [*data["FAIL_TO_PASS"], *data["PASS_TO_PASS"]]:
        files.setdefault(str(test).split("::", 1)[0])
    return [f for f in files if f.endswith(".py")]


test_files.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def _patch_files(patch: str) -> list[str]:
    """The files a unified diff changes (its ``+++ b/…`` lines, ``--- a/…`` for deletions), in order."""
    files: dict[str, None] = {}
    for line in patch.splitlines():
        if line.startswith(("+++ b/", "--- a/")):
            files.setdefault(line[6:].split("\t", 1)[0])
    return list(files)


def _apply_model_patch(repo: Path, patch: Path) -> tuple[bool, str]:
    """The harness's patch application: each of :data:`GIT_APPLY_CMDS` on a pristine tree until one works."""
    log = ""
    for attempt, command in enumerate(GIT_APPLY_CMDS):
        if attempt:
            _run(["git", "checkout", "--", "."], repo)
            _run(["git", "clean", "-fdq"], repo)
        done = _run([*shlex.split(command), str(patch)], repo)
        log += f"$ {command} model.patch\n{done.stdout}{done.stderr}"
        if done.returncode == 0:
            return True, log
    return False, log


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False)


def _git(repo: Path, *args: str) -> None:
    done = _run(["git", *args], repo)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()[:300]}")


def _git_ok(repo: Path, *args: str) -> bool:
    return _run(["git", *args], repo).returncode == 0


def _write_tree(root: Path, tree: Mapping[str, str]) -> None:
    for path, text in tree.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _read_files(root: Path) -> dict[str, str]:
    """``{relative path: text}`` of the tree the tests run on (``.git`` and undecodable files left out)."""
    tree = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and relative.parts[0] != ".git":
            try:
                tree[relative.as_posix()] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
    return tree
