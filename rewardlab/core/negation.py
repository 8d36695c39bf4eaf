"""What a final answer affirms: the answer with its negated parts removed.

``"Order O1046 is shipped, not pending"`` mentions ``pending`` but denies it: an answer check that
looks for the required value must read only what the answer asserts. :func:`affirmed` splits the
answer into clauses, at punctuation and at conjunctions (:data:`CLAUSE_BREAKS`), and drops every
word of a clause from its first negator (:data:`NEGATORS`, any word ending in ``n't``, or a word that denies
without one: :data:`DENYING_VERBS` before ``to``, :data:`LACKS`, a phrase of :data:`CONTRASTS` such as ``as opposed
to``) to the clause's end, unless the negator
is ``not`` right after a word of doubt (:data:`UNCERTAIN`: ``"if not"``
offers a second candidate instead of denying it; ``"if cannot"`` still denies):

    ``"shipped, not pending"``                        -> ``"shipped ,"``
    ``"shipped, if not pending"``                     -> ``"shipped , if not pending"``
    ``"It is not true that it is pending"``           -> ``"It is"``
    ``"I could not cancel it because it shipped"``    -> ``"I could because it shipped"``
    ``"The refund failed to go through"``             -> ``"the refund"``

A negation of doubt is not a denial either: a negator followed by a word of :data:`DOUBTS`, with only
words of :data:`DOUBT_FILLERS` between them (``"not sure"``, ``"can't rule out"``, ``"not entirely certain"``,
``"not impossible"``), or ``not that`` followed in its clause by such a word or by a second negator
(``"not that $32.98 is impossible"``, ``"not that it couldn't be pending"``), offers what the rest of its clause
says; nothing in that clause is denied. Inside a denial, ``or`` and ``nor`` do not end it (``"not pending or
cancelled"`` denies both):

    ``"shipped, though I can't rule out pending"``    -> ``"shipped , though i can't rule out pending"``
    ``"shipped, not pending or cancelled"``           -> ``"shipped ,"``

Idioms deny nothing either (:data:`NOT_DENIALS`, :data:`BOUNDS`): ``not only``, ``not just``, ``no doubt``, ``no more
than``, ``nothing but``, ``none other than``. :func:`denies` says whether a text denies anything at all.

A verdict on what comes before it denies that too, back to the clause's start: a copula denied before an identity
(:data:`IDENTITIES`: ``"$79.98 is not the total"``, ``"$32.98 isn't it"``, ``"O1046 can't be right"``), a copula
before a word of error (:data:`ERRORS`: ``"$79.98 is wrong"``), a participle of rejection after a copula
(:data:`REJECTED`: ``"$32.98 was ruled out"``), or a verb of fit denied (:data:`APPLIES`: ``"$32.98 does not
apply"``). Any other denied predicate leaves its subject affirmed (``"O1046 has not shipped"`` may answer which order
has not), but :func:`affirmed` with ``outright`` drops that subject too, for a reader of candidates:

    ``"$32.98 is not it; the total is $79.98"``       -> ``"; the total is 79.98"``
    ``"$32.98 was ruled out; the total is $79.98"``   -> ``"; the total is 79.98"``
    ``"I doubt it is pending"``                       -> ``"i"``

So does a lone ``no`` (:data:`ANSWERS_NO`) right after a question, which answers it: the question's clause is
denied (``"Is it pending? No, shipped."`` -> ``", shipped ."``).

A required value whose own words hold a negator (a refusal such as ``cannot``, ``not enough``)
asserts the negation itself and is looked for in the whole answer (:func:`negates`).

:func:`affirmed` returns the kept words, one token each; :func:`split_negated` returns the same
split as the text itself (``NFKC``, case folded), so that a reader with its own grammar (amounts
with their currency sign, clock times) can read what is affirmed and what is denied:

    ``"$79.98, not $32.98"``                            -> ``("$79.98, ", "not $32.98")``
"""

from __future__ import annotations

import functools
import re
import unicodedata

from rewardlab.core.numerals import NUMBER_WORDS, SCALES

