"""Syntactic quality: BPMN modelling rules, each a sub-metric in [0, 1].

Every rule is the fraction of the elements it concerns that satisfy it (1.0 when there are
none), so one bad element in a large model costs little and a model that breaks a rule
everywhere scores 0 on it. The ``syntactic`` component is the mean of the rules times the
semantic score (:mod:`rewardlab.envs.bpmn.rubric`): the rules hold for any tidy model, task or not.

==============================  ==============================================================
rule                            fraction of ... that ...
==============================  ==============================================================
start_event_present             processes with flow nodes that have a start event
end_event_present               processes with flow nodes that have an end event
start_no_incoming               start events that have no incoming sequence flow
end_no_outgoing                 end events that have no outgoing sequence flow
sequence_flow_refs_resolve      sequence flows whose sourceRef and targetRef are flow nodes
sequence_flow_in_container      resolved sequence flows that stay inside their (sub-)process
no_duplicate_flow               resolved sequence flows whose source and target no other flow joins
message_flow_refs_resolve       message flows whose ends are flow nodes or pools
message_flow_between_pools      resolved message flows that connect two different pools
reachable_from_start            flow nodes on a path from a start event (or, in a process
                                without one, from a node without incoming flow)
reaches_end                     flow nodes on a path to an end event (or a sink node)
activities_labelled             activities with a name
decision_flows_labelled         outgoing flows of exclusive/inclusive splits with a name,
                                condition or default marking
gateway_not_mixed               gateways that do not both split and join
gateway_routes                  gateways with an incoming and an outgoing flow that split or join
no_implicit_split               activities/events with at most one unconditional outgoing flow
no_implicit_join                activities/events with at most one incoming flow
join_type_matched               joins whose nearest common split has the same type
parallel_split_synchronised     parallel/inclusive splits whose branches, where they meet
                                again, meet at a join of the same type
boundary_event_valid            boundary events attached to an activity, with no incoming and
                                at least one outgoing flow
event_gateway_targets           successors of event-based gateways that are catch events or
                                receive tasks
default_flow_valid              ``default`` attributes naming an unconditional outgoing flow
lane_refs_resolve               lane flowNodeRefs naming a flow node
pool_refs_resolve               pools whose processRef (if any) names a process
intermediate_event_connected    intermediate events with an incoming and an outgoing flow (a link
                                throw's outgoing one is the link catch it pairs with, and that
                                catch's incoming one the throw: an unpaired link breaks its flow)
==============================  ==============================================================
"""

from __future__ import annotations

from collections import Counter

from rewardlab.envs.bpmn.model import BPMNModel, compatible_gateways

SYNTACTIC_RULES: tuple[str, ...] = (
    "start_event_present",
    "end_event_present",
    "start_no_incoming",
    "end_no_outgoing",
    "sequence_flow_refs_resolve",
    "sequence_flow_in_container",
    "no_duplicate_flow",
    "message_flow_refs_resolve",
    "message_flow_between_pools",
    "reachable_from_start",
    "reaches_end",
    "activities_labelled",
    "decision_flows_labelled",
    "gateway_not_mixed",
    "gateway_routes",
    "no_implicit_split",
    "no_implicit_join",
    "join_type_matched",
    "parallel_split_synchronised",
    "boundary_event_valid",
    "event_gateway_targets",
    "default_flow_valid",
    "lane_refs_resolve",
    "pool_refs_resolve",
    "intermediate_event_connected",
)


def _count(good: int, total: int) -> tuple[int, int]:
    return int(good), int(total)


def syntactic_rules(model: BPMNModel) -> dict[str, float]:
    """Every rule of :data:`SYNTACTIC_RULES` for one model, each in [0, 1]: ``good / total`` of
    :func:`rule_counts` (1.0 when the rule concerns no element)."""
    return {rule: 1.0 if total == 0 else good / total for rule, (good, total) in rule_counts(model).items()}


def rule_violations(model: BPMNModel) -> dict[str, int]:
    """Per rule, the elements that break it (``total − good`` of :func:`rule_counts`): the model's modelling
    defects, which :mod:`rewardlab.envs.bpmn.rubric` compares with the reference's own."""
    return {rule: total - good for rule, (good, total) in rule_counts(model).items()}


