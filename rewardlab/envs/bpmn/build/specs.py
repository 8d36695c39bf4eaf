"""Block-structured process specifications, and their BPMN 2.0 XML (with diagram) and prose.

A spec is a tree of blocks: :class:`Activity`, :class:`Event`, :class:`Seq`, :class:`Choice`
(exclusive or inclusive decision), :class:`Parallel`, :class:`Loop`, :class:`Race` (event-based
gateway) and :class:`Guarded` (an activity with an interrupting boundary event). A
:class:`ProcessSpec` wraps a body with a start and an end event, optionally with lanes; a
:class:`CollaborationSpec` puts processes in pools linked by message flows.

:func:`to_bpmn` writes the reference model (schema-valid, with a left-to-right layout) and
:func:`describe` writes the task prompt, so the two always agree. ``generate.py`` beside it holds the
shipped specs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from lxml import etree

from rewardlab.envs.bpmn.parse import BPMN_NS, BPMNDI_NS, DC_NS

DI_NS = "http://www.omg.org/spec/DD/20100524/DI"
NSMAP = {None: BPMN_NS, "bpmndi": BPMNDI_NS, "dc": DC_NS, "di": DI_NS}
SIZES = {"activity": (100.0, 80.0), "event": (36.0, 36.0), "gateway": (50.0, 50.0)}
GAP = 50.0


@dataclass(frozen=True)
class Activity:
    """A task; ``kind`` is a BPMN task element (``userTask``, ``serviceTask`` ...)."""

    label: str
    kind: str = "task"
    lane: str = ""


@dataclass(frozen=True)
class Event:
    """An intermediate event: ``catch`` waits for the trigger, otherwise it is thrown."""

    label: str
    trigger: str = "timer"
    catch: bool = True
    lane: str = ""


@dataclass(frozen=True)
class Seq:
    blocks: tuple = ()

    def __init__(self, *blocks):
        object.__setattr__(self, "blocks", tuple(blocks))


@dataclass(frozen=True)
class Choice:
    """A decision: ``branches`` are ``(condition, block)``; ``inclusive`` makes it an OR gateway."""

    question: str
    branches: tuple
    inclusive: bool = False
    lane: str = ""


@dataclass(frozen=True)
class Parallel:
    branches: tuple
    lane: str = ""


@dataclass(frozen=True)
class Loop:
    """Do ``body``, then ask ``question``: ``repeat`` goes back, ``done`` goes on."""

    body: object
    question: str
    repeat: str
    done: str
    lane: str = ""


@dataclass(frozen=True)
class Race:
    """An event-based gateway: the first of the ``branches`` (``(Event, block)``) to happen wins."""

    branches: tuple
    lane: str = ""


@dataclass(frozen=True)
class Guarded:
    """``activity`` with an interrupting boundary event leading to ``handler`` and its own end event."""

    activity: Activity
    event: str
    trigger: str
    handler: object
    end: str


@dataclass(frozen=True)
class ProcessSpec:
    name: str
    start: str
    body: object
    end: str
    start_trigger: str = "none"
    lanes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CollaborationSpec:
    """Pools ``(participant name, ProcessSpec)`` and message flows ``(from label, to label, message)``."""

    pools: tuple
    messages: tuple


# ---------------------------------------------------------------------------------------- XML


@dataclass
class _Shape:
    id: str
    category: str
    x: float
    y: float
    lane: str = ""


@dataclass
class _Writer:
    """Builds one process's elements; ``shapes`` and ``edges`` feed the diagram."""

    process: etree._Element
    prefix: str
    counter: itertools.count = field(default_factory=lambda: itertools.count(1))
    shapes: list[_Shape] = field(default_factory=list)
    edges: list[tuple[str, list[tuple[float, float]]]] = field(default_factory=list)
    by_label: dict[str, str] = field(default_factory=dict)
    shape_of: dict[str, _Shape] = field(default_factory=dict)
    exit_labels: dict[str, str] = field(default_factory=dict)
    """Name for the next flow leaving a node (the 'done' flow of a loop)."""
    lane_height: float = 0.0
    top: float = 0.0

    def new_id(self, kind: str) -> str:
        return f"{self.prefix}{kind}_{next(self.counter)}"

    def node(self, tag: str, category: str, name: str, x: float, y: float, lane: str = "", **attrs) -> str:
        node_id = self.new_id(tag)
        element = etree.SubElement(self.process, f"{{{BPMN_NS}}}{tag}", id=node_id, **attrs)
        if name:
            element.set("name", name)
            self.by_label.setdefault(name, node_id)
        shape = _Shape(node_id, category, x, y, lane)
        self.shapes.append(shape)
        self.shape_of[node_id] = shape
        return node_id

    def flow(self, source: str, target: str, name: str = "", back: bool = False) -> str:
        flow_id = self.new_id("flow")
        element = etree.SubElement(self.process, f"{{{BPMN_NS}}}sequenceFlow", id=flow_id)
        element.set("sourceRef", source)
        element.set("targetRef", target)
        name = name or self.exit_labels.pop(source, "")
        if name:
            element.set("name", name)
        self.edges.append((flow_id, self._route(source, target, back)))
        return flow_id

    def _route(self, source: str, target: str, back: bool) -> list[tuple[float, float]]:
        s, t = self.shape_of[source], self.shape_of[target]
        sw, sh = SIZES[s.category]
        tw, th = SIZES[t.category]
        if back:
            low = max(s.y + sh / 2, t.y + th / 2) + 40
            return [(s.x, s.y + sh / 2), (s.x, low), (t.x, low), (t.x, t.y + th / 2)]
        start, end = (s.x + sw / 2, s.y), (t.x - tw / 2, t.y)
        if abs(s.y - t.y) < 1e-6:
            return [start, end]
        if s.category == "gateway":
            return [(s.x, s.y + (sh / 2 if t.y > s.y else -sh / 2)), (s.x, t.y), end]
        return [start, (t.x, s.y), (t.x, t.y + (-th / 2 if t.y > s.y else th / 2))]


