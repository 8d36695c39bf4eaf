"""The BPMN process graph behind an XML document, and the reachability every metric shares.

:func:`extract_model` reads a parsed ``<definitions>`` element into a :class:`BPMNModel`: flow
nodes (activities, events, gateways) with their container, pool and lane; sequence flows;
message flows; participants; lanes; artifacts; and the diagram-interchange (DI) shapes. It
reads whatever is there and never raises, so it also serves schema-invalid tool exports.

The control-flow graph used for reachability has one edge per resolved sequence flow, plus:
an edge from an activity to each boundary event attached to it; an edge from a link throw event to
the link catch event it pairs with (:func:`link_pairs`: the one catch of the same link name in the same
container); an edge from a sub-process to each source node inside it (nodes without incoming flows, a
paired link catch aside) and from each sink node inside it (a paired link throw aside) to the
sub-process's successors. Reachability is strict (``a ⇝ a`` only on a cycle) and computed once
per model from the strongly connected components (Tarjan) with bitsets, in time linear in the
graph size plus one big-integer OR per edge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from lxml import etree

from rewardlab.envs.bpmn.parse import BPMN_NS, BPMNDI_NS, DC_NS

MAX_LABEL_CHARS = 200
"""Labels are cut to this many characters before any metric looks at them."""
MAX_FLOW_NODES = 500
"""Flow nodes read per model (the largest MIWG model has 108); a larger model is not scored."""
MAX_FLOWS = 2000
"""Sequence flows and message flows read per model; a model with more is not scored."""

ACTIVITIES = frozenset(
    {
        "task",
        "userTask",
        "serviceTask",
        "sendTask",
        "receiveTask",
        "manualTask",
        "businessRuleTask",
        "scriptTask",
        "callActivity",
        "subProcess",
        "adHocSubProcess",
        "transaction",
    }
)
CONTAINERS = frozenset({"subProcess", "adHocSubProcess", "transaction"})
EVENTS = frozenset(
    {
        "startEvent",
        "endEvent",
        "intermediateCatchEvent",
        "intermediateThrowEvent",
        "boundaryEvent",
        "implicitThrowEvent",
    }
)
GATEWAYS = frozenset({"exclusiveGateway", "parallelGateway", "inclusiveGateway", "eventBasedGateway", "complexGateway"})
ARTIFACTS = frozenset({"dataObject", "dataObjectReference", "dataStoreReference", "dataStore", "textAnnotation"})

_NS = f"{{{BPMN_NS}}}"
_CUT = len(_NS)
_SHAPE, _EDGE, _BOUNDS = f"{{{BPMNDI_NS}}}BPMNShape", f"{{{BPMNDI_NS}}}BPMNEdge", f"{{{DC_NS}}}Bounds"
_CONDITION = f"{_NS}conditionExpression"
_CATEGORY = {
    **{f"{_NS}{tag}": "activity" for tag in ACTIVITIES},
    **{f"{_NS}{tag}": "event" for tag in EVENTS},
    **{f"{_NS}{tag}": "gateway" for tag in GATEWAYS},
}


def _local(element: etree._Element) -> str | None:
    tag = element.tag
    if isinstance(tag, str) and tag.startswith(_NS):
        return tag[_CUT:]
    return None


def clean_label(text: str | None) -> str:
    """A label with whitespace (including encoded newlines) collapsed, cut to :data:`MAX_LABEL_CHARS`."""
    if not text:
        return ""
    return " ".join(text[: MAX_LABEL_CHARS * 2].split())[:MAX_LABEL_CHARS]


@dataclass(slots=True)
class Node:
    """One flow node.

    Attributes:
        id: The ``id`` attribute.
        kind: The BPMN element name (``task``, ``exclusiveGateway``, ``boundaryEvent`` ...).
        category: ``"activity"``, ``"event"`` or ``"gateway"``.
        name: The cleaned ``name`` attribute.
        container: Id of the enclosing process or sub-process.
        process: Id of the enclosing top-level process.
        trigger: For events, the event definition (``message``, ``timer`` ...) or ``"none"``.
        attached_to: For boundary events, the ``attachedToRef``.
        default_flow: For gateways and activities, the ``default`` flow id.
        triggered_by_event: For sub-processes, whether it is an event sub-process.
        link: For link events, the name that pairs a throw with its catch: the ``linkEventDefinition``'s
            ``name``, else the event's.
        marker: What changes how the element behaves beyond its kind and trigger (:func:`_marker`):
            ``non-interrupting`` (a boundary event with ``cancelActivity="false"``, a start event with
            ``isInterrupting="false"``), ``loop``, ``multi-instance`` or ``multi-instance-sequential``
            (an activity's loop characteristics), ``parallel`` and/or ``instantiate`` (an event-based
            gateway's ``eventGatewayType="Parallel"``, ``instantiate="true"``); ``""`` otherwise.
        detail: What a timer event states about its time (:func:`timer_detail`: ``duration:604800`` for ``P7D``),
            ``""`` for every other node or a timer that states none.
    """

    id: str
    kind: str
    category: str
    name: str
    container: str
    process: str
    trigger: str = ""
    attached_to: str = ""
    default_flow: str = ""
    triggered_by_event: bool = False
    link: str = ""
    marker: str = ""
    detail: str = ""

    @property
    def signature(self) -> str:
        """Kind plus trigger (``startEvent:message``) plus marker (``boundaryEvent:timer:non-interrupting``,
        ``task:loop``), used to compare element types."""
        base = f"{self.kind}:{self.trigger}" if self.category == "event" else self.kind
        return f"{base}:{self.marker}" if self.marker else base


@dataclass(slots=True)
class Flow:
    """A sequence flow (or a message flow, whose ``container`` is the collaboration)."""

    id: str
    source: str
    target: str
    name: str
    container: str
    conditional: bool = False
    condition: str = ""
    """The text of its ``conditionExpression`` (cleaned), if any."""


@dataclass
class BPMNModel:
    """Everything the metrics read from one ``<definitions>`` document."""

    nodes: dict[str, Node] = field(default_factory=dict)
    flows: list[Flow] = field(default_factory=list)
    message_flows: list[Flow] = field(default_factory=list)
    processes: list[str] = field(default_factory=list)
    participants: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Participant id -> (name, processRef)."""
    lanes: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    """Lane id -> (name, flowNodeRefs)."""
    artifacts: dict[str, int] = field(default_factory=dict)
    shapes: set[str] = field(default_factory=set)
    """``bpmnElement`` of every BPMNShape."""
    edges: set[str] = field(default_factory=set)
    """``bpmnElement`` of every BPMNEdge."""
    bounds: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)
    """(flow node id, (x, y, width, height)) of the shapes of flow nodes."""
    oversized: bool = False
    """More than :data:`MAX_FLOW_NODES` flow nodes or :data:`MAX_FLOWS` flows: the extra ones were not read."""
    event_definitions: dict[str, etree._Element] = field(default_factory=dict)
    """Event definitions declared at the top level (``<messageEventDefinition id=...>`` beside the processes), by
    id: an event's ``eventDefinitionRef`` names one, and reads as if written inline."""

    @cached_property
    def graph(self) -> ControlFlow:
        """The control-flow graph and its reachability (computed on first use)."""
        return ControlFlow(self)

    def pool_of(self, node_id: str) -> str:
        """The participant (pool) whose process holds ``node_id``, or the process id when there is none."""
        node = self.nodes.get(node_id)
        if node is None:
            return node_id if node_id in self.participants else ""
        return self._pool_by_process.get(node.process, node.process)

    @cached_property
    def _pool_by_process(self) -> dict[str, str]:
        return {process: pid for pid, (_, process) in self.participants.items() if process}


