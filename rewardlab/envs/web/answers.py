"""Grading a Web-v2 ``answer("...")``: right, wrong, or a hedge across candidates of the asked kind.

Every text is read by :func:`~rewardlab.envs.web.values.read_values`, so a value counts the same
however it is written (``$79.98``, ``79.98 dollars``; ``3``, ``three``; ``15:00``, ``3 pm``), and
then through :func:`~rewardlab.core.text.canonical_text`.

An answer is read as ToolCall reads one, for what it *affirms*
(:func:`~rewardlab.core.negation.split_negated`): each clause's words from its first negator
(``not``, ``never``, ``isn't`` …) to the clause's end are denied, not stated. A denied candidate does
not compete (``$79.98, not $32.98`` is honest context), and a denied accepted answer is not stated
(``not $79.98 but $32.98`` is not an answer of ``$79.98``): an accepted answer is stated when the
affirmed text mentions it and the denied text does not (one that is itself a negation, such as
``not listed``, is looked for in the whole answer). The subject of a denied predicate (``$32.98 was never
charged``, ``alice did not post``, ``checking was ruled out``) is no candidate beside an accepted answer stated
outside one; where the answer is stated only as such a subject, the others compete as before.

The *kind* of the question is read from its accepted answers: the kinds of the values they state
(``money``, ``percent``, ``time``, ``date``, ``code``, ``count``), ``person`` when they name one of the
sites' people (:data:`DIRECTORY`), ``name`` when they hold a capitalised name the pages showed, and
``phrase`` when they hold only other words (``the rollout``). A *candidate* in the answer is something
it states besides an accepted answer and the prompt:

- a value: it *competes* when the question asks for values of its kind, or it is a count whose
  unit (the word after it, four letters or more) is absent, is in the prompt or follows an accepted
  value in the answer (``3 or 4``, ``three or four replies``) and the question asks for any value,
  or no page shows it and a word of possibility (``perhaps``, ``might`` …) comes before it in its clause
  (``three replies; perhaps there were 4 messages``: a guess, however far from the answer);
  a count of something else (``2 days``), a value of another kind and a number that names a thing or a time
  (``room 4``, ``since 2019``: :mod:`rewardlab.core.labels`) beside an answer stated without a label are
  *context* (an answer stated only inside labels, ``post 3, message 4``, leaves its labels competing, as does a
  label the prompt asks about: ``floor 4`` for "which floor?");
- a person: competes when the question asks for a person, else context;
- a day of the week (:data:`WEEKDAYS`): competes when an accepted answer names one (``Tuesday at 15:00``), else
  context, as a person;
- a name the pages showed (a capitalised word inside a sentence, a one-word label, an e-mail
  address): competes when
  the question asks for a name or a phrase, else context;
- a word of four letters or more that the pages showed: competes when the question asks for a
  phrase (``the rollout or testing``), else it is just a word.

Whatever its kind, a candidate that the answer *offers as an alternative* to the accepted answer it
states (:func:`~rewardlab.core.answers.offered_as_alternatives`: a word that weighs them, such as ``or``,
``maybe``, ``if not``, ``could be``, within five words) is a hedge: a value of context (``3 or 4 posts`` when
replies were asked), and a person, name or value the prompt itself names (``Alice or Bob`` for "did Alice or Bob
post it?"), which are otherwise not candidates, as restating the request mentions them. What the prompt names of
the asked kind is a hedge too when listed with the answer (``Alice/Bob``, ``Alice and Bob.``); a list of facts of
other kinds is not (``Order 1041: $79.98``).

The grade, with ``s`` = 1 when the answer states an accepted answer (its rendered text, as whole
canonical tokens, affirmed and not denied), ``c`` the competing candidates it affirms, ``x`` the
candidates of context it affirms and ``a`` the candidates it offers as alternatives to a stated answer::

    hedged   when an accepted answer is stated only as a bound or an estimate (``at least 3``, ``3 or more``,
             ``about $80``, ``~3``: :func:`~rewardlab.core.answers.bounded_mentions`),
             or len(answer − prompt) > 3 · len(longest accepted answer stated) + 60 (canonical characters of
             the answer's words that the prompt does not hold: restating the request is no list),
             or s + c >= 2, or a >= 1, or x >= 2 (a list of what the pages showed, not one sentence of context)
    correct  when s = 1 (and not hedged)
    wrong    otherwise

where ``x`` counts names and days, when the question asks for a value, only when the answer lists them (``Black,
Cropped, Hoodie, $57.99``: the page's labels copied), and people not at all: inside a sentence they cannot be the
value asked for (``ZX-4471-PQ, sent by the shop on Monday``), and a list of people is a fact about it (``Three
replies: from bob, carol and dave.``), no page copied.

So an answer with one sentence of context, holding one unrelated number or name, is correct, and
one listing a second candidate of the asked kind, in digits, in words or in lower case, is hedged.
A hedge is worse than wrong: the env voids the episode's process credit for it, so hedging never
pays more than an honest wrong answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rewardlab.core.answers import (
    bounded_mentions,
    competing_candidates,
    listed_together,
    mentions,
    offered_as_alternatives,
    spelled_bounds,
    within_length,
)
from rewardlab.core.negation import negates, split_negated
from rewardlab.core.text import canonical_text, canonical_tokens
from rewardlab.envs.web.sites import forum, mail
from rewardlab.envs.web.values import Value, ValueText, join_codes, read_values

DIRECTORY: tuple[str, ...] = (
    *forum.USERS,
    *mail.CONTACTS,
    *mail.CONTACTS.values(),
    *sorted({sender for sender, *_ in mail.SEED_MESSAGES}),
)
"""The people of the sites (forum accounts, mail contacts and senders): always candidates."""

WEEKDAYS: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
"""Days of the week: candidates of their own kind, ``day`` (a weekday is no room, no person and no name)."""

MIN_WORD = 4
"""Letters a word needs to be a candidate (a page word, a count's unit): shorter ones are grammar."""

MAX_CONTEXT = 1
"""Candidates of context an answer may hold (one sentence of context, not a list)."""

_MAX_ANSWER = 200_000
"""Characters of an answer read (a longer one fails its length bound anyway)."""

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_SENTENCE_END = (".", "!", "?", ":", ";")

Grade = Literal["correct", "wrong", "hedged"]


def page_names(texts: Iterable[str]) -> set[str]:
    """Names the pages showed: e-mail addresses, capitalised words that do not start a sentence, and
    labels (a text that is one capitalised word: ``Colour``, ``Quantity``)."""
    names: set[str] = set()
    for text in texts:
        names.update(_EMAIL.findall(text))
        words = text.split()
        if len(words) == 1 and words[0][:1].isupper() and words[0].isalpha():
            names.add(words[0])
        for previous, word in zip(words, words[1:], strict=False):
            core = word.strip("\"'“”‘’()[]{},.;:!?")
            if core[:1].isupper() and not previous.endswith(_SENTENCE_END):
                names.add(core)
    return names


@dataclass(frozen=True)
class Question:
    """What a question asks, read from its accepted answers, its prompt and the pages shown.

    Attributes:
        references: The accepted answers, read.
        kinds: The kinds asked (value kinds, ``person``, ``name``, ``phrase``).
        prompt: The prompt, read.
        persons: The sites' people the prompt does not name.
        days: The days of the week the prompt does not name.
        names: Names the pages showed that the prompt does not use (people excluded).
        words: Words of :data:`MIN_WORD` letters or more the pages showed, outside the prompt and the references.
        named: What the prompt names: its values, the sites' people and the pages' names it mentions (candidates
            only when offered as alternatives to an answer).
        shown: The rendered values the pages showed.
        named_kinds: The kind of each of ``named`` (a value's kind, ``person`` or ``name``).
    """

    references: tuple[ValueText, ...]
    kinds: frozenset[str]
    prompt: ValueText
    persons: tuple[str, ...]
    names: tuple[str, ...]
    words: frozenset[str]
    named: tuple[str, ...] = ()
    shown: frozenset[str] = frozenset()
    named_kinds: tuple[str, ...] = ()
    days: tuple[str, ...] = ()

    @classmethod
    def read(cls, accepted: Iterable[str], prompt: str = "", pages: Iterable[str] = ()) -> Question:
        references = tuple(read_values(a) for a in accepted)
        read_prompt = read_values(prompt)
        pages = list(pages)
        persons = tuple(p for p in DIRECTORY if not mentions(prompt, p))
        days = tuple(d for d in WEEKDAYS if not mentions(prompt, d))
        shown = {n for n in page_names([*pages, prompt]) if n not in WEEKDAYS}
        names = tuple(n for n in shown if not mentions(prompt, n) and n not in DIRECTORY)
        named: dict[str, str] = {v.rendered: v.kind for v in read_prompt.values}
        for name in (*DIRECTORY, *WEEKDAYS, *shown):
            if mentions(prompt, name):
                kind = "person" if name in DIRECTORY else "day" if name in WEEKDAYS else "name"
                named.setdefault(read_values(name).rendered, kind)
        kinds: set[str] = {v.kind for r in references for v in r.values}
        for reference in references:
            if any(mentions(reference.rendered, d) for d in WEEKDAYS):
                kinds.add("day")
            if any(mentions(reference.rendered, p) for p in DIRECTORY):
                kinds.add("person")
            elif any(mentions(reference.rendered, n) for n in names):
                kinds.add("name")
            elif _bare_words(reference) and not reference.values:
                kinds.add("phrase")
        known = set(canonical_tokens(read_prompt.rendered)) | {
            t for r in references for t in canonical_tokens(r.rendered)
        }
        words = frozenset(
            t for page in pages for t in canonical_tokens(page) if len(t) >= MIN_WORD and t.isalpha() and t not in known
        )
        page_values = frozenset(v.rendered for page in pages for v in read_values(page).values)
        return cls(
            references,
            frozenset(kinds),
            read_prompt,
            persons,
            names,
            words,
            tuple(named),
            page_values,
            tuple(named.values()),
            days,
        )

    @property
    def value_kinds(self) -> frozenset[str]:
        return self.kinds - {"person", "name", "phrase", "day"}


def _bare_words(text: ValueText) -> list[str]:
    """The words of a read text outside its values."""
    rendered = {t for v in text.values for t in canonical_tokens(v.rendered)}
    return [t for t in canonical_tokens(text.rendered) if t not in rendered and t.isalpha()]


def _stem(word: str) -> str:
    return word.removesuffix("s")


def _value_candidates(answer: ValueText, question: Question) -> tuple[int, int]:
    """``(competing, context)`` among the values the answer states beyond the references and the prompt.

    A labelled number (:mod:`rewardlab.core.labels`: ``room 4``, ``since 2019``) is context beside a reference the
    answer states without a label, unless its label is a word the prompt asks about (``floor 4`` for "which
    floor?"); where the answer states the reference only under a label the prompt does not ask about (``post 3,
    message 4``), its labels compete: they are its offers."""
    references = {v.rendered for r in question.references for v in r.values}
    references |= {v.rendered.split(" ", 1)[0] for r in question.references for v in r.values if v.kind == "money"}
    known = references | {v.rendered for v in question.prompt.values}
    prompt_words = {_stem(t) for t in canonical_tokens(question.prompt.rendered)}
    reference_units = {_stem(v.unit) for v in answer.values if v.rendered in known and v.unit}
    asked_units = prompt_words | reference_units
    stated = [v for v in answer.values if v.rendered in references]
    labels_are_context = not stated or any(not v.label or _stem(v.label) in asked_units for v in stated)
    competing = context = 0
    for value in dict.fromkeys(v for v in answer.values if v.rendered not in known):
        if _guessed(value, answer, question):
            competing += 1
        elif labels_are_context and value.label and _stem(value.label) not in asked_units:
            context += 1  # "3 replies, on page 2", "$79.98 (a customer since 2019)": it names a thing or a time
        elif _competes(value, question, asked_units):
            competing += 1
        else:
            context += 1
    return competing, context


POSSIBILITY = frozenset({"maybe", "perhaps", "possibly", "probably", "might", "may", "could", "likely", "or"})
"""Words that offer what follows in their clause as a possibility rather than state it."""


def _guessed(value: Value, answer: ValueText, question: Question) -> bool:
    """Whether a value of context is a guess at the asked one: no page shows it, the question asks for a value,
    and a word of :data:`POSSIBILITY` comes before it in its clause (``three replies; perhaps there were 4
    messages``, however far from the answer it stands)."""
    if not question.value_kinds or value.rendered in question.shown:
        return False
    tokens = answer.rendered.split()
    for index, token in enumerate(tokens):
        if token != value.rendered.split()[0]:
            continue
        start = index
        while start and tokens[start - 1] != ",":
            start -= 1
        if POSSIBILITY.intersection(tokens[start:index]):
            return True
    return False


def _competes(value: Value, question: Question, asked_units: set[str]) -> bool:
    if value.kind in question.value_kinds - {"count"}:
        return True
    if value.kind != "count" or not question.value_kinds:
        return False
    unit = value.unit if len(value.unit) >= MIN_WORD else ""
    return not unit or _stem(unit) in asked_units


def _word_candidates(answer: ValueText, question: Question) -> tuple[int, int]:
    """``(competing, context)`` among the people, days, names and page words the answer mentions."""
    references = [r.rendered for r in question.references]
    persons = competing_candidates(answer.rendered, references, question.persons)
    names = competing_candidates(answer.rendered, references, question.names)
    days = competing_candidates(answer.rendered, references, question.days)
    day_asked = "day" in question.kinds
    competing, context = (len(days), 0) if day_asked else (0, 0)
    if not question.kinds & {"person", "name", "phrase"}:  # people, names (and days) cannot be the value asked for
        labels = [canonical_text(n) for n in (*names, *([] if day_asked else days))]
        listed = listed_together(answer.rendered, [*persons, *labels])
        return competing, len(set(listed) & set(labels))  # "3 replies: from bob, carol and dave" lists facts
    if not day_asked:
        context += len(days)
    if "person" in question.kinds:
        competing += len(persons)
    else:
        context += len(persons)
    if question.kinds & {"name", "phrase"}:
        competing += len(names)
    else:
        context += len(names)
    if "phrase" in question.kinds:
        named = {t for n in names for t in n.split()}
        competing += len({t for t in canonical_tokens(answer.rendered) if t in question.words} - named)
    return competing, context


def grade_answer(answer: str, accepted: Iterable[str], *, prompt: str = "", pages: Iterable[str] = ()) -> Grade:
    """``"correct"``, ``"wrong"`` or ``"hedged"`` (see the module docstring).

    Example:
        >>> grade_answer("The total is $79.98.", ["$79.98"], prompt="What is the total of order 1041?")
        'correct'
        >>> grade_answer("$79.98 or $32.98", ["$79.98"]), grade_answer("$32.98", ["$79.98"])
        ('hedged', 'wrong')
        >>> grade_answer("three, maybe four", ["3"], prompt="How many replies?")
        'hedged'
        >>> grade_answer("$79.98, not $32.98", ["$79.98"]), grade_answer("not $79.98 but $32.98", ["$79.98"])
        ('correct', 'wrong')
    """
    question = Question.read(accepted, prompt, pages)
    return grade(ReadAnswer.read(answer), question)


@dataclass(frozen=True)
class ReadAnswer:
    """An answer read whole, for what it affirms, for what it denies and for what it affirms *outright*, without the
    subjects of its denied predicates (``$32.98 was never charged``: :func:`~rewardlab.core.negation.split_negated`),
    each by :func:`read_values`."""

    whole: ValueText
    affirmed: ValueText
    denied: ValueText
    text: str
    """The answer as read (bounds spelled, codes joined): what :attr:`outright` is read from."""

    @classmethod
    def read(cls, answer: str) -> ReadAnswer:
        answer = spelled_bounds(answer[:_MAX_ANSWER])
        affirmed, denied = split_negated(join_codes(answer))
        return cls(read_values(answer), read_values(affirmed), read_values(denied), join_codes(answer))

    @functools.cached_property
    def outright(self) -> ValueText:
        """What the answer affirms outright (read only when a check needs it)."""
        return read_values(split_negated(self.text, outright=True)[0])


CONNECTIVES = frozenset({"at", "on", "in", "the", "a", "an", "of", "by", "for"})
"""Words that only join the parts of a reference (``Tuesday at 15:00``): its other tokens are its parts."""


def _states(answer: ValueText, reference: ValueText) -> bool:
    """The answer mentions the reference, or, for a reference of two parts or more (``Tuesday at 15:00``), every
    part as a whole token in any order (``3 pm on Tuesday``); an amount alone (``$1,234.50``) is
    also stated by its bare number (``1234.50``), but not by the number in another currency."""
    if mentions(answer.rendered, reference.rendered):
        return True
    parts = {t for t in canonical_tokens(reference.rendered) if t not in CONNECTIVES}
    if len(parts) >= 2 and parts <= set(canonical_tokens(answer.rendered)):
        return True
    if len(reference.values) != 1 or reference.values[0].kind != "money":
        return False
    money = reference.values[0].rendered
    if canonical_text(reference.rendered) != canonical_text(money):
        return False
    number = money.split(" ", 1)[0]
    return any(v.kind == "count" and v.rendered == number for v in answer.values)


def _affirms(answer: ReadAnswer, reference: ValueText) -> bool:
    """The answer states the reference in what it affirms and not in what it denies; a reference that
    is itself a negation (``not listed``) is looked for in the whole answer."""
    if negates(reference.rendered):
        return _states(answer.whole, reference)
    return _states(answer.affirmed, reference) and not _states(answer.denied, reference)


def grade(answer: ReadAnswer, question: Question) -> Grade:
    """:func:`grade_answer` for an answer and a question already read."""
    stated = [r.rendered for r in question.references if _affirms(answer, r)]
    longest = max(stated or [r.rendered for r in question.references] or [""], key=lambda r: len(canonical_text(r)))
    # first: a long text is a hedge, whatever it holds
    if not within_length(answer.whole.rendered, [longest], request=question.prompt.rendered):
        return "hedged"
    if any(bounded_mentions(answer.affirmed.rendered, r) for r in stated):  # "at least 3", "about $80": a range
        return "hedged"
    # "$79.98; $32.98 was never charged": beside an answer stated outright, the subject of a denied predicate is no
    # candidate; where the answer is stated only as one ("bob has not replied"), such subjects compete
    outright = any(_states(answer.outright, r) for r in question.references if r.rendered in stated)
    read = answer.outright if outright else answer.affirmed
    competing, context = _value_candidates(read, question)
    words_competing, words_context = _word_candidates(read, question)
    competing += words_competing
    context += words_context
    if competing + bool(stated) >= 2 or context > MAX_CONTEXT or _offers_alternatives(answer, stated, question):
        return "hedged"
    return "correct" if stated else "wrong"


def _offers_alternatives(answer: ReadAnswer, stated: list[str], question: Question) -> bool:
    """Whether the answer offers a value it affirms, a person, a name or something the prompt names as an
    alternative to an accepted answer it states: in words that weigh them (``Bob or maybe Alice``), or, for what
    the prompt names of an asked kind, as one list (``Bob/Alice``; ``Order 1041: $79.98`` lists no two totals)."""
    if not stated:
        return False
    affirmed, whole = answer.affirmed.rendered, answer.whole.rendered
    candidates = (
        *(v.rendered for v in answer.affirmed.values),
        *question.named,
        *question.persons,
        *question.days,
        *question.names,
    )
    asked = question.kinds | ({"name"} if "phrase" in question.kinds else set())
    listed = [n for n, kind in zip(question.named, question.named_kinds, strict=True) if kind in asked]
    return bool(
        offered_as_alternatives(affirmed, stated, candidates, whole=whole, lists=False)
        or offered_as_alternatives(affirmed, stated, listed, whole=whole)
    )


def answer_matches(answer: str, accepted: Iterable[str], *, prompt: str = "", pages: Iterable[str] = ()) -> bool:
    """True when ``answer`` states an accepted answer and nothing else (:func:`grade_answer` is ``"correct"``).

    Example:
        >>> answer_matches("Lakeside", ["Lakeside", "the Lakeside room"])
        True
    """
    return grade_answer(answer, accepted, prompt=prompt, pages=pages) == "correct"
