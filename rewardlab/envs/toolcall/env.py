"""RewardLab/ToolCall-v3: multi-turn tool use in simulated, stateful worlds (spec sheet: :class:`ToolCallEnv`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, TextEnv, Turn, Unpack
from rewardlab.core.rubric import RubricResult
from rewardlab.core.tasks import Task, TaskSet
from rewardlab.core.text import canonical_text
from rewardlab.core.toolcalls import ParseLimits, parse_tool_calls
from rewardlab.envs.toolcall.candidates import SeenValues, competitors, vocabulary
from rewardlab.envs.toolcall.oracle import ToolCallOracle
from rewardlab.envs.toolcall.relevance import ReferenceLedger
from rewardlab.envs.toolcall.rubric import ToolCallOutcome, answer_score, make_rubric, state_score
from rewardlab.envs.toolcall.tasks import (
    collateral_changes,
    effect_reached,
    expected_state,
    initial_state,
    initial_world,
    load_tasks,
    min_calls,
    min_turns,
)
from rewardlab.envs.toolcall.worlds import WORLDS, World, make_world
from rewardlab.errors import ConfigError, ResetNeeded, did_you_mean

FORMAT = (
    'To call a tool, reply with only JSON: {"name": "<tool>", "arguments": {...}}, or a JSON list of such '
    "calls to run them in parallel. Tool results come back as JSON. Any reply that is not a tool call is "
    "your final answer to the user and ends the conversation."
)

_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)
"""Observation encoder; tool outputs are fresh JSON trees, so the cycle check is skipped."""


class ToolCallEnv(TextEnv):
    """RewardLab/ToolCall-v3: multi-turn tool use in simulated, stateful worlds (retail, bank, calendar, travel).

    ## Description

    The agent serves a user request by calling tools of an in-memory world (a database with
    Python tool implementations and OpenAI function-calling schemas), then answers. Tasks are
    chains of 1-6 dependent calls, parallel calls, tasks where a tool refuses and the agent must
    recover, and irrelevance tasks where no tool fits and the right move is to answer or refuse.
    Scoring is grounded in the final world state and in the task's own calls: any valid order of
    calls earns full credit, and calls that do not relate to the task earn none.

    A task (train split by default, ``options={"task_id": ...}`` to choose) runs in a fresh world
    generated from the task's seed. The observation is the user's request, then, after calls, JSON:
    ``{"name", "result"}`` or ``{"name", "error"}`` per call (a list for parallel calls).
    ``info["tools"]`` (on reset) holds the OpenAI schemas, ``info["system_prompt"]`` the domain role
    and the action format; after calls, ``info["call_results"]`` lists each call's kind (``ok``,
    ``unknown_tool``, ``schema``, ``tool_error`` or ``crash``).

    ## Action format

    Text (:class:`~rewardlab.core.TextSpace`): a tool call ``{"name": ..., "arguments": {...}}``, a
    JSON list of calls (run in order, each its own transaction), or anything else: the final answer.
    What makes a call is its shape, not its braces: an answer holding JSON data
    (``{"status": "shipped"}``) is a final answer (:func:`~rewardlab.core.toolcalls.looks_like_call`).
    Calls found inside prose, code fences or ``<tool_call>`` tags are run but count against ``format``.

    ## Components

    Equal default weights, mean aggregate. With ``A`` actions (``A_s`` in the documented format; an
    empty reply is not), ``C`` calls (``C_v`` schema-valid, ``R`` of those refused), a reference
    solution of ``C*`` calls and ``A*`` turns with ``T`` refusals of its own, *related* calls
    (schema-valid calls matching a reference call by tool and key arguments, or reaching a required
    effect; ``C_r``, ``C_r,ok`` of them ran), ``M`` reference calls matched, ``E``/``E*`` required
    effects holding / required, ``D`` collateral changes, the coverage ``κ = max(M/C*, [D=0]·E/E*)``
    (``κ = a``, the answer, when ``C* = 0``) and ``S`` = 1 when ``state`` and ``answer`` are both 1; full definitions in
    :mod:`rewardlab.envs.toolcall.rubric`:

    | name         | role       | formula                                                           | weight | range  |
    |--------------|------------|-------------------------------------------------------------------|--------|--------|
    | `format`     | format     | A_s / A · ½(κ + answer)                                           | 1/6    | [0, 1] |
    | `schema`     | progress   | κ · C_r / C                                                       | 1/6    | [0, 1] |
    | `execution`  | progress   | κ · C_r,ok / (C_v − min(R, T))                                    | 1/6    | [0, 1] |
    | `state`      | outcome    | [final db = expected] · [M = C* if read-only] · [a > 0 if C* = 0] | 1/6    | {0, 1} |
    | `answer`     | outcome    | required outputs mentioned / required, 0 if hedged or too long    | 1/6    | [0, 1] |
    | `efficiency` | efficiency | S · (½(C* + 1) / (max(C, C*) + 1) + ½A* / max(A, A*))             | 1/6    | [0, 1] |

    ``schema`` without calls is ``κ`` if ``C* = 0`` else 0; ``execution`` is 1 when its denominator is 0.
    ``state`` compares the whole final database with the hidden expected one (so collateral changes
    fail). ``answer`` is 0 for no answer, no words, more than ``3·|reference answer| + 60`` canonical
    characters, or any competing candidate; with no output required it is ``[D=0]·E/E*``.
    ``is_success`` = ``state`` and ``answer`` both 1. The core counts ``A`` (text actions).

    ## Milestones

    The task's required effects on the world (e.g. ``order O1003 cancelled``), checked after every
    successful call and reported in the order they first hold, whatever the order of the calls;
    ``progress`` is the fraction holding.

    ## Episode end

    Terminates on the final answer. Truncates after ``max_turns`` steps (default 16) and is
    scored with no answer. Bad input never raises: unparseable JSON, duplicate keys, NaN, deep
    nesting, oversized actions, unknown tools, wrong argument types and tools that raise give an
    error observation and ``info["action_error"]``, and change nothing in the world.

    Replay: exact. The world is built from the task's seed and changes only through the tool calls, so
    a record's seed and actions re-score the episode bit for bit (:mod:`rewardlab.core.replay`).

    ## Arguments

    - ``domains``: restrict tasks to these domains (default: all four).
    - ``max_action_chars``: longest action parsed (default 200,000 characters).
    - The common ones, :class:`~rewardlab.core.CommonArgs`: ``reward_weights``, ``aggregate``,
      ``gates``, ``invalid_penalty``, ``max_turns``, ``render_mode``.

    ## Known hack classes defended

    Each hack class has a strategy in :mod:`rewardlab.envs.toolcall.audit`:

    - *Hedged answers* (every status word, every id and number seen, a dump of the tool
      results, a JSON object of them): a required output competes with the other values of its
      attribute in the world's tables and in the results shown
      (:mod:`~rewardlab.envs.toolcall.candidates`); an answer naming one fails, and so does one
      longer than its bound relative to the reference answer. For a numeric output, a number that
      neither the world, the tool results nor the episode's own calls hold is a guess and competes,
      and more than one number of context (from another field) is a list.
    - *Negated answers* (``"shipped, not pending"``, ``"it is not pending"``): answers are read for
      what they affirm (:mod:`~rewardlab.core.negation`: a clause's words from its first
      negator on are dropped), so a denied required value earns nothing and a denied candidate does
      not hedge.
    - *Doing nothing on read-only tasks*: their state credit requires every reference call to
      have been made; an empty or contentless reply earns no answer credit.
    - *Any reply on a task that needs no call* (refusals, arithmetic on the prompt): there the
      coverage is the answer (``κ = a``), so a reply without the answer earns no ``format``,
      ``schema``, ``execution`` or ``state`` credit either.
    - *Unrelated calls* for schema and execution credit: only related calls count, scaled by
      the coverage ``κ``; unrelated ones dilute.
    - *Collateral damage* (a write applied to every entity): the whole state is compared, and
      effects reached alongside damage earn neither coverage nor answer credit.
    - *Format without content*: ``format`` is scaled by ``½(κ + answer)``.

    ## Version history

    - v0: initial release (4 domains, 200 generated + hand-written tasks).
    - v1: related-call credit, reads required on read-only tasks, bounded hedge-free answers, scaled format.
    - v2: a task that needs no call (refusals, arithmetic on the prompt) is all answer: ``κ = a`` there, so
      ``format``, ``schema`` and ``execution`` are not free and ``state`` needs an answer with credit (v1 gave
      any reply, even garbage, 0.583 on the 24 such train tasks).
    - v3 (issue #26): answers are read for what they affirm ("X, not Y" no longer credits Y); a guessed number
      beside a numeric output hedges; created records compare numbers in one JSON form (``75`` = ``75.0``);
      times and dates are not read as numbers; numbers written in words count as numbers
      (:mod:`rewardlab.core.numerals`), and a negation of doubt ("if not", "perhaps not") offers a second
      candidate rather than denying it. Audited by :mod:`rewardlab.envs.toolcall.rewrites`. Later, under the same
      id (a new ``reward_version``): only ``not`` after a word of doubt hedges (``if cannot X`` denies X); clock
      times and dates in any common form (``7 pm``, ``March 11, 2025``) read as the tools' ``19:00`` and
      ``2025-03-11`` (:mod:`rewardlab.core.datetimes`), so an honest ``7 pm`` is no guessed number; a value the
      prompt names hedges when the answer offers it as an alternative to the required one (``checking or
      savings``), not when it restates it (:func:`~rewardlab.core.answers.offered_as_alternatives`). Then: a
      refusal earns its answer only by declining (:func:`~rewardlab.core.refusal.declines`: the speaker cannot act
      and claims nothing done; ``"Done! Sorry they annoy you."`` earned 1.0); a verdict denies its subject
      (``"$79.98 is not the total"``, ``"… is wrong"``, ``"I doubt it is …"``); a lone ``one`` is the pronoun only
      after a determiner (``two, or maybe one`` hedges). Then (stop 39): ``probably``, ``likely``,
      ``otherwise``, ``alternatively`` and ``else`` weigh a value against the required one, also right after it
      (``savings; checking otherwise`` hedges). Then (stop 44): a value the prompt names is offered as an
      alternative in other words than ``or`` too (``savings; if not, checking``, ``savings, though it could also be
      checking``, ``unless``, ``versus``) and when listed with the required one (``savings/checking``, ``savings and
      checking.``, ``Savings? Checking?``, a time with its range: ``12:30-13:00/16:00-16:30``), but not when a
      clause about it follows (``savings; checking didn't have enough``); the length bound reads the words the
      prompt does not hold (restating the request lists nothing); ``as opposed to``, ``in place of``, ``in lieu
      of``, ``other than``, ``except`` and ``excluding`` deny what follows them, and a lone ``no`` after a question
      denies the question (``Pending? No, shipped.``); a value stated only as a bound or an estimate (``at least
      3``, ``about $84.81``, ``~3``, ``3+``) is a hedge; a whole number followed by what it counts
      (``3 tool calls``, ``2 items``: not a currency, not the required output's own unit) is one number of context,
      not a guess at the amount, unless offered in its place (``$84.81, or maybe 86 items``). Then (stop 45): a
      number that names a thing or a time (:mod:`rewardlab.core.labels`: ``on page 2``, ``ticket 7``, ``since
      2019``, ``as of 2024``) is one number of context beside an amount stated without a label, not a guess; an
      amount stated only inside labels (``post 3, message 4``) leaves its labels competing, and one offered as a
      possibility (``or maybe page 7``) is no label. A verdict after a value denies it (``$86.31 was ruled out``,
      ``does not apply``, ``doesn't count``: :data:`~rewardlab.core.negation.REJECTED`,
      :data:`~rewardlab.core.negation.APPLIES`), and beside required outputs stated outright the subject of any
      other denied predicate is no candidate (``$84.81 ($86.31 was never charged)``); one stated only as such a
      subject (``O1046 has not shipped``) still answers, beside others so stated competing; ``unlike`` and ``far
      from`` deny what follows them, as ``as opposed to`` does.
    """

    cheap_calls: ClassVar[bool] = True
    system_prompt = FORMAT
    default_max_turns = 16
    multi_turn = True
    replay: ClassVar[ReplayFidelity] = "exact"
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "state",
        "format",
        "the final database equals the expected one: what the task asks for",
        "actions in the documented format (scaled by task progress)",
    )

    def __init__(
        self,
        *,
        domains: Sequence[str] | None = None,
        max_action_chars: int = 200_000,
        **common: Unpack[CommonArgs],
    ):
        if isinstance(domains, str):
            domains = [domains]
        for domain in domains or ():
            if domain not in WORLDS:
                raise ConfigError(
                    f"unknown domain {domain!r}; domains are {sorted(WORLDS)}." + did_you_mean(domain, WORLDS)
                )
        if not isinstance(max_action_chars, int) or max_action_chars < 1:
            raise ConfigError(f"max_action_chars must be a positive int, got {max_action_chars!r}")
        tasks = load_tasks()
        if domains:
            tasks = TaskSet(t for t in tasks if t.data["domain"] in set(domains))
        self.domains = tuple(domains or WORLDS)
        self.limits = ParseLimits(max_chars=max_action_chars)
        super().__init__(tasks=tasks, rubric=make_rubric(), **common)
        self.world: World | None = None
        self.outcome: ToolCallOutcome | None = None
        self._pending_effects: list[Mapping[str, Any]] = []
        self._ledger: ReferenceLedger | None = None
        self._seen = SeenValues()
        self._sent = SeenValues()
        """Arguments of the episode's schema-valid calls (numbers the agent may report, e.g. an amount moved)."""
        self._sample_pools: dict[str, dict[str, list[Any]]] = {}

    @property
    def current_world(self) -> World:
        """:attr:`world`, the running episode's world; ResetNeeded before the first ``reset``."""
        if self.world is None:
            raise ResetNeeded("call reset() first: no world has been built")
        return self.world

    @property
    def current_outcome(self) -> ToolCallOutcome:
        """:attr:`outcome`, the running episode's tally; ResetNeeded before the first ``reset``."""
        if self.outcome is None:
            raise ResetNeeded("call reset() first: no episode has started")
        return self.outcome

    def _current_ledger(self) -> ReferenceLedger:
        if self._ledger is None:
            raise ResetNeeded("call reset() first: no episode has started")
        return self._ledger

    # ------------------------------------------------------------------ episode
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        world = self.world = initial_world(task)
        self.outcome = ToolCallOutcome(
            answer_required=task.data["answer_required"],
            effects_total=len(task.data["effects"]),
            min_calls=min_calls(task),
            min_turns=min_turns(task),
            tolerated_errors=int(task.data["tolerated_errors"]),
            reference_answer=task.data["final_answer"],
            prompt=task.prompt,
        )
        self._pending_effects = list(task.data["effects"])
        self._ledger = ReferenceLedger(world, task.data["solution"])
        self._seen = SeenValues()
        self._sent = SeenValues()
        system_prompt = f"{world.description}\n\n{FORMAT}"
        tools = self.task_tools(task)
        return task.prompt, {"system_prompt": system_prompt, "tools": tools, "domain": world.domain}

    def task_tools(self, task: Task) -> list[dict[str, Any]]:
        """The tools of the task's domain (every task of a domain offers the same ones)."""
        return WORLDS[task.data["domain"]].tools()

    def milestone_names(self) -> tuple[str, ...]:
        return tuple(e["name"] for e in self.task.data["effects"]) if self.task else ()

    def _act(self, action: str) -> Turn:
        outcome, world, ledger = self.current_outcome, self.current_world, self._current_ledger()
        parsed = parse_tool_calls(action, self.limits)
        if parsed.strict and (parsed.calls or canonical_text(parsed.answer or "")):
            outcome.strict_actions += 1  # an empty reply is not a documented answer
        if parsed.error is not None:
            return Turn(observation=f"error: {parsed.error}\n{FORMAT}", action_error=parsed.error)
        if not parsed.calls:
            outcome.answer = parsed.answer
            return Turn(observation="(conversation ended)", done=True)
        results, kinds, errors, reached = [], [], [], []
        for call in parsed.calls:
            result = world.call(call.name, call.arguments)
            kinds.append(result.kind)
            outcome.calls += 1
            if not result.schema_valid:
                errors.append(result.error)
                results.append({"name": call.name, "error": result.error})
                continue
            outcome.schema_valid += 1
            self._sent.add(call.arguments)
            new = self._reached_effects() if result.ok and self._pending_effects else []
            reached += new
            related = ledger.claim(call.name, call.arguments) or bool(new)
            outcome.related += related
            if result.kind == "ok":
                outcome.executed += 1
                outcome.related_executed += related
                self._seen.add(result.output)
                results.append({"name": call.name, "result": result.output})
                continue
            if result.kind == "tool_error":
                outcome.refusals += 1
            else:
                errors.append(result.error)
            results.append({"name": call.name, "error": result.error})
        observation = _ENCODER.encode(results if parsed.parallel else results[0])
        return Turn(
            observation=observation,
            action_error="; ".join(e for e in errors if e is not None) if errors else None,  # set unless kind "ok"
            milestones=reached,
            info={"call_results": kinds},
        )

    def _reached_effects(self) -> list[str]:
        world = self.current_world
        reached = [e for e in self._pending_effects if effect_reached(world, e)]
        if reached:
            self._pending_effects = [e for e in self._pending_effects if e not in reached]
        return [e["name"] for e in reached]

    def _finish(self) -> ToolCallOutcome:
        outcome, world = self.current_outcome, self.current_world
        outcome.actions = self.actions_taken
        expected, initial = expected_state(self.current_task), initial_state(self.current_task)
        final = world.state()
        outcome.state_matches = final == expected
        outcome.collateral = collateral_changes(initial, expected, final) if not outcome.state_matches else 0
        outcome.effects_reached = sum(effect_reached(world, e) for e in self.current_task.data["effects"])
        outcome.covered = self._current_ledger().covered
        if outcome.answer is not None and outcome.answer_required:
            world_values = vocabulary(world.domain, int(self.current_task.data["world_seed"]))
            outcome.competitors = competitors(
                outcome.answer_required, [world_values, self._seen], prompt=self.current_task.prompt, sent=[self._sent]
            )
        return outcome

    def _outcome(self) -> tuple[ToolCallOutcome, bool]:
        return self._finish(), True

    def _is_success(self, outcome: ToolCallOutcome, result: RubricResult) -> bool:
        """State and answer both correct, read from the outcome so that gates cannot hide it."""
        return state_score(outcome)[0] >= 1.0 and answer_score(outcome)[0] >= 1.0

    # ------------------------------------------------------------------ agents
    def make_oracle(self) -> ToolCallOracle:
        return ToolCallOracle(self)

    def audit_profile(self) -> Any:
        """The env's own degenerate strategies (see :mod:`rewardlab.envs.toolcall.audit`); a refusal
        on an irrelevance task is accepted as the right answer."""
        from rewardlab.envs.toolcall.audit import profile

        return profile({task.id: str(task.data.get("kind", "")) for task in self.tasks})

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random, well-formed action: one call (sometimes two in parallel) of a random tool with
        arguments drawn from its schema and from ids and values present in the world, or (one time
        in eight) a short final answer."""
        world = self.world or make_world(self.domains[0])
        if rng.random() < 0.125:
            return str(rng.choice(["Done.", "I cannot help with that.", "The total is 42.", "It is pending."]))
        pool = self._pool(world)
        specs = list(world.tool_specs.values())
        calls = []
        for _ in range(2 if rng.random() < 0.2 else 1):
            spec = specs[int(rng.integers(len(specs)))]
            arguments = {
                name: _sample_value(name, schema, pool, rng) for name, schema in spec.parameters["properties"].items()
            }
            calls.append({"name": spec.name, "arguments": arguments})
        return json.dumps(calls if len(calls) > 1 else calls[0])

    def _pool(self, world: World) -> dict[str, list[Any]]:
        pool = self._sample_pools.get(world.domain)
        if pool is None:
            ids = sorted({key for rows in world.db.values() for key in rows})
            strings = sorted(
                {v for rows in world.db.values() for r in rows.values() for v in r.values() if isinstance(v, str)}
            )
            pool = self._sample_pools[world.domain] = {"ids": ids, "strings": strings[:500]}
        return pool

    def render(self) -> str | None:
        text = super().render()
        if text is None or self.outcome is None:
            return text
        o = self.outcome
        return f"{text}\n[calls={o.calls} valid={o.schema_valid} ok={o.executed} milestones={self.milestones_reached}]"


def _sample_value(name: str, schema: Mapping[str, Any], pool: Mapping[str, list[Any]], rng: np.random.Generator) -> Any:
    kind = schema.get("type")
    if "enum" in schema:
        return str(rng.choice(schema["enum"]))
    if kind == "integer":
        return int(rng.integers(schema.get("minimum", 1), schema.get("maximum", 10) + 1))
    if kind == "number":
        return round(float(rng.uniform(1, 500)), 2)
    if kind == "array":
        return [_sample_value(name, schema["items"], pool, rng) for _ in range(int(rng.integers(1, 3)))]
    if "pattern" in schema:
        if "d{4}" in schema["pattern"]:
            return f"2025-0{int(rng.integers(3, 5))}-{int(rng.integers(1, 15)):02d}"
        return f"{int(rng.integers(8, 18)):02d}:{int(rng.choice([0, 30])):02d}"
    values = pool["ids"] if name.endswith("_id") else pool["strings"]
    return str(values[int(rng.integers(len(values)))])[: schema.get("maxLength", 200)]
