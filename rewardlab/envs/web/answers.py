"""Grading a Web-v1 ``answer("...")`` so that a hedge across what the pages showed fails.

An answer is correct when, read through :func:`~rewardlab.core.text.canonical_text` (after
thousands separators are dropped, so ``2,450.00`` and ``2450.00`` are one number):

1. it mentions an accepted answer (:func:`~rewardlab.core.answers.mentions`);
2. every number or code in it (a word with a digit: ``$79.98``, ``15:00``, ``ZX-4471-PQ``) lies
   inside an accepted answer or the task's prompt: ``7.50`` does not pass for ``7``, and a
   list of the prices on a page fails on its first foreign price;
3. it names no competing candidate (:func:`~rewardlab.core.answers.competing_candidates`):
   the names the pages showed (capitalised words inside a sentence, e-mail addresses) and the
   sites' directory of people (:data:`DIRECTORY`), less the names the prompt itself uses. A
   name competes with any answer, a price's too: a dump of a product page ("Black, Cropped,
   Hoodie, Price, $57.99, ...") holds one number but many names;
4. it stays within :func:`~rewardlab.core.answers.within_length` of the longest accepted
   answer it mentions (3 × its length + 60 characters: one sentence, not a list).

An answer that states two or more values (foreign numbers, competing names and the reference,
counted once) or breaks the length bound is *hedged*, which is worse than wrong: the env voids
the episode's process credit for it, so a hedge never pays more than an honest wrong answer.

Rule 2 is not ``competing_candidates``: that helper needs the list of candidates, while rule 2
rejects every number that is not in an accepted answer or the prompt, listed or not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from rewardlab.core.answers import competing_candidates, mentions, within_length
from rewardlab.core.text import canonical_text
from rewardlab.envs.web.sites import forum, mail

DIRECTORY: tuple[str, ...] = (
    *forum.USERS,
    *mail.CONTACTS,
    *mail.CONTACTS.values(),
    *sorted({sender for sender, *_ in mail.SEED_MESSAGES}),
)
"""The people of the sites (forum accounts, mail contacts and senders): always candidates."""

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_WORD = re.compile(r"\S+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_SENTENCE_END = (".", "!", "?", ":", ";")


def plain_numbers(text: str) -> str:
    """``text`` without thousands separators (``2,450.00`` -> ``2450.00``)."""
    return _THOUSANDS.sub("", text)


def numbers(text: str) -> list[str]:
    """The canonical form of every word of ``text`` that holds a digit."""
    found = (canonical_text(w) for w in _WORD.findall(plain_numbers(text)) if any(c.isdigit() for c in w))
    return [n for n in dict.fromkeys(found) if n]


def page_names(texts: Iterable[str]) -> set[str]:
    """Names the pages showed: e-mail addresses, and capitalised words that do not start a sentence."""
    names: set[str] = set()
    for text in texts:
        names.update(_EMAIL.findall(text))
        words = text.split()
        for previous, word in zip(words, words[1:], strict=False):
            core = word.strip("\"'“”‘’()[]{},.;:!?")
            if core[:1].isupper() and not previous.endswith(_SENTENCE_END):
                names.add(core)
    return names


Grade = Literal["correct", "wrong", "hedged"]


def grade_answer(answer: str, accepted: Iterable[str], *, prompt: str = "", pages: Iterable[str] = ()) -> Grade:
    """``"correct"`` (rules 1-4 above), ``"hedged"`` (it states two or more values, counting the
    accepted answer as one, or runs past the length bound) or ``"wrong"`` (one wrong value, or none).

    Example:
        >>> grade_answer("The total is $79.98.", ["$79.98"], prompt="What is the total of order 1041?")
        'correct'
        >>> grade_answer("$79.98 or $32.98", ["$79.98"]), grade_answer("$32.98", ["$79.98"])
        ('hedged', 'wrong')
    """
    text = plain_numbers(answer)
    references = [plain_numbers(a) for a in accepted]
    stated = [r for r in references if mentions(text, r)]
    longest = max(stated or references or [""], key=lambda r: len(canonical_text(r)))
    if not within_length(text, [longest]):  # first: a long text is a hedge, whatever it holds
        return "hedged"
    allowed = [*references, plain_numbers(prompt)]
    values = sum(not any(mentions(a, n) for a in allowed) for n in numbers(text)) + bool(stated)
    candidates = [n for n in (*page_names(pages), *DIRECTORY) if not mentions(prompt, n)]
    values += len(competing_candidates(text, references, candidates))
    if values >= 2:
        return "hedged"
    return "correct" if stated else "wrong"


def answer_matches(answer: str, accepted: Iterable[str], *, prompt: str = "", pages: Iterable[str] = ()) -> bool:
    """True when ``answer`` states an accepted answer and nothing else (:func:`grade_answer` is ``"correct"``).

    Example:
        >>> answer_matches("Lakeside", ["Lakeside", "the Lakeside room"])
        True
    """
    return grade_answer(answer, accepted, prompt=prompt, pages=pages) == "correct"
