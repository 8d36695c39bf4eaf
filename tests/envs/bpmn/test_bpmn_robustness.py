"""Hostile input is normal input: every attack gives a low score and a clear action_error, quickly, without raising."""

from __future__ import annotations

import json
import time

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rewardlab  # noqa: F401
from rewardlab.envs.bpmn.model import MAX_FLOW_NODES
from rewardlab.envs.bpmn.parse import BPMN_NS, MAX_ANSWER_CHARS, read_answer
from rewardlab.envs.bpmn.rubric import BPMNOutcome, bpmn_rubric
from rewardlab.envs.bpmn.tasks import load_tasks, reference_xml

TASK = "gen-loan-decision"
VALID = reference_xml(load_tasks().get(TASK))
DEFINITIONS = f'<definitions xmlns="{BPMN_NS}" id="d" targetNamespace="http://example.com">'


def billion_laughs() -> str:
    entities = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
    return f"<?xml version='1.0'?><!DOCTYPE definitions [{''.join(entities)}]>{DEFINITIONS}&lol9;</definitions>"


def dense_model(count: int, fan_out: int, kind: str) -> str:
    """``count`` nodes, each with ``fan_out`` flows to pseudo-random others: a worst case for the graph metrics."""
    nodes = "".join(f'<{kind} id="n{i}" name="Step {i}"/>' for i in range(count))
    flows = "".join(
        f'<sequenceFlow id="f{i}_{j}" sourceRef="n{i}" targetRef="n{(i * 7 + j * 13 + 1) % count}"/>'
        for i in range(count)
        for j in range(fan_out)
    )
    return f'{DEFINITIONS}<process id="p">{nodes}{flows}</process></definitions>'