NEGATORS = frozenset(
    {"not", "no", "never", "neither", "nor", "without", "cannot", "instead", "rather", "nt", "doubt", "doubtful",
     "none", "nothing", "nobody", "nowhere"}
)  # fmt: skip
"""Words that deny what follows them in their clause (``instead of``, ``rather than``, ``I doubt it is``, ``none of
the orders shipped``, ``nothing is pending``)."""

COPULAS = frozenset({"is", "was", "are", "were", "be", "been", "seems", "looks", "sounds"})
"""Verbs that link a subject to a verdict on it."""

IDENTITIES = frozenset(
    {"the", "it", "that", "what", "correct", "right", "true", "accurate", "valid", "so", "my", "our"}
)
"""Words that open a predicate of identity or truth: a copula denied before one denies its subject
(``"$79.98 is not the total"``, ``"$32.98 isn't it"``, ``"$40.00 can't be right"``)."""

ERRORS = frozenset({"wrong", "incorrect", "false", "inaccurate", "mistaken", "invalid", "erroneous", "untrue"})
"""Words of error: after a copula they deny the subject and the whole clause (``"$79.98 is wrong"``)."""

ANAPHORS = frozenset({"that", "this", "which"})
"""Subjects that point back to the previous clause: a verdict on one denies that clause (``"$32.98. That's
wrong."``)."""

VERDICT_FILLERS = frozenset({"be", "really", "actually", "definitely", "clearly", "certainly", "probably", "surely"})
"""Words that may stand between a copula (or its negator) and its verdict."""

UNCERTAIN = frozenset({"if", "perhaps", "maybe", "possibly", "probably"})
"""Words after which ``not`` does not deny: ``"$79.98, if not $32.98"`` offers ``$32.98`` as a second
candidate (a hedge), it does not rule it out."""

CLAUSE_BREAKS = frozenset(
    {"and", "but", "or", "because", "since", "so", "while", "whereas", "although", "though", "yet", "then"}
)
"""Conjunctions that start a new clause (a negation before one does not reach past it); ``and`` inside a
number written in words (``not one hundred and two``) is part of the number, not a break."""

DOUBTS = frozenset(
    {
        "sure", "certain", "know", "tell", "clear", "impossible", "unlikely", "exclude", "excluded", "rule", "ruled",
        "guarantee", "guaranteed", "confident", "necessarily", "definite", "definitely", "positive", "convinced",
        "whether", "idea", "ruling", "excluding", "recall", "remember", "verify", "verified", "confirm", "confirmed",
        "swear", "surprise", "surprised", "surprising", "doubt",
    }
)  # fmt: skip
"""Words that turn a negator right before them into doubt: ``not sure``, ``don't know``, ``can't rule out``,
``not impossible``, ``no guarantee``, ``no idea``, ``can't say whether``: what follows is offered as possible, not
denied."""

DOUBT_FILLERS = frozenset(
    {"be", "been", "being", "entirely", "really", "quite", "totally", "completely", "fully", "exactly", "absolutely",
     "so", "too", "very", "even", "yet", "100", "i", "we", "am", "is", "are", "it", "that", "say", "for", "any",
     "one", "hundred", "percent"}
)  # fmt: skip
"""Words that may stand between a negator and its word of doubt (``can't be entirely sure``, ``can't say for
certain``)."""

NOT_DENIALS: dict[str, frozenset[str]] = {
    "not": frozenset({"only", "just", "merely", "least"}),
    "no": frozenset({"doubt"}),
    "without": frozenset({"doubt"}),
    "nothing": frozenset({"but"}),
    "nobody": frozenset({"but"}),
    "none": frozenset({"other"}),
}
"""Negators that deny nothing before these words: ``not only ... but also`` adds, ``no doubt`` affirms,
``nothing but errors`` and ``none other than O1046`` state what follows."""

BOUNDS = frozenset({"more", "less", "fewer", "later", "earlier", "greater", "higher", "lower"})
"""``no <bound> than`` and ``nothing <bound> than`` state a limit, they deny nothing: ``no more than 26 laptops``."""

DENIAL_CONTINUES = frozenset({"or", "nor"})
"""Conjunctions that do not end a denial: ``not pending or cancelled`` denies both."""

