"""BPMN-v2's equivalent and defective rewrites of the oracle's answer (:mod:`rewardlab.audit.rewrite`).

Every rewrite parses the oracle's XML (the reference model), changes the tree and serialises it
as a bare ``definitions`` element, so validity is never what a rewrite tests.

*Equivalent* (the same model, written differently; each must keep ``is_success``):

- ``ids_renamed``: every ``id`` replaced by a fresh one, and every reference to it (attributes such
  as ``sourceRef`` or ``bpmnElement``, ``incoming``/``outgoing``/``flowNodeRef`` texts) renamed with it.
- ``elements_shuffled``: the flow elements (nodes and sequence flows) of every (sub-)process in a
  random order.
- ``prefix_bpmn`` / ``prefix_default`` / ``prefix_other``: the BPMN namespace written with the
  ``bpmn:`` prefix, as the default namespace, or with another prefix (``xsi:type`` QNames follow).
- ``diagram_dropped``: without diagram interchange (``bpmndi:BPMNDiagram``).
- ``flow_refs_dropped`` / ``flow_refs_added``: the ``incoming``/``outgoing`` children of flow nodes
  removed, or written out for every resolved sequence flow.
- ``definitions_referenced``: every inline event definition declared at the top level of ``definitions`` and named
  by an ``eventDefinitionRef`` (only models with event definitions).
- ``labels_recased``: every ``name`` re-cased (lower, upper or title, one case for the whole
  document, so names that were equal stay equal: link events pair by name) with its whitespace
  respaced (doubled, leading and trailing).

*Defective* (the same model with one modelling defect, which bpmnlint reports but for a swapped decision; each must
lose ``is_success``):

- ``flow_removed``: one sequence flow removed (with its diagram edge and references).
- ``implicit_split_added``: an extra unconditional flow from an activity or event that already has
  an outgoing flow to another node of its (sub-)process that is not already its successor.
- ``start_event_removed`` / ``end_event_removed``: a start (end) event of a process removed with
  the flows into and out of it.
- ``gateway_mixed``: a joining gateway made to split as well (merged with the splitting gateway it
  leads to, or given a second outgoing flow).
- ``gateway_type_swapped``: one exclusive gateway made parallel or one parallel gateway exclusive.
- ``link_unpaired``: a link catch event's ``linkEventDefinition`` renamed, so that the throw event that
  stood for a flow into it pairs with nothing (bpmnlint's ``link-event``); only models with link events.
- ``flow_duplicated``: a second sequence flow joining the same two nodes as an existing one (bpmnlint's
  ``no-duplicate-sequence-flows``).
- ``decision_swapped``: the names (and conditions, where both flows have one) of two differently labelled
  ways out of one gateway swapped: the same graph, with "yes" now leading where "no" did.
- ``label_reworded``: one activity's last word replaced by another activity's last word ("Send invoice"
  becomes "Send contract"): another step, named with the prompt's own words.
- ``interruption_flipped``: one boundary event's ``cancelActivity`` (or an event sub-process start's
  ``isInterrupting``) flipped: the activity is now interrupted where it ran on, or the reverse.
- ``loop_marker_added``: a ``standardLoopCharacteristics`` added to one task: it now repeats.
- ``lanes_renamed``: the names of two lanes swapped, each keeping its members: every step of one role is now
  another's.
- ``condition_negated``: one condition on a way out of a gateway wrapped in ``not(...)`` (models with conditions).
- ``default_moved``: a gateway's ``default`` moved to another of its ways out (a condition there moves to the old
  default; models with a default flow).
- ``timer_changed``: one timer's time changed, its first number doubled (``P7D`` → ``P14D``; models with timers).
- ``event_gateway_parallel``: one event-based gateway made parallel (models with event-based gateways).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TypeAlias

import numpy as np
from lxml import etree

from rewardlab.audit.rewrite import RewriteContext, defective, equivalent
from rewardlab.envs.bpmn.model import ACTIVITIES, CONTAINERS, EVENTS, GATEWAYS
from rewardlab.envs.bpmn.parse import BPMN_NS, BPMNDI_NS, read_answer

XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"
_B = f"{{{BPMN_NS}}}"
_FLOW_NODES = ACTIVITIES | EVENTS | GATEWAYS
_FLOW_ELEMENTS = _FLOW_NODES | {"sequenceFlow"}
_REFERENCE_TEXTS = {"incoming", "outgoing", "flowNodeRef", "sourceRef", "targetRef", "dataStoreRef", "messageRef"}
_FREE_TEXT = {"documentation", "text", "conditionExpression", "script"}
_NOT_REFERENCES = {"name", "targetNamespace", "expressionLanguage", "typeLanguage", "exporter", "exporterVersion"}
_FLOW_NODE_HEAD = {"documentation", "extensionElements", "auditing", "monitoring", "categoryValueRef"}

Tree: TypeAlias = etree._Element


def _local(element: Tree) -> str:
    tag = element.tag
    return tag[len(_B) :] if isinstance(tag, str) and tag.startswith(_B) else ""


def oracle_tree(context: RewriteContext) -> Tree | None:
    """The oracle's last answer parsed (a fresh tree each call), or ``None`` when it is not BPMN."""
    if not context.actions:
        return None
    parsed = read_answer(context.actions[-1])
    if parsed.root is None or not parsed.bpmn_root:
        return None
    return etree.fromstring(etree.tostring(parsed.root))