def extract_model(root: etree._Element) -> BPMNModel:
    """Read the BPMN content of a ``<definitions>`` element (any namespace prefix). Never raises."""
    model = BPMNModel()
    for child in root:
        tag = _local(child)
        if tag and tag.endswith("EventDefinition") and child.get("id"):
            model.event_definitions[child.get("id") or ""] = child
    for child in root:
        tag = _local(child)
        if tag == "process":
            pid = child.get("id") or f"process-{len(model.processes)}"
            model.processes.append(pid)
            _read_container(child, pid, pid, model)
        elif tag == "collaboration":
            _read_collaboration(child, model)
    nodes = model.nodes
    for shape in root.iter(_SHAPE, _EDGE):
        ref = shape.get("bpmnElement") or ""
        if shape.tag == _EDGE:
            model.edges.add(ref)
            continue
        model.shapes.add(ref)
        if ref in nodes:
            box = shape.find(_BOUNDS)
            if box is not None:
                try:
                    x, y = float(box.get("x", "0")), float(box.get("y", "0"))
                    model.bounds.append((ref, (x, y, float(box.get("width", "0")), float(box.get("height", "0")))))
                except ValueError:
                    continue
    return model


def _trigger(element: etree._Element, declared: dict[str, etree._Element]) -> tuple[str, etree._Element | None]:
    """The event's trigger (``message``, ``link`` ..., or ``none``) and its event definition, written inline or
    named by an ``eventDefinitionRef`` to one ``declared`` at the top level (``reference`` when none is)."""
    for child in element:
        tag = _local(child)
        if tag and tag.endswith("EventDefinition"):
            return tag[: -len("EventDefinition")], child
        if tag == "eventDefinitionRef":
            ref = (child.text or "").strip()
            definition = declared.get(ref, declared.get(ref.rpartition(":")[2]))
            kind = _local(definition) if definition is not None else None
            if definition is None or not kind:
                return "reference", None
            return kind[: -len("EventDefinition")], definition
    return "none", None


