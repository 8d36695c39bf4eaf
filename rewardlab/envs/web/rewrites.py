"""Web-v2's equivalent and defective rewrites of the oracle's episode (:mod:`rewardlab.audit.rewrite`).

The oracle's actions are element ids read off deterministic pages, so a rewrite may replay them
with one change. Where a rewrite needs to see a page the oracle never showed (the page of a mail
to star), it plays the actions on a scratch env of its own (:func:`scratch_env`, HTTP backend) and
reads the element there: the sites render the same page, with the same ids, from the same state.

Equivalents (each must keep ``is_success`` and all but 0.05 of the reward):

- ``answer_paraphrased``: the final answer inside a sentence (``The answer is X.``);
- ``answer_with_context``: the answer with one sentence of honest context holding an unrelated
  number (``I checked N pages of the site: X.``);
- ``answer_with_a_label``: the answer and a sentence holding a number that names a thing or a time
  (:data:`~rewardlab.audit.rewrite.LABELLED_CONTEXT`: ``I found it on page 8.``, ``As of 2019, …``), not an amount;
- ``answer_after_the_request``: the answer after the question, restated whole (``You asked: … X``);
- ``answer_ruling_out_a_candidate``: the answer and a second candidate of the asked kind ruled out in a predicate
  after it, in one of :data:`~rewardlab.audit.rewrite.RULINGS_OUT` (``$79.98 ($32.98 does not apply)``);
- ``value_reformatted``: an amount, percentage or time in another written form (``$79.98`` →
  ``79.98 dollars``, ``2,450.00 EUR`` → ``€2450``, ``12 percent`` → ``12%``, ``15:00`` → ``3 pm``);
- ``numbers_in_words``: every number of the answer written in words (``3`` → ``three``,
  ``$7`` → ``seven dollars``);
- ``extra_navigation``: a scroll down and back up before answering (one harmless step more each).

Defects (each must lose ``is_success``):

- ``wrong_form_value``: one typed text that the task's goal checks (a name, an address, a post)
  with one word changed;
- ``collateral_change``: an extra state-changing action before answering: starring a mail the
  task does not touch;
- ``answer_ruled_out``: a second candidate of the asked kind stated and the answer ruled out after it (``$32.98
  ($79.98 was ruled out)``);
- ``answer_bounded``: a numeric answer (a count, an amount, a percentage) written as a bound or an estimate, in one
  of :data:`BOUNDS` (``at least 3``, ``about $79.98``, ``12 percent or more``);
- ``hedged_in_words``: the answer followed by a second candidate of the asked kind in words or in
  lower case (``3, or maybe four``; ``Lakeside, or maybe friday``; ``bob, or maybe carol``).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rewardlab.audit.rewrite import RewriteContext, defective, equivalent, labelled_context, ruling_out
from rewardlab.browser.actions import quote_arg
from rewardlab.core.numerals import LIMIT, spell
from rewardlab.core.text import canonical_tokens
from rewardlab.envs.web.oracle import find_element
from rewardlab.envs.web.sites import forum, mail
from rewardlab.envs.web.values import read_values

if TYPE_CHECKING:
    from rewardlab.envs.web.env import WebEnv

_ANSWER = re.compile(r'^answer\((".*")\)$', re.DOTALL)
_TYPE = re.compile(r'^type\((\d+), (".*")\)$', re.DOTALL)
_AMOUNT = re.compile(r"([$€£]?)(\d+(?:,\d{3})*(?:\.\d+)?)\s*(%|percent|EUR|USD|euros?|dollars?)?", re.IGNORECASE)
_CURRENCY_WORDS = {"$": "dollars", "€": "euros", "£": "pounds", "eur": "euros", "usd": "dollars"}


# ---------------------------------------------------------------------- reading the oracle's episode
def final_answer(actions: Sequence[str]) -> str | None:
    """The text of the episode's final ``answer("...")``, or ``None``."""
    match = _ANSWER.match(actions[-1]) if actions else None
    return str(json.loads(match.group(1))) if match else None


def with_answer(actions: Sequence[str], text: str) -> list[str]:
    """The actions with the final answer replaced by ``text``."""
    return [*actions[:-1], f"answer({quote_arg(text)})"]


def is_question(context: RewriteContext) -> bool:
    return "answer" in context.env.task.data["success"] and final_answer(context.actions) is not None


