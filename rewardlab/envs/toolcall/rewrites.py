"""ToolCall-v3's equivalent and defective rewrites of the oracle's episode (:mod:`rewardlab.audit.rewrite`).

The oracle sends the task's reference turns (one JSON call, or a JSON list of calls run together),
then the reference final answer. Equivalents (each must keep ``is_success`` and all but 0.05):

- ``parallel_calls_reordered``: the calls of each parallel turn in reverse order (they are
  independent: the reference sends them together);
- ``arguments_reordered``: every call's arguments in reverse key order;
- ``numeric_forms``: a number argument written in the other JSON form (``2`` for ``2.0`` and back);
- ``answer_with_context``: the final answer after one sentence of context;
- ``answer_after_the_request``: the final answer after the user's request, restated whole;
- ``answer_with_a_count``: the final answer and a sentence counting the tool calls made (a number that counts
  something else than the required outputs);
- ``answer_with_a_label``: the final answer and a sentence holding a number that names a thing or a time
  (:data:`~rewardlab.audit.rewrite.LABELLED_CONTEXT`: ``I found it on page 8.``, ``Thanks for being with us since
  2019.``), not an amount;
- ``answer_rejecting_a_competitor``: the first required value ``Y`` stated with another value ``X`` of its field
  denied, in one of :data:`REJECTIONS` (``Y (rather than X)``, ``Y (as opposed to X)``, ``X? No, Y``);
- ``answer_ruling_out_a_competitor``: the first required value ``Y`` stated and another value ``X`` of its field
  ruled out in a predicate after it, in one of :data:`~rewardlab.audit.rewrite.RULINGS_OUT` (``Y (X does not
  apply)``, ``Y (X was ruled out)``);
- ``answer_reformatted``: the final answer with its dates written out (``March 11, 2025``), its clock times on
  the 12-hour clock (``7 pm``) and its dollar amounts in words (``42.50 dollars``).

Defects (each must lose ``is_success``):

- ``wrong_argument``: one key argument (required, not free wording) of one call that decides the
  outcome (a write that the tools do not refuse, or a read of a read-only task) given another value
  the world holds in the same field (another order id, another status), or a shifted amount;
- ``extra_write``: one more write call, after the reference, that succeeds and changes a record the
  task leaves alone (found by trying write calls on a scratch copy of the world);
- ``answer_negated``: the final answer with the first required value ``Y`` (every time it is written)
  replaced by ``not Y`` (not applicable to refusals, whose required words are negations);
- ``answer_x_not_y``: ``Y`` replaced by ``X, not Y`` (``X`` another value of ``Y``'s field that the
  task neither requires nor names in its prompt), which asserts X and denies Y;
- ``answer_x_denying_y_otherwise``: ``Y`` replaced by ``X`` asserted and ``Y`` denied in other words, in one of
  :data:`DENIALS` (``X rather than Y``, ``X as opposed to Y``, ``Y? No, X``);
- ``answer_ruled_out``: ``Y`` replaced by ``X`` stated and ``Y`` ruled out after it (``X (Y was ruled out)``);
- ``amount_bounded``: the first required amount, every time it is written, as a bound or an estimate, in one of
  :data:`BOUNDS` (``at least $84.81``, ``about 42``, ``$84.81 or more``);
- ``answer_hedged``: ``Y`` replaced by ``Y or X``;
- ``answer_hedged_across_the_prompt``: ``Y`` replaced by ``Y or P``, ``P`` another value of ``Y``'s field that the
  prompt names (``savings or checking`` when the user asked to pay from checking, or from savings if short);
- ``answer_listed_across_the_prompt``: ``Y`` replaced by a list of ``Y`` and ``P`` with no word of doubt, in one
  of :data:`LISTS` (``savings/checking``, ``savings and checking``; a range such as ``12:30-13:00`` listed whole);
- ``answer_weighed_across_the_prompt``: ``Y`` weighed against ``P`` in other words than ``or``, in one of
  :data:`WEIGHINGS` (``savings; if not, checking``, ``savings, though it could also be checking``).
"""

from __future__ import annotations

