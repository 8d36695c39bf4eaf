"""BPMN-v2 reward fidelity (issue 14): the reward measures the task, not what a constant or contentless answer has.

- The reference-free components (syntactic, pragmatic) are scaled by semantic fidelity.
- Semantic similarity weighs control flow: a linear chain of the right labels lands well below the reference.
- ``strict_format`` accepts nothing around the root element but an XML declaration and whitespace.
- An honest half of the reference outscores every degenerate strategy of the audit.
"""

from __future__ import annotations

from collections import deque
from xml.sax.saxutils import quoteattr

import gymnasium as gym
import pytest
from lxml import etree

import rewardlab  # noqa: F401  (registers the ids)
from rewardlab.envs.bpmn.audit import PROFILE
from rewardlab.envs.bpmn.model import extract_model
from rewardlab.envs.bpmn.oracle import bare_answer
from rewardlab.envs.bpmn.parse import BPMN_NS, read_answer
from rewardlab.envs.bpmn.semantic import hedges
from rewardlab.envs.bpmn.tasks import load_tasks, reference_xml

TASK = "gen-loan-decision"

_REFERENCING = ("sourceRef", "targetRef", "attachedToRef", "bpmnElement")


def _bfs_order(xml: str) -> list[str]:
    """Flow node ids in breadth-first order from every start event (then the unreached ones, in document order)."""
    model = extract_model(read_answer(xml).root)
    graph = model.graph
    starts = [i for i, node_id in enumerate(graph.ids) if model.nodes[node_id].kind == "startEvent"]
    seen, queue = set(starts), deque(starts)
    order = []
    while queue:
        i = queue.popleft()
        order.append(i)
        for j in graph.cf_succ[i]:
            if j not in seen:
                seen.add(j)
                queue.append(j)
    order += [i for i in range(len(graph.ids)) if i not in seen]
    return [graph.ids[i] for i in order]


