"""BPMN-v2's degenerate strategies for ``rewardlab audit``: cheap answers that never model the task.

Each strategy reads only the prompt (the quoted element names a policy would copy from it) and
writes a schema-valid model with a diagram, so the only thing it lacks is the task's control flow:

- ``minimal_model``: one fixed start → task → end model on every task.
- ``quoted_chain``: every quoted name of the prompt as a task, in one sequence.
- ``chain_with_gateways``: that chain with exclusive and parallel gateway pairs around every other
  pair of tasks, wherever they fall.
- ``markup_before_root``: the chain behind a comment, a processing instruction or a DOCTYPE (or a
  comment after the root), so prose could ride along with a "bare" answer.
- ``disconnected_names``: every quoted name as a task, no flows at all.
- ``parallel_everything``: every quoted name twice (task and user task) between one parallel split
  and join.
- ``decorated_chain``: the chain with gateway pairs, dressed with the prompt's pools and lanes (nodes
  dealt out in turn) and its message flows between the named elements: coverage farming.
- ``label_stuffing``: one task whose name lists every quoted name.
- ``hedged_labels``: the chain with each task named after two neighbouring names ("A or B").

The equivalent and defective rewrites of the oracle's answer are in :mod:`rewardlab.envs.bpmn.rewrites`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from xml.sax.saxutils import quoteattr

from rewardlab.audit.strategy import AuditProfile, EpisodeView, strategy
from rewardlab.envs.bpmn.parse import BPMN_NS, BPMNDI_NS, DC_NS
from rewardlab.envs.bpmn.rewrites import DEFECTS, EQUIVALENTS

DI_NS = "http://www.omg.org/spec/DD/20100524/DI"

_QUOTED = re.compile(r'"([^"\n]{1,120})"')
_LISTED = re.compile(r'\b(pools?|lanes?)\b:?\s+((?:"[^"\n]{1,120}"(?:\s*,\s*)?)+)', re.IGNORECASE)
_MESSAGE = re.compile(r'goes from [^"]*"([^"\n]{1,120})"\s+to [^"]*"([^"\n]{1,120})"')
_SIZES = {"startEvent": (36, 36), "endEvent": (36, 36)}

Node = tuple[str, str]
"""(element name, label)."""


def quoted_names(prompt: str) -> list[str]:
    """The prompt's quoted names, first occurrences in order (what the prompt tells the agent to use)."""
    return list(dict.fromkeys(name.strip() for name in _QUOTED.findall(prompt) if name.strip()))