def _measure(block) -> tuple[float, float]:
    """(width, height) of a block in the left-to-right layout."""
    if isinstance(block, Activity):
        return SIZES["activity"][0] + GAP, SIZES["activity"][1] + GAP
    if isinstance(block, Event):
        return SIZES["event"][0] + GAP, SIZES["activity"][1] + GAP
    if isinstance(block, Seq):
        sizes = [_measure(b) for b in block.blocks]
        return sum(w for w, _ in sizes), max((h for _, h in sizes), default=0.0)
    if isinstance(block, (Choice, Parallel)):
        sizes = [_measure(b) for b in _branch_blocks(block)]
        gateways = 2 * (SIZES["gateway"][0] + GAP)
        return max(w for w, _ in sizes) + gateways, sum(max(h, SIZES["gateway"][1] + GAP) for _, h in sizes)
    if isinstance(block, Race):
        sizes = [_measure(Seq(e, b)) for e, b in block.branches]
        return max(w for w, _ in sizes) + 2 * (SIZES["gateway"][0] + GAP), sum(h for _, h in sizes)
    if isinstance(block, Loop):
        w, h = _measure(block.body)
        return w + 2 * (SIZES["gateway"][0] + GAP), h + 60
    if isinstance(block, Guarded):
        w, h = _measure(block.activity)
        hw, hh = _measure(Seq(block.handler, Event(block.end)))
        return max(w, hw + SIZES["activity"][0]), h + hh
    raise TypeError(f"not a block: {block!r}")


def _branch_blocks(block) -> list:
    if isinstance(block, Parallel):
        return list(block.branches)
    return [b for _, b in block.branches]


def _place(block, writer: _Writer, x: float, y: float) -> tuple[str, str, float]:
    """Write ``block`` with its left edge at ``x`` and centre line ``y``: (entry id, exit id, width).

    Raises ``ValueError`` for a block that writes no node (an empty ``Seq()``, however nested): such a
    block has no entry or exit, so it may only be a branch of a Choice, Parallel or Race, or one step
    of a ``Seq`` that has other steps (see :func:`_place_optional`).
    """
    placed = _place_optional(block, writer, x, y)
    if placed is None:
        raise ValueError(
            f"{block!r} writes no BPMN node, so it has no entry or exit to connect; an empty Seq() may only be "
            "a branch of a Choice, Parallel or Race or a step of a Seq with other steps: give it an activity"
        )
    return placed


