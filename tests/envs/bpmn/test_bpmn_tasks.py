"""The shipped BPMN tasks: count, split, difficulty, patterns, reference quality, and the generator's determinism."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from rewardlab.envs.bpmn.build.generate import DATA, GENERATED, MIWG_SUMMARIES, build_tasks
from rewardlab.envs.bpmn.model import extract_model
from rewardlab.envs.bpmn.oracle import bare_answer
from rewardlab.envs.bpmn.parse import read_answer
from rewardlab.envs.bpmn.pragmatic import pragmatic_metrics
from rewardlab.envs.bpmn.syntactic import syntactic_rules
from rewardlab.envs.bpmn.tasks import TASKS_PATH, load_tasks, reference_xml

TASKS = load_tasks()


def test_task_counts_splits_and_sources():
    assert len(TASKS) == 62 >= 60
    sources = Counter(task.data["source"] for task in TASKS)
    assert sources == {"generated": 41, "miwg": 21}
    assert len(TASKS.ids("train")) == 47 and len(TASKS.ids("test")) == 15
    for source in sources:
        splits = {task.split for task in TASKS if task.data["source"] == source}
        assert splits == {"train", "test"}
    assert {f"miwg-{case}" for case in MIWG_SUMMARIES} <= set(TASKS.ids())
    assert len(MIWG_SUMMARIES) == 21 and len(GENERATED) == 41


def test_difficulty_is_graded_and_patterns_are_covered():
    levels = Counter(task.data["difficulty"] for task in TASKS)
    assert set(levels) == {1, 2, 3, 4, 5} and min(levels.values()) >= 5
    patterns = {p for task in TASKS for p in task.data["patterns"]}
    required = {"sequence", "xor", "and", "or", "loop", "intermediate-event", "boundary-event", "event-based"}
    assert required | {"lanes", "pools", "message-flows", "miwg"} <= patterns
    simple = [t for t in TASKS if t.data["difficulty"] == 1 and t.data["source"] == "generated"]
    assert all(t.data["patterns"] == ["sequence"] for t in simple)


@pytest.mark.parametrize("task_id", TASKS.ids())
def test_reference_is_a_valid_model(task_id):
    task = TASKS.get(task_id)
    parsed = read_answer(reference_xml(task))
    assert parsed.valid, parsed.error
    # a tool's comment before the root (miwg-C.3.0) is not a bare answer; the oracle sends the root alone
    assert read_answer(bare_answer(reference_xml(task))).extracted_from is None
    model = extract_model(parsed.root)
    assert len(model.nodes) >= 3
    if task.data["source"] == "generated":
        assert set(syntactic_rules(model).values()) == {1.0}
        pragmatic = pragmatic_metrics(model)
        assert pragmatic["layout_no_overlap"] == 1.0 and pragmatic["diagram_interchange"] == 1.0
        labels = {node.name for node in model.nodes.values() if node.name}
        assert all(f'"{label}"' in task.prompt for label in labels), "the prompt names every element"


def test_prompts_do_not_leak_the_reference():
    for task in TASKS:
        assert "<process" not in task.prompt and "sequenceFlow" not in task.prompt
        assert not re.search(r"\bid=", task.prompt)
        assert task.prompt.startswith("Model the following process as one BPMN 2.0 XML document")


def test_generator_reproduces_the_committed_files():
    rows, files = build_tasks()
    committed = [json.loads(line) for line in TASKS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert rows == committed
    for path, data in files.items():
        assert (DATA / path).read_bytes() == data, path
    assert [row["id"] for row in rows] == TASKS.ids()
