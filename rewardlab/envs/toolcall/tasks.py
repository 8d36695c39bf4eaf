"""ToolCall tasks: the TaskSet, required effects (milestones) and the hidden expected state.

Tasks ship as JSONL in ``data/``: ``generated.jsonl`` (written by
``python -m rewardlab.envs.toolcall.build.templates`` from seeded templates) and ``handwritten.jsonl``.
Each row holds, besides ``id``, ``split`` and ``prompt`` (privileged, never shown to the agent):

===================  ========================================================================
``domain``           the world (``retail``, ``bank``, ``calendar``, ``travel``)
``world_seed``       the seed its tables are generated from
``kind``             ``chain``, ``parallel``, ``error`` (a tool refusal must be handled) or
                     ``irrelevance`` (no tool is needed: answer or refuse)
``template``         the generating template, or ``handwritten``
``solution``         reference turns: each a list of calls ``{"name", "arguments"}`` run together
``final_answer``     the reference final message
``answer_required``  required outputs; each a list of alternatives, a string (case-insensitive
                     substring) or a number (any number in the answer within 0.01)
``effects``          required effects on the world, the milestones (see :func:`effect_reached`)
``tolerated_errors`` tool refusals the reference solution itself runs into
===================  ========================================================================

The expected final state is the state after replaying ``solution`` on a fresh world
(:func:`expected_state`, computed once per process); derived counts: ``min_calls`` (calls in the solution)
and ``min_turns`` (its turns plus the final answer).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from rewardlab.core.tasks import Task, TaskSet
from rewardlab.envs.toolcall.worlds import CallResult, World, make_world

DATA_DIR = Path(__file__).parent / "data"
GENERATED_FILE = DATA_DIR / "generated.jsonl"
HANDWRITTEN_FILE = DATA_DIR / "handwritten.jsonl"
KINDS: tuple[str, ...] = ("chain", "parallel", "error", "irrelevance")


@lru_cache(maxsize=1)
def load_tasks() -> TaskSet:
    """Every shipped task: generated then hand-written."""
    return TaskSet.from_jsonl(GENERATED_FILE, HANDWRITTEN_FILE)


def initial_world(task: Task) -> World:
    """A fresh world for the task."""
    return make_world(task.data["domain"], int(task.data["world_seed"]))


def replay(world: World, solution: Iterable[Sequence[Mapping[str, Any]]]) -> list[CallResult]:
    """Run the reference turns on ``world``; returns every call's result in order."""
    return [world.call(call["name"], call.get("arguments", {})) for turn in solution for call in turn]


def expected_state(task: Task) -> dict[str, Any]:
    """The hidden expected final state: the state after the reference solution. Shared by every env of the
    process (computed once per domain, seed and solution): read it, never change it."""
    solution = json.dumps(task.data["solution"], sort_keys=True)
    return _expected_state(task.data["domain"], int(task.data["world_seed"]), solution)


def initial_state(task: Task) -> dict[str, Any]:
    """The state of the task's fresh world; shared like :func:`expected_state`."""
    return _initial_state(task.data["domain"], int(task.data["world_seed"]))


@lru_cache(maxsize=4096)
def _expected_state(domain: str, seed: int, solution: str) -> dict[str, Any]:
    world = make_world(domain, seed)
    replay(world, json.loads(solution))
    return world.state()


@lru_cache(maxsize=256)
def _initial_state(domain: str, seed: int) -> dict[str, Any]:
    return make_world(domain, seed).state()


def collateral_changes(initial: Mapping[str, Any], expected: Mapping[str, Any], final: Mapping[str, Any]) -> int:
    """Changes the task does not ask for: records the expected state leaves as they were but the
    final state changed (or deleted), plus created records the expected state does not have.

    Missing work is not collateral (a record still as it was, that the task changes); only damage
    beyond the task's targets is. States are :meth:`World.state` values.
    """
    changes = 0
    for table, now in final.items():
        before, wanted = initial[table]["records"], expected[table]["records"]
        for key in before.keys() | now["records"].keys():
            if wanted.get(key) == before.get(key) and now["records"].get(key) != before.get(key):
                changes += 1
        extra = Counter(now["created"]) - Counter(expected[table]["created"])
        changes += sum(extra.values())
    return changes


def min_calls(task: Task) -> int:
    """Calls in the reference solution (the minimum the efficiency component compares with)."""
    return sum(len(turn) for turn in task.data["solution"])


def min_turns(task: Task) -> int:
    """Turns of the reference solution plus the final answer."""
    return len(task.data["solution"]) + 1


def effect_reached(world: World, effect: Mapping[str, Any]) -> bool:
    """Whether one required effect holds in ``world`` now.

    Forms: ``{"table", "key", "fields": {...}}`` (the record has these field values),
    ``{"table", "key", "absent": true}`` (the record is gone) and ``{"table", "created": {...}}``
    (a record created during the episode has these field values).
    """
    rows = world.db[effect["table"]]
    if "created" in effect:
        initial = world.initial_keys.get(effect["table"], frozenset())
        want = effect["created"].items()
        return any(key not in initial and all(row.get(k) == v for k, v in want) for key, row in rows.items())
    record = rows.get(effect["key"])
    if effect.get("absent"):
        return record is None
    return record is not None and all(record.get(k) == v for k, v in effect["fields"].items())