@functools.lru_cache(maxsize=1)
def scratch_env(env_type: type[WebEnv]) -> WebEnv:
    """A private HTTP-backend env of ``env_type`` (the rewritten episode's class) for looking at pages ahead of
    a replay (one per process)."""
    return env_type(backend="http")


def replay(context: RewriteContext, actions: Sequence[str]) -> tuple[str, WebEnv]:
    """Play ``actions`` on the scratch env reset like ``context.env``; the last observation and the env."""
    env = scratch_env(type(context.env))  # type: ignore[arg-type]  # classes are hashable; mypy misreads type[Any]
    observation, _ = env.reset(seed=0, options={"task_id": context.task_id})
    for action in actions:
        observation, *_ = env.step(action)
    return observation, env


# ---------------------------------------------------------------------- equivalents
@equivalent("answer_paraphrased", "the final answer inside a sentence: 'The answer is X.'")
def answer_paraphrased(context: RewriteContext) -> list[str] | None:
    answer = final_answer(context.actions)
    return with_answer(context.actions, f"The answer is {answer}.") if is_question(context) else None


@equivalent("answer_with_context", "the answer with one sentence of context holding an unrelated number")
def answer_with_context(context: RewriteContext) -> list[str] | None:
    if not is_question(context):
        return None
    pages = len(context.actions) + 1
    return with_answer(context.actions, f"I checked {pages} pages of the site. {final_answer(context.actions)}")


@equivalent(
    "answer_with_a_label",
    "the answer and a sentence naming a thing or a time by number ('I found it on page 8.', 'since 2019')",
)
def answer_with_a_label(context: RewriteContext) -> list[str] | None:
    if not is_question(context):
        return None
    answer = str(final_answer(context.actions)).rstrip(".")
    return with_answer(context.actions, f"{answer}. {labelled_context(context.rng)}")


@equivalent("answer_after_the_request", "the final answer after the question, restated")
def answer_after_the_request(context: RewriteContext) -> list[str] | None:
    if not is_question(context):
        return None
    return with_answer(context.actions, f"You asked: {context.env.task.prompt} {final_answer(context.actions)}")


def reformat(answer: str) -> str | None:
    """An amount, percentage or time of ``answer`` in another written form, or ``None``.

    Example:
        >>> reformat("$79.98"), reformat("2,450.00 EUR"), reformat("12 percent"), reformat("Tuesday at 15:00")
        ('79.98 dollars', '€2450.00', '12%', 'Tuesday at 3 pm')
    """
    time = re.search(r"\b(\d{1,2}):(\d{2})\b", answer)
    if time:
        hours, minutes = int(time.group(1)), time.group(2)
        clock = f"{hours % 12 or 12}{'' if minutes == '00' else ':' + minutes} {'pm' if hours >= 12 else 'am'}"
        return answer[: time.start()] + clock + answer[time.end() :]
    match = _AMOUNT.search(answer)
    if match is None:
        return None
    symbol, number, suffix = match.group(1), match.group(2).replace(",", ""), (match.group(3) or "").lower()
    if suffix in ("%", "percent"):
        replacement = f"{number}{' percent' if suffix == '%' else '%'}"
    elif symbol:
        replacement = f"{number} {_CURRENCY_WORDS[symbol]}"
    elif suffix in ("eur", "euro", "euros"):
        replacement = f"€{number}"
    elif suffix:
        replacement = f"${number}"
    else:
        return None
    return answer[: match.start()] + replacement + answer[match.end() :]


@equivalent("value_reformatted", "an amount, percentage or time in another written form ($79.98 -> 79.98 dollars)")
def value_reformatted(context: RewriteContext) -> list[str] | None:
    answer = final_answer(context.actions)
    rewritten = reformat(answer) if answer is not None and is_question(context) else None
    return with_answer(context.actions, rewritten) if rewritten else None