def serialise(root: Tree) -> str:
    """The tree as a bare XML answer (no declaration)."""
    return etree.tostring(root, encoding="unicode")


def _containers(root: Tree) -> Iterator[Tree]:
    """Processes and sub-processes (anything holding flow elements)."""
    for element in root.iter():
        if _local(element) == "process" or _local(element) in CONTAINERS:
            yield element


def _flows(container: Tree) -> list[Tree]:
    return [child for child in container if _local(child) == "sequenceFlow"]


def _nodes(container: Tree) -> dict[str, Tree]:
    return {child.get("id", ""): child for child in container if _local(child) in _FLOW_NODES}


def _remove_references(root: Tree, ids: set[str]) -> None:
    """Remove diagram elements, ``incoming``/``outgoing``/``flowNodeRef`` children and ``default``
    attributes that point at ``ids``."""
    for element in list(root.iter()):
        if not isinstance(element.tag, str):
            continue
        if element.get("bpmnElement") in ids or (
            _local(element) in {"incoming", "outgoing", "flowNodeRef"} and (element.text or "").strip() in ids
        ):
            parent = element.getparent()
            if parent is not None:
                parent.remove(element)
        elif element.get("default") in ids:
            del element.attrib["default"]


def _remove_flows(root: Tree, flows: list[Tree]) -> None:
    ids = {flow.get("id", "") for flow in flows}
    for flow in flows:
        parent = flow.getparent()
        if parent is not None:
            parent.remove(flow)
    _remove_references(root, ids)


def _add_flow(container: Tree, source: Tree, target: Tree, flow_id: str) -> Tree:
    """A new unconditional sequence flow, with ``outgoing``/``incoming`` children where the model uses them."""
    flow = etree.Element(f"{_B}sequenceFlow")
    source.addnext(flow)  # inside the flow-element run (artifacts must come after it)
    flow.set("id", flow_id)
    flow.set("sourceRef", source.get("id", ""))
    flow.set("targetRef", target.get("id", ""))
    uses_refs = any(_local(child) in {"incoming", "outgoing"} for child in container.iter())
    if uses_refs:
        _insert_ref(source, "outgoing", flow_id)
        _insert_ref(target, "incoming", flow_id)
    return flow


def _insert_ref(node: Tree, kind: str, flow_id: str) -> None:
    """Insert ``<incoming>``/``<outgoing>`` at its schema position (after the head, incoming before outgoing)."""
    position = 0
    for i, child in enumerate(node):
        local = _local(child)
        if local in _FLOW_NODE_HEAD or local == "incoming" or (kind == "outgoing" and local == "outgoing"):
            position = i + 1
    ref = etree.Element(f"{_B}{kind}")
    ref.text = flow_id
    node.insert(position, ref)


def _fresh_id(root: Tree, stem: str) -> str:
    taken = {element.get("id") for element in root.iter() if isinstance(element.tag, str)}
    k = 0
    while f"{stem}_{k}" in taken:
        k += 1
    return f"{stem}_{k}"