_DURATION = re.compile(
    r"^P(?:(?P<Y>\d+(?:\.\d+)?)Y)?(?:(?P<MO>\d+(?:\.\d+)?)M)?(?:(?P<W>\d+(?:\.\d+)?)W)?(?:(?P<D>\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(?P<H>\d+(?:\.\d+)?)H)?(?:(?P<MI>\d+(?:\.\d+)?)M)?(?:(?P<S>\d+(?:\.\d+)?)S)?)?$"
)
_SECONDS = {"Y": 365 * 86400, "MO": 30 * 86400, "W": 7 * 86400, "D": 86400, "H": 3600, "MI": 60, "S": 1}
_TIMES = {"timeDuration": "duration", "timeDate": "date", "timeCycle": "cycle"}


def _seconds(duration: str) -> str:
    """An ISO 8601 duration in seconds (``P7D`` → ``604800``, ``PT168H`` too); as written when it is none."""
    match = _DURATION.match(duration)
    if match is None or duration in ("P", "PT"):
        return duration
    total = sum(float(v) * _SECONDS[k] for k, v in match.groupdict().items() if v)
    return f"{total:g}"


def timer_detail(definition: etree._Element | None) -> str:
    """What a ``timerEventDefinition`` states: ``duration:<seconds>``, ``cycle:R<n>/<seconds>`` or ``date:<text>``
    (whitespace removed, upper case); ``""`` when it states nothing.

    Example:
        >>> from lxml import etree
        >>> ns = "http://www.omg.org/spec/BPMN/20100524/MODEL"
        >>> xml = f'<timerEventDefinition xmlns="{ns}"><timeDuration>P7D</timeDuration></timerEventDefinition>'
        >>> timer_detail(etree.fromstring(xml))
        'duration:604800'
    """
    if definition is None:
        return ""
    for child in definition:
        kind = _TIMES.get(_local(child) or "")
        text = "".join((child.text or "").split()).upper()
        if kind is None or not text:
            continue
        if kind == "duration":
            text = _seconds(text)
        elif kind == "cycle" and "/" in text:
            repeat, _, period = text.partition("/")
            text = f"{repeat}/{_seconds(period)}"
        return f"{kind}:{text}"
    return ""


_LOOP_MARKERS = {
    f"{_NS}standardLoopCharacteristics": "loop",
    f"{_NS}multiInstanceLoopCharacteristics": "multi-instance",
}
_TRUE, _FALSE = ("true", "1"), ("false", "0")
"""The lexical forms of ``xsd:boolean``."""


def _marker(element: etree._Element, kind: str) -> str:
    """The :attr:`Node.marker` of a flow node element: the attributes' defaults (``cancelActivity`` and
    ``isInterrupting`` true, ``isSequential`` false) read as no marker, so writing a default out changes nothing."""
    if kind == "boundaryEvent":
        return "non-interrupting" if (element.get("cancelActivity") or "").strip() in _FALSE else ""
    if kind == "startEvent":
        return "non-interrupting" if (element.get("isInterrupting") or "").strip() in _FALSE else ""
    if kind == "eventBasedGateway":
        parallel = (element.get("eventGatewayType") or "").strip().casefold() == "parallel"
        instantiate = (element.get("instantiate") or "").strip() in _TRUE
        return "+".join(name for name, on in (("parallel", parallel), ("instantiate", instantiate)) if on)
    if kind not in ACTIVITIES:
        return ""
    for child in element:
        marker = _LOOP_MARKERS.get(child.tag) if isinstance(child.tag, str) else None
        if marker == "multi-instance" and (child.get("isSequential") or "").strip() in _TRUE:
            return "multi-instance-sequential"
        if marker is not None:
            return marker
    return ""