def in_words(answer: str) -> str | None:
    """``answer`` with its numbers in words (cents as ``and N cents`` after a currency), or ``None``.

    Example:
        >>> in_words("$79.98"), in_words("3"), in_words("12 percent")
        ('seventy-nine dollars and ninety-eight cents', 'three', 'twelve percent')
    """
    match = _AMOUNT.search(answer)
    if match is None or any(v.kind in ("time", "date", "code") for v in read_values(answer).values):
        return None  # times, dates and codes are not written in words
    symbol, number, suffix = match.group(1), match.group(2).replace(",", ""), match.group(3) or ""
    amount = Decimal(number)
    whole, cents = int(amount), int((amount - int(amount)) * 100)
    if whole >= LIMIT:
        return None
    currency = _CURRENCY_WORDS.get(symbol or suffix.lower(), suffix)
    words = spell(whole) + (f" {currency}" if currency else "")
    if cents:
        if not currency:
            return None
        words += f" and {spell(cents)} cents"
    return (answer[: match.start()] + words + answer[match.end() :]).strip()


@equivalent("numbers_in_words", "the answer's numbers written in words (3 -> three, $7 -> seven dollars)")
def numbers_in_words(context: RewriteContext) -> list[str] | None:
    answer = final_answer(context.actions)
    rewritten = in_words(answer) if answer is not None and is_question(context) else None
    return with_answer(context.actions, rewritten) if rewritten else None


@equivalent("extra_navigation", "a scroll down and back up before the final answer")
def extra_navigation(context: RewriteContext) -> list[str] | None:
    if final_answer(context.actions) is None:
        return None
    return [*context.actions[:-1], "scroll(down)", "scroll(up)", context.actions[-1]]


# ---------------------------------------------------------------------- defects
def _goal_texts(data: dict[str, Any]) -> set[str]:
    goal = data["success"].get("goal")
    return {v for v in (goal[2].values() if goal else ()) if isinstance(v, str)}


def changed_text(text: str) -> str:
    """``text`` with one word changed: a digit bumped, else its last word dropped, else a letter added.

    Example:
        >>> changed_text("1 Elm St"), changed_text("Sam Taylor"), changed_text("alice")
        ('2 Elm St', 'Sam', 'alicex')
    """
    digit = re.search(r"\d", text)
    if digit:
        return text[: digit.start()] + str((int(digit.group()) + 1) % 10) + text[digit.end() :]
    words = text.split()
    return " ".join(words[:-1]) if len(words) > 1 else text + "x"


@defective("wrong_form_value", "one typed text the task's goal checks (name, address, post) with one word changed")
def wrong_form_value(context: RewriteContext) -> list[str] | None:
    wanted = _goal_texts(context.env.task.data)
    for index in range(len(context.actions) - 1, -1, -1):
        match = _TYPE.match(context.actions[index])
        if match and json.loads(match.group(2)) in wanted:
            text = changed_text(json.loads(match.group(2)))
            actions = list(context.actions)
            actions[index] = f"type({match.group(1)}, {quote_arg(text)})"
            return actions
    return None


def untouched_message(data: dict[str, Any], rng: Any) -> int:
    """A mail the task's goal does not name (ids 1..n of the seeded inbox)."""
    goal = data["success"].get("goal")
    named = {goal[2].get("message_id"), goal[2].get("in_reply_to")} if goal and goal[0] == "mail" else set()
    choices = [i for i in range(1, len(mail.SEED_MESSAGES) + 1) if i not in named]
    return int(choices[int(rng.integers(len(choices)))])


@defective("collateral_change", "stars a mail the task does not touch, then answers as the oracle")
def collateral_change(context: RewriteContext) -> list[str] | None:
    if final_answer(context.actions) is None:
        return None
    message = untouched_message(context.env.task.data, context.rng)
    prefix = [*context.actions[:-1], f"goto({quote_arg(f'/mail/message/{message}')})"]
    observation, _ = replay(context, prefix)
    button = find_element(observation, "button", "Star") or find_element(observation, "button", "Unstar")
    if button is None:
        return None
    return [*prefix, f"click({button})", context.actions[-1]]