_NUMBER_AND = frozenset({"hundred", *SCALES})
_CURRENCY_SIGNS = frozenset("$€£")

_TOKEN = re.compile(r"\d+(?:[:\-]\d+)+|(?<![^\W_])-?\d[\d,]*(?:\.\d+)?|[^\W_]+(?:['’][^\W_]+)*|[.,;:!?()\[\]{}/|—–\n&]")
_MAX_CHARS = 200_000


DENYING_VERBS = frozenset(
    {"fail", "fails", "failed", "failing", "refuse", "refuses", "refused", "refusing", "neglect", "neglects",
     "neglected", "neglecting", "unable"}
)  # fmt: skip
"""Words that deny the verb after their ``to``, as a negator does (``"failed to meet"``: did not meet; ``"refused to
sign"``; ``"unable to ship"``)."""
LACKS = frozenset({"lack", "lacks", "lacked", "lacking"})
"""Verbs that deny having their object, as a negator does (``"the plan lacked funding"``: had no funding)."""


def _is_negator(word: str) -> bool:
    return word in NEGATORS or word.endswith(("n't", "n’t"))


CONTRASTS: tuple[tuple[str, ...], ...] = (
    ("as", "opposed", "to"),
    ("other", "than"),
    ("in", "place", "of"),
    ("in", "lieu", "of"),
    ("except",),
    ("excluding",),
    ("unlike",),
    ("far", "from"),
)
"""Phrases that set what follows against what precedes and deny it, as ``instead of`` and ``rather than`` do
(``shipped as opposed to pending``, ``every order except O1046``, ``checking, unlike savings``, ``far from
$32.98``)."""


_CONTRAST_STARTS = frozenset(phrase[0] for phrase in CONTRASTS)


def _denies_at(tokens: list[str], index: int) -> bool:
    """Whether ``tokens[index]`` is a negator, or a word that denies without one: a word of :data:`DENYING_VERBS`
    before ``to``, of :data:`LACKS`, or the first of a phrase of :data:`CONTRASTS`."""
    token = tokens[index]
    if _is_negator(token) or token in LACKS or (token in DENYING_VERBS and tokens[index + 1 : index + 2] == ["to"]):
        return True
    if token not in _CONTRAST_STARTS:
        return False
    return any(tuple(tokens[index : index + len(phrase)]) == phrase for phrase in CONTRASTS)


def negates(text: str) -> bool:
    """Whether ``text`` holds a negator, or a word that denies without one (a required value such as ``cannot``,
    ``not enough`` or ``unable to pay``).

    Example:
        >>> negates("can't"), negates("not enough"), negates("unable to pay"), negates("pending")
        (True, True, True, False)
    """
    tokens = _TOKEN.findall(unicodedata.normalize("NFKC", text[:_MAX_CHARS]).casefold())
    return any(_denies_at(tokens, index) for index in range(len(tokens)))


def _ends_clause(tokens: list[str], index: int, negated: bool) -> bool:
    """Whether ``tokens[index]`` starts a new clause: punctuation, or a conjunction of :data:`CLAUSE_BREAKS`
    (not ``and`` inside a number written in words, nor ``or``/``nor`` inside a denial)."""
    token = tokens[index]
    if not (token[0].isalnum() or token[0] == "-"):
        return True
    if token not in CLAUSE_BREAKS or (negated and token in DENIAL_CONTINUES):
        return False
    in_number = (
        token == "and"
        and 0 < index < len(tokens) - 1
        and tokens[index - 1] in _NUMBER_AND
        and tokens[index + 1] in NUMBER_WORDS
    )
    return not in_number


def _doubts(tokens: list[str], index: int) -> bool:
    """Whether the negator ``tokens[index]`` expresses doubt rather than denial (see the module docstring)."""
    following = index + 1
    while following < len(tokens) and tokens[following] in DOUBT_FILLERS:
        following += 1
    if following < len(tokens) and tokens[following] in DOUBTS:
        return True
    if tokens[index] != "not" or index + 1 == len(tokens) or tokens[index + 1] != "that":
        return False
    for later in range(index + 2, len(tokens)):
        if _ends_clause(tokens, later, negated=False):
            return False
        if tokens[later] in DOUBTS or _is_negator(tokens[later]):
            return True
    return False