import calendar
import functools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rewardlab.audit.rewrite import RewriteContext, defective, equivalent, labelled_context, ruling_out
from rewardlab.core.negation import negates
from rewardlab.core.text import canonical_text
from rewardlab.core.toolcalls import parse_tool_calls
from rewardlab.envs.toolcall.candidates import is_number, value_key, vocabulary
from rewardlab.envs.toolcall.tasks import initial_world, replay

Call = dict[str, Any]
WRITE_TRIES = 300
"""Random write calls :func:`extra_write` tries on a scratch world before it gives up on a task."""


# ---------------------------------------------------------------------- reading the oracle's episode
def turns_of(actions: Sequence[str]) -> tuple[list[list[Call]], str] | None:
    """The oracle's call turns (each a list of calls) and its final answer; ``None`` when unreadable."""
    turns: list[list[Call]] = []
    for action in actions[:-1]:
        parsed = parse_tool_calls(action)
        if not parsed.calls:
            return None
        turns.append([{"name": c.name, "arguments": dict(c.arguments)} for c in parsed.calls])
    return (turns, actions[-1]) if actions else None


def encode(turns: Sequence[Sequence[Call]], answer: str) -> list[str]:
    """Actions from call turns (a bare call for a one-call turn) and a final answer."""
    actions = [json.dumps(list(t) if len(t) > 1 else t[0], ensure_ascii=False) for t in turns]
    return [*actions, answer]