def second_candidate(answer: str, prompt: str, pages: Iterable[str]) -> str | None:
    """Another value of the answer's kind, in words or in lower case, or ``None``.

    A number becomes the next one in words, with the answer's unit; a person another of the sites'
    people; a name or phrase the first other capitalised word, else the longest other word, of the
    page sentence that holds the answer.

    Example:
        >>> second_candidate("3", "How many replies?", [])
        'four'
        >>> second_candidate("the rollout", "what took too long?", ["Testing went well; the rollout took too long."])
        'testing'
    """
    read = read_values(answer)
    if read.values:
        value = read.values[0]
        number = re.match(r"\d+", value.rendered)
        if number is None or value.kind in ("time", "date", "code") or int(number.group()) + 1 >= LIMIT:
            return _other_code(answer) if value.kind == "code" else _later_time(value.rendered, value.kind)
        unit = value.rendered.split(" ", 1)[1] if " " in value.rendered else ""
        unit = {"usd": "dollars", "eur": "euros", "gbp": "pounds"}.get(unit, unit)
        return f"{spell(int(number.group()) + 1)} {unit}".strip()
    own = set(canonical_tokens(answer))
    people = [*forum.USERS, *(n.split()[0] for n in mail.CONTACTS)]
    if own & {p.lower() for p in people}:
        return next(p.lower() for p in people if p.lower() not in own and p.lower() not in canonical_tokens(prompt))
    known = own | set(canonical_tokens(prompt))
    for page in pages:
        if not own <= set(canonical_tokens(page)):
            continue
        words = [w.strip("\"'()[]{},.;:!?") for w in page.split()]
        others = [w for w in words if w and w.isalpha() and w.lower() not in known and len(w) > 2]
        capitalised = [w for w in others if w[:1].isupper() and w != "I"]
        if capitalised or others:
            return (capitalised or sorted(others, key=len, reverse=True))[0].lower()
    return None


def _other_code(answer: str) -> str:
    return re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), answer, count=1).lower()


def _later_time(rendered: str, kind: str) -> str | None:
    if kind != "time":
        return None
    hours = int(rendered.split("h")[0])
    return f"at {(hours + 1) % 12 or 12} {'pm' if hours + 1 >= 12 else 'am'}"


@equivalent(
    "answer_ruling_out_a_candidate",
    "the answer and a second candidate of its kind ruled out after it ('$79.98 ($32.98 does not apply)')",
)
def answer_ruling_out_a_candidate(context: RewriteContext) -> list[str] | None:
    return _with_candidate(context, lambda answer, candidate: ruling_out(context.rng, answer.rstrip("."), candidate))


@defective(
    "answer_ruled_out",
    "a second candidate of the answer's kind stated and the answer ruled out after it ('$32.98 ($79.98 is not)')",
)
def answer_ruled_out(context: RewriteContext) -> list[str] | None:
    return _with_candidate(
        context, lambda answer, candidate: ruling_out(context.rng, candidate, answer.rstrip("."), verdicts_only=True)
    )


def _with_candidate(context: RewriteContext, write: Callable[[str, str], str]) -> list[str] | None:
    """The actions with the final answer rewritten by ``write(answer, candidate)``, ``candidate`` a second
    candidate of the answer's kind that the pages showed (:func:`second_candidate`); ``None`` without one."""
    answer = final_answer(context.actions)
    if answer is None or not is_question(context):
        return None
    _, env = replay(context, context.actions[:-1])
    candidate = second_candidate(answer, context.env.task.prompt, sorted(env.pages))
    return with_answer(context.actions, write(answer, candidate)) if candidate else None


@defective(
    "hedged_in_words", "the answer and a second candidate of its kind in words or lower case ('3, or maybe four')"
)
def hedged_in_words(context: RewriteContext) -> list[str] | None:
    return _with_candidate(context, lambda answer, candidate: f"{answer}, or maybe {candidate}")


BOUNDS = ("at least {answer}", "about {answer}", "{answer} or more", "~{answer}")
"""How :func:`answer_bounded` writes a numeric answer as a bound or an estimate (one drawn per task)."""


@defective("answer_bounded", "a numeric answer written as a bound or an estimate ('at least 3', 'about $79.98')")
def answer_bounded(context: RewriteContext) -> list[str] | None:
    answer = final_answer(context.actions)
    if answer is None or not is_question(context):
        return None
    values = read_values(answer).values
    if len(values) != 1 or values[0].kind not in ("count", "money", "percent"):
        return None
    return with_answer(context.actions, BOUNDS[int(context.rng.integers(len(BOUNDS)))].format(answer=answer))


EQUIVALENTS = (
    answer_paraphrased,
    answer_with_context,
    answer_with_a_label,
    answer_after_the_request,
    answer_ruling_out_a_candidate,
    value_reformatted,
    numbers_in_words,
    extra_navigation,
)
DEFECTS = (wrong_form_value, collateral_change, hedged_in_words, answer_ruled_out, answer_bounded)