def _place_optional(block, writer: _Writer, x: float, y: float) -> tuple[str, str, float] | None:
    """:func:`_place`, or ``None`` when ``block`` writes no node (an empty ``Seq()``, however nested)."""
    width, _ = _measure(block)
    if isinstance(block, Activity):
        node = writer.node(block.kind, "activity", block.label, x + SIZES["activity"][0] / 2, y, block.lane)
        return node, node, width
    if isinstance(block, Event):
        tag = "intermediateCatchEvent" if block.catch else "intermediateThrowEvent"
        node = writer.node(tag, "event", block.label, x + SIZES["event"][0] / 2, y, block.lane)
        _definition(writer, node, block.trigger)
        return node, node, width
    if isinstance(block, Seq):
        entry = previous = None
        offset = x
        for child in block.blocks:
            placed = _place_optional(child, writer, offset, y)
            if placed is None:
                continue
            first, last, w = placed
            if previous is not None:
                writer.flow(previous, first)
            entry = entry or first
            previous = last
            offset += w
        if entry is None or previous is None:
            return None
        return entry, previous, width
    if isinstance(block, (Choice, Parallel, Race)):
        split, join = _place_split(block, writer, x, y)
        return split, join, width
    if isinstance(block, Loop):
        gateway = SIZES["gateway"][0]
        join = writer.node("exclusiveGateway", "gateway", "", x + gateway / 2, y, block.lane)
        first, last, w = _place(block.body, writer, x + gateway + GAP, y)
        split_x = x + gateway + GAP + w + gateway / 2
        split = writer.node("exclusiveGateway", "gateway", block.question, split_x, y, block.lane)
        writer.flow(join, first)
        writer.flow(last, split)
        writer.flow(split, join, block.repeat, back=True)
        writer.exit_labels[split] = block.done
        return join, split, width
    if isinstance(block, Guarded):
        task = writer.node(block.activity.kind, "activity", block.activity.label, x + 50, y, block.activity.lane)
        event_y = y + SIZES["activity"][1] / 2
        boundary = writer.node("boundaryEvent", "event", block.event, x + 70, event_y, block.activity.lane)
        element = writer.process.find(f"*[@id='{boundary}']")
        element.set("attachedToRef", task)
        _definition(writer, boundary, block.trigger)
        handler_y = y + _measure(block.activity)[1]
        first, last, w = _place(block.handler, writer, x + SIZES["activity"][0], handler_y)
        end = writer.node("endEvent", "event", block.end, x + SIZES["activity"][0] + w + 18, handler_y)
        writer.flow(boundary, first)
        writer.flow(last, end)
        return task, task, width
    raise TypeError(f"not a block: {block!r}")


def _place_split(block, writer: _Writer, x: float, y: float) -> tuple[str, str]:
    if isinstance(block, Choice):
        kind = "inclusiveGateway" if block.inclusive else "exclusiveGateway"
        branches = [(cond, b) for cond, b in block.branches]
        question = block.question
    elif isinstance(block, Parallel):
        kind, branches, question = "parallelGateway", [("", b) for b in block.branches], ""
    else:
        kind, branches, question = "eventBasedGateway", [("", Seq(e, b)) for e, b in block.branches], ""
    join_kind = "exclusiveGateway" if kind == "eventBasedGateway" else kind
    gateway = SIZES["gateway"][0]
    width, height = _measure(block)
    split = writer.node(kind, "gateway", question, x + gateway / 2, y, block.lane)
    join = writer.node(join_kind, "gateway", "", x + width - GAP - gateway / 2, y, block.lane)
    top = y - height / 2
    for condition, branch in branches:
        _, h = _measure(branch)
        placed = _place_optional(branch, writer, x + gateway + GAP, top + h / 2)
        if placed is None:
            writer.flow(split, join, condition)
        else:
            first, last, _ = placed
            writer.flow(split, first, condition)
            writer.flow(last, join)
        top += max(h, SIZES["gateway"][1] + GAP)
    return split, join


def _definition(writer: _Writer, node_id: str, trigger: str) -> None:
    if trigger == "none":
        return
    element = writer.process.find(f"*[@id='{node_id}']")
    etree.SubElement(element, f"{{{BPMN_NS}}}{trigger}EventDefinition", id=writer.new_id(f"{trigger}Def"))


