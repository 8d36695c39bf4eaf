"""Same behaviour reads what the graph alone does not show: labels, interrupting and loop markers, and roles.

Each defect below keeps the graph of the reference and changed nothing the node matching weighs much, so it
kept success before; each equivalent writes the same model another way and must keep it.
"""

from __future__ import annotations

import pytest
from lxml import etree

from rewardlab.envs.bpmn.model import extract_model
from rewardlab.envs.bpmn.semantic import compare, profile

REFERENCE = """<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="p">
    <laneSet id="ls">
      <lane id="l1" name="Sales"><flowNodeRef>s</flowNodeRef><flowNodeRef>a</flowNodeRef></lane>
      <lane id="l2" name="Finance"><flowNodeRef>b</flowNodeRef><flowNodeRef>t</flowNodeRef>
        <flowNodeRef>e</flowNodeRef><flowNodeRef>e2</flowNodeRef></lane>
    </laneSet>
    <startEvent id="s" name="Order received"/>
    <task id="a" name="Check order"/>
    <task id="b" name="Send invoice"/>
    <boundaryEvent id="t" name="Two weeks passed" attachedToRef="b"><timerEventDefinition/></boundaryEvent>
    <endEvent id="e" name="Invoice sent"/>
    <endEvent id="e2" name="Reminder due"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
    <sequenceFlow id="f2" sourceRef="a" targetRef="b"/>
    <sequenceFlow id="f3" sourceRef="b" targetRef="e"/>
    <sequenceFlow id="f4" sourceRef="t" targetRef="e2"/>
  </process>
</definitions>"""


def same_behaviour(candidate: str, reference: str = REFERENCE) -> bool:
    profiles = [profile(extract_model(etree.fromstring(text.encode()))) for text in (candidate, reference)]
    return compare(*profiles).same_behaviour


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('name="Send invoice"', 'name="Send contract"'),
        ('name="Send invoice"', 'name="Do not send invoice"'),
        ('name="Invoice sent"', 'name="Invoice rejected"'),
        ('attachedToRef="b"', 'attachedToRef="b" cancelActivity="false"'),
        (
            '<task id="b" name="Send invoice"/>',
            '<task id="b" name="Send invoice"><standardLoopCharacteristics/></task>',
        ),
        (
            '<task id="a" name="Check order"/>',
            '<task id="a" name="Check order"><multiInstanceLoopCharacteristics/></task>',
        ),
        ('name="Sales"', 'name="Legal"'),
    ],
)
def test_a_defect_the_graph_does_not_show_loses_same_behaviour(old, new):
    assert old in REFERENCE
    assert not same_behaviour(REFERENCE.replace(old, new))


def test_lanes_swapped_by_name_lose_same_behaviour():
    swapped = REFERENCE.replace('name="Sales"', 'name="@@"').replace('name="Finance"', 'name="Sales"')
    assert not same_behaviour(swapped.replace('name="@@"', 'name="Finance"'))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('name="Send invoice"', 'name="  SEND   invoice. "'),
        ('attachedToRef="b"', 'attachedToRef="b" cancelActivity="true"'),
        ('<startEvent id="s" name="Order received"/>', '<startEvent id="s" name="Order received" isInterrupting="1"/>'),
        (
            '<endEvent id="e2" name="Reminder due"/>',
            '<endEvent id="e2" name="Reminder due"><documentation/></endEvent>',
        ),
    ],
)
def test_the_same_model_written_otherwise_keeps_same_behaviour(old, new):
    assert old in REFERENCE
    assert same_behaviour(REFERENCE.replace(old, new))


def test_the_reference_has_the_same_behaviour_as_itself():
    assert same_behaviour(REFERENCE)


def test_markers_enter_the_element_type():
    text = REFERENCE.replace('attachedToRef="b"', 'attachedToRef="b" cancelActivity="0"')
    model = extract_model(etree.fromstring(text.encode()))
    assert model.nodes["t"].signature == "boundaryEvent:timer:non-interrupting"
    assert model.nodes["b"].signature == "task"