HOSTILE = {
    "billion laughs": (billion_laughs(), "DOCTYPE"),
    "quadratic blowup": (
        f'<!DOCTYPE d [<!ENTITY a "{"x" * 50_000}">]>{DEFINITIONS}{"&a;" * 1000}</definitions>',
        "DOCTYPE",
    ),
    "external DTD": (
        '<!DOCTYPE definitions SYSTEM "http://example.com/evil.dtd">' + VALID[VALID.index("<definitions") :],
        "DOCTYPE",
    ),
    "huge attribute over the size cap": (VALID.replace('id="', 'x="' + "A" * 3_000_000 + '" id="', 1), "limit"),
    "huge attribute under the size cap": (
        DEFINITIONS + f'<process id="p"><task id="t" bogus="{"B" * 1_500_000}"/></process></definitions>',
        "XSD",
    ),
    "10,000-deep nesting": (DEFINITIONS + "<a>" * 10_000 + "</a>" * 10_000 + "</definitions>", "depth"),
    "unknown declared encoding": (
        '<?xml version="1.0" encoding="klingon"?>' + DEFINITIONS + "</definitions>",
        "encoding",
    ),
    "control characters": (
        DEFINITIONS + '<process id="p"><task id="t" name="a\x00\x01b"/></process></definitions>',
        "well-formed",
    ),
    "lone surrogates": (DEFINITIONS + "<process id='p'>\ud800\udfff</process></definitions>", "XSD"),
    "5 MB of text": ("lorem ipsum " * 440_000, "limit"),
    "non-BPMN XML": ('<svg xmlns="http://www.w3.org/2000/svg"><rect width="10"/></svg>', "root element"),
    "BPMN element as root": (f'<process xmlns="{BPMN_NS}" id="p"><task id="t"/></process>', "root element"),
    "HTML": ("<html><body><p>Here is my process<br></body></html>", "well-formed"),
    "prose without XML": ("First the clerk checks the order, then ships it.", "no XML found"),
    "prose around broken XML": ("Sure! Here it is: <definitions><process> ... I hope this helps", "well-formed"),
    "code fence around non-BPMN": ("```xml\n<note><to>Tove</to></note>\n```", "root element"),
    "empty definitions": (DEFINITIONS + "</definitions>", "no flow nodes"),
    "3,000 gateways": (dense_model(3000, 2, "parallelGateway"), "too large"),
    "binary garbage": (bytes(range(256)) * 50, "no XML found"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_answer_gives_low_score_and_clear_error(name):
    answer, expected = HOSTILE[name]
    env = gym.make("RewardLab/BPMN-v2", max_attempts=1)
    env.reset(seed=0, options={"task_id": TASK})
    start = time.perf_counter()
    observation, reward, terminated, truncated, info = env.step(answer)
    elapsed = time.perf_counter() - start
    assert terminated and not truncated
    assert reward == 0.0 and not info["is_success"]
    assert info["score"] <= 0.8 / 5 + 1e-9  # at most 4 of the 5 validity checks pass, the gate zeroes the rest
    assert isinstance(info["action_error"], str) and expected in info["action_error"]
    assert len(info["action_error"]) < 500 and len(observation) < 2000
    assert elapsed < 2.0, f"{name} took {elapsed:.2f}s (containment, not a speed benchmark)"


@pytest.mark.parametrize("kind", ["parallelGateway", "task"])
def test_dense_models_at_the_size_caps_are_contained(kind):
    answer = dense_model(500, 4, kind)
    rubric = bpmn_rubric().configure(gates={})
    start = time.perf_counter()
    result = rubric.score(BPMNOutcome(answer, VALID))
    elapsed = time.perf_counter() - start
    rules = [value for name, value in result.metrics.items() if name.startswith("syntactic/")]
    assert result.components["validity"] == 1.0 and 0.0 < sum(rules) / len(rules) < 1.0
    assert result.components["syntactic"] == pytest.approx(sum(rules) / len(rules) * result.components["semantic"])
    assert all(0.0 <= value <= 1.0 for value in result.metrics.values())
    assert elapsed < 10.0, f"{kind}: {elapsed:.2f}s (containment, not a speed benchmark)"


def test_gateway_mesh_between_tasks_is_contained():
    """Tasks and parallel gateways alternating in a dense mesh: the worst case for routed successions
    (every task's gateway-only paths) and the behavioural profile."""
    nodes = "".join(
        f'<{"task" if i % 2 else "parallelGateway"} id="n{i}" name="Step {i}"/>' for i in range(MAX_FLOW_NODES)
    )
    flows = "".join(
        f'<sequenceFlow id="f{i}_{j}" sourceRef="n{i}" targetRef="n{(i * 7 + j * 13 + 1) % MAX_FLOW_NODES}"/>'
        for i in range(MAX_FLOW_NODES)
        for j in range(4)
    )
    answer = f'{DEFINITIONS}<process id="p">{nodes}{flows}</process></definitions>'
    start = time.perf_counter()
    result = bpmn_rubric().configure(gates={}).score(BPMNOutcome(answer, VALID))
    elapsed = time.perf_counter() - start
    assert result.components["validity"] == 1.0 and result.components["semantic"] < 0.05
    assert elapsed < 10.0, f"{elapsed:.2f}s (containment, not a speed benchmark)"


def test_external_entities_never_read_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-7d1f3c")
    attacks = [
        f'<!DOCTYPE d [<!ENTITY xxe SYSTEM "file://{secret}">]>{DEFINITIONS}<process id="p">'
        '<task id="t" name="&xxe;"/></process></definitions>',
        f'<!DOCTYPE d [<!ENTITY % p SYSTEM "file://{secret}"> %p;]>{DEFINITIONS}</definitions>',
        f'{DEFINITIONS}<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file://{secret}" parse="text"/>'
        "</definitions>",
        f'{DEFINITIONS}<import importType="http://www.w3.org/2001/XMLSchema" location="file://{secret}" '
        'namespace="urn:x"/></definitions>',
    ]
    env = gym.make("RewardLab/BPMN-v2", max_attempts=len(attacks))
    observation, info = env.reset(seed=0, options={"task_id": TASK})
    for attack in attacks:
        observation, reward, terminated, truncated, info = env.step(attack)
        assert "TOP-SECRET" not in observation
        assert "TOP-SECRET" not in json.dumps(info, default=str)
        assert reward == 0.0 and info["action_error"]
    assert terminated


def test_prose_and_fences_around_a_good_answer_are_extracted():
    wrappings = (
        f"```xml\n{VALID}\n```",
        f"Here you go:\n{VALID}\nLet me know!",
        f"```\n{VALID}```",
        f"<think>Start event, then the credit check.</think>\n{VALID}",
    )
    for wrapped in wrappings:
        parsed = read_answer(wrapped)
        assert parsed.valid and parsed.extracted_from in ("code fence", "prose")
    assert read_answer(VALID).extracted_from is None
    assert read_answer("\ufeff" + VALID).extracted_from is None


def test_size_cap_is_checked_before_parsing():
    start = time.perf_counter()
    parsed = read_answer("<" * (MAX_ANSWER_CHARS + 1))
    assert parsed.root is None and "limit" in parsed.error
    assert time.perf_counter() - start < 0.5


def score_never_raises(answer: str | bytes) -> None:
    result = bpmn_rubric().configure(gates={}).score(BPMNOutcome(answer, VALID))
    assert all(0.0 <= value <= 1.0 for value in result.components.values())
    assert all(0.0 <= value <= 1.0 for value in result.metrics.values())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)))
def test_fuzz_arbitrary_text_and_bytes(answer):
    score_never_raises(answer)


XML_PIECES = [
    "<task id='t9' name='X'/>",
    "<sequenceFlow id='z' sourceRef='t9' targetRef='nope'/>",
    "<startEvent id='s9'/>",
    "<parallelGateway id='g9'/>",
    "<boundaryEvent id='b9' attachedToRef='g9'/>",
    "<subProcess id='sp'><task id='in'/></subProcess>",
    "<laneSet><lane id='l'><flowNodeRef>t9</flowNodeRef></lane></laneSet>",
    "<messageFlow id='m' sourceRef='t9' targetRef='t9'/>",
    "</process>",
    "<process id='p9'>",
    "&amp;",
    "<![CDATA[<task/>]]>",
    "<!-- c -->",
]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, len(VALID)), st.integers(0, 400), st.sampled_from(XML_PIECES + [""])),
        min_size=1,
        max_size=4,
    )
)
def test_fuzz_mutated_reference(mutations):
    answer = VALID
    for position, deleted, inserted in mutations:
        position = min(position, len(answer))
        answer = answer[:position] + inserted + answer[position + deleted :]
    score_never_raises(answer)
    env = gym.make("RewardLab/BPMN-v2", max_attempts=1)
    env.reset(seed=0, options={"task_id": TASK})
    *_, info = env.step(answer)
    assert 0.0 <= info["score"] <= 1.0