def _write_process(spec: ProcessSpec, process: etree._Element, prefix: str, top: float) -> _Writer:
    writer = _Writer(process, prefix, top=top)
    writer.lane_height = max(_measure(spec.body)[1], 120.0) + 40.0
    y = top + writer.lane_height / 2
    start = writer.node("startEvent", "event", spec.start, 100.0, y)
    _definition(writer, start, spec.start_trigger)
    first, last, width = _place(spec.body, writer, 100.0 + 18 + GAP, y)
    end = writer.node("endEvent", "event", spec.end, 100.0 + 18 + GAP + width + 18, y)
    writer.flow(start, first)
    writer.flow(last, end)
    if spec.lanes:
        _assign_lanes(writer, spec)
    return writer


def _assign_lanes(writer: _Writer, spec: ProcessSpec) -> None:
    """Move every node into its lane's band (unassigned nodes join the lane of the node written before them)."""
    lanes = {name: i for i, name in enumerate(spec.lanes)}
    current = spec.lanes[0]
    for shape in writer.shapes:
        current = shape.lane or current
        shape.lane = current
        shape.y += lanes[current] * writer.lane_height
    writer.edges = [(flow_id, _reroute(writer, flow_id)) for flow_id, _ in writer.edges]
    lane_set = etree.Element(f"{{{BPMN_NS}}}laneSet", id=writer.new_id("laneSet"))
    writer.process.insert(0, lane_set)
    for name in spec.lanes:
        lane = etree.SubElement(lane_set, f"{{{BPMN_NS}}}lane", id=writer.new_id("lane"), name=name)
        for shape in writer.shapes:
            if shape.lane == name:
                etree.SubElement(lane, f"{{{BPMN_NS}}}flowNodeRef").text = shape.id


def _reroute(writer: _Writer, flow_id: str) -> list[tuple[float, float]]:
    element = writer.process.find(f"*[@id='{flow_id}']")
    source, target = element.get("sourceRef"), element.get("targetRef")
    back = writer.shape_of[target].x < writer.shape_of[source].x
    return writer._route(source, target, back)


def to_bpmn(spec: ProcessSpec | CollaborationSpec, definitions_id: str) -> bytes:
    """The reference model of a spec: BPMN 2.0 XML (UTF-8) with a diagram, valid against the XSD."""
    root = etree.Element(f"{{{BPMN_NS}}}definitions", nsmap=NSMAP)
    root.set("id", definitions_id)
    root.set("targetNamespace", f"https://rewardlab.dev/bpmn/{definitions_id}")
    pools = spec.pools if isinstance(spec, CollaborationSpec) else ((None, spec),)
    collaboration = None
    if isinstance(spec, CollaborationSpec):
        collaboration = etree.SubElement(root, f"{{{BPMN_NS}}}collaboration", id="collaboration_1")
    writers, participants, top = [], [], 40.0
    for index, (pool_name, process_spec) in enumerate(pools, 1):
        process = etree.SubElement(root, f"{{{BPMN_NS}}}process", id=f"process_{index}", isExecutable="false")
        process.set("name", process_spec.name)
        writer = _write_process(process_spec, process, f"p{index}_", top)
        writers.append(writer)
        height = writer.lane_height * max(1, len(process_spec.lanes))
        if collaboration is not None:
            participant = etree.SubElement(
                collaboration, f"{{{BPMN_NS}}}participant", id=f"participant_{index}", name=pool_name
            )
            participant.set("processRef", process.get("id"))
            participants.append((participant.get("id"), top, height, writer))
        top += height + 60
    if collaboration is not None and isinstance(spec, CollaborationSpec):  # made together above
        labels = {label: node for w in writers for label, node in w.by_label.items()}
        for number, (source, target, message) in enumerate(spec.messages, 1):
            flow = etree.SubElement(collaboration, f"{{{BPMN_NS}}}messageFlow", id=f"message_flow_{number}")
            flow.set("name", message)
            flow.set("sourceRef", labels[source])
            flow.set("targetRef", labels[target])
    _write_diagram(root, writers, participants, collaboration, spec)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _write_diagram(root, writers, participants, collaboration, spec) -> None:
    diagram = etree.SubElement(root, f"{{{BPMNDI_NS}}}BPMNDiagram", id="diagram_1")
    plane_ref = collaboration.get("id") if collaboration is not None else writers[0].process.get("id")
    plane = etree.SubElement(diagram, f"{{{BPMNDI_NS}}}BPMNPlane", id="plane_1", bpmnElement=plane_ref)
    right = max(s.x for w in writers for s in w.shapes) + 120
    for participant_id, top, height, _ in participants:
        _bounds(plane, participant_id, 40.0, top, right - 40.0, height, horizontal=True)
    for writer in writers:
        lane_set = writer.process.find(f"{{{BPMN_NS}}}laneSet")
        lanes = [] if lane_set is None else lane_set.findall(f"{{{BPMN_NS}}}lane")
        for i, lane in enumerate(lanes):
            band = writer.top + i * writer.lane_height
            _bounds(plane, lane.get("id"), 70.0, band, right - 70.0, writer.lane_height, horizontal=True)
        for shape in writer.shapes:
            w, h = SIZES[shape.category]
            _bounds(plane, shape.id, shape.x - w / 2, shape.y - h / 2, w, h)
        for flow_id, points in writer.edges:
            edge = etree.SubElement(plane, f"{{{BPMNDI_NS}}}BPMNEdge", id=f"{flow_id}_di", bpmnElement=flow_id)
            for px, py in points:
                etree.SubElement(edge, f"{{{DI_NS}}}waypoint", x=_num(px), y=_num(py))
    if collaboration is not None:
        shapes = {s.id: s for w in writers for s in w.shapes}
        for flow in collaboration.findall(f"{{{BPMN_NS}}}messageFlow"):
            s, t = shapes[flow.get("sourceRef")], shapes[flow.get("targetRef")]
            edge = etree.SubElement(plane, f"{{{BPMNDI_NS}}}BPMNEdge", id=f"{flow.get('id')}_di")
            edge.set("bpmnElement", flow.get("id"))
            down = t.y > s.y
            sh, th = SIZES[s.category][1] / 2, SIZES[t.category][1] / 2
            for px, py in ((s.x, s.y + (sh if down else -sh)), (t.x, t.y - (th if down else -th))):
                etree.SubElement(edge, f"{{{DI_NS}}}waypoint", x=_num(px), y=_num(py))