def model_xml(
    nodes: Sequence[Node],
    flows: Sequence[tuple[int, int]],
    *,
    pools: Sequence[str] = (),
    lanes: Sequence[str] = (),
    messages: Sequence[tuple[int, int]] = (),
) -> str:
    """A BPMN document with the given nodes and flows (by index) in one process, and a grid diagram.

    ``pools`` names the process's pool and further (empty) pools; ``lanes`` are filled with the
    nodes in turn; ``messages`` are message flows between nodes (by index).
    """
    body, shapes = [], []
    if lanes:
        members: list[list[str]] = [[] for _ in lanes]
        for i in range(len(nodes)):
            members[i % len(lanes)].append(f"<flowNodeRef>n{i}</flowNodeRef>")
        body.append('<laneSet id="lanes">')
        body += [f'<lane id="l{j}" name={quoteattr(name)}>{"".join(members[j])}</lane>' for j, name in enumerate(lanes)]
        body.append("</laneSet>")
    for i, (kind, label) in enumerate(nodes):
        body.append(f"<{kind} id={quoteattr(f'n{i}')} name={quoteattr(label)}/>")
        width, height = _SIZES.get(kind, (50, 50) if kind.endswith("Gateway") else (100, 80))
        x, y = 100 + 150 * (i % 12), 100 + 150 * (i // 12)
        shapes.append(
            f'<bpmndi:BPMNShape id="n{i}_di" bpmnElement="n{i}">'
            f'<dc:Bounds x="{x}" y="{y}" width="{width}" height="{height}"/></bpmndi:BPMNShape>'
        )
    for k, (a, b) in enumerate(flows):
        body.append(f'<sequenceFlow id="f{k}" sourceRef="n{a}" targetRef="n{b}"/>')
        points = "".join(f'<di:waypoint x="{100 + 150 * (i % 12)}" y="{100 + 150 * (i // 12)}"/>' for i in (a, b))
        shapes.append(f'<bpmndi:BPMNEdge id="f{k}_di" bpmnElement="f{k}">{points}</bpmndi:BPMNEdge>')
    collaboration = ""
    if pools:
        participants = [f'<participant id="pool0" name={quoteattr(pools[0])} processRef="p"/>']
        participants += [f'<participant id="pool{j}" name={quoteattr(name)}/>' for j, name in enumerate(pools) if j]
        links = [f'<messageFlow id="m{k}" sourceRef="n{a}" targetRef="n{b}"/>' for k, (a, b) in enumerate(messages)]
        collaboration = f'<collaboration id="c">{"".join(participants + links)}</collaboration>'
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<definitions xmlns="{BPMN_NS}" xmlns:bpmndi="{BPMNDI_NS}" '
        f'xmlns:dc="{DC_NS}" xmlns:di="{DI_NS}" id="d" targetNamespace="http://example.com">{collaboration}'
        f'<process id="p" isExecutable="false">{"".join(body)}</process>'
        f'<bpmndi:BPMNDiagram id="diagram"><bpmndi:BPMNPlane id="plane" bpmnElement="p">{"".join(shapes)}'
        "</bpmndi:BPMNPlane></bpmndi:BPMNDiagram></definitions>"
    )


