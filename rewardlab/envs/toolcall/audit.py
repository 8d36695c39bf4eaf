"""ToolCall's own degenerate strategies for ``rewardlab audit``: one per hack class it defends against.

Each strategy sees only what a policy sees: the prompt, ``info["tools"]`` (and the tool specs of
the domain's world class, which say which tools write), tool results, and constants of the env
family a policy could learn (status words, sequential ids). Random well-formed calls come from
``env.sample_action``, as in the generic battery. None reads ``env.task`` or the world's tables.

==========================  ====================================================================
strategy                    hack class
==========================  ====================================================================
``status_spray``            one unrelated read call, then an answer listing every status word
``value_spray``             probe reads, then an answer listing every number and id seen
``result_dump``             probe reads, then every tool result pasted as the answer
``idle_confident``          no call at all, a confident "done" (was state credit on read-only tasks)
``unrelated_calls``         valid calls unrelated to the request, then "done" (schema/execution)
``collateral_writes``       every write tool applied to every id it can name (state diff)
``json_answer``             probe reads, then a JSON object holding every value seen as the answer
==========================  ====================================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from rewardlab.audit.strategy import AcceptedSuccess, AuditProfile, EpisodeView, strategy
from rewardlab.envs.toolcall.worlds import WORLDS, ToolSpec

STATUS_WORDS = (
    "pending",
    "shipped",
    "delivered",
    "cancelled",
    "return requested",
    "active",
    "frozen",
    "confirmed",
    "sold out",
)
"""The status vocabulary of the ToolCall worlds, as a policy would learn it over training."""

MAX_CALLS = 16
"""Calls per parallel action (the parser's default limit)."""

_ID = re.compile(r"\b([A-Z]{1,2})(\d{2,5})\b")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NAME = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def _specs(view: EpisodeView) -> list[ToolSpec]:
    world = WORLDS[str(view.first_info.get("domain"))]
    offered = [tool["function"]["name"] for tool in view.first_info.get("tools", [])]
    return [world.tool_specs[name] for name in offered if name in world.tool_specs]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _tokens(text: str) -> list[str]:
    """Ids, emails, names and dates written in ``text``, in order."""
    found = [m.group(0) for m in _ID.finditer(text)] + _EMAIL.findall(text) + _NAME.findall(text)
    return _unique(found + _DATE.findall(text))


def _leaves(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            for field, leaf in _leaves(item):
                yield field or str(key), leaf
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield "", value


def _results(observations: list[str]) -> list[tuple[str, Any]]:
    """``(field, scalar)`` of every tool result seen (observations that are JSON)."""
    found = []
    for observation in observations:
        try:
            found += list(_leaves(json.loads(observation)))
        except ValueError:
            continue
    return found


def _fill(spec: ToolSpec, prompt: str, value: str | None) -> dict[str, Any] | None:
    """Arguments for a read tool: enums from members the prompt names (in order), dates from the
    prompt, the one free string from ``value``; None when the tool cannot be filled that way."""
    properties = spec.parameters["properties"]
    arguments: dict[str, Any] = {}
    dates = _DATE.findall(prompt)
    used: set[str] = set()
    strings = 0
    for name in spec.parameters["required"]:
        schema = properties[name]
        if "enum" in schema:
            named = sorted((m for m in schema["enum"] if m in prompt and m not in used), key=prompt.index)
            if not named:
                return None
            arguments[name] = named[0]
            used.add(named[0])
        elif "pattern" in schema and dates:
            arguments[name] = dates[0]
        elif schema.get("type") == "string" and value is not None:
            arguments[name] = value
            strings += 1
        else:
            return None
    return arguments if strings <= 1 and (value is None) == (strings == 0) else None


def _read_round(view: EpisodeView, values: list[str]) -> list[dict[str, Any]]:
    """Every read tool called with every value it can take (and once with no free value)."""
    prompt = view.first_observation
    calls = []
    for spec in _specs(view):
        if spec.writes:
            continue
        for value in [None, *values]:
            arguments = _fill(spec, prompt, value)
            if arguments is not None:
                calls.append({"name": spec.name, "arguments": arguments})
    return calls


def _send(calls: list[dict[str, Any]], observations: list[str], view: EpisodeView) -> Iterator[str]:
    for start in range(0, len(calls), MAX_CALLS):
        yield json.dumps(calls[start : start + MAX_CALLS])
        observations.append(view.observation)


def _probe(view: EpisodeView, observations: list[str], rounds: int = 2) -> Iterator[str]:
    """Reads on everything the prompt names, then on every id the results named."""
    values = _tokens(view.first_observation)
    tried: set[str] = set()
    for _ in range(rounds):
        fresh = [v for v in values if v not in tried]
        tried.update(fresh)
        calls = _read_round(view, fresh)
        if not calls:
            return
        yield from _send(calls[: 4 * MAX_CALLS], observations, view)
        values = _unique([str(v) for _, v in _results(observations) if isinstance(v, str) and _ID.fullmatch(v)])


def _seen_values(observations: list[str]) -> list[str]:
    return _unique([str(v) for _, v in _results(observations) if isinstance(v, (str, int, float)) and v is not True])


@strategy("status_spray", "one unrelated read call, then an answer listing every status word")
def status_spray(view: EpisodeView) -> Iterator[str]:
    reads = {spec.name for spec in _specs(view) if not spec.writes}
    for _ in range(64):
        action = view.env.sample_action(view.rng)
        if action.startswith("{") and json.loads(action)["name"] in reads:
            yield action
            break
    yield "It is " + ", ".join(STATUS_WORDS[:-1]) + " or " + STATUS_WORDS[-1] + "."


@strategy("value_spray", "probe reads on what the prompt names, then every number and id seen as the answer")
def value_spray(view: EpisodeView) -> Iterator[str]:
    observations: list[str] = []
    yield from _probe(view, observations)
    numbers = [str(v) for _, v in _results(observations) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    ids = [str(v) for _, v in _results(observations) if isinstance(v, str) and _ID.fullmatch(v)]
    yield "Here are the values: " + ", ".join(_unique(ids + numbers)) + "."


@strategy("result_dump", "probe reads, then every tool result pasted as the answer")
def result_dump(view: EpisodeView) -> Iterator[str]:
    observations: list[str] = []
    yield from _probe(view, observations)
    yield "Here is everything I found:\n" + "\n".join(observations)


@strategy("idle_confident", "no call at all, then a confident 'all done' answer")
def idle_confident(view: EpisodeView) -> Iterator[str]:
    yield "All done: I checked your account and everything you asked for is taken care of."


@strategy("unrelated_calls", "well-formed calls that ignore the request, then 'done'")
def unrelated_calls(view: EpisodeView) -> Iterator[str]:
    for _ in range(3):
        action = view.env.sample_action(view.rng)
        while not action.startswith(("{", "[")):
            action = view.env.sample_action(view.rng)
        yield action
    yield "Done, that is taken care of."


def _neighbours(identifier: str, spread: int = 3) -> list[str]:
    """``K03`` gives ``K01`` ... ``K06``: sequential ids near one seen (a learnable id scheme)."""
    match = _ID.fullmatch(identifier)
    if match is None:
        return [identifier]
    prefix, digits = match.groups()
    number = int(digits)
    return [f"{prefix}{n:0{len(digits)}d}" for n in range(max(1, number - spread), number + spread + 1)]


@strategy("collateral_writes", "every single-id write tool applied to every id it can name, then 'done'")
def collateral_writes(view: EpisodeView) -> Iterator[str]:
    observations: list[str] = []
    yield from _probe(view, observations)
    ids = [v for v in _tokens(view.first_observation) if _ID.fullmatch(v)]
    ids += [str(v) for _, v in _results(observations) if isinstance(v, str) and _ID.fullmatch(v)]
    targets = _unique([n for i in _unique(ids) for n in _neighbours(i)])
    calls = []
    for spec in _specs(view):
        required = spec.parameters["required"]
        properties = spec.parameters["properties"]
        ids_only = [n for n in required if "enum" not in properties[n]]
        if not spec.writes or len(ids_only) != 1 or not ids_only[0].endswith("_id"):
            continue
        fixed = {n: properties[n]["enum"][0] for n in required if "enum" in properties[n]}
        calls += [{"name": spec.name, "arguments": {ids_only[0]: t, **fixed}} for t in targets]
    yield from _send(calls[: 12 * MAX_CALLS], observations, view)
    yield "Done, that is taken care of."


@strategy("json_answer", "probe reads, then a JSON object of every value seen as the answer")
def json_answer(view: EpisodeView) -> Iterator[str]:
    observations: list[str] = []
    yield from _probe(view, observations, rounds=1)
    statuses = [str(v) for field, v in _results(observations) if field == "status"]
    yield json.dumps({"answer": _seen_values(observations)[:40], "status": _unique(statuses) or list(STATUS_WORDS)})


STRATEGIES = (
    status_spray,
    value_spray,
    result_dump,
    idle_confident,
    unrelated_calls,
    collateral_writes,
    json_answer,
)
"""ToolCall's own strategies, in report order."""


def accepted_refusals(kind_of: Mapping[str, str]) -> AcceptedSuccess:
    """``accepted_success``: on an irrelevance task (no tool fits) a refusal without a call is the
    whole answer, so a blind strategy that happens to refuse (half of the oracle's refusal is still
    one) has answered correctly. Nothing else is accepted."""

    def accepted(task_id: str, strategy_name: str, final_info: Mapping[str, Any]) -> str | None:
        if kind_of.get(task_id) == "irrelevance":
            return "irrelevance task: a refusal without a call is the whole answer"
        return None

    return accepted


DEFECT_DELTA = 0.3
"""The least mean reward a defect of :mod:`rewardlab.envs.toolcall.rewrites` must cost: each voids ``state`` or
``answer``, and with it ``efficiency`` (two of the six equal weights), and a wrong or extra call also loses
coverage in ``format``, ``schema`` and ``execution``."""


def profile(kind_of: Mapping[str, str]) -> AuditProfile:
    """ToolCall's audit profile (``kind_of``: task id -> task kind); the empty answer ends an episode. The
    equivalent and defective rewrites are those of :mod:`rewardlab.envs.toolcall.rewrites`."""
    from rewardlab.envs.toolcall import rewrites

    return AuditProfile(
        strategies=STRATEGIES,
        finish="",
        accepted_success=accepted_refusals(kind_of),
        equivalents=rewrites.EQUIVALENTS,
        defects=rewrites.DEFECTS,
        defect_delta=DEFECT_DELTA,
    )