def _idiom(tokens: list[str], index: int) -> bool:
    """Whether the negator ``tokens[index]`` starts an idiom that denies nothing (:data:`NOT_DENIALS`,
    :data:`BOUNDS`, or ``No.`` before a number: ``order No. 5`` numbers it)."""
    following = tokens[index + 1] if index + 1 < len(tokens) else ""
    if following in NOT_DENIALS.get(tokens[index], ()):
        return True
    if tokens[index] == "no" and following == "." and index + 2 < len(tokens):
        return tokens[index + 2][0].isdigit()
    return tokens[index] in ("no", "nothing") and following in BOUNDS and tokens[index + 2 : index + 3] == ["than"]


def denies(text: str) -> bool:
    """Whether ``text`` denies something: a negator that is neither doubt, nor ``if not``, nor an idiom
    (:func:`_idiom`). Never raises.

    Example:
        >>> denies("Costs did not rise"), denies("Not only costs but also prices rose"), denies("I'm not sure")
        (True, False, False)
    """
    return any(not kept for _, kept in _walk(text)[1])


def negations(text: str) -> int:
    """How many denials ``text`` holds, each counted where it stands (inside another's denial too): negators
    that deny (not doubt, not ``if not``, not an idiom: the negators :func:`denies` reads, those said without a
    negator included: ``"failed to"``) and verdicts of error
    after a copula (``"…, which is false"``, ``"It is wrong that …"``: :data:`ERRORS`). Never raises.

    Example:
        >>> negations("It can be built without stopping"), negations("It cannot be built without stopping")
        (1, 2)
        >>> negations("Not only logs but also sign-on"), negations("No more than 26 are left"), negations("not sure")
        (0, 0, 0)
        >>> negations("It cannot be built, which is false"), negations("It is false that it cannot be built")
        (2, 2)
        >>> negations("The pilot failed to meet its target"), negations("Failure rates fell")
        (1, 0)
    """
    tokens = _tokens(text)
    return sum(
        (
            _denies_at(tokens, index)
            and not (token == "not" and index and tokens[index - 1] in UNCERTAIN)
            and not _idiom(tokens, index)
            and not _doubts(tokens, index)
        )
        or _judges_subject(tokens, index, negated=False)
        for index, token in enumerate(tokens)
    )


TRUTHS = frozenset({"true", "correct", "right", "accurate", "valid", "so", "case"})
"""Words of truth: a copula denied before one (``"is not true"``, ``"is not the case"``) is a verdict of falsity."""


def verdicts(text: str) -> int:
    """How many verdicts of falsity ``text`` passes on a subject: a copula before a word of error (``"…, which is
    false"``, ``"It is wrong that …"``; :data:`ERRORS`), or a denied copula before a word of truth (``"It is not
    true that …"``, ``"That isn't the case"``; :data:`TRUTHS`). Never raises.

    Example:
        >>> verdicts("Prices rose, which is false"), verdicts("It is not the case that prices rose")
        (1, 1)
        >>> verdicts("Prices did not rise"), verdicts("a false start"), verdicts("It is true that prices rose")
        (0, 0, 0)
    """
    tokens = _tokens(text)
    return sum(_verdict_copula(tokens, index) is not None for index in range(len(tokens)))