def _read_container(container: etree._Element, container_id: str, process: str, model: BPMNModel) -> None:
    nodes = model.nodes
    for child in container:
        tag = child.tag
        category = _CATEGORY.get(tag) if isinstance(tag, str) else None
        if category is not None:
            if len(nodes) >= MAX_FLOW_NODES:
                model.oversized = True
                continue
            kind = tag[_CUT:]
            get = child.get
            node = Node(
                id=get("id") or f"{container_id}/{kind}-{len(nodes)}",
                kind=kind,
                category=category,
                name=clean_label(get("name")),
                container=container_id,
                process=process,
                marker=_marker(child, kind),
            )
            if category == "event":
                node.trigger, definition = _trigger(child, model.event_definitions)
                node.detail = timer_detail(definition) if node.trigger == "timer" else ""
                if node.trigger == "link" and definition is not None:
                    node.link = clean_label(definition.get("name")) or node.name
                if kind == "boundaryEvent":
                    node.attached_to = get("attachedToRef") or ""
            else:
                node.default_flow = get("default") or ""
                if kind in CONTAINERS:
                    node.triggered_by_event = get("triggeredByEvent") == "true"
            nodes[node.id] = node
            if kind in CONTAINERS:
                _read_container(child, node.id, process, model)
            continue
        local = _local(child)
        if local == "sequenceFlow":
            if len(model.flows) >= MAX_FLOWS:
                model.oversized = True
                continue
            get = child.get
            condition = child.find(_CONDITION)
            model.flows.append(
                Flow(
                    get("id") or "",
                    get("sourceRef") or "",
                    get("targetRef") or "",
                    clean_label(get("name")),
                    container_id,
                    condition is not None,
                    clean_label(condition.text) if condition is not None else "",
                )
            )
        elif local == "laneSet":
            _read_lanes(child, model)
        elif local in ARTIFACTS:
            model.artifacts[local] = model.artifacts.get(local, 0) + 1


def _read_lanes(lane_set: etree._Element, model: BPMNModel) -> None:
    for lane in lane_set:
        if _local(lane) != "lane":
            continue
        refs = tuple((ref.text or "").strip() for ref in lane if _local(ref) == "flowNodeRef")
        model.lanes[lane.get("id") or f"lane-{len(model.lanes)}"] = (clean_label(lane.get("name")), refs)
        for child in lane:
            if _local(child) == "childLaneSet":
                _read_lanes(child, model)


def _read_collaboration(collaboration: etree._Element, model: BPMNModel) -> None:
    cid = collaboration.get("id") or "collaboration"
    for child in collaboration:
        tag = _local(child)
        if tag == "participant":
            pid = child.get("id") or f"participant-{len(model.participants)}"
            model.participants[pid] = (clean_label(child.get("name")), child.get("processRef") or "")
        elif tag == "messageFlow":
            if len(model.message_flows) >= MAX_FLOWS:
                model.oversized = True
                continue
            model.message_flows.append(
                Flow(
                    child.get("id") or "",
                    child.get("sourceRef") or "",
                    child.get("targetRef") or "",
                    clean_label(child.get("name")),
                    cid,
                )
            )