def _pick(rng: np.random.Generator, items: list[Tree]) -> Tree | None:
    return items[int(rng.integers(len(items)))] if items else None


# ---------------------------------------------------------------- equivalents


@equivalent("ids_renamed", "every id and every reference to it renamed consistently")
def ids_renamed(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    ids = [e.get("id") for e in root.iter() if isinstance(e.tag, str) and e.get("id")]
    order = context.rng.permutation(len(ids))
    renamed = {old: f"e{int(order[i]):04d}_{i % 7}" for i, old in enumerate(ids) if old}

    def rename(value: str) -> str:
        """An id, a QName ``prefix:id`` or a space-separated list of them, renamed; anything else unchanged."""
        if " " in value:
            return " ".join(rename(token) for token in value.split(" "))
        prefix, colon, local = value.rpartition(":")
        return prefix + colon + renamed[local] if local in renamed and "/" not in prefix else value

    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        for key, value in element.attrib.items():
            if key not in _NOT_REFERENCES and not key.startswith("{http://www.w3.org/"):
                element.set(key, rename(value))
        local = _local(element)
        if element.text and local not in _FREE_TEXT and (local in _REFERENCE_TEXTS or element.text.strip() in renamed):
            element.text = rename(element.text.strip())
    return [serialise(root)]


@equivalent("elements_shuffled", "the flow nodes and sequence flows of every (sub-)process in a random order")
def elements_shuffled(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    for container in list(_containers(root)):
        children = list(container)
        slots = [i for i, child in enumerate(children) if _local(child) in _FLOW_ELEMENTS | _MOVABLE]
        # the schema wants the flow elements in one run (after lane sets, before artifacts): shuffle within it
        if len(slots) < 2 or slots[-1] - slots[0] + 1 != len(slots):
            continue
        first = slots[0]
        run = [children[i] for i in slots]
        shuffled = [run[int(i)] for i in context.rng.permutation(len(run))]
        for child in run:
            container.remove(child)
        for offset, child in enumerate(shuffled):
            container.insert(first + offset, child)
    return [serialise(root)]


_MOVABLE = {"dataObject", "dataObjectReference", "dataStoreReference", "callChoreography", "choreographyTask"}
"""Other flow elements of the schema's ``flowElement`` group, which may sit among the flow nodes."""


def _with_prefix(root: Tree, prefix: str | None) -> Tree | None:
    """A copy of the tree with the BPMN namespace bound to ``prefix`` (``None``: the default namespace)."""
    nsmap = {p: uri for p, uri in root.nsmap.items() if uri != BPMN_NS}
    if prefix in nsmap:
        return None
    nsmap[prefix] = BPMN_NS

    def qname(value: str, source: Tree) -> str:
        head, colon, local = value.rpartition(":")
        uri = source.nsmap.get(head if colon else None)
        if uri != BPMN_NS:
            return value
        return f"{prefix}:{local}" if prefix else local

    def copy(source: Tree, parent: Tree | None) -> Tree:
        attrib = {key: qname(value, source) if key == XSI_TYPE else value for key, value in source.attrib.items()}
        if parent is None:
            element = etree.Element(source.tag, attrib, nsmap=nsmap)
        else:
            element = etree.SubElement(parent, source.tag, attrib)
        element.text, element.tail = source.text, source.tail
        for child in source:
            if isinstance(child.tag, str):
                copy(child, element)
        return element

    return copy(root, None)


def _prefix_rewrite(prefix: str | None) -> Callable[[RewriteContext], list[str] | None]:
    def apply(context: RewriteContext) -> list[str] | None:
        root = oracle_tree(context)
        rewritten = None if root is None else _with_prefix(root, prefix)
        return None if rewritten is None else [serialise(rewritten)]

    return apply


prefix_bpmn = equivalent("prefix_bpmn", "the BPMN namespace written with the bpmn: prefix")(_prefix_rewrite("bpmn"))
prefix_default = equivalent("prefix_default", "the BPMN namespace as the default namespace")(_prefix_rewrite(None))
prefix_other = equivalent("prefix_other", "the BPMN namespace with another prefix (model:)")(_prefix_rewrite("model"))


@equivalent("diagram_dropped", "without diagram interchange (bpmndi:BPMNDiagram removed)")
def diagram_dropped(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    diagrams = [child for child in root if child.tag == f"{{{BPMNDI_NS}}}BPMNDiagram"]
    if not diagrams:
        return None
    for diagram in diagrams:
        root.remove(diagram)
    return [serialise(root)]


def _flow_refs(root: Tree) -> list[Tree]:
    return [e for e in root.iter() if _local(e) in {"incoming", "outgoing"} and _local(e.getparent()) in _FLOW_NODES]


@equivalent("flow_refs_dropped", "the incoming/outgoing children of flow nodes removed")
def flow_refs_dropped(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    refs = [] if root is None else _flow_refs(root)
    if root is None or not refs:
        return None
    for ref in refs:
        ref.getparent().remove(ref)
    return [serialise(root)]


@equivalent("flow_refs_added", "incoming/outgoing children written for every sequence flow of every flow node")
def flow_refs_added(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    before = len(_flow_refs(root))
    for ref in _flow_refs(root):
        ref.getparent().remove(ref)
    for container in _containers(root):
        nodes = _nodes(container)
        for flow in _flows(container):
            source, target = nodes.get(flow.get("sourceRef", "")), nodes.get(flow.get("targetRef", ""))
            if source is not None and target is not None:
                _insert_ref(source, "outgoing", flow.get("id", ""))
                _insert_ref(target, "incoming", flow.get("id", ""))
    return None if len(_flow_refs(root)) == before else [serialise(root)]


_CASES: tuple[Callable[[str], str], ...] = (str.lower, str.upper, str.title)


@equivalent("labels_recased", "every name re-cased (one of lower, upper, title) with its whitespace respaced")
def labels_recased(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    changed = False
    case = _CASES[int(context.rng.integers(len(_CASES)))]
    for element in root.iter():
        name = element.get("name") if isinstance(element.tag, str) else None
        if not name or not name.strip():
            continue
        element.set("name", " " + "  ".join(case(name).split()) + " ")
        changed = True
    return [serialise(root)] if changed else None


# ---------------------------------------------------------------- defects


@defective("flow_removed", "one sequence flow removed (with its diagram edge and references)")
def flow_removed(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    flow = _pick(context.rng, [flow for container in _containers(root) for flow in _flows(container)])
    if flow is None:
        return None
    _remove_flows(root, [flow])
    return [serialise(root)]


@defective("implicit_split_added", "an extra unconditional flow out of an activity or event to another existing node")
def implicit_split_added(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    options = []
    for container in _containers(root):
        nodes = _nodes(container)
        successors: dict[str, set[str]] = {}
        for flow in _flows(container):
            successors.setdefault(flow.get("sourceRef", ""), set()).add(flow.get("targetRef", ""))
        for source_id, source in nodes.items():
            if _local(source) in GATEWAYS or source_id not in successors:
                continue
            for target_id, target in nodes.items():
                if target_id == source_id or target_id in successors[source_id]:
                    continue
                if _local(target) in {"startEvent", "boundaryEvent"}:
                    continue
                options.append((container, source, target))
    if not options:
        return None
    container, source, target = options[int(context.rng.integers(len(options)))]
    _add_flow(container, source, target, _fresh_id(root, "implicit_split"))
    return [serialise(root)]


def _event_removed(context: RewriteContext, kind: str) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    events = [(p, e) for p in root if _local(p) == "process" for e in p if _local(e) == kind]
    if not events:
        return None
    process, event = events[int(context.rng.integers(len(events)))]
    event_id = event.get("id", "")
    attached = [f for f in _flows(process) if event_id in (f.get("sourceRef"), f.get("targetRef"))]
    process.remove(event)
    _remove_flows(root, attached)
    _remove_references(root, {event_id})
    for ref in [e for e in root.iter() if _local(e) in {"messageFlow", "association"}]:
        if event_id in (ref.get("sourceRef"), ref.get("targetRef")):
            ref.getparent().remove(ref)
            _remove_references(root, {ref.get("id", "")})
    return [serialise(root)]


@defective("start_event_removed", "a start event of a process removed, with the flows out of it")
def start_event_removed(context: RewriteContext) -> list[str] | None:
    return _event_removed(context, "startEvent")


@defective("end_event_removed", "an end event of a process removed, with the flows into it")
def end_event_removed(context: RewriteContext) -> list[str] | None:
    return _event_removed(context, "endEvent")


@defective("gateway_mixed", "a joining gateway that also splits (merged with the next split, or a second way out)")
def gateway_mixed(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    merges, extras = [], []
    for container in _containers(root):
        nodes, flows = _nodes(container), _flows(container)
        into: dict[str, list[Tree]] = {}
        out: dict[str, list[Tree]] = {}
        for flow in flows:
            into.setdefault(flow.get("targetRef", ""), []).append(flow)
            out.setdefault(flow.get("sourceRef", ""), []).append(flow)
        for gid, gateway in nodes.items():
            if _local(gateway) not in GATEWAYS or len(into.get(gid, [])) < 2 or len(out.get(gid, [])) != 1:
                continue
            nxt = nodes.get(out[gid][0].get("targetRef", ""))
            if nxt is not None and _local(nxt) == _local(gateway) and len(out.get(nxt.get("id", ""), [])) >= 2:
                merges.append((container, gateway, out[gid][0], nxt))
            targets = [
                t
                for tid, t in nodes.items()
                if tid not in (gid, nxt.get("id") if nxt is not None else None)
                and _local(t) not in {"startEvent", "boundaryEvent"}
            ]
            if targets:
                extras.append((container, gateway, targets))
    if merges:
        container, join, link, split = merges[int(context.rng.integers(len(merges)))]
        split_id, join_id = split.get("id", ""), join.get("id", "")
        for flow in _flows(container):  # the join's incoming flows now enter the split, which joins and splits
            if flow.get("targetRef") == join_id:
                flow.set("targetRef", split_id)
                if _uses_refs(split):
                    _insert_ref(split, "incoming", flow.get("id", ""))
        _remove_flows(root, [link])
        container.remove(join)
        _remove_references(root, {join_id})
        return [serialise(root)]
    if not extras:
        return None
    container, gateway, targets = extras[int(context.rng.integers(len(extras)))]
    target = targets[int(context.rng.integers(len(targets)))]
    _add_flow(container, gateway, target, _fresh_id(root, "mixed_split"))
    return [serialise(root)]


@defective("flow_duplicated", "a second sequence flow from one node to the same target as an existing one")
def flow_duplicated(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    ends = [
        (container, nodes.get(flow.get("sourceRef", "")), nodes.get(flow.get("targetRef", "")))
        for container in _containers(root)
        for nodes in (_nodes(container),)
        for flow in _flows(container)
    ]
    joined = [
        (container, source, target) for container, source, target in ends if source is not None and target is not None
    ]
    if not joined:
        return None
    container, source, target = joined[int(context.rng.integers(len(joined)))]
    _add_flow(container, source, target, _fresh_id(root, "duplicate"))
    return [serialise(root)]


def _decision_label(flow: Tree) -> str:
    condition = flow.find(f"{_B}conditionExpression")
    text = flow.get("name") or (condition.text if condition is not None else "") or ""
    return " ".join(text.split()).casefold()


@defective("decision_swapped", 'the labels of two ways out of one decision swapped ("yes" now leads where "no" did)')
def decision_swapped(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    options = []
    for container in _containers(root):
        by_gateway: dict[str, list[Tree]] = {}
        for flow in _flows(container):
            by_gateway.setdefault(flow.get("sourceRef", ""), []).append(flow)
        for gateway_id, node in _nodes(container).items():
            labelled = [f for f in by_gateway.get(gateway_id, []) if _decision_label(f)]
            if _local(node) in GATEWAYS and len({_decision_label(f) for f in labelled}) >= 2:
                options.append(labelled)
    if not options:
        return None
    labelled = options[int(context.rng.integers(len(options)))]
    first = labelled[int(context.rng.integers(len(labelled)))]
    second = next(f for f in labelled if _decision_label(f) != _decision_label(first))
    names = first.get("name"), second.get("name")
    for flow, name in ((first, names[1]), (second, names[0])):
        if name is None:
            flow.attrib.pop("name", None)
        else:
            flow.set("name", name)
    a_condition, b_condition = first.find(f"{_B}conditionExpression"), second.find(f"{_B}conditionExpression")
    if a_condition is not None and b_condition is not None:
        a_condition.text, b_condition.text = b_condition.text, a_condition.text
    return [serialise(root)]


@defective("link_unpaired", "a link catch event's link name changed, so that its throw event pairs with nothing")
def link_unpaired(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    definitions = [
        definition
        for catch in root.iter(f"{_B}intermediateCatchEvent")
        for definition in catch.iter(f"{_B}linkEventDefinition")
    ]
    definition = _pick(context.rng, definitions)
    if definition is None:
        return None
    definition.set("name", f"{definition.get('name') or definition.getparent().get('name') or ''} (elsewhere)")
    return [serialise(root)]


def _uses_refs(node: Tree) -> bool:
    return any(_local(child) in {"incoming", "outgoing"} for child in node)


@defective("gateway_type_swapped", "one exclusive gateway made parallel, or one parallel gateway exclusive")
def gateway_type_swapped(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    gateways = [e for e in root.iter() if _local(e) in {"exclusiveGateway", "parallelGateway"}]
    gateway = _pick(context.rng, gateways)
    if gateway is None:
        return None
    if _local(gateway) == "exclusiveGateway":
        gateway.tag = f"{_B}parallelGateway"
        gateway.attrib.pop("default", None)  # a parallel gateway has no default flow
    else:
        gateway.tag = f"{_B}exclusiveGateway"
    return [serialise(root)]


@defective(
    "label_reworded", "one activity's last word replaced by another activity's ('Send invoice' → 'Send contract')"
)
def label_reworded(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    activities = [e for e in root.iter() if _local(e) in ACTIVITIES and len(_words(e)) >= 2]
    lasts = sorted({_words(e)[-1].casefold() for e in activities})
    options = [(e, word) for e in activities for word in lasts if word != _words(e)[-1].casefold()]
    if not options:
        return None
    activity, word = options[int(context.rng.integers(len(options)))]
    activity.set("name", " ".join([*_words(activity)[:-1], word]))
    return [serialise(root)]


def _words(element: Tree) -> list[str]:
    """The words of the element's ``name``."""
    return (element.get("name") or "").split()


@defective("interruption_flipped", "one boundary event (or event sub-process start) interrupting ↔ non-interrupting")
def interruption_flipped(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    options = [(e, "cancelActivity") for e in root.iter(f"{_B}boundaryEvent")]
    options += [
        (e, "isInterrupting")
        for sub in root.iter(f"{_B}subProcess")
        if sub.get("triggeredByEvent") == "true"
        for e in sub
        if _local(e) == "startEvent"
    ]
    if not options:
        return None
    event, attribute = options[int(context.rng.integers(len(options)))]
    event.set(attribute, "true" if event.get(attribute) in ("false", "0") else "false")
    return [serialise(root)]


_BEFORE_LOOP = _FLOW_NODE_HEAD | {
    "incoming", "outgoing", "ioSpecification", "property", "dataInputAssociation", "dataOutputAssociation",
    "resourceRole", "performer", "humanPerformer", "potentialOwner",
}  # fmt: skip
"""Children a task may have before its ``loopCharacteristics`` (the schema's order)."""


@defective("loop_marker_added", "one task without loop characteristics made a loop (standardLoopCharacteristics)")
def loop_marker_added(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    tasks = [
        e
        for e in root.iter()
        if _local(e) in ACTIVITIES - CONTAINERS
        and _local(e) != "callActivity"
        and all(_local(child) in _BEFORE_LOOP for child in e if isinstance(child.tag, str))
    ]
    task = _pick(context.rng, tasks)
    if task is None:
        return None
    marker = etree.SubElement(task, f"{_B}standardLoopCharacteristics")
    marker.set("id", _fresh_id(root, "loop"))
    return [serialise(root)]


@defective("lanes_renamed", "the names of two lanes swapped (each keeps its members: the work changes hands)")
def lanes_renamed(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    lanes = [lane for lane in root.iter(f"{_B}lane") if _words(lane)]
    if len({" ".join(_words(lane)).casefold() for lane in lanes}) < 2:
        return None
    first = lanes[int(context.rng.integers(len(lanes)))]
    name = " ".join(_words(first)).casefold()
    second = next(lane for lane in lanes if " ".join(_words(lane)).casefold() != name)
    names = first.get("name", ""), second.get("name", "")
    first.set("name", names[1])
    second.set("name", names[0])
    return [serialise(root)]


# ---------------------------------------------------------------- details both models state


@equivalent(
    "definitions_referenced", "every event definition declared at the top level and named by eventDefinitionRef"
)
def definitions_referenced(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    inline = [d for e in root.iter() if _local(e) in EVENTS for d in e if _local(d).endswith("EventDefinition")]
    if not inline:
        return None
    anchor = next((c for c in root if isinstance(c.tag, str) and c.tag.startswith(f"{{{BPMNDI_NS}}}")), None)
    for definition in inline:
        if not definition.get("id"):
            definition.set("id", _fresh_id(root, "definition"))
        reference = etree.Element(f"{_B}eventDefinitionRef")
        reference.text = definition.get("id")
        definition.getparent().replace(definition, reference)  # every definition of the event goes: order kept
        if anchor is not None:
            anchor.addprevious(definition)
        else:
            root.append(definition)
    return [serialise(root)]


@defective("condition_negated", "one condition on a way out of a gateway negated (not(...))")
def condition_negated(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    conditions = [
        c
        for flow in root.iter(f"{_B}sequenceFlow")
        for c in flow
        if _local(c) == "conditionExpression" and (c.text or "").strip()
    ]
    condition = _pick(context.rng, conditions)
    if condition is None:
        return None
    text = (condition.text or "").strip()
    condition.text = f"= not({text[1:].strip()})" if text.startswith("=") else f"not({text})"
    return [serialise(root)]


@defective("default_moved", "a gateway's default flow moved to another of its ways out")
def default_moved(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    options = []
    for container in _containers(root):
        for gateway_id, node in _nodes(container).items():
            others = [
                f for f in _flows(container) if f.get("sourceRef") == gateway_id and f.get("id") != node.get("default")
            ]
            if _local(node) in GATEWAYS and node.get("default") and others:
                options.append((node, others))
    if not options:
        return None
    gateway, others = options[int(context.rng.integers(len(options)))]
    new_default = others[int(context.rng.integers(len(others)))]
    old_default = next((f for f in root.iter(f"{_B}sequenceFlow") if f.get("id") == gateway.get("default")), None)
    condition = next((c for c in new_default if _local(c) == "conditionExpression"), None)
    if condition is not None and old_default is not None:  # a default flow has no condition: it moves over
        old_default.append(condition)
    gateway.set("default", new_default.get("id", ""))
    return [serialise(root)]


@defective("timer_changed", "one timer's time changed (its first number doubled: P7D → P14D)")
def timer_changed(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    times = [
        t
        for d in root.iter(f"{_B}timerEventDefinition")
        for t in d
        if _local(t) in {"timeDuration", "timeDate", "timeCycle"} and re.search(r"[1-9]", t.text or "")
    ]
    time = _pick(context.rng, times)
    if time is None:
        return None
    time.text = re.sub(r"\d+", lambda m: str(int(m.group()) * 2), time.text or "", count=1)
    return [serialise(root)]


@defective("event_gateway_parallel", "one event-based gateway made parallel (eventGatewayType='Parallel')")
def event_gateway_parallel(context: RewriteContext) -> list[str] | None:
    root = oracle_tree(context)
    if root is None:
        return None
    gateway = _pick(context.rng, list(root.iter(f"{_B}eventBasedGateway")))
    if gateway is None:
        return None
    gateway.set("eventGatewayType", "Parallel")
    return [serialise(root)]


EQUIVALENTS = (
    ids_renamed,
    elements_shuffled,
    prefix_bpmn,
    prefix_default,
    prefix_other,
    diagram_dropped,
    flow_refs_dropped,
    flow_refs_added,
    labels_recased,
    definitions_referenced,
)
DEFECTS = (
    flow_removed,
    implicit_split_added,
    start_event_removed,
    end_event_removed,
    gateway_mixed,
    gateway_type_swapped,
    link_unpaired,
    flow_duplicated,
    decision_swapped,
    label_reworded,
    interruption_flipped,
    loop_marker_added,
    lanes_renamed,
    condition_negated,
    default_moved,
    timer_changed,
    event_gateway_parallel,
)