def judged_clause(text: str) -> str | None:
    """The clause that a verdict of falsity (:func:`verdicts`) in ``text`` judges, when its subject is a clause
    rather than a thing: after an expletive ``it`` (``"It is false that X"``, ``"It is not true that X"``: ``X``
    to the end) or an anaphor (``"X, which is false"``, ``"X. That is not the case."``: ``X``, from the previous
    sentence break). ``None`` when ``text`` passes no such verdict (``"The tickets are invalid"`` judges a thing).
    The clause comes back normalised (``NFKC``, case folded). Never raises.

    Example:
        >>> judged_clause("It is false that costs rose."), judged_clause("Costs rose, which is not true.")
        ('costs rose.', 'costs rose')
        >>> judged_clause("Costs rose. That isn't true.")
        'costs rose'
        >>> judged_clause("The tickets are invalid."), judged_clause("It is true that costs rose.")
        (None, None)
    """
    normalized = unicodedata.normalize("NFKC", text[:_MAX_CHARS]).casefold()
    matches = list(_TOKEN.finditer(normalized))
    tokens = [match.group() for match in matches]
    for index in range(len(tokens)):
        copula = _verdict_copula(tokens, index)
        if copula is None:
            continue
        subject = copula if tokens[copula].endswith(("'s", "’s")) else copula - 1  # "that's": its own subject
        head = tokens[subject].replace("’", "'").split("'")[0] if subject >= 0 else ""
        verdict_end = _verdict_word(tokens, index) + 1
        if head == "it" and verdict_end < len(tokens) and tokens[verdict_end] == "that":
            if verdict_end + 1 < len(tokens):
                return normalized[matches[verdict_end + 1].start() :].strip()
        elif head in ANAPHORS:
            end = subject if _sentence_start(tokens, subject) < subject else subject - 1  # "X. That is …": X
            start = _sentence_start(tokens, end)
            judged = normalized[matches[start].start() : matches[end].start()] if 0 <= start < end else ""
            clause = judged.strip().rstrip(",;:—–").strip()
            if clause:
                return clause
    return None


_SENTENCE_BREAKS = frozenset({".", ";", ":", "!", "?"})


def _sentence_start(tokens: list[str], index: int) -> int:
    """The index of the first token of the sentence ``tokens[index]`` stands in (after the previous break)."""
    while index > 0 and tokens[index - 1] not in _SENTENCE_BREAKS:
        index -= 1
    return index


def _verdict_copula(tokens: list[str], index: int) -> int | None:
    """The index of the copula of a verdict of falsity at ``tokens[index]``: a copula before a word of error (the
    copula itself), or a denying negator after a copula, or a contracted one (``isn't``: itself), before a word of
    truth; else None."""
    if _judges_subject(tokens, index, negated=False):
        return index
    if not (_is_negator(tokens[index]) and _judges_subject(tokens, index, negated=True)):
        return None
    word = _verdict_word(tokens, index)
    if word == len(tokens) or tokens[word] not in TRUTHS:
        return None
    if tokens[index].endswith(("n't", "n’t")) or tokens[index] == "cannot":
        return index
    before = index - 1
    while before >= 0 and tokens[before] in VERDICT_FILLERS:
        before -= 1
    return before if before >= 0 and _is_copula(tokens[before]) else None


_BEFORE_VERDICT = VERDICT_FILLERS | {"the", "not"}


def _verdict_word(tokens: list[str], index: int) -> int:
    """The index of the verdict word after ``tokens[index]`` (a copula or its negator), past fillers, ``the`` and
    ``not`` (``len(tokens)`` at the end)."""
    following = index + 1
    while following < len(tokens) and tokens[following] in _BEFORE_VERDICT:
        following += 1
    return following


def _tokens(text: str) -> list[str]:
    return [match.group() for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text[:_MAX_CHARS]).casefold())]


def _verdict(tokens: list[str], index: int) -> str:
    """The verdict word after ``tokens[index]``, past :data:`VERDICT_FILLERS` (``''`` at the end)."""
    following = index + 1
    while following < len(tokens) and tokens[following] in VERDICT_FILLERS:
        following += 1
    return tokens[following] if following < len(tokens) else ""


def _judges_subject(tokens: list[str], index: int, negated: bool) -> bool:
    """Whether ``tokens[index]`` passes a verdict on its clause's subject (see the module docstring): the denying
    negator of a copula before an identity, or a copula before a word of error outside a denial."""
    token = tokens[index]
    if negated:
        before = index - 1
        while before >= 0 and tokens[before] in VERDICT_FILLERS:
            before -= 1
        copula = token.endswith(("n't", "n’t")) or token == "cannot" or (before >= 0 and _is_copula(tokens[before]))
        return bool(copula) and token not in ("doubt", "doubtful") and _verdict(tokens, index) in IDENTITIES
    return _is_copula(token) and _verdict(tokens, index) in ERRORS


def _is_copula(token: str) -> bool:
    return token in COPULAS or token.endswith(("'s", "’s"))