def _bounds(plane, element_id: str, x: float, y: float, w: float, h: float, horizontal: bool = False) -> None:
    shape = etree.SubElement(plane, f"{{{BPMNDI_NS}}}BPMNShape", id=f"{element_id}_di", bpmnElement=element_id)
    if horizontal:
        shape.set("isHorizontal", "true")
    etree.SubElement(shape, f"{{{DC_NS}}}Bounds", x=_num(x), y=_num(y), width=_num(w), height=_num(h))


def _num(value: float) -> str:
    return f"{value:.1f}"


# ---------------------------------------------------------------------------------------- prose

_KIND_WORDS = {
    "task": "",
    "userTask": "a person ",
    "manualTask": "someone manually ",
    "serviceTask": "a system automatically ",
    "scriptTask": "a script ",
    "businessRuleTask": "a business rule ",
    "sendTask": "",
    "receiveTask": "",
}
_KIND_NAMES = {
    "userTask": "user task",
    "manualTask": "manual task",
    "serviceTask": "service task",
    "scriptTask": "script task",
    "businessRuleTask": "business rule task",
    "sendTask": "send task",
    "receiveTask": "receive task",
}
_TRIGGER_WORDS = {
    "timer": "timer",
    "message": "message",
    "signal": "signal",
    "error": "error",
    "escalation": "escalation",
}


def _activity_text(block: Activity) -> str:
    kind = _KIND_NAMES.get(block.kind)
    what = f'the {kind} "{block.label}"' if kind else f'"{block.label}"'
    who = f" ({block.lane})" if block.lane else ""
    return f"{what}{who}"


