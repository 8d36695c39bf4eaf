"""Web-v2 answers read in any written form, and the equivalent and defective batteries of the audit.

A hedge listing a second candidate of the asked kind (in digits, in words, in lower case) fails; an
honest answer with one sentence of context (one unrelated number or name) passes; the rewrites of
:mod:`rewardlab.envs.web.rewrites` keep (equivalents) or lose (defects) success on every task.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.agents import OracleAgent
from rewardlab.audit import audit_env
from rewardlab.core.numerals import LIMIT, read_number, spell
from rewardlab.envs.web.answers import DIRECTORY, Question, grade_answer
from rewardlab.envs.web.env import WebEnv
from rewardlab.envs.web.rewrites import DEFECTS, EQUIVALENTS, in_words, reformat, second_candidate
from rewardlab.envs.web.values import read_values
from rewardlab.evaluation import run_episode


@pytest.fixture(scope="module")
def env():
    env = WebEnv(backend="http")
    yield env
    env.close()


@pytest.fixture(scope="module")
def question_pages(env):
    """``{task_id: (accepted, prompt, pages)}`` for every question task, pages as the oracle saw them."""
    found = {}
    for task in env.tasks:
        if "answer" in task.data["success"]:
            run_episode(env, OracleAgent(env), seed=0, task_id=task.id)
            found[task.id] = (task.data["success"]["answer"], task.prompt, sorted(env.pages))
    return found


def grade(question_pages, task_id, answer):
    accepted, prompt, pages = question_pages[task_id]
    return grade_answer(answer, accepted, prompt=prompt, pages=pages)


# ---------------------------------------------------------------------- numbers in words
@given(st.integers(min_value=0, max_value=LIMIT - 1))
def test_spelled_numbers_read_back(n):
    words = spell(n).replace("-", " ").split()
    assert read_number(words, 0) == (n, len(words))


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=10**6))
def test_two_spelled_numbers_never_merge(a, b):
    """``three four`` is two numbers: a hedge in words is never read as one bigger number."""
    read = read_values(f"{spell(a)} or {spell(b)}")
    assert [v.rendered for v in read.values] == [str(a), str(b)]


@given(st.text(max_size=300))
def test_any_text_reads_without_raising(text):
    read = read_values(text)
    assert all(v.rendered for v in read.values)
    assert grade_answer(text, ["3", "three"], prompt="How many replies?") in ("correct", "wrong", "hedged")


@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(["", "$", "€"]))
def test_digits_and_words_render_alike(n, symbol):
    currency = {"": "", "$": " dollars", "€": " euros"}[symbol]
    assert read_values(f"{symbol}{n:,}").rendered == read_values(f"{spell(n)}{currency}").rendered


@pytest.mark.parametrize(
    ("written", "rendered"),
    [
        ("$79.98", "79p98 usd"),
        ("79.98 USD", "79p98 usd"),
        ("seventy-nine dollars and ninety-eight cents", "79p98 usd"),
        ("€2,450", "2450 eur"),
        ("2450.00 euros", "2450 eur"),
        ("12%", "12 percent"),
        ("twelve per cent", "12 percent"),
        ("3 pm", "15h00"),
        ("15:00", "15h00"),
        ("$7.50", "7p5 usd"),
        ("USD 79.98", "79p98 usd"),
        ("79.98USD", "79p98 usd"),
        ("EUR 2,450.00", "2450 eur"),
        ("EUR2450", "2450 eur"),
        ("12 pct", "12 percent"),
        ("12-percent", "12 percent"),
        ("3-day", "3 day"),
        ("Tue 15:00", "tuesday 15h00"),
        ("Tues. at 3 pm", "tuesday at 15h00"),
    ],
)
def test_values_render_the_same_however_written(written, rendered):
    assert read_values(written).rendered == rendered


@given(
    st.lists(
        st.one_of(st.from_regex(r"[A-Z]{2,3}", fullmatch=True), st.from_regex(r"[1-9][0-9]{1,3}", fullmatch=True)),
        min_size=3,
        max_size=4,
    ),
    st.sampled_from(["-", " ", "\u2013", ""]),
)
def test_a_code_renders_alike_with_any_separator(pieces, separator):
    if pieces[0].isdigit() or all(p.isalpha() for p in pieces) or {"USD", "EUR", "GBP"} & set(pieces):
        return  # a code starts with letters (``3-day`` is a count and its unit)
    joined = "".join(pieces).casefold()
    if any(a.isdigit() == b.isdigit() for a, b in zip(pieces, pieces[1:], strict=False)):
        return  # two pieces of one kind side by side join into one piece: not this test's subject
    assert [v.rendered for v in read_values(separator.join(pieces)).values] == [joined]


@pytest.mark.parametrize(
    ("written", "rendered"),
    [
        ("2.450,00 €", "2450 eur"),
        ("79,98 $", "79p98 usd"),
        ("1 234 567 EUR", "1234567 eur"),
        ("12,5 %", "12p5 percent"),
        ("€ 2 450,00", "2450 eur"),
        ("EUR 79,98", "79p98 eur"),
    ],
)
def test_european_number_forms_read_as_they_mean(written, rendered):
    assert read_values(written).rendered == rendered


# ---------------------------------------------------------------------- hedges of the asked kind fail
@pytest.mark.parametrize(
    ("task_id", "answer"),
    [
        ("forum-016", "three, maybe four"),
        ("forum-016", "3 or four replies"),
        ("forum-016", "three or 4"),
        ("shop-020", "$79.98 or eighty dollars"),
        ("shop-020", "$79.98, possibly thirty-two dollars and ninety-eight cents"),
        ("shop-020", "$79.98 (1 item of 2)"),
        ("forum-020", "the rollout, or maybe testing"),
        ("forum-020", "the rollout or the testing"),
        ("forum-015", "Lakeside or friday"),
        ("forum-017", "bob, or maybe carol"),
        ("forum-017", "bob or alice"),
        ("mail-020", "ZX-4471-PQ or zx-4472-pq"),
        ("mail-022", "12%, possibly fifteen percent"),
        ("mail-019", "Tuesday at 15:00, or maybe 4 pm"),
        ("mail-021", "2,450.00 EUR or 2,540 euros"),
        ("mail-021", "2.450,00 € or 2.540,00 €"),
        ("mail-020", "ZX 4471 PQ or ZX 4472 PQ"),
        ("mail-019", "3 pm on Tuesday, or maybe 4 pm"),
        ("forum-016", "Three replies. Then again, perhaps there were 4 messages in all."),
        ("forum-016", "The thread has three replies. I could be wrong; it might well be 11 posts."),
        ("forum-019", "$7 or seven fifty"),
    ],
)
def test_a_second_candidate_of_the_asked_kind_hedges(question_pages, task_id, answer):
    assert grade(question_pages, task_id, answer) == "hedged"


@pytest.mark.parametrize(
    ("task_id", "answer"),
    [
        ("forum-016", "The thread has three replies."),
        ("forum-016", "It has 3 replies, the last one posted 2 days ago."),
        ("shop-020", "Order 1041 came to seventy-nine dollars and ninety-eight cents."),
        ("shop-020", "The total is 79.98 USD, for 2 items."),
        ("forum-015", "The Lakeside room, as carol confirmed."),
        ("forum-020", "According to alice, the rollout took too long."),
        ("mail-021", "Invoice 7781 is for 2450 euros."),
        ("mail-019", "The meeting is on Tuesday at 3 pm."),
        ("mail-022", "Revenue grew by twelve percent."),
        ("mail-020", "The tracking number is ZX-4471-PQ, from the shipping notification."),
        ("forum-017", "bob started it."),
        ("mail-019", "At 3 pm on Tuesday"),
        ("mail-019", "15:00 on Tuesday."),
        ("mail-020", "ZX 4471 PQ"),
        ("mail-020", "Tracking: ZX–4471–PQ"),
        ("mail-020", "zx4471pq"),
        ("forum-018", "Error E-42."),
        ("mail-021", "2.450,00 €"),
        ("mail-021", "2 450 EUR"),
        ("shop-020", "79,98 $"),
        ("shop-020", "$32.98 is not it; the total is $79.98."),
        ("shop-020", "$32.98? That's wrong. It's $79.98."),
        ("forum-016", "Three replies, probably all from the same week."),
    ],
)
def test_honest_answers_with_context_pass(question_pages, task_id, answer):
    assert grade(question_pages, task_id, answer) == "correct"


@pytest.mark.parametrize(
    ("task_id", "answer"),
    [
        ("forum-016", "four"),
        ("shop-020", "thirty-two dollars and ninety-eight cents"),
        ("forum-017", "carol"),
        ("mail-019", "3 pm on Wednesday"),
        ("mail-019", "Tuesday at 4 pm"),
        ("mail-020", "ZX 4417 PQ"),
        ("mail-021", "2.540,00 €"),
        ("shop-020", "$79.98 is not the total."),
        ("shop-020", "$79.98 is wrong"),
        ("shop-020", "$79.98 is definitely not the answer"),
        ("shop-020", "I doubt it's $79.98"),
        ("shop-020", "$79.98 can't be right"),
    ],
)
def test_one_wrong_value_is_wrong_not_correct(question_pages, task_id, answer):
    assert grade(question_pages, task_id, answer) == "wrong"


def test_rewrite_helpers():
    assert reformat("$79.98") == "79.98 dollars" and reformat("done") is None
    assert in_words("ZX-4471-PQ") is None and in_words("3") == "three"
    assert second_candidate("$79.98", "", []) == "eighty dollars"
    assert second_candidate("bob", "Who started it?", []) == "alice"


# ---------------------------------------------------------------------- the batteries
@pytest.mark.parametrize("split", ["train", "test"])
def test_batteries_flag_nothing(split):
    report = audit_env("RewardLab/Web-v2", split=split, batteries=("equivalent", "defective"))
    assert {row.rewrite for row in report.rewrites} == {w.name for w in (*EQUIVALENTS, *DEFECTS)}
    assert all(row.applicable for row in report.rewrites), [r.rewrite for r in report.rewrites if not r.applicable]
    assert not report.flagged, report.format_table()
    assert report.rates()["false_negative"][0] == 0 and report.rates()["defect_acceptance"][0] == 0


def test_the_pronoun_one_is_not_a_number(question_pages):
    assert [v.rendered for v in read_values("the cheapest one costs one dollar").values] == ["1 usd"]
    assert grade(question_pages, "shop-024", "The cheapest one is $57.99.") == "correct"
    assert [v.rendered for v in read_values("3 replies, or possibly one").values] == ["3", "1"]


# ---------------------------------------------------------------------- negation
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("$79.98, not $32.98", "correct"),
        ("The total is $79.98 (not $32.98).", "correct"),
        ("Seventy-nine dollars and ninety-eight cents, not thirty-two dollars.", "correct"),
        ("not $79.98 but $32.98", "wrong"),
        ("It is not $79.98.", "wrong"),
        ("$79.98, not $79.98", "wrong"),
        ("$79.98, not $32.98, or $40.00", "hedged"),
    ],
)
def test_denied_candidates_do_not_compete_and_a_denied_reference_earns_nothing(answer, expected):
    assert grade_answer(answer, ["$79.98"], prompt="What is the total of order 1041?") == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("$79.98, though I can't rule out $32.98", "hedged"),
        ("$79.98, not that $32.98 is impossible", "hedged"),
        ("$79.98 - not that it couldn't be $32.98", "hedged"),
        ("I'm not sure whether it is $79.98 or $32.98", "hedged"),
        ("Probably $79.98; I can't be entirely certain it isn't $32.98", "hedged"),
        ("$79.98, but I don't know if it is $40.00", "hedged"),
        ("$79.98; can't say for certain it's not $32.98", "hedged"),
        ("$79.98? No idea whether it is $32.98", "hedged"),
        ("I can't say it's $32.98; it is $79.98", "correct"),
        ("$79.98, not any other amount such as $32.98", "correct"),
        ("$79.98, not $32.98 or $40.00", "correct"),
        ("$79.98: neither $32.98 nor $40.00", "correct"),
        ("I'm sure: $79.98, not $32.98", "correct"),
        ("$79.98, and there is no doubt it isn't $32.98", "correct"),
    ],
)
def test_a_negation_of_doubt_offers_what_follows_and_a_denial_spans_or(answer, expected):
    """``can't rule out X``, ``not sure … X``, ``not that X is impossible`` offer X (a hedge), where ``not X or Y``
    and ``neither X nor Y`` deny both."""
    assert grade_answer(answer, ["$79.98"], prompt="What is the total of order 1041?") == expected


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6), st.booleans())
def test_x_not_y_affirms_x_only(right, other, in_words):
    if right == other:
        return
    said = spell(other) + " dollars" if in_words else f"${other}"
    assert grade_answer(f"${right}, not {said}", [f"${right}"]) == "correct"
    assert grade_answer(f"not ${right} but {said}", [f"${right}"]) == "wrong"
    assert grade_answer(f"${right} or {said}", [f"${right}"]) == "hedged"


def test_denied_names_do_not_compete(question_pages):
    accepted, prompt, pages = next(q for q in question_pages.values() if "person" in Question.read(*q).kinds)
    named = " ".join([*accepted, prompt]).lower()
    other = next(p for p in DIRECTORY if p.lower() not in named)
    assert grade_answer(f"{accepted[0]}, not {other}", accepted, prompt=prompt, pages=pages) == "correct"
    assert grade_answer(f"not {accepted[0]} but {other}", accepted, prompt=prompt, pages=pages) == "wrong"


@pytest.mark.parametrize("doubt", ["if", "perhaps", "maybe", "possibly", "probably"])
def test_a_negation_of_doubt_offers_a_second_candidate_instead_of_denying_it(doubt):
    from rewardlab.core.negation import affirmed, split_negated

    answer = f"$79.98, {doubt} not $32.98"
    assert split_negated(answer)[1] == "" and "32.98" in affirmed(answer)
    assert split_negated("$79.98, not $32.98")[1] == "not $32.98"