def _subject_start(tokens: list[str], clause_start: int, previous_start: int) -> int:
    """Where the subject a verdict denies starts: its clause's start, or the previous clause's when the subject
    is only a word that points back (:data:`ANAPHORS`: ``"$32.98? That isn't right."``)."""
    subject = [t for t in tokens[clause_start:] if t not in COPULAS and t not in VERDICT_FILLERS]
    if subject and subject[0].replace("’", "'").split("'")[0] in ANAPHORS and len(subject) <= 2:
        return previous_start
    return clause_start


REJECTED = frozenset({"excluded", "rejected", "eliminated", "discarded", "dismissed"})
"""Participles that, after a copula or an auxiliary, pass a verdict on their clause's subject and deny it
(``$32.98 was rejected``, ``checking has been excluded``); ``ruled out`` too."""

APPLIES = frozenset({"apply", "applies", "count", "counts", "qualify", "qualifies"})
"""Verbs whose denial by a verbal negator (``not``, ``never``, ``cannot``, a ``n't`` form) is a verdict on the subject
and denies it (``$32.98 does not apply``, ``checking doesn't count``)."""

_VERBAL_NEGATORS = frozenset({"not", "never", "cannot"})


def _denies_fit(tokens: list[str], index: int) -> bool:
    """Whether the negator ``tokens[index]`` is verbal and denies a verb of :data:`APPLIES` (``does not apply``)."""
    token = tokens[index]
    verbal = token in _VERBAL_NEGATORS or token.endswith(("n't", "n’t"))
    return verbal and _verdict(tokens, index) in APPLIES


_REJECTION_AUXILIARIES = COPULAS | {"being", "has", "have", "had", "got", "gets", "get"} | VERDICT_FILLERS


def _rejects_subject(tokens: list[str], index: int) -> bool:
    """Whether ``tokens[index]`` is a participle of :data:`REJECTED` (or ``ruled`` before ``out``) right after a
    copula or an auxiliary (``was rejected``, ``has been ruled out``)."""
    token = tokens[index]
    if token not in REJECTED and not (token == "ruled" and tokens[index + 1 : index + 2] == ["out"]):
        return False
    return index > 0 and tokens[index - 1] in _REJECTION_AUXILIARIES


ANSWERS_NO = frozenset({"no", "nope"})
"""Words that answer a question in the negative: alone after a ``?`` (``"Pending? No, shipped."``) they deny the
question's clause."""


def _answers_no(tokens: list[str], index: int, clause_start: int) -> bool:
    """Whether ``tokens[index]`` is a lone :data:`ANSWERS_NO` opening the clause right after a ``?``."""
    if tokens[index] not in ANSWERS_NO or index != clause_start or index == 0 or tokens[index - 1] != "?":
        return False
    return index + 1 == len(tokens) or not tokens[index + 1][0].isalnum()


@functools.lru_cache(maxsize=4)
def _walk(text: str) -> tuple[str, list[tuple[re.Match[str], bool]], list[int]]:
    """``text`` normalised (``NFKC``, case folded), its tokens, each with whether it is kept (``False`` for a
    negator and every word after it up to its clause's end, unless the negation is doubt; and for a clause's
    subject that a verdict denies: ``$32.98 is not it``, ``$32.98 was ruled out``, ``$32.98 does not apply``), and
    the indices of the kept tokens that stand before a denial in their clause (the subject of a denied predicate,
    which may be what was asked: ``O1046`` in ``O1046 has not shipped``). Cached for the last 4 texts: a check
    reads one answer several ways (affirmed, outright, split); callers do not change what it returns."""
    normalized = unicodedata.normalize("NFKC", text[:_MAX_CHARS]).casefold()
    matches = list(_TOKEN.finditer(normalized))
    tokens = [match.group() for match in matches]
    kept: list[bool] = []
    subjects: list[int] = []
    negated = doubted = False
    previous_start = clause_start = skip = 0
    for index, token in enumerate(tokens):
        if _ends_clause(tokens, index, negated):
            negated = doubted = False
            if index > clause_start:
                previous_start = clause_start
            clause_start = index + 1
        elif not (negated or doubted) and _answers_no(tokens, index, clause_start):
            kept[previous_start:index] = [False] * (index - previous_start)  # "pending? No, shipped": the question
            negated = True
        elif index >= skip and not (negated or doubted) and _denies_at(tokens, index):
            if token == "not" and index and tokens[index - 1] in UNCERTAIN:
                pass  # "if not X" offers X as a second candidate
            elif _idiom(tokens, index):
                skip = index + 2  # "not only X", "no more than X", "no doubt": X is stated
            elif _doubts(tokens, index):
                doubted = True
            else:
                negated = True
                if _judges_subject(tokens, index, negated) or _denies_fit(tokens, index):
                    start = _subject_start(tokens[:index], clause_start, previous_start)
                    kept[start:] = [False] * (index - start)
                else:
                    subjects.extend(range(clause_start, index))  # "$32.98 was never charged"
        elif not (negated or doubted) and (_judges_subject(tokens, index, negated) or _rejects_subject(tokens, index)):
            start = _subject_start(tokens[: index + 1], clause_start, previous_start)
            kept[start:] = [False] * (index - start)
            negated = True
        kept.append(not negated)
    return normalized, list(zip(matches, kept, strict=True)), subjects