def _clauses(block) -> list[str]:
    """Short clauses describing a block in order."""
    if isinstance(block, Activity):
        return [_activity_text(block)]
    if isinstance(block, Event):
        if block.catch:
            return [f'waiting for the {_TRIGGER_WORDS.get(block.trigger, block.trigger)} event "{block.label}"']
        return [f'signalling the {block.trigger} event "{block.label}"']
    if isinstance(block, Seq):
        return [c for child in block.blocks for c in _clauses(child)]
    if isinstance(block, Choice):
        kind = "one or more of these paths are taken" if block.inclusive else "exactly one path is taken"
        parts = [f'if "{cond}": ' + ", then ".join(_clauses(b)) for cond, b in block.branches]
        merge = "the taken paths merge again" if block.inclusive else "the paths merge again"
        lane = f" ({block.lane})" if block.lane else ""
        return [f'a decision "{block.question}"{lane} where {kind}: ' + "; ".join(parts) + f" — then {merge}"]
    if isinstance(block, Parallel):
        parts = [f"({i}) " + ", then ".join(_clauses(b)) for i, b in enumerate(block.branches, 1)]
        return ["in parallel " + " and ".join(parts) + ", and once all parallel branches are done the process goes on"]
    if isinstance(block, Loop):
        body = ", then ".join(_clauses(block.body))
        return [
            f'{body}; afterwards the question "{block.question}" is checked: if "{block.repeat}", these steps are '
            f'repeated from the start; if "{block.done}", the process continues'
        ]
    if isinstance(block, Race):
        parts = [
            ", then ".join([f'the {e.trigger} event "{e.label}" arrives first'] + _clauses(b))
            for e, b in block.branches
        ]
        return ["waiting for whichever event comes first (an event-based decision): " + "; or ".join(parts)]
    if isinstance(block, Guarded):
        handler = ", then ".join(_clauses(block.handler))
        return [
            f'{_activity_text(block.activity)}; if the {block.trigger} event "{block.event}" occurs while it is '
            f"running, it is interrupted and the process continues with {handler} and ends with the end event "
            f'"{block.end}"'
        ]
    raise TypeError(f"not a block: {block!r}")


def _process_text(spec: ProcessSpec) -> str:
    trigger = "" if spec.start_trigger == "none" else f" ({spec.start_trigger} start event)"
    steps = _clauses(spec.body)
    body = "; then ".join(steps)
    lanes = ""
    if spec.lanes:
        lanes = " The process is split into the lanes " + ", ".join(f'"{lane}"' for lane in spec.lanes) + "."
    return (
        f'The process "{spec.name}" starts with the start event "{spec.start}"{trigger}.{lanes} '
        f'Then comes {body}. It ends with the end event "{spec.end}".'
    )


def describe(spec: ProcessSpec | CollaborationSpec) -> str:
    """The task prompt: the process in prose, naming every element the reference contains."""
    if isinstance(spec, ProcessSpec):
        return _process_text(spec)
    pools = ", ".join(f'"{name}"' for name, _ in spec.pools)
    parts = [f"Two or more parties work together; draw each in its own pool: {pools}."]
    for name, process in spec.pools:
        parts.append(f'In the pool "{name}": ' + _process_text(process))
    messages = "; ".join(f'"{m}" goes from "{s}" to "{t}"' for s, t, m in spec.messages)
    parts.append(f"Message flows between the pools: {messages}.")
    return " ".join(parts)


def blocks_of(spec: ProcessSpec | CollaborationSpec) -> Sequence[str]:
    """Pattern tags of a spec (``sequence``, ``xor``, ``and``, ``or``, ``loop``, ``event``, ...)."""
    tags: set[str] = set()

    def visit(block) -> None:
        if isinstance(block, Seq):
            tags.add("sequence")
            for child in block.blocks:
                visit(child)
        elif isinstance(block, Choice):
            tags.add("or" if block.inclusive else "xor")
            for _, b in block.branches:
                visit(b)
        elif isinstance(block, Parallel):
            tags.add("and")
            for b in block.branches:
                visit(b)
        elif isinstance(block, Loop):
            tags.add("loop")
            visit(block.body)
        elif isinstance(block, Race):
            tags.update({"event-based", "intermediate-event"})
            for _, b in block.branches:
                visit(b)
        elif isinstance(block, Guarded):
            tags.add("boundary-event")
            visit(block.handler)
        elif isinstance(block, Event):
            tags.add("intermediate-event")

    processes = [p for _, p in spec.pools] if isinstance(spec, CollaborationSpec) else [spec]
    for process in processes:
        visit(process.body)
        if process.lanes:
            tags.add("lanes")
    if isinstance(spec, CollaborationSpec):
        tags.update({"pools", "message-flows"})
    return sorted(tags)