class ControlFlow:
    """Indexed control-flow graph of a model: successor lists and a strict reachability matrix.

    Attributes:
        ids: Flow node ids; ``index[id]`` is a node's row in every array.
        succ / pred: Successors and predecessors over resolved sequence flows in one container.
        cf_succ: Successors in the control-flow graph (sequence flows, boundary attachments, link pairs,
            sub-process entry and exit; see the module docstring).
        links: Link throw event -> the link catch event it pairs with (:func:`link_pairs`).
        resolved: Sequence flows whose two ends are flow nodes of the flow's own container.
    """

    def __init__(self, model: BPMNModel):
        self.model = model
        self.ids = list(model.nodes)
        self.index = {node_id: i for i, node_id in enumerate(self.ids)}
        n = len(self.ids)
        self.succ: list[list[int]] = [[] for _ in range(n)]
        self.pred: list[list[int]] = [[] for _ in range(n)]
        self.resolved: list[Flow] = []
        nodes, index = model.nodes, self.index
        for flow in model.flows:
            source, target = nodes.get(flow.source), nodes.get(flow.target)
            if source is None or target is None or source.container != flow.container:
                continue
            if target.container != flow.container:
                continue
            self.resolved.append(flow)
            self.succ[index[flow.source]].append(index[flow.target])
            self.pred[index[flow.target]].append(index[flow.source])
        self.cf_succ = [list(s) for s in self.succ]
        self.links = link_pairs([nodes[node_id] for node_id in self.ids])
        for throw, catch in self.links.items():
            self.cf_succ[throw].append(catch)
        linked_catches = set(self.links.values())
        inner: dict[str, list[int]] = {}
        for i, node_id in enumerate(self.ids):
            node = nodes[node_id]
            if node.kind == "boundaryEvent" and node.attached_to in index:
                self.cf_succ[index[node.attached_to]].append(i)
            if node.container in index:
                inner.setdefault(node.container, []).append(i)
        for sub, members in inner.items():
            s = index[sub]
            for i in members:
                if not self.pred[i] and nodes[self.ids[i]].kind != "boundaryEvent" and i not in linked_catches:
                    self.cf_succ[s].append(i)
                if not self.succ[i] and i not in self.links:
                    self.cf_succ[i].extend(self.succ[s])

    @cached_property
    def reach_bits(self) -> list[int]:
        """``reach_bits[a] >> b & 1``: a path of one or more control-flow edges leads from a to b."""
        return reachability(self.cf_succ)

    @cached_property
    def reached_by_bits(self) -> list[int]:
        """``reached_by_bits[b] >> a & 1``: the transpose of :attr:`reach_bits`."""
        cf_pred: list[list[int]] = [[] for _ in self.ids]
        for i, successors in enumerate(self.cf_succ):
            for j in successors:
                cf_pred[j].append(i)
        return reachability(cf_pred)

    @cached_property
    def reach(self) -> np.ndarray:
        """``reach[a, b]`` as a boolean matrix (the same relation as :attr:`reach_bits`)."""
        n = len(self.ids)
        if n == 0:
            return np.zeros((0, 0), dtype=bool)
        width = (n + 7) // 8
        buffer = b"".join(bits.to_bytes(width, "little") for bits in self.reach_bits)
        matrix = np.unpackbits(np.frombuffer(buffer, dtype=np.uint8).reshape(n, width), axis=1, bitorder="little")
        return matrix[:, :n].astype(bool)

    @cached_property
    def pairs(self) -> GatewayPairs:
        """Split/join pairing (computed on first use)."""
        return gateway_pairs(self)

    def reachable_from(self, sources: list[int]) -> np.ndarray:
        """Nodes equal to or reachable from any of ``sources``."""
        mask = np.zeros(len(self.ids), dtype=bool)
        if sources:
            mask[sources] = True
            mask |= self.reach[sources].any(axis=0)
        return mask


def link_pairs(nodes: list[Node]) -> dict[int, int]:
    """``{throw: catch}`` over ``nodes`` (indices): each link throw event paired with the link catch event of
    its container that has its :attr:`Node.link` name, when exactly one does (several throws may lead to one
    catch; two catches of one name pair with nothing, nor does a link without a name)."""
    catches: dict[tuple[str, str], list[int]] = {}
    for i, node in enumerate(nodes):
        if node.kind == "intermediateCatchEvent" and node.trigger == "link" and node.link:
            catches.setdefault((node.container, node.link), []).append(i)
    pairs = {}
    for i, node in enumerate(nodes):
        if node.kind == "intermediateThrowEvent" and node.trigger == "link" and node.link:
            found = catches.get((node.container, node.link), [])
            if len(found) == 1:
                pairs[i] = found[0]
    return pairs