def chain_graph(labels: Sequence[str], *, gateways: bool = False) -> tuple[list[Node], list[tuple[int, int]]]:
    """Start → a task per label → end; with ``gateways``, every other pair of tasks sits in a
    split/join pair (exclusive, then parallel, alternating) wherever it happens to fall."""
    nodes: list[Node] = [("startEvent", "Start")]
    flows: list[tuple[int, int]] = []
    last, i, kinds = 0, 0, ("exclusiveGateway", "parallelGateway")
    while i < len(labels):
        if gateways and i + 1 < len(labels) and (i // 2) % 2 == 0:
            kind = kinds[(i // 4) % 2]
            split, left, right, join = range(len(nodes), len(nodes) + 4)
            nodes += [(kind, ""), ("task", labels[i]), ("task", labels[i + 1]), (kind, "")]
            flows += [(last, split), (split, left), (split, right), (left, join), (right, join)]
            last, i = join, i + 2
            continue
        nodes.append(("task", labels[i]))
        flows.append((last, len(nodes) - 1))
        last, i = len(nodes) - 1, i + 1
    nodes.append(("endEvent", "End"))
    flows.append((last, len(nodes) - 1))
    return nodes, flows


def chain(labels: Sequence[str], *, gateways: bool = False) -> str:
    """The document of :func:`chain_graph`."""
    return model_xml(*chain_graph(labels, gateways=gateways))


def _repeat(answer: str) -> Iterator[str]:
    """The same answer on every attempt (the last attempt is the one scored)."""
    while True:
        yield answer


@strategy("minimal_model", "one fixed start → task → end model, whatever the task")
def minimal_model(view: EpisodeView) -> Iterator[str]:
    yield from _repeat(chain(["Process request"]))


@strategy("quoted_chain", "every quoted name of the prompt as a task, in one sequence (no gateways, no pools)")
def quoted_chain(view: EpisodeView) -> Iterator[str]:
    yield from _repeat(chain(quoted_names(view.first_observation)))


@strategy("chain_with_gateways", "the quoted-name chain with exclusive/parallel gateway pairs in arbitrary places")
def chain_with_gateways(view: EpisodeView) -> Iterator[str]:
    yield from _repeat(chain(quoted_names(view.first_observation), gateways=True))


_MARKUP = (
    "<!-- Reasoning: the start event comes first, then the tasks in the order given. -->\n{xml}",
    '<?xml-stylesheet type="text/xsl" href="model.xsl"?>\n{xml}',
    "<!DOCTYPE definitions>\n{xml}",
    "{xml}\n<!-- I am not sure about the gateways; this is my best guess. -->",
)


@strategy("markup_before_root", "the chain behind a comment, a PI or a DOCTYPE (or with a trailing comment)")
def markup_before_root(view: EpisodeView) -> Iterator[str]:
    body = chain(quoted_names(view.first_observation)).split("\n", 1)[1]
    for attempt in range(len(_MARKUP) * 4):
        yield _MARKUP[(attempt + int(view.rng.integers(len(_MARKUP)))) % len(_MARKUP)].format(xml=body)


@strategy("disconnected_names", "a start event, every quoted name as a task and an end event, with no flows")
def disconnected_names(view: EpisodeView) -> Iterator[str]:
    names = quoted_names(view.first_observation)
    nodes = [("startEvent", "Start"), *(("task", name) for name in names), ("endEvent", "End")]
    yield from _repeat(model_xml(nodes, []))


@strategy("parallel_everything", "every quoted name as a task and as a user task, all between one AND split/join")
def parallel_everything(view: EpisodeView) -> Iterator[str]:
    names = quoted_names(view.first_observation)
    tasks = [(kind, name) for name in names for kind in ("task", "userTask")]
    nodes = [("startEvent", "Start"), ("parallelGateway", ""), *tasks, ("parallelGateway", ""), ("endEvent", "End")]
    join = len(nodes) - 2
    flows = [(0, 1), (join, join + 1)]
    for i in range(2, join):
        flows += [(1, i), (i, join)]
    yield from _repeat(model_xml(nodes, flows))


@strategy(
    "decorated_chain",
    "the quoted-name chain with gateway pairs, the prompt's pools and lanes (nodes dealt out in turn) and its "
    "message flows between the named tasks",
)
def decorated_chain(view: EpisodeView) -> Iterator[str]:
    prompt = view.first_observation
    listed: dict[str, list[str]] = {"pool": [], "lane": []}
    for word, names in _LISTED.findall(prompt):
        listed[word.lower().rstrip("s")] += _QUOTED.findall(names)
    pools, lanes = list(dict.fromkeys(listed["pool"])), list(dict.fromkeys(listed["lane"]))
    labels = [name for name in quoted_names(prompt) if name not in pools and name not in lanes]
    nodes, flows = chain_graph(labels, gateways=True)
    index = {label: i for i, (_, label) in enumerate(nodes) if label}
    messages = [(index[a], index[b]) for a, b in _MESSAGE.findall(prompt) if a in index and b in index]
    yield from _repeat(model_xml(nodes, flows, pools=pools, lanes=lanes, messages=messages))


@strategy("label_stuffing", "start → one task named with every quoted name → end")
def label_stuffing(view: EpisodeView) -> Iterator[str]:
    yield from _repeat(chain([" / ".join(quoted_names(view.first_observation)) or "Process request"]))


@strategy("hedged_labels", "the quoted-name chain with every task named after two neighbouring names ('A or B')")
def hedged_labels(view: EpisodeView) -> Iterator[str]:
    names = quoted_names(view.first_observation)
    labels = [f"{a} or {b}" for a, b in zip(names, names[1:] + names[:1], strict=True)]
    yield from _repeat(chain(labels))


DEFECT_DELTA = 0.15
"""The least mean reward one modelling defect costs: with equal weights it loses ``correctness`` (1/5), less
whatever the graded components gain (observed: at least 0.2 on every task); 0.15 leaves room for reweighting."""

PROFILE = AuditProfile(
    strategies=(
        minimal_model,
        quoted_chain,
        chain_with_gateways,
        markup_before_root,
        disconnected_names,
        parallel_everything,
        decorated_chain,
        label_stuffing,
        hedged_labels,
    ),
    finish="",
    equivalents=EQUIVALENTS,
    defects=DEFECTS,
    defect_delta=DEFECT_DELTA,
)
"""BPMN-v2's :class:`~rewardlab.audit.AuditProfile`; the finishing action is the empty answer."""