# ---------------------------------------------------------------------- equivalents
@equivalent("parallel_calls_reordered", "the calls of each parallel turn in reverse order")
def parallel_calls_reordered(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None or not any(len(t) > 1 and t != t[::-1] for t in read[0]):
        return None
    return encode([t[::-1] for t in read[0]], read[1])


@equivalent("arguments_reordered", "every call's arguments in reverse key order")
def arguments_reordered(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None or not any(len(c["arguments"]) > 1 for t in read[0] for c in t):
        return None
    turns = [[{**c, "arguments": dict(reversed(list(c["arguments"].items())))} for c in t] for t in read[0]]
    return encode(turns, read[1])


def other_number_form(value: Any) -> Any:
    """``2.0`` -> ``2``, ``2`` -> ``2.0``; anything else unchanged.

    Example:
        >>> other_number_form(2.0), other_number_form(2), other_number_form(2.5), other_number_form("2")
        (2, 2.0, 2.5, '2')
    """
    if isinstance(value, bool) or not is_number(value):
        return value
    if isinstance(value, int):
        return float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


@equivalent("numeric_forms", "number arguments in the other JSON form (2 for 2.0, 2.0 for 2)")
def numeric_forms(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None:
        return None
    specs = context.env.world.tool_specs
    changed = False
    turns = []
    for turn in read[0]:
        calls = []
        for call in turn:
            properties = specs[call["name"]].parameters["properties"] if call["name"] in specs else {}
            arguments = dict(call["arguments"])
            for name, value in arguments.items():
                kind = properties.get(name, {}).get("type")
                if kind == "number" and type(other_number_form(value)) is not type(value):
                    arguments[name], changed = other_number_form(value), True
            calls.append({**call, "arguments": arguments})
        turns.append(calls)
    return encode(turns, read[1]) if changed else None


@equivalent("answer_with_context", "the final answer after one sentence of context")
def answer_with_context(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None or not canonical_text(read[1]):
        return None
    return encode(read[0], f"I looked this up with the tools. {read[1]}")


@equivalent(
    "answer_with_a_count", "the final answer and a sentence counting the tool calls made ('I made 3 tool calls.')"
)
def answer_with_a_count(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None or not canonical_text(read[1]):
        return None
    calls = sum(len(turn) for turn in read[0])
    return encode(read[0], f"{read[1]} I made {calls} tool calls.")


@equivalent(
    "answer_with_a_label",
    "the final answer and a sentence naming a thing or a time by number ('I found it on page 8.', 'since 2019')",
)
def answer_with_a_label(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None or not canonical_text(read[1]):
        return None
    return encode(read[0], f"{read[1]} {labelled_context(context.rng)}")


@equivalent("answer_after_the_request", "the final answer after the user's request, restated")
def answer_after_the_request(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None or not canonical_text(read[1]):
        return None
    return encode(read[0], f"You asked: {context.env.task.prompt} {read[1]}")


_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_CLOCK = re.compile(r"(?<![\w:])([01]\d|2[0-3]):([0-5]\d)(?![\w:])")
_DOLLARS = re.compile(r"\$(\d[\d,]*(?:\.\d+)?)")


def reformatted(answer: str) -> str:
    """``answer`` with its ISO dates written out, its clock times on the 12-hour clock and its dollar amounts
    as ``N dollars``.

    Example:
        >>> reformatted("FL129 on 2025-03-11 at 19:05 for $42.50; back at 09:00")
        'FL129 on March 11, 2025 at 7:05 pm for 42.50 dollars; back at 9 am'
    """

    def date(match: re.Match[str]) -> str:
        return f"{calendar.month_name[int(match[2])]} {int(match[3])}, {match[1]}"

    def clock(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), match[2]
        twelve = hour % 12 or 12
        return f"{twelve}{'' if minute == '00' else ':' + minute} {'pm' if hour >= 12 else 'am'}"

    return _DOLLARS.sub(r"\1 dollars", _CLOCK.sub(clock, _ISO_DATE.sub(date, answer)))


@equivalent("answer_reformatted", "the final answer with dates written out, 12-hour times and amounts in dollars")
def answer_reformatted(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None or reformatted(read[1]) == read[1]:
        return None
    return encode(read[0], reformatted(read[1]))


# ---------------------------------------------------------------------- defects
def key_arguments(context: RewriteContext, call: Call) -> list[str]:
    """The call's required arguments that are not free wording (those the reference is matched on), for
    a call whose values decide the outcome: a write, or a read of a task that only reads (on a task that
    writes, a wrong read followed by the right writes is a wasted call, not a wrong outcome)."""
    world = context.env.world
    spec = world.tool_specs.get(call["name"])
    if spec is None or not (spec.writes or not context.env.task.data["effects"]):
        return []
    required = spec.parameters.get("required", ())
    return [k for k in required if k not in world.free_arguments and k in call["arguments"]]


def other_value(context: RewriteContext, value: Any) -> Any:
    """Another value the world holds in the same field as ``value`` (strings), or a shifted amount."""
    if isinstance(value, bool) or value is None:
        return None
    if is_number(value):
        return value + 1 if isinstance(value, int) else round(value + 1.5, 2)
    if not isinstance(value, str):
        return None
    data = context.env.task.data
    index = vocabulary(data["domain"], int(data["world_seed"]))
    fields = index.fields_of.get(value_key(value) or ("s", ""), set())
    own = value_key(value)
    pool = sorted({str(v) for f in fields for v in index.by_field[f] if isinstance(v, str) and value_key(v) != own})
    if pool:
        return pool[int(context.rng.integers(len(pool)))]
    return value + "9"


@defective("wrong_argument", "one key argument of one call given another value of its field")
def wrong_argument(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None:
        return None
    task = context.env.task
    ran = iter(replay(initial_world(task), task.data["solution"]))
    refused = [[next(ran).kind != "ok" for _ in turn] for turn in task.data["solution"]]
    options = [
        (t, c, name)
        for t, turn in enumerate(read[0])
        for c, call in enumerate(turn)
        if not refused[t][c]  # a call the tools refuse anyway decides nothing
        for name in key_arguments(context, call)
        if other_value(context, call["arguments"][name]) is not None
    ]
    if not options:
        return None
    t, c, name = options[int(context.rng.integers(len(options)))]
    turns = [[{**call, "arguments": dict(call["arguments"])} for call in turn] for turn in read[0]]
    turns[t][c]["arguments"][name] = other_value(context, turns[t][c]["arguments"][name])
    return encode(turns, read[1])


@defective("extra_write", "one more write call that succeeds and changes a record the task leaves alone")
def extra_write(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None:
        return None
    env, task = context.env, context.env.task
    writes = {name for name, spec in env.world.tool_specs.items() if spec.writes}
    for _ in range(WRITE_TRIES):
        try:
            sampled = json.loads(env.sample_action(context.rng))
        except json.JSONDecodeError:  # a plain-text answer
            continue
        calls = [sampled] if isinstance(sampled, dict) else sampled if isinstance(sampled, list) else []
        for call in calls:
            if not isinstance(call, Mapping) or call.get("name") not in writes:
                continue
            world = initial_world(task)
            replay(world, task.data["solution"])
            before = world.state()
            if world.call(call["name"], call["arguments"]).ok and world.state() != before:
                return encode([*read[0], [dict(call)]], read[1])
    return None


def amount_pattern(amount: float, *, currency: bool = False) -> re.Pattern[str]:
    """A pattern for ``amount`` as the oracle writes it (two decimals for a float; a whole number with or without
    zero decimals: ``$100.00`` whole, never ``$100`` of it), with its currency sign when ``currency``.

    Example:
        >>> amount_pattern(100, currency=True).sub("X", "$100.00, 1000 and 100.5")
        'X, 1000 and 100.5'
    """
    written = f"{amount:.2f}" if isinstance(amount, float) else str(amount)
    decimals = "" if isinstance(amount, float) else r"(?:\.0+)?"
    sign = "[$€£]?" if currency else ""
    return re.compile(rf"(?<![\d.]){sign}{re.escape(written)}{decimals}(?!\.?\d)")


def _required_mention(context: RewriteContext, answer: str) -> tuple[re.Pattern[str], Any] | None:
    """A pattern for the first required output written in ``answer``, with the value. A refusal (an output
    whose alternatives are negations: ``cannot``) has no "not Y" or competitor: ``None``."""
    for alternatives in context.env.task.data["answer_required"]:
        if any(isinstance(a, str) and negates(a) for a in alternatives):
            return None
        for alternative in alternatives:
            if isinstance(alternative, str):
                pattern = re.compile(rf"(?<![^\W_]){re.escape(alternative)}(?![^\W_])", re.IGNORECASE)
            elif is_number(alternative):
                pattern = amount_pattern(alternative)
            else:
                continue
            if pattern.search(answer):
                return pattern, alternative
    return None


def _competitor(context: RewriteContext, value: Any, *, named: bool = False) -> str | None:
    """Another value of ``value``'s field that the task does not require and its prompt does not name (a
    shifted amount for a number), or, with ``named``, one that the prompt names (a string only); ``None`` when
    the world holds no such value."""
    if is_number(value):
        if named:
            return None
        other = other_value(context, value)
        return f"{other:.2f}" if isinstance(other, float) else str(other)
    data = context.env.task.data
    index = vocabulary(data["domain"], int(data["world_seed"]))
    taken = {value_key(a) for alternatives in data["answer_required"] for a in alternatives}
    prompt = f" {canonical_text(context.env.task.prompt)} "
    pool = sorted(
        {
            str(v)
            for f in index.fields_of.get(value_key(value) or ("s", ""), set())
            for v in index.by_field[f]
            if isinstance(v, str) and value_key(v) not in taken and (f" {canonical_text(v)} " in prompt) == named
        }
    )
    return pool[int(context.rng.integers(len(pool)))] if pool else None


def _rewrite_answer(context: RewriteContext, template: str, *, named: bool = False) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None:
        return None
    found = _required_mention(context, read[1])
    if found is None:
        return None
    pattern, value = found
    competitor = _competitor(context, value, named=named)
    if competitor is None:
        return None
    rewritten = pattern.sub(lambda m: template.format(required=m.group(0), other=competitor), read[1])
    return encode(read[0], rewritten)


@defective("answer_negated", "the first required value Y of the answer replaced by 'not Y'")
def answer_negated(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, "not {required}")


@defective("answer_x_not_y", "the first required value Y of the answer replaced by 'X, not Y'")
def answer_x_not_y(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, "{other}, not {required}")


DENIALS = ("{other} rather than {required}", "{other} as opposed to {required}", "{required}? No, {other}")
"""How :func:`answer_x_denying_y_otherwise` asserts ``X`` and denies ``Y`` (one drawn per task)."""


REJECTIONS = ("{required} (rather than {other})", "{required} (as opposed to {other})", "{other}? No, {required}")
"""How :func:`answer_rejecting_a_competitor` states ``Y`` and denies ``X`` (one drawn per task)."""


@equivalent(
    "answer_rejecting_a_competitor",
    "the first required value Y stated with another value X denied ('Y (rather than X)', 'X? No, Y')",
)
def answer_rejecting_a_competitor(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, REJECTIONS[int(context.rng.integers(len(REJECTIONS)))])


@equivalent(
    "answer_ruling_out_a_competitor",
    "the first required value Y stated and another value X ruled out after it ('Y (X does not apply)')",
)
def answer_ruling_out_a_competitor(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, ruling_out(context.rng, "{required}", "{other}"))


@defective(
    "answer_ruled_out",
    "the first required value Y replaced by another value X stated and Y ruled out after it ('X (Y was ruled out)')",
)
def answer_ruled_out(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, ruling_out(context.rng, "{other}", "{required}", verdicts_only=True))


@defective(
    "answer_x_denying_y_otherwise",
    "the first required value Y replaced by X asserted and Y denied in other words ('X rather than Y', 'Y? No, X')",
)
def answer_x_denying_y_otherwise(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, DENIALS[int(context.rng.integers(len(DENIALS)))])


BOUNDS = ("at least {amount}", "about {amount}", "{amount} or more", "~{amount}")
"""How :func:`amount_bounded` writes the required amount as a bound or an estimate (one drawn per task)."""


@defective("amount_bounded", "the first required amount Y written as a bound or an estimate ('at least Y', 'about Y')")
def amount_bounded(context: RewriteContext) -> list[str] | None:
    read = turns_of(context.actions)
    if read is None:
        return None
    for alternatives in context.env.task.data["answer_required"]:
        for amount in (a for a in alternatives if is_number(a)):
            pattern = amount_pattern(amount, currency=True)
            if pattern.search(read[1]):
                template = BOUNDS[int(context.rng.integers(len(BOUNDS)))]
                return encode(read[0], pattern.sub(functools.partial(_bound, template), read[1]))
    return None


def _bound(template: str, match: re.Match[str]) -> str:
    return template.format(amount=match.group(0))


@defective("answer_hedged", "the first required value Y of the answer replaced by 'Y or X'")
def answer_hedged(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, "{required} or {other}")


@defective(
    "answer_hedged_across_the_prompt", "the first required value Y replaced by 'Y or P', P a value the prompt names"
)
def answer_hedged_across_the_prompt(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, "{required} or {other}", named=True)


LISTS = ("{required}/{other}", "{required} and {other}", "{required}, {other}", "both {required} and {other}")
"""How :func:`answer_listed_across_the_prompt` lists the two values (one drawn per task)."""

WEIGHINGS = (
    "{required}; if not, {other}",
    "{required}, though it could also be {other}",
    "{required}, unless it is {other}",
    "could be {required}, could be {other}",
)
"""How :func:`answer_weighed_across_the_prompt` weighs the two values (one drawn per task)."""


@defective(
    "answer_listed_across_the_prompt",
    "the first required value Y listed with P ('Y/P', 'Y and P'), P a value the prompt names",
)
def answer_listed_across_the_prompt(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, LISTS[int(context.rng.integers(len(LISTS)))], named=True)


@defective(
    "answer_weighed_across_the_prompt",
    "the first required value Y weighed against P ('Y; if not, P'), P a value the prompt names",
)
def answer_weighed_across_the_prompt(context: RewriteContext) -> list[str] | None:
    return _rewrite_answer(context, WEIGHINGS[int(context.rng.integers(len(WEIGHINGS)))], named=True)


EQUIVALENTS = (
    parallel_calls_reordered,
    arguments_reordered,
    numeric_forms,
    answer_with_context,
    answer_after_the_request,
    answer_with_a_count,
    answer_with_a_label,
    answer_rejecting_a_competitor,
    answer_ruling_out_a_competitor,
    answer_reformatted,
)
DEFECTS = (
    wrong_argument,
    extra_write,
    answer_negated,
    answer_x_not_y,
    answer_x_denying_y_otherwise,
    answer_ruled_out,
    amount_bounded,
    answer_hedged,
    answer_hedged_across_the_prompt,
    answer_listed_across_the_prompt,
    answer_weighed_across_the_prompt,
)
