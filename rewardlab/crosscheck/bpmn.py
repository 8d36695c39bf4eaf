"""BPMN-v2's external grader: bpmn-moddle imports the answer and bpmnlint lints it (recommended rules).

The tools are the bpmn.io project's own (``rewardlab/crosscheck/node/package.json`` pins them),
installed by ``scripts/setup-graders.sh`` into :func:`graders_dir` and run by ``node`` on
``rewardlab/crosscheck/node/lint.mjs``: one long-lived process, one JSON line per document.

bpmnlint judges *modelling defects* of a model on its own (implicit splits, disconnected elements,
missing start or end events, gateways that join and fork), not *fidelity* to the task's reference:
a model of the wrong process can be lint-free. So its success is relative to the reference: with
``c_a(ρ)`` and ``c_r(ρ)`` the reports of rule ``ρ`` on the answer and on the task's reference model
(import warnings counted as one more rule)::

    new     = Σ_ρ max(0, c_a(ρ) − c_r(ρ))                    (problems beyond the reference's)
    success = bpmn-moddle imports the answer  ∧  new = 0
    score   = max(0, 1 − new / (1 + E))  if imported, else 0  (E: the answer's flow elements)

Where it disagrees with our ``is_success``, the usual reasons are a defect that changes behaviour
without breaking any lint rule (a gateway's type swapped, a flow removed between nodes that keep
other flows: our ``correctness/same_behaviour`` sees it, bpmnlint cannot), and lint rules that our 24
modelling rules do not have (or the other way round); :meth:`BPMNLintGrader.explain` says which from
the evidence of both sides.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardlab.crosscheck.answers import Answer
from rewardlab.crosscheck.grader import ExternalVerdict
from rewardlab.envs.bpmn.syntactic import SYNTACTIC_RULES
from rewardlab.errors import MissingDependencyError, RewardLabError

NODE_DIR = Path(__file__).parent / "node"
"""``package.json``, ``package-lock.json`` and ``lint.mjs``."""

SETUP_HINT = "run scripts/setup-graders.sh (needs node and npm, e.g. apt-get install nodejs npm)"

IMPORT_RULE = "import-warning"
"""The rule name the grader files bpmn-moddle's import warnings under."""

RULE_SCOPE: dict[str, str] = {
    "no-bpmndi": (
        "bpmnlint requires diagram interchange (a shape or edge) for every element: a layout rule; BPMN-v2 grades "
        "the process model, and the same model without its diagram is an equivalent answer by design"
    ),
    "no-overlapping-elements": "a layout rule on the diagram's shapes; BPMN-v2 does not grade the layout",
    "superfluous-label": "a style rule (labels on unconditional flows); BPMN-v2 does not grade labels of flows",
    IMPORT_RULE: "bpmn-moddle's import warnings (unknown elements or unresolved references)",
}
"""What a bpmnlint rule checks that BPMN-v2's success leaves out (by design, or as a gap), for the explanations."""

TIMEOUT_S = 60.0
"""The longest the grader waits for node's verdict on one document."""


def graders_dir() -> Path:
    """Where ``scripts/setup-graders.sh`` installs the graders' node modules:
    ``$REWARDLAB_GRADERS_DIR``, else ``$XDG_CACHE_HOME/rewardlab/graders`` (``~/.cache/...``)."""
    explicit = os.environ.get("REWARDLAB_GRADERS_DIR")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "rewardlab" / "graders"


def check_installed() -> tuple[str, Path]:
    """``(node executable, modules dir)``.

    Raises:
        MissingDependencyError: when node or the pinned node modules are not installed.
    """
    node = shutil.which("node")
    if node is None:
        raise MissingDependencyError(f"the BPMN grader needs node on PATH; {SETUP_HINT}")
    modules = graders_dir()
    missing = [name for name in ("bpmnlint", "bpmn-moddle") if not (modules / "node_modules" / name).is_dir()]
    if missing:
        raise MissingDependencyError(
            f"the BPMN grader's node modules {missing} are not installed in {modules}; {SETUP_HINT}"
        )
    return node, modules


