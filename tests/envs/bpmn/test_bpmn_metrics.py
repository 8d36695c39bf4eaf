"""BPMN metrics on hand-built models: syntactic rules, pragmatic metrics, semantic similarity, reachability."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rewardlab.envs.bpmn.rubric as rubric_module
from rewardlab.envs.bpmn.model import BPMNModel, ControlFlow, Node, extract_model, strongly_connected_components
from rewardlab.envs.bpmn.parse import BPMN_NS, read_answer
from rewardlab.envs.bpmn.pragmatic import PRAGMATIC_METRICS, is_verb_object, pragmatic_metrics
from rewardlab.envs.bpmn.rubric import score_bpmn
from rewardlab.envs.bpmn.semantic import (
    SEMANTIC_METRICS,
    label_features,
    label_set,
    label_similarity,
    profile,
    semantic_similarity,
)
from rewardlab.envs.bpmn.syntactic import SYNTACTIC_RULES, syntactic_rules


def bpmn(body: str, collaboration: str = "", more_processes: str = "") -> str:
    return (
        f'<definitions xmlns="{BPMN_NS}" id="d" targetNamespace="http://example.com">{collaboration}'
        f'<process id="p">{body}</process>{more_processes}</definitions>'
    )


def flows(*pairs: str) -> str:
    """``flows("s>t", "t>e")`` -> sequence flows with ids f0, f1 ..."""
    out = []
    for i, pair in enumerate(pairs):
        source, target = pair.split(">")
        out.append(f'<sequenceFlow id="f{i}" sourceRef="{source}" targetRef="{target}"/>')
    return "".join(out)


def model(xml: str) -> BPMNModel:
    parsed = read_answer(xml)
    assert parsed.root is not None, parsed.error
    return extract_model(parsed.root)


SEQUENCE = bpmn(
    '<startEvent id="s" name="Order received"/><task id="a" name="Check order"/><task id="b" name="Ship goods"/>'
    '<endEvent id="e" name="Order done"/>' + flows("s>a", "a>b", "b>e")
)


def xor_or_and(kind: str, labels=("Check order", "Pay bill", "Ship goods", "Send invoice")) -> str:
    first, left, right, last = labels
    return bpmn(
        f'<startEvent id="s" name="Start"/><task id="a" name="{first}"/><{kind} id="g1"/>'
        f'<task id="b" name="{left}"/><task id="c" name="{right}"/><{kind} id="g2"/><task id="d" name="{last}"/>'
        '<endEvent id="e" name="End"/>' + flows("s>a", "a>g1", "g1>b", "g1>c", "b>g2", "c>g2", "g2>d", "d>e")
    )


def test_a_clean_sequence_satisfies_every_rule():
    rules = syntactic_rules(model(SEQUENCE))
    assert len(SYNTACTIC_RULES) == 25 and list(rules) == list(SYNTACTIC_RULES)
    assert rules == {name: 1.0 for name in SYNTACTIC_RULES}


RULE_CASES = [
    (
        "start_no_incoming",
        '<startEvent id="s"/><task id="t" name="Do it"/><endEvent id="e"/>' + flows("s>t", "t>e", "t>s"),
        0.0,
    ),
    (
        "end_no_outgoing",
        '<startEvent id="s"/><task id="t" name="Do it"/><endEvent id="e"/>' + flows("s>t", "t>e", "e>t"),
        0.0,
    ),
    (
        "sequence_flow_refs_resolve",
        '<startEvent id="s"/><task id="t" name="Do it"/><endEvent id="e"/>' + flows("s>t", "t>e", "t>ghost"),
        2 / 3,
    ),
    (
        "activities_labelled",
        '<startEvent id="s"/><task id="t" name="Do it"/><task id="u"/><endEvent id="e"/>' + flows("s>t", "t>u", "u>e"),
        0.5,
    ),
    ("end_event_present", '<startEvent id="s"/><task id="t" name="Do it"/>' + flows("s>t"), 0.0),
    (
        "reachable_from_start",
        '<startEvent id="s"/><task id="t" name="Do it"/><task id="orphan" name="Do more"/><endEvent id="e"/>'
        + flows("s>t", "t>e", "orphan>e"),
        0.75,
    ),
    (
        "reaches_end",
        '<startEvent id="s"/><task id="t" name="Do it"/><task id="stuck" name="Wait"/><endEvent id="e"/>'
        '<exclusiveGateway id="g"/>' + flows("s>t", "t>g", "g>e", "g>stuck"),
        0.8,
    ),
    (
        "no_implicit_split",
        '<startEvent id="s"/><task id="t" name="Do it"/><task id="a" name="A"/><task id="b" name="B"/>'
        '<endEvent id="e"/>' + flows("s>t", "t>a", "t>b", "a>e", "b>e"),
        0.8,
    ),
    (
        "no_implicit_join",
        '<startEvent id="s"/><task id="t" name="Do it"/><task id="a" name="A"/><task id="b" name="B"/>'
        '<endEvent id="e"/>'
        '<parallelGateway id="g"/>' + flows("s>t", "t>g", "g>a", "g>b", "a>e", "b>e"),
        0.8,
    ),
    (
        "decision_flows_labelled",
        '<startEvent id="s"/><exclusiveGateway id="g"/><task id="a" name="A"/><task id="b" name="B"/>'
        '<endEvent id="e"/><endEvent id="e2"/>' + flows("s>g", "g>a", "g>b", "a>e", "b>e2"),
        0.0,
    ),
    (
        "gateway_routes",
        '<startEvent id="s"/><exclusiveGateway id="g"/><task id="a" name="A"/><endEvent id="e"/>'
        + flows("s>g", "g>a", "a>e"),
        0.0,
    ),
    (
        "gateway_not_mixed",
        '<startEvent id="s"/><startEvent id="s2"/><exclusiveGateway id="g"/><task id="a" name="A"/>'
        '<task id="b" name="B"/><endEvent id="e"/><endEvent id="e2"/>'
        + flows("s>g", "s2>g", "g>a", "g>b", "a>e", "b>e2"),
        0.0,
    ),
    (
        "boundary_event_valid",
        '<startEvent id="s"/><task id="t" name="Do it"/><endEvent id="e"/>'
        '<boundaryEvent id="x" attachedToRef="nothing"/>' + flows("s>t", "t>e", "x>e"),
        0.0,
    ),
    (
        "default_flow_valid",
        '<startEvent id="s"/><exclusiveGateway id="g" default="missing"/><task id="a" name="A"/><task id="b" name="B"/>'
        '<endEvent id="e"/><endEvent id="e2"/>' + flows("s>g", "g>a", "g>b", "a>e", "b>e2"),
        0.0,
    ),
    (
        "event_gateway_targets",
        '<startEvent id="s"/><eventBasedGateway id="g"/><task id="a" name="A"/><intermediateCatchEvent id="m">'
        '<timerEventDefinition/></intermediateCatchEvent><endEvent id="e"/><endEvent id="e2"/>'
        + flows("s>g", "g>a", "g>m", "a>e", "m>e2"),
        0.5,
    ),
    (
        "intermediate_event_connected",
        '<startEvent id="s"/><task id="t" name="Do it"/><endEvent id="e"/><intermediateThrowEvent id="i"/>'
        + flows("s>t", "t>e"),
        0.0,
    ),
    (
        "lane_refs_resolve",
        '<laneSet id="ls"><lane id="l1" name="Clerk"><flowNodeRef>t</flowNodeRef><flowNodeRef>nope</flowNodeRef></lane>'
        '</laneSet><startEvent id="s"/><task id="t" name="Do it"/><endEvent id="e"/>' + flows("s>t", "t>e"),
        0.5,
    ),
]


@pytest.mark.parametrize(("rule", "body", "expected"), RULE_CASES, ids=[case[0] for case in RULE_CASES])
def test_each_rule_detects_its_violation(rule, body, expected):
    assert syntactic_rules(model(bpmn(body)))[rule] == pytest.approx(expected)


def test_gateway_type_mismatch_is_caught_both_ways():
    xor_then_and = xor_or_and("exclusiveGateway").replace('<exclusiveGateway id="g2"/>', '<parallelGateway id="g2"/>')
    assert syntactic_rules(model(xor_then_and))["join_type_matched"] == 0.0
    and_then_xor = xor_or_and("parallelGateway").replace('<parallelGateway id="g2"/>', '<exclusiveGateway id="g2"/>')
    rules = syntactic_rules(model(and_then_xor))
    assert rules["parallel_split_synchronised"] == 0.0 and rules["join_type_matched"] == 0.0
    assert syntactic_rules(model(xor_or_and("parallelGateway")))["join_type_matched"] == 1.0


def test_loop_join_matches_the_split_on_its_cycle():
    loop = bpmn(
        '<startEvent id="s"/><exclusiveGateway id="j"/><task id="t" name="Review draft"/><exclusiveGateway id="g"/>'
        '<endEvent id="e"/><sequenceFlow id="f0" sourceRef="s" targetRef="j"/><sequenceFlow id="f1" sourceRef="j" '
        'targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="g"/><sequenceFlow id="f3" sourceRef="g" '
        'targetRef="j" name="again"/><sequenceFlow id="f4" sourceRef="g" targetRef="e" name="done"/>'
    )
    m = model(loop)
    assert syntactic_rules(m)["join_type_matched"] == 1.0
    metrics = pragmatic_metrics(m)
    assert metrics["acyclicity"] == pytest.approx(1 - 3 / 5)
    assert metrics["structuredness"] == 1.0


def test_message_flows_must_connect_two_pools():
    collaboration = (
        '<collaboration id="c"><participant id="P1" name="Shop" processRef="p"/>'
        '<participant id="P2" name="Customer" processRef="p2"/>'
        '<messageFlow id="m1" sourceRef="a" targetRef="x"/><messageFlow id="m2" sourceRef="a" targetRef="b"/>'
        "</collaboration>"
    )
    body = '<startEvent id="s"/><task id="a" name="Send offer"/><task id="b" name="Bill"/><endEvent id="e"/>'
    other = (
        '<process id="p2"><startEvent id="s2"/><task id="x" name="Read offer"/><endEvent id="e2"/>'
        '<sequenceFlow id="g0" sourceRef="s2" targetRef="x"/><sequenceFlow id="g1" sourceRef="x" targetRef="e2"/>'
        "</process>"
    )
    m = model(bpmn(body + flows("s>a", "a>b", "b>e"), collaboration, other))
    rules = syntactic_rules(m)
    assert rules["message_flow_refs_resolve"] == 1.0
    assert rules["message_flow_between_pools"] == 0.5
    assert rules["pool_refs_resolve"] == 1.0


def test_pragmatic_metrics_follow_their_formulas():
    chain = "".join(f'<task id="t{i}" name="Check item {i}"/>' for i in range(100))
    chain_flows = "".join(f'<sequenceFlow id="f{i}" sourceRef="t{i}" targetRef="t{i + 1}"/>' for i in range(99))
    big = pragmatic_metrics(model(bpmn(chain + chain_flows)))
    assert list(big) == list(PRAGMATIC_METRICS)
    assert big["size"] == pytest.approx(0.5)
    assert big["unique_labels"] == 1.0 and big["verb_object_labels"] == 1.0 and big["sequentiality"] == 1.0
    assert big["diagram_interchange"] == 0.0
    inclusive = bpmn(
        '<startEvent id="s"/><inclusiveGateway id="g"/>'
        + "".join(f'<task id="t{i}" name="Payment approval"/>' for i in range(4))
        + '<inclusiveGateway id="j"/><endEvent id="e"/>'
        + flows("s>g", *(f"g>t{i}" for i in range(4)), *(f"t{i}>j" for i in range(4)), "j>e")
    )
    metrics = pragmatic_metrics(model(inclusive))
    assert metrics["control_flow_complexity"] == pytest.approx(10 / 15)
    assert metrics["verb_object_labels"] == 0.0 and metrics["unique_labels"] == pytest.approx(1 - 3 / 4)
    assert metrics["few_inclusive_gateways"] == 0.0 and metrics["gateway_degree"] == pytest.approx(4 / 5)
    assert metrics["nesting_depth"] == 1.0 and metrics["structuredness"] == 1.0


def test_layout_overlap_and_diagram_interchange():
    di = (
        '<bpmndi:BPMNDiagram xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" '
        'xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" id="D"><bpmndi:BPMNPlane id="P" bpmnElement="p">'
        '<bpmndi:BPMNShape id="S1" bpmnElement="a"><dc:Bounds x="0" y="0" width="100" height="80"/></bpmndi:BPMNShape>'
        '<bpmndi:BPMNShape id="S2" bpmnElement="b"><dc:Bounds x="50" y="40" width="100" height="80"/>'
        "</bpmndi:BPMNShape>"
        "</bpmndi:BPMNPlane></bpmndi:BPMNDiagram>"
    )
    xml = SEQUENCE.replace("</definitions>", di + "</definitions>")
    metrics = pragmatic_metrics(model(xml))
    assert metrics["layout_no_overlap"] == 0.0
    assert metrics["diagram_interchange"] == pytest.approx(2 / 7)
    assert is_verb_object("Check invoice") and not is_verb_object("Payment") and not is_verb_object("Payment approval")


def semantic(candidate: str, reference: str) -> tuple[float, dict[str, float]]:
    return semantic_similarity(profile(model(candidate)), profile(model(reference)))


def test_identical_models_are_semantically_equal():
    value, metrics = semantic(xor_or_and("exclusiveGateway"), xor_or_and("exclusiveGateway"))
    assert value == pytest.approx(1.0)
    assert list(metrics) == list(SEMANTIC_METRICS)
    assert all(v == pytest.approx(1.0) for v in metrics.values())


def test_semantic_sees_labels_order_and_routing():
    reference = xor_or_and("exclusiveGateway")
    relabelled = xor_or_and("exclusiveGateway", ("Bake bread", "Walk dog", "Paint fence", "Sing song"))
    value, metrics = semantic(relabelled, reference)
    assert metrics["activity_label_recall"] == 0.0 and metrics["node_f1"] < 0.5 and value < 0.6
    parallel_value, parallel = semantic(xor_or_and("parallelGateway"), reference)
    assert parallel["node_f1"] == pytest.approx(1.0)
    # successions carry the gateways they pass: a→b through an AND split is not a→b through an XOR split
    assert parallel["succession_f1"] == pytest.approx(2 / 6)
    assert parallel["behavioural_similarity"] < 1.0 and parallel["gateway_coverage"] == 0.0
    swapped = xor_or_and("exclusiveGateway", ("Send invoice", "Pay bill", "Ship goods", "Check order"))
    _, order = semantic(swapped, reference)
    assert order["node_f1"] == pytest.approx(1.0) and order["behavioural_similarity"] < 1.0
    assert order["succession_f1"] < 1.0
    one_off = xor_or_and("exclusiveGateway", ("Check order", "Pay bill", "Ship goods", "Archive file"))
    three_off = xor_or_and("exclusiveGateway", ("Check order", "Walk dog", "Paint fence", "Archive file"))
    assert semantic(one_off, reference)[0] > semantic(three_off, reference)[0] > value
    missing = SEQUENCE.replace('<task id="b" name="Ship goods"/>', "").replace("a>b", "a>e")
    _, partial = semantic(missing.replace('sourceRef="b"', 'sourceRef="a"'), SEQUENCE)
    assert partial["node_precision"] == pytest.approx(1.0) and partial["node_recall"] == pytest.approx(0.75)


def test_label_similarity_is_a_normalised_cosine():
    labels = ["Check invoice", "check   the INVOICE", "Ship goods", "", "Check invoice!"]
    features = label_set([label_features(x) for x in labels])
    sim = label_similarity(features, features)
    assert np.allclose(sim, sim.T) and np.all((sim >= 0) & (sim <= 1))
    assert sim[0, 4] == pytest.approx(1.0) and sim[3, 3] == 1.0 and sim[0, 3] == 0.0
    assert sim[0, 1] > 0.6 and sim[0, 2] < 0.2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 11), max_size=3), min_size=1, max_size=12))
def test_reachability_matches_networkx(successors):
    n = len(successors)
    succ = [[j for j in targets if j < n] for targets in successors]
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from((i, j) for i, targets in enumerate(succ) for j in targets)
    label, components = strongly_connected_components(succ)
    assert sorted(map(sorted, components)) == sorted(map(sorted, nx.strongly_connected_components(graph)))
    flow = ControlFlow(BPMNModel(nodes={f"n{i}": Node(f"n{i}", "task", "activity", "", "p", "p") for i in range(n)}))
    flow.cf_succ = succ
    for a in range(n):
        expected = set(nx.descendants(graph, a)) | ({a} if any(nx.has_path(graph, b, a) for b in succ[a]) else set())
        assert {b for b in range(n) if flow.reach_bits[a] >> b & 1} == expected
        assert set(np.flatnonzero(flow.reach[a])) == expected


def test_score_bpmn_examples_run():
    failures, tests = doctest.testmod(rubric_module, verbose=False)
    assert tests > 0 and failures == 0
    assert score_bpmn(SEQUENCE).components["semantic"] == 0.0
