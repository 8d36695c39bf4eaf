"""BPMN crosscheck with the real bpmn-moddle and bpmnlint (installed by scripts/setup-graders.sh)."""

from __future__ import annotations

import re
import shutil

import pytest

from rewardlab.crosscheck import cohen_kappa, crosscheck_env
from rewardlab.crosscheck.bpmn import BPMNLintGrader, graders_dir, new_problems
from rewardlab.envs.bpmn.tasks import load_tasks, reference_xml
from rewardlab.errors import MissingDependencyError

INSTALLED = shutil.which("node") is not None and (graders_dir() / "node_modules" / "bpmnlint").is_dir()
needs_node = pytest.mark.skipif(
    not INSTALLED, reason="node or the graders' node modules are absent: run scripts/setup-graders.sh"
)


class _Tasks:
    """The one attribute of the env that the grader reads: ``tasks``."""

    tasks = load_tasks()


@pytest.fixture(scope="module")
def grader():
    grader = BPMNLintGrader()
    yield grader
    grader.close()


@needs_node
def test_reference_passes_and_a_broken_document_fails(grader):
    xml = reference_xml(_Tasks.tasks.get("gen-library-loan"))
    verdict = grader.grade(_Tasks, "gen-library-loan", [xml], {})
    assert (verdict.success, verdict.score) == (True, 1.0)
    broken = grader.grade(_Tasks, "gen-library-loan", ["<definitions"], {})
    assert (broken.success, broken.score) == (False, 0.0)
    assert "cannot import" in broken.detail


@needs_node
def test_an_implicit_split_is_a_new_problem(grader):
    xml = reference_xml(_Tasks.tasks.get("gen-library-loan"))
    flows = re.findall(r'<(?:\w+:)?sequenceFlow [^>]*sourceRef="([^"]+)"[^>]*targetRef="([^"]+)"', xml)
    task_source = next(source for source, _ in flows if "Task" in source or "task" in source)
    extra_target = next(target for _, target in flows if target != task_source)
    prefix = re.search(r"<(\w+:)?sequenceFlow ", xml).group(1) or ""
    extra = f'<{prefix}sequenceFlow id="extra_flow" sourceRef="{task_source}" targetRef="{extra_target}"/>'
    changed = re.sub(r"(</(?:\w+:)?process>)", extra + r"\1", xml, count=1)
    verdict = grader.grade(_Tasks, "gen-library-loan", [changed], {})
    assert verdict.success is False
    assert "no-implicit-split" in verdict.detail
    assert 0.0 < verdict.score < 1.0


def test_new_problems_counts_only_rules_beyond_the_reference():
    answer = {"reports": {"a": [{}, {}, {}], "b": [{}]}, "import_warnings": []}
    reference = {"reports": {"a": [{}], "b": [{}, {}]}, "import_warnings": ["w"]}
    assert new_problems(answer, reference) == {"a": 2}


def test_missing_node_modules_say_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("REWARDLAB_GRADERS_DIR", str(tmp_path))
    with pytest.raises(MissingDependencyError, match="setup-graders.sh"):
        BPMNLintGrader()


@needs_node
def test_crosscheck_on_test_tasks_explains_every_disagreement():
    report = crosscheck_env("RewardLab/BPMN-v2", tasks=["gen-data-import", "gen-library-loan"])
    (lint,) = report.graders
    rows = {(r.answer.task_id, r.answer.name): r for r in lint.rows}
    assert all(r.verdict.success for r in lint.rows if r.answer.kind == "oracle")
    assert all(r.answer.is_success for r in lint.rows if r.answer.kind == "equivalent")
    assert not any(r.answer.is_success for r in lint.rows if r.answer.kind == "defective")
    # a diagram-less model: the same process for us, a no-bpmndi problem per element for bpmnlint
    dropped = rows[("gen-library-loan", "diagram_dropped")]
    assert dropped.disagrees and "no-bpmndi" in dropped.verdict.detail and "layout" in dropped.explanation
    # a swapped gateway type: different behaviour for us, no lint rule for bpmnlint
    swapped = rows[("gen-data-import", "gateway_type_swapped")]
    assert swapped.disagrees and swapped.verdict.success is True
    assert "same_behaviour" in swapped.explanation
    # an implicit split: both fail it
    split = rows[("gen-library-loan", "implicit_split_added")]
    assert not split.disagrees and "no-implicit-split" in split.verdict.detail
    assert all(r.explanation for r in lint.disagreements)
    judged = lint.judged
    assert lint.kappa == cohen_kappa([r.answer.is_success for r in judged], [bool(r.verdict.success) for r in judged])
    assert 0.0 < lint.kappa < 1.0
    table = report.format_table()
    assert "| bpmnlint |" in table and "gateway_type_swapped" in table
