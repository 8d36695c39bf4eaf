"""Pragmatic quality: how easy the model is to understand, each metric normalised to [0, 1].

The metrics follow the process-model understandability literature (Mendling et al.'s seven
process modelling guidelines, 7PMG; Cardoso's control-flow complexity). Where a raw measure is
a count, it is mapped to a desirability that is 1 up to a documented threshold and decays as
``threshold / value`` beyond it. The ``pragmatic`` component is the mean of the metrics times
the semantic score (:mod:`rewardlab.envs.bpmn.rubric`): a readable model of the wrong process earns little.

=======================  ===================================================================
metric                   definition (1 is best)
=======================  ===================================================================
size                     1 if flow nodes ≤ 50 (7PMG G7), else 50 / flow nodes
control_flow_complexity  Cardoso's CFC = Σ XOR/event splits fan-out + Σ OR/complex splits
                         (2^fan-out − 1) + Σ AND splits 1; 1 if CFC ≤ 10, else 10 / CFC
gateway_degree           mean gateway degree (in + out) d; 1 if d ≤ 4, else 4 / d
structuredness           fraction of gateways in a same-type split/join pair, counting an
                         exclusive or event-based split whose branches never meet again as
                         structured
nesting_depth            deepest nesting k of split/join pairs; 1 if k ≤ 2, else 2 / k
verb_object_labels       fraction of activity labels "verb object…" (first word in the verb
                         lexicon ``data/verbs.txt``, at least two words) (7PMG G6)
unique_labels            1 − duplicated activity labels / labelled activities
label_length             fraction of labels with at most 8 words and 60 characters
diagram_interchange      fraction of flow nodes and sequence flows that have a DI shape/edge
layout_no_overlap        1 − fraction of pairs of shapes (same container, no boundary events)
                         that overlap
single_start_event       fraction of processes with exactly one start event (7PMG G2)
few_inclusive_gateways   1 − inclusive gateways / gateways (7PMG G4)
sequentiality            fraction of sequence flows between two non-gateway nodes
acyclicity               1 − fraction of flow nodes on a cycle
=======================  ===================================================================
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np

from rewardlab.envs.bpmn.model import BPMNModel, compatible_gateways

PRAGMATIC_METRICS: tuple[str, ...] = (
    "size",
    "control_flow_complexity",
    "gateway_degree",
    "structuredness",
    "nesting_depth",
    "verb_object_labels",
    "unique_labels",
    "label_length",
    "diagram_interchange",
    "layout_no_overlap",
    "single_start_event",
    "few_inclusive_gateways",
    "sequentiality",
    "acyclicity",
)

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@lru_cache(maxsize=1)
def verbs() -> frozenset[str]:
    """The verb lexicon (lower case)."""
    path = Path(__file__).parent / "data" / "verbs.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))


def _desirability(value: float, threshold: float) -> float:
    """1 up to ``threshold``, then ``threshold / value``."""
    return 1.0 if value <= threshold else threshold / value


def _fraction(good: float, total: int) -> float:
    return 1.0 if total == 0 else good / total


def is_verb_object(label: str) -> bool:
    """The label starts with a known verb and has an object: ``"Check invoice"`` yes, ``"Invoice check"`` no."""
    words = _WORD.findall(label.lower())
    return len(words) >= 2 and words[0] in verbs()


def pragmatic_metrics(model: BPMNModel) -> dict[str, float]:
    """Every metric of :data:`PRAGMATIC_METRICS` for one model, each in [0, 1]."""
    graph = model.graph
    nodes = [model.nodes[i] for i in graph.ids]
    succ, pred = graph.succ, graph.pred
    n = len(nodes)
    metrics: dict[str, float] = {"size": _desirability(n, 50)}

    cfc = 0
    for i, node in enumerate(nodes):
        fan_out = len(succ[i])
        if node.category != "gateway" or fan_out < 2:
            continue
        if node.kind in ("exclusiveGateway", "eventBasedGateway"):
            cfc += fan_out
        elif node.kind in ("inclusiveGateway", "complexGateway"):
            cfc += 2 ** min(fan_out, 30) - 1
        else:
            cfc += 1
    metrics["control_flow_complexity"] = _desirability(cfc, 10)
    gateways = [i for i, node in enumerate(nodes) if node.category == "gateway"]
    degree = float(np.mean([len(succ[i]) + len(pred[i]) for i in gateways])) if gateways else 0.0
    metrics["gateway_degree"] = _desirability(degree, 4)

    pairs = graph.pairs
    join_ok = {
        j: s is not None and compatible_gateways(nodes[s].kind, nodes[j].kind) for j, s in pairs.join_split.items()
    }
    split_ok = {
        s: (j is not None and compatible_gateways(nodes[s].kind, nodes[j].kind))
        or (j is None and nodes[s].kind in ("exclusiveGateway", "eventBasedGateway"))
        for s, j in pairs.split_join.items()
    }
    structured = sum(join_ok.get(g, True) and split_ok.get(g, True) for g in gateways)
    metrics["structuredness"] = _fraction(structured, len(gateways))
    depth = 0
    matched = [
        (s, j)
        for s, j in pairs.split_join.items()
        if j is not None and compatible_gateways(nodes[s].kind, nodes[j].kind)
    ]
    if matched:
        reach = graph.reach
        inside = np.zeros(n, dtype=int)
        for s, j in matched:
            inside += reach[s] & reach[:, j]
        depth = int(inside.max())
    metrics["nesting_depth"] = _desirability(depth, 2)

    labels = [node.name for node in nodes if node.category == "activity" and node.name]
    metrics["verb_object_labels"] = _fraction(sum(map(is_verb_object, labels)), len(labels))
    lowered = [label.lower() for label in labels]
    metrics["unique_labels"] = 1.0 - _fraction(len(lowered) - len(set(lowered)), len(lowered)) if lowered else 1.0
    named = [node.name for node in nodes if node.name]
    metrics["label_length"] = _fraction(sum(len(x) <= 60 and len(x.split()) <= 8 for x in named), len(named))

    drawn = sum(node.id in model.shapes for node in nodes) + sum(f.id in model.edges for f in graph.resolved)
    metrics["diagram_interchange"] = _fraction(drawn, n + len(graph.resolved))
    metrics["layout_no_overlap"] = _no_overlap(model)

    processes = {node.process for node in nodes}
    start_count: dict[str, int] = {}
    for node in nodes:
        if node.kind == "startEvent" and node.container == node.process:
            start_count[node.process] = start_count.get(node.process, 0) + 1
    metrics["single_start_event"] = _fraction(sum(start_count.get(p, 0) == 1 for p in processes), len(processes))
    inclusive = sum(nodes[i].kind == "inclusiveGateway" for i in gateways)
    metrics["few_inclusive_gateways"] = 1.0 - _fraction(inclusive, len(gateways)) if gateways else 1.0
    flows = [(graph.index[f.source], graph.index[f.target]) for f in graph.resolved]
    metrics["sequentiality"] = _fraction(
        sum(nodes[a].category != "gateway" and nodes[b].category != "gateway" for a, b in flows), len(flows)
    )
    metrics["acyclicity"] = 1.0 - float(np.diagonal(graph.reach).mean()) if n else 1.0
    return metrics


def _no_overlap(model: BPMNModel) -> float:
    """1 − overlapping shape pairs / shape pairs, over pairs in one container (boundary events excluded)."""
    by_container: dict[str, list[tuple[float, float, float, float]]] = {}
    for node_id, box in model.bounds:
        node = model.nodes[node_id]
        if node.kind != "boundaryEvent":
            by_container.setdefault(node.container, []).append(box)
    pairs = overlapping = 0
    for boxes in by_container.values():
        if len(boxes) < 2:
            continue
        b = np.array(boxes)
        x0, y0 = b[:, 0], b[:, 1]
        x1, y1 = x0 + b[:, 2], y0 + b[:, 3]
        overlap = (x0[:, None] < x1[None, :]) & (x0[None, :] < x1[:, None])
        overlap &= (y0[:, None] < y1[None, :]) & (y0[None, :] < y1[:, None])
        k = len(boxes)
        pairs += k * (k - 1) // 2
        overlapping += int(np.triu(overlap, 1).sum())
    return 1.0 - _fraction(overlapping, pairs) if pairs else 1.0