def rule_counts(model: BPMNModel) -> dict[str, tuple[int, int]]:
    """Per rule of :data:`SYNTACTIC_RULES`, ``(good, total)``: the elements it concerns that satisfy it, and
    the elements it concerns."""
    graph = model.graph
    nodes = [model.nodes[i] for i in graph.ids]
    succ, pred = graph.succ, graph.pred
    n = len(nodes)
    rules: dict[str, tuple[int, int]] = {}

    processes = {node.process for node in nodes}
    starts = {node.process for node in nodes if node.kind == "startEvent" and node.container == node.process}
    ends = {node.process for node in nodes if node.kind == "endEvent" and node.container == node.process}
    rules["start_event_present"] = _count(len(starts & processes), len(processes))
    rules["end_event_present"] = _count(len(ends & processes), len(processes))
    start_ids = [i for i, node in enumerate(nodes) if node.kind == "startEvent"]
    end_ids = [i for i, node in enumerate(nodes) if node.kind == "endEvent"]
    rules["start_no_incoming"] = _count(sum(not pred[i] for i in start_ids), len(start_ids))
    rules["end_no_outgoing"] = _count(sum(not succ[i] for i in end_ids), len(end_ids))

    known = model.nodes
    resolving = [f for f in model.flows if f.source in known and f.target in known]
    rules["sequence_flow_refs_resolve"] = _count(len(resolving), len(model.flows))
    rules["sequence_flow_in_container"] = _count(len(graph.resolved), len(resolving))
    joined = Counter((flow.source, flow.target) for flow in graph.resolved)
    rules["no_duplicate_flow"] = _count(
        sum(joined[(f.source, f.target)] == 1 for f in graph.resolved), len(graph.resolved)
    )
    ends_known = [f for f in model.message_flows if _endpoint(model, f.source) and _endpoint(model, f.target)]
    rules["message_flow_refs_resolve"] = _count(len(ends_known), len(model.message_flows))
    rules["message_flow_between_pools"] = _count(
        sum(model.pool_of(f.source) != model.pool_of(f.target) for f in ends_known), len(ends_known)
    )

    linked_catches = set(graph.links.values())
    roots = [
        i
        for i, node in enumerate(nodes)
        if (node.kind == "startEvent" and node.container == node.process)
        or node.triggered_by_event
        or (
            node.process not in starts
            and node.container == node.process
            and not pred[i]
            and i not in linked_catches
            and node.kind not in ("boundaryEvent", "startEvent")
        )
    ]
    rules["reachable_from_start"] = _count(int(graph.reachable_from(roots).sum()), n)
    sinks = set(end_ids) | {i for i, node in enumerate(nodes) if not graph.cf_succ[i] and node.kind != "endEvent"}
    implicit_ends = {node.process for node in nodes} - ends
    targets = [i for i in sinks if nodes[i].kind == "endEvent" or nodes[i].process in implicit_ends]
    if n and targets:
        to_end = graph.reach[:, targets].any(axis=1)
        to_end[targets] = True
        rules["reaches_end"] = (int(to_end.sum()), n)
    else:
        rules["reaches_end"] = _count(0, n)

    activities = [node for node in nodes if node.category == "activity"]
    rules["activities_labelled"] = _count(sum(bool(a.name) for a in activities), len(activities))
    flows_from: dict[str, list] = {}
    for flow in graph.resolved:
        flows_from.setdefault(flow.source, []).append(flow)
    decision_flows = [
        (node, flow)
        for i, node in enumerate(nodes)
        if node.kind in ("exclusiveGateway", "inclusiveGateway") and len(succ[i]) >= 2
        for flow in flows_from[node.id]
    ]
    rules["decision_flows_labelled"] = _count(
        sum(bool(f.name or f.conditional or f.id == node.default_flow) for node, f in decision_flows),
        len(decision_flows),
    )

    gateways = [i for i, node in enumerate(nodes) if node.category == "gateway"]
    rules["gateway_not_mixed"] = _count(
        sum(not (len(pred[i]) > 1 and len(succ[i]) > 1) for i in gateways), len(gateways)
    )
    rules["gateway_routes"] = _count(
        sum(bool(pred[i]) and bool(succ[i]) and (len(pred[i]) > 1 or len(succ[i]) > 1) for i in gateways),
        len(gateways),
    )
    plain = [i for i, node in enumerate(nodes) if node.category != "gateway"]
    unconditional = {f.source: 0 for f in graph.resolved}
    for flow in graph.resolved:
        if not flow.conditional and flow.id != known[flow.source].default_flow:
            unconditional[flow.source] += 1
    rules["no_implicit_split"] = _count(sum(unconditional.get(nodes[i].id, 0) <= 1 for i in plain), len(plain))
    rules["no_implicit_join"] = _count(sum(len(pred[i]) <= 1 for i in plain), len(plain))

    pairs = graph.pairs
    rules["join_type_matched"] = _count(
        sum(s is not None and compatible_gateways(nodes[s].kind, nodes[j].kind) for j, s in pairs.join_split.items()),
        len(pairs.joins),
    )
    forking = [s for s in pairs.splits if nodes[s].kind in ("parallelGateway", "inclusiveGateway")]
    rules["parallel_split_synchronised"] = _count(
        sum((join := pairs.split_join[s]) is None or nodes[join].kind == nodes[s].kind for s in forking),
        len(forking),
    )

    boundary = [i for i, node in enumerate(nodes) if node.kind == "boundaryEvent"]
    rules["boundary_event_valid"] = _count(
        sum(
            known.get(nodes[i].attached_to) is not None
            and known[nodes[i].attached_to].category == "activity"
            and not pred[i]
            and bool(succ[i])
            for i in boundary
        ),
        len(boundary),
    )
    event_targets = [t for i, node in enumerate(nodes) if node.kind == "eventBasedGateway" for t in succ[i]]
    rules["event_gateway_targets"] = _count(
        sum(nodes[t].kind in ("intermediateCatchEvent", "receiveTask") for t in event_targets), len(event_targets)
    )
    outgoing = {(f.source, f.id): f for f in graph.resolved}
    defaults = [node for node in nodes if node.default_flow]
    rules["default_flow_valid"] = _count(
        sum(
            (node.id, node.default_flow) in outgoing and not outgoing[(node.id, node.default_flow)].conditional
            for node in defaults
        ),
        len(defaults),
    )
    lane_refs = [ref for _, refs in model.lanes.values() for ref in refs]
    rules["lane_refs_resolve"] = _count(sum(ref in known for ref in lane_refs), len(lane_refs))
    process_ids = set(model.processes)
    rules["pool_refs_resolve"] = _count(
        sum(not ref or ref in process_ids for _, ref in model.participants.values()), len(model.participants)
    )
    intermediate = [i for i, node in enumerate(nodes) if node.kind.startswith("intermediate")]
    rules["intermediate_event_connected"] = _count(
        sum((bool(pred[i]) or i in linked_catches) and (bool(succ[i]) or i in graph.links) for i in intermediate),
        len(intermediate),
    )
    return rules


def _endpoint(model: BPMNModel, ref: str) -> bool:
    return ref in model.nodes or ref in model.participants