def affirmed(text: str, *, outright: bool = False) -> str:
    """``text`` without its negated parts (see the module docstring); with ``outright``, without the subjects of
    its denied predicates too (what the text asserts outright: ``$32.98 was never charged`` asserts nothing of
    ``$32.98``, ``O1046 is not pending`` nothing of ``O1046``). Never raises.

    Example:
        >>> affirmed("Order O1046 is shipped, not pending.")
        'order o1046 is shipped , .'
        >>> affirmed("It isn't pending and it is shipped")
        'it and it is shipped'
        >>> affirmed("$79.98, if not $32.98")
        '79.98 , if not 32.98'
        >>> affirmed("$79.98; $32.98 was never charged"), affirmed("$79.98; $32.98 was never charged", outright=True)
        ('79.98 ; 32.98 was', '79.98 ;')
        >>> affirmed("$79.98; $32.98 was ruled out"), affirmed("$79.98; $32.98 does not apply")
        ('79.98 ;', '79.98 ;')
    """
    _, walked, subjects = _walk(text)
    dropped = set(subjects) if outright else set()
    return " ".join(match.group() for index, (match, kept) in enumerate(walked) if kept and index not in dropped)


def split_negated(text: str, *, outright: bool = False) -> tuple[str, str]:
    """``(affirmed, denied)``: ``text`` (``NFKC``, case folded) with each negated part (from its negator
    to its clause's end, the characters between its words included) blanked, and those parts alone,
    joined by ``" ; "``; with ``outright``, the subjects of denied predicates are blanked and listed with them
    (as :func:`affirmed` reads them). Never raises.

    Example:
        >>> split_negated("$79.98, not $32.98")
        ('$79.98,  ', 'not $32.98')
        >>> split_negated("Not 3 pm but 4 pm; never on 2024-03-31.")
        ('  but 4 pm;  .', 'not 3 pm ; never on 2024-03-31')
        >>> split_negated("$79.98; $32.98 was not charged", outright=True)
        ('$79.98;  ', '$32.98 was not charged')
    """
    normalized, walked, subjects = _walk(text)
    if outright:
        dropped = set(subjects)
        walked = [(match, kept and index not in dropped) for index, (match, kept) in enumerate(walked)]
    parts: list[tuple[int, int]] = []  # negated parts: [first denied token's start, last one's end)
    previous_kept = True
    for match, kept in walked:
        if not kept and previous_kept:
            start = match.start()
            while start and normalized[start - 1] in _CURRENCY_SIGNS:  # "$32.98 was not charged": the sign too
                start -= 1
            parts.append((start, match.end()))
        elif not kept:
            parts[-1] = (parts[-1][0], match.end())
        previous_kept = kept
    affirmed_text: list[str] = []
    position = 0
    for start, end in parts:
        affirmed_text.append(normalized[position:start] + " ")
        position = end
    affirmed_text.append(normalized[position:])
    return "".join(affirmed_text), " ; ".join(normalized[start:end] for start, end in parts)