def honest_half(xml: str) -> str:
    """The reference's first half: the flow nodes first reached from its start events, and everything among them.

    What an honest modeller who stopped halfway would hand in: the elements it drew are right, the
    rest is missing (flows, lane references, message flows and diagram shapes to the missing ones too).
    """
    order = _bfs_order(xml)
    removed = set(order[(len(order) + 1) // 2 :])
    root = etree.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    changed = True
    while changed:  # flows to removed nodes go, then whatever referenced those flows
        changed = False
        for element in list(root.iter()):
            if not isinstance(element.tag, str) or element.getparent() is None:
                continue
            refs = [element.get(name) for name in _REFERENCING]
            if element.get("id") in removed or any(ref in removed for ref in refs if ref):
                if element.get("id"):
                    removed.add(element.get("id"))
                element.getparent().remove(element)
                changed = True
            elif (element.text or "").strip() in removed and len(element) == 0:
                element.getparent().remove(element)
                changed = True
            elif element.get("default") in removed:
                del element.attrib["default"]
                changed = True
    return etree.tostring(root, encoding="unicode")


def linear_chain_of(xml: str) -> str:
    """The reference's activities and events, with their own labels and types, in one sequence (no gateways,
    pools or lanes): "the right names in roughly the right order" without the control flow."""
    parsed = read_answer(xml)
    model = extract_model(parsed.root)
    nodes = [model.nodes[i] for i in _bfs_order(xml) if model.nodes[i].category != "gateway"]
    body = []
    for k, node in enumerate(nodes):
        kind = "intermediateCatchEvent" if node.kind == "boundaryEvent" else node.kind
        trigger = node.trigger if node.category == "event" and node.trigger not in ("none", "reference", "") else ""
        inner = f"<{trigger}EventDefinition/>" if trigger else ""
        if trigger == "conditional":  # the two definitions with required content
            inner = "<conditionalEventDefinition><condition/></conditionalEventDefinition>"
        elif trigger == "link":
            inner = '<linkEventDefinition name="link"/>'
        body.append(f"<{kind} id={quoteattr(f'n{k}')} name={quoteattr(node.name)}>{inner}</{kind}>")
    body += [f'<sequenceFlow id="f{k}" sourceRef="n{k}" targetRef="n{k + 1}"/>' for k in range(len(nodes) - 1)]
    return (
        f'<definitions xmlns="{BPMN_NS}" id="d" targetNamespace="http://example.com">'
        f'<process id="p" isExecutable="false">{"".join(body)}</process></definitions>'
    )


TASKS = load_tasks()


def play(answer: str, task_id: str, **env_kwargs) -> dict:
    """The final ``info`` (plus ``"reward"``) of a one-answer episode."""
    env = gym.make("RewardLab/BPMN-v2", max_attempts=1, **env_kwargs)
    env.reset(seed=0, options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(answer)
    assert terminated
    return {**info, "reward": reward}


def oracle_answer(task_id: str) -> str:
    return bare_answer(reference_xml(TASKS.get(task_id)))


def root_only(task_id: str) -> str:
    """The reference's root element alone, without an XML declaration."""
    return etree.tostring(read_answer(reference_xml(TASKS.get(task_id))).root, encoding="unicode")


def linear_control_flow(xml: str) -> bool:
    """One process without lanes, gateways or boundary events, every node with at most one successor."""
    model = extract_model(read_answer(xml).root)
    return (
        len(model.processes) == 1
        and not model.participants
        and not model.lanes
        and all(node.category != "gateway" and node.kind != "boundaryEvent" for node in model.nodes.values())
        and all(len(successors) <= 1 for successors in model.graph.cf_succ)
    )


def test_reference_free_components_are_scaled_by_semantic():
    """Another task's reference is a perfect model of the wrong process: its rules and metrics are near 1,
    its syntactic and pragmatic components are those times its (low) semantic score."""
    info = play(oracle_answer("gen-tax-return"), "gen-loan-decision")
    components, metrics = info["reward_components"], info["metrics"]
    for component in ("syntactic", "pragmatic"):
        values = [v for k, v in metrics.items() if k.startswith(component + "/")]
        assert sum(values) / len(values) > 0.85
        assert components[component] == pytest.approx(sum(values) / len(values) * components["semantic"])
    assert components["semantic"] < 0.3 and info["reward"] < 0.4 and not info["is_success"]


@pytest.mark.parametrize("task_id", [t for t in TASKS.ids() if not linear_control_flow(reference_xml(TASKS.get(t)))])
def test_a_linear_chain_of_the_right_labels_lands_well_below_the_reference(task_id):
    """Every activity and event of the reference, with its own name and type, in one sequence: the labels are
    right, the gateways, parallel branches, exception paths, pools and message flows are not."""
    oracle = play(oracle_answer(task_id), task_id)
    chained = play(linear_chain_of(reference_xml(TASKS.get(task_id))), task_id)
    assert chained["reward_components"]["validity"] == 1.0
    assert chained["metrics"]["semantic/node_f1"] > 0.85
    assert chained["reward"] <= oracle["reward"] - 0.25 and not chained["is_success"]


def test_control_flow_is_what_semantic_weighs():
    reference = oracle_answer("gen-loan-decision")  # XOR split and merge
    as_parallel = reference.replace("exclusiveGateway", "parallelGateway")
    semantic = play(as_parallel, "gen-loan-decision")["reward_components"]["semantic"]
    assert semantic < 0.75
    pools = "gen-tax-return"  # two pools with message flows
    flattened = play(linear_chain_of(reference_xml(TASKS.get(pools))), pools)["metrics"]
    assert flattened["semantic/pool_coverage"] == 0.0 and flattened["semantic/message_flow_coverage"] == 0.0


def test_a_label_naming_several_elements_matches_none_of_them():
    reference = oracle_answer(TASK)
    hedged = reference.replace('name="Approve loan"', 'name="Approve loan or Reject loan"')
    assert hedged != reference
    metrics = play(hedged, TASK)["metrics"]
    assert metrics["semantic/node_recall"] < 1.0 and metrics["semantic/activity_label_recall"] < 0.9
    found = hedges((" approve loan or reject loan ", " approve loan "), (" approve loan ", " reject loan "))
    assert found.tolist() == [[True, True], [False, True]]  # "approve loan" names another element than "reject loan"
    # a label containing a shorter reference label is no hedge: "check order" is about "order"
    assert not hedges((" check order ",), (" check order ", " order ")).any()


XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'
NOT_BARE = {
    "comment before the root": "<!-- The start event comes first, I think. -->\n{root}",
    "comment after the declaration": XML_DECLARATION + "\n<!-- generated -->\n{root}",
    "processing instruction": '<?xml-stylesheet type="text/xsl" href="a.xsl"?>\n{root}',
    "declaration with extra text": '<?xml version="1.0" note="the gateways are a guess"?>\n{root}',
    "two declarations": XML_DECLARATION + XML_DECLARATION + "{root}",
    "two byte-order marks": "\ufeff\ufeff{root}",
    "zero-width space before the root": "\u200b{root}",
    "no-break space before the root": "\u00a0{root}",
    "comment after the root": "{root}\n<!-- alternatively the review runs in parallel -->",
    "processing instruction after the root": "{root}<?note unsure?>",
    "prose after the root": "{root}\nI hope this helps.",
}
BARE = {
    "root alone": "{root}",
    "declaration and root": XML_DECLARATION + "\n{root}\n",
    "byte-order mark": "\ufeff" + XML_DECLARATION + "{root}",
    "whitespace around": " \n\t" + XML_DECLARATION + "\r\n  {root}\n\n",
}


@pytest.mark.parametrize("name", list(NOT_BARE))
def test_strict_format_accepts_nothing_around_the_root_but_a_declaration(name):
    answer = NOT_BARE[name].format(root=root_only(TASK))
    strict = play(answer, TASK)
    assert strict["reward"] == 0.0 and not strict["is_success"]
    assert strict["metrics"]["validity/bare_answer"] == 0.0 and "XML document only" in strict["action_error"]
    lenient = play(answer, TASK, strict_format=False)
    assert lenient["is_success"] and lenient["metrics"]["validity/bare_answer"] == 0.0


@pytest.mark.parametrize("name", list(BARE))
def test_strict_format_accepts_the_root_after_a_declaration_and_whitespace(name):
    info = play(BARE[name].format(root=root_only(TASK)), TASK)
    assert info["is_success"] and info["metrics"]["validity/bare_answer"] == 1.0


def test_a_doctype_before_the_root_is_refused_in_both_modes():
    answer = "<!DOCTYPE definitions>\n" + root_only(TASK)
    for strict_format in (True, False):
        info = play(answer, TASK, strict_format=strict_format)
        assert info["reward"] == 0.0 and "DOCTYPE" in info["action_error"]


@pytest.fixture(scope="module")
def audit(shared_audit):
    return shared_audit("RewardLab/BPMN-v2")


def test_the_audit_flags_no_strategy(audit):
    assert audit.flagged == [], audit.format_table()
    assert audit.oracle.successes == len(audit.task_ids) == len(TASKS.ids("test"))
    names = {row.strategy for row in audit.rows}
    assert {strat.name for strat in PROFILE.strategies} <= names and not audit.skipped


def test_an_honest_half_outscores_every_degenerate_strategy(audit):
    """Per test task: the first half of the reference (what an honest modeller who stopped halfway hands in)
    earns more than any strategy of the audit on that task."""
    for task_id in audit.task_ids:
        half = play(honest_half(reference_xml(TASKS.get(task_id))), task_id)
        assert half["reward_components"]["validity"] == 1.0, half["action_error"]
        best = max(
            (record.reward, row.strategy) for row in audit.rows for record in row.episodes if record.task_id == task_id
        )
        assert half["reward"] > best[0], f"{task_id}: honest half {half['reward']:.3f} <= {best[1]} {best[0]:.3f}"