def reachability(succ: list[list[int]]) -> list[int]:
    """Strict reachability as one bitset per node: bit b of ``result[a]`` is set when a ⇝ b."""
    label, components = strongly_connected_components(succ)
    members = [0] * len(components)
    cyclic = [len(component) > 1 for component in components]
    for c, component in enumerate(components):
        for i in component:
            members[c] |= 1 << i
    reach = [0] * len(components)
    for c, component in enumerate(components):  # sinks first: successors are already done
        bits = 0
        for i in component:
            for j in succ[i]:
                d = label[j]
                if d == c:
                    cyclic[c] = True
                else:
                    bits |= members[d] | reach[d]
        reach[c] = bits | (members[c] if cyclic[c] else 0)
    return [reach[c] for c in label]


def strongly_connected_components(succ: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """Tarjan's algorithm, iterative: ``(label of each node, components)``.

    Components come out in reverse topological order (a component after every component it
    reaches), the property :attr:`ControlFlow.reach_bits` relies on.
    """
    n = len(succ)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    label = [-1] * n
    components: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, position = work[-1]
            successors = succ[node]
            if position < len(successors):
                work[-1] = (node, position + 1)
                nxt = successors[position]
                if index[nxt] == -1:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack[nxt] = True
                    work.append((nxt, 0))
                elif on_stack[nxt]:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    label[member] = len(components)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return label, components


def compatible_gateways(split_kind: str, join_kind: str) -> bool:
    """A join matches a split of the same type; an event-based split may be merged exclusively."""
    return split_kind == join_kind or (split_kind == "eventBasedGateway" and join_kind == "exclusiveGateway")


@dataclass(frozen=True)
class GatewayPairs:
    """How splits and joins pair up.

    Attributes:
        splits / joins: Node indices of gateways with two or more outgoing / incoming flows.
        join_split: For each join, its nearest common split (of the splits from which every
            incoming branch is reached, the fewest flows upstream), or ``None``; for a loop
            entry (one of its incoming branches is reached from it), the nearest split on its
            cycle, preferring one of a compatible type.
        split_join: For each split, its nearest common join (of the joins every outgoing branch
            reaches, the fewest flows downstream), or ``None`` when the branches never meet again.
    """

    splits: list[int]
    joins: list[int]
    join_split: dict[int, int | None]
    split_join: dict[int, int | None]


def gateway_pairs(graph: ControlFlow) -> GatewayPairs:
    """Pair splits with joins using the reachability bitsets (see :class:`GatewayPairs`)."""
    nodes = [graph.model.nodes[i] for i in graph.ids]
    gateways = [i for i, node in enumerate(nodes) if node.category == "gateway"]
    splits = [i for i in gateways if len(graph.succ[i]) >= 2]
    joins = [i for i in gateways if len(graph.pred[i]) >= 2]
    split_mask = sum(1 << i for i in splits)
    join_mask = sum(1 << i for i in joins)
    reach, reached_by = graph.reach_bits, graph.reached_by_bits
    join_split: dict[int, int | None] = {}
    for j in joins:
        preds = graph.pred[j]
        if any(reach[j] >> p & 1 for p in preds):  # a loop entry: pair it with the split that closes the loop
            on_cycle = _indices(reach[j] & reached_by[j] & split_mask)
            same = [s for s in on_cycle if compatible_gateways(nodes[s].kind, nodes[j].kind)]
            join_split[j] = _nearest(j, same or on_cycle, graph.succ)
        else:
            covering = split_mask
            for p in preds:
                covering &= reached_by[p] | 1 << p
            join_split[j] = _nearest(j, _indices(covering), graph.pred)
    split_join: dict[int, int | None] = {}
    for s in splits:
        covering = join_mask
        for q in graph.succ[s]:
            covering &= reach[q] | 1 << q
        split_join[s] = _nearest(s, _indices(covering), graph.succ)
    return GatewayPairs(splits, joins, join_split, split_join)


def _indices(bits: int) -> list[int]:
    """The positions of the set bits, in increasing order."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def _nearest(start: int, candidates: list[int], adjacency: list[list[int]]) -> int | None:
    """The candidate fewest edges away from ``start`` along ``adjacency`` (breadth-first)."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    wanted = set(candidates)
    seen = {start}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in adjacency[node]:
                if nxt in wanted:
                    return nxt
                if nxt not in seen:
                    seen.add(nxt)
                    following.append(nxt)
        frontier = following
    return candidates[0]