class BPMNLintGrader:
    """bpmn-moddle + bpmnlint (recommended config), relative to the task's reference model."""

    name = "bpmnlint"
    description = (
        "bpmn-moddle imports the answer and bpmnlint (recommended rules) reports no rule on more elements than on "
        "the reference; score = max(0, 1 − new problems / (1 + flow elements)). Judges modelling defects, not fidelity."
    )

    def __init__(self) -> None:
        self._node, self._modules = check_installed()
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        self._references: dict[str, dict[str, Any]] = {}

    # ------------------------------------------------------------------ the node process
    def lint(self, xml: str) -> dict[str, Any]:
        """node's report on one document: ``import_error``, ``import_warnings``, ``reports``, ``elements``."""
        with self._lock:
            process = self._started()
            stdin, stdout = process.stdin, process.stdout
            if stdin is None or stdout is None:  # Popen(PIPE) sets both
                raise self._died()
            try:
                stdin.write(json.dumps({"xml": xml}) + "\n")
                stdin.flush()
            except BrokenPipeError as exc:
                raise self._died() from exc
            reply: list[str] = []
            reader = threading.Thread(target=lambda: reply.append(stdout.readline()), daemon=True)
            reader.start()
            reader.join(TIMEOUT_S)
            if reader.is_alive():
                self._stop()
                raise RewardLabError(f"the BPMN grader gave no verdict within {TIMEOUT_S:.0f} s")
            if not reply or not reply[0]:
                raise self._died()
            result: dict[str, Any] = json.loads(reply[0])
        if result.get("grader_error"):
            raise RuntimeError(f"bpmnlint raised: {str(result['grader_error']).splitlines()[0]}")
        return result

    def _started(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [self._node, str(NODE_DIR / "lint.mjs"), str(self._modules)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
        return self._process

    def _died(self) -> RewardLabError:
        stderr = ""
        if self._process is not None:
            self._stop()
            stderr = (self._process.stderr.read() if self._process.stderr else "")[-500:]
        return RewardLabError(f"the BPMN grader's node process exited: {stderr.strip() or 'no output'}; {SETUP_HINT}")

    def _stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def close(self) -> None:
        if self._process is not None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._stop()
            for stream in (self._process.stdout, self._process.stderr):
                if stream is not None:
                    stream.close()
            self._process = None

    # ------------------------------------------------------------------ grading
    def reference_report(self, env: Any, task_id: str) -> dict[str, Any]:
        """The lint report of the task's reference model (once per task)."""
        if task_id not in self._references:
            from rewardlab.envs.bpmn.tasks import reference_xml

            self._references[task_id] = self.lint(reference_xml(env.tasks.get(task_id)))
        return self._references[task_id]

    def grade(self, env: Any, task_id: str, actions: Sequence[str], info: Mapping[str, Any]) -> ExternalVerdict:
        """The last answer sent (the one BPMN-v2 scores), linted against the reference's report."""
        xml = actions[-1] if actions else ""
        report = self.lint(xml)
        if report["import_error"] is not None:
            return ExternalVerdict(False, 0.0, f"bpmn-moddle cannot import it: {report['import_error']}")
        new = new_problems(report, self.reference_report(env, task_id))
        count = sum(new.values())
        score = max(0.0, 1.0 - count / (1 + int(report.get("elements", 0))))
        found = ", ".join(f"{rule}×{n}" for rule, n in sorted(new.items())) or "none"
        return ExternalVerdict(count == 0, score, f"problems beyond the reference's: {found}")

    def explain(self, answer: Answer, verdict: ExternalVerdict) -> str:
        """Why our success and bpmnlint's differ, from our metrics and the rules that fired."""
        metrics: Mapping[str, float] = answer.info.get("metrics", {})
        components: Mapping[str, float] = answer.info.get("reward_components", {})
        if verdict.success:  # we fail it, bpmnlint passes it
            reasons = []
            if components.get("validity", 1.0) < 1.0:
                reasons.append(f"our validity gate refuses it ({answer.info.get('action_error')})")
            if metrics.get("correctness/same_behaviour", 1.0) < 1.0:
                reasons.append(
                    "its behaviour differs from the reference's (our correctness/same_behaviour = 0); bpmnlint "
                    "lints the model on its own and has no rule for fidelity to the reference, so none fires"
                )
            if metrics.get("correctness/no_new_defects", 1.0) < 1.0:
                broken = sorted(
                    k.split("/", 1)[1] for k, v in metrics.items() if k.startswith("syntactic/") and v < 1.0
                )
                reasons.append(
                    "our modelling rules find a defect beyond the reference's (the answer's rules below 1: "
                    f"{', '.join(broken)}) that no bpmnlint recommended rule reports more often than on the reference"
                )
            if components.get("semantic", 1.0) < 0.9:
                reasons.append(f"its semantic fidelity is {components.get('semantic', 0.0):.3f} < 0.9")
            return "; ".join(reasons) or "our success is false for a reason outside correctness and validity"
        if answer.is_success:  # we pass it, bpmnlint fails it
            fired = [part.split("×")[0] for part in verdict.detail.split(": ", 1)[-1].split(", ")]
            scoped = [f"{rule}: {RULE_SCOPE[rule]}" for rule in fired if rule in RULE_SCOPE]
            other = [rule for rule in fired if rule not in RULE_SCOPE]
            unshared = (
                f"{', '.join(other)}: our {len(SYNTACTIC_RULES)} modelling rules and the behavioural comparison find "
                "no defect beyond the reference's there (a rule that ours do not share, or read differently)"
            )
            reasons = scoped + ([unshared] if other else [])
            return f"bpmnlint: {verdict.detail}; " + "; ".join(reasons)
        return "no disagreement"


def new_problems(answer: Mapping[str, Any], reference: Mapping[str, Any]) -> dict[str, int]:
    """``{rule: c_a(rule) − c_r(rule)}`` for the rules reported more often on the answer than on the reference.

    Example:
        >>> a = {"reports": {"no-implicit-split": [{}, {}], "label-required": [{}]}, "import_warnings": ["x"]}
        >>> r = {"reports": {"no-implicit-split": [{}]}, "import_warnings": []}
        >>> new_problems(a, r)
        {'no-implicit-split': 1, 'label-required': 1, 'import-warning': 1}
    """

    def counts(report: Mapping[str, Any]) -> dict[str, int]:
        found = {rule: len(items) for rule, items in report.get("reports", {}).items()}
        if report.get("import_warnings"):
            found[IMPORT_RULE] = len(report["import_warnings"])
        return found

    ours, theirs = counts(answer), counts(reference)
    return {rule: n - theirs.get(rule, 0) for rule, n in ours.items() if n > theirs.get(rule, 0)}
