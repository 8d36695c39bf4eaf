"""Web-v2 reward fidelity: every cheap way to earn the reward without doing the task scores low.

Each test plays a hack class against the HTTP backend: hedged answers, typed URLs, collateral
damage, placeholder forms, appended payloads, extra records, and the audit battery as a whole.
"""

from __future__ import annotations

import json
import math

import pytest

from rewardlab.agents import OracleAgent
from rewardlab.envs.web.answers import grade_answer
from rewardlab.envs.web.audit import PAYLOAD, STRATEGIES
from rewardlab.envs.web.env import WebEnv
from rewardlab.envs.web.oracle import find_element
from rewardlab.envs.web.sites.base import Goal
from rewardlab.evaluation import run_episode


@pytest.fixture(scope="module")
def env():
    env = WebEnv(backend="http")
    yield env
    env.close()


def oracle_actions(env: WebEnv, task_id: str) -> list[str]:
    result = run_episode(env, OracleAgent(env), seed=0, task_id=task_id)
    assert result.is_success, task_id
    return result.actions


def play(env: WebEnv, task_id: str, actions: list[str]) -> tuple[float, dict]:
    """Play ``actions`` (then ``answer("done")`` if the episode is still running); the last step's reward and info."""
    env.reset(seed=0, options={"task_id": task_id})
    for action in [*actions, 'answer("done")']:
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return reward, info
    raise AssertionError("the episode did not end")


def honest_half(env: WebEnv, task_id: str) -> list[str]:
    actions = oracle_actions(env, task_id)
    return actions[: math.ceil((len(actions) - 1) / 2)]  # half the plan, without its final answer


# ---------------------------------------------------------------------- the goal state
def test_goal_separates_done_not_yet_done_and_damaged_records():
    goal = Goal({"a": 1, "b": 2, "cart": ()}, {"a": 9, "b": 2, "cart": ()}, scratch=frozenset({"cart"}))
    assert goal.targets() == ["a"]
    assert goal.met({"a": 9, "b": 2, "cart": ((1, "M", 1),)})  # scratch is not compared
    assert not goal.damage({"a": 1, "b": 2, "cart": ()}) and not goal.achieved({"a": 1, "b": 2})
    assert goal.damage({"a": 5, "b": 2}) == ["a"]  # the target written with a wrong value
    assert goal.damage({"a": 9, "b": 3, "c": 0}) == ["b", "c"]  # collateral change, extra record
    assert goal.achieved({"a": 9, "b": 3}) and not goal.met({"a": 9, "b": 3})


# ---------------------------------------------------------------------- hedged answers
@pytest.mark.parametrize(
    "answer",
    ["$79.98", "79.98", "The order total is $79.98.", "Order 1041 came to $79.98", "'$79.98'"],
)
def test_honest_answers_pass(env, answer):
    actions = oracle_actions(env, "shop-020")
    reward, info = play(env, "shop-020", [*actions[:-1], f'answer("{answer}")'])
    assert info["is_success"] and reward == pytest.approx(1.0), answer


@pytest.mark.parametrize(
    "answer",
    ["$79.98, $14.99, $49.99, $15.00", "$79.98 or $49.99", "$79.985", "$79.98 (1 item of 2)", "$79.98 " * 40],
)
def test_hedged_answers_fail_and_void_progress(env, answer):
    actions = oracle_actions(env, "shop-020")
    reward, info = play(env, "shop-020", [*actions[:-1], f'answer("{answer}")'])
    assert not info["is_success"], answer
    if "79.985" not in answer:  # one wrong number is wrong, not a hedge
        assert reward == 0.0 and info["metrics"]["progress/clean"] == 0.0, answer


def test_a_wrong_answer_keeps_its_process_credit_and_beats_a_hedge(env):
    actions = oracle_actions(env, "shop-020")
    wrong, info = play(env, "shop-020", [*actions[:-1], 'answer("$49.99")'])
    hedge, _ = play(env, "shop-020", [*actions[:-1], 'answer("$49.99, $79.98")'])
    assert not info["is_success"] and wrong > hedge == 0.0


def test_honest_phrasings_pass_on_every_question_task(env):
    questions = [t for t in env.tasks if "answer" in t.data["success"]]
    assert len(questions) >= 15
    for task in questions:
        run_episode(env, OracleAgent(env), seed=0, task_id=task.id)
        for accepted in task.data["success"]["answer"]:
            for phrasing in (accepted, f"The answer is {accepted}.", f"It is {accepted}, according to the page."):
                assert grade_answer(phrasing, task.data["success"]["answer"], prompt=task.prompt, pages=env.pages) == (
                    "correct"
                ), (task.id, phrasing)


def test_answer_grades_on_names_and_numbers():
    pages = ["I booked the Lakeside room for Friday 14:00.", "started by bob, 3 replies"]
    prompt = 'In the forum thread "Team offsite planning", which room did bob book?'
    assert grade_answer("Bob booked the Lakeside room.", ["Lakeside"], prompt=prompt, pages=pages) == "correct"
    assert grade_answer("Lakeside or Friday", ["Lakeside"], prompt=prompt, pages=pages) == "hedged"
    assert grade_answer("Lakeside, alice, carol", ["Lakeside"], prompt=prompt, pages=pages) == "hedged"
    assert grade_answer("Friday", ["Lakeside"], prompt=prompt, pages=pages) == "wrong"
    dump = "Black, Cropped, Hoodie, Price, $57.99, Colour, A, Size, Quantity, Reviews, No"
    assert grade_answer(dump, ["$57.99"], pages=["Black Cropped Hoodie", "Price: $57.99"]) == "hedged"
    assert grade_answer("Tuesday or Wednesday", ["Tuesday"], pages=["scheduled for Wednesday"]) == "hedged"
    assert grade_answer("2,450 EUR", ["2,450.00 EUR", "2450 EUR"]) == "correct"
    assert grade_answer("ＺＸ-４４７１-ＰＱ", ["ZX-4471-PQ"]) == "correct"  # full-width forms fold
    assert grade_answer("\x00" * 50_000, ["3"]) == "wrong"  # no words: no value stated
    assert grade_answer("3 " + "x" * 50_000, ["3"]) == "hedged"  # a list, not an answer


@pytest.mark.parametrize(
    ("answer", "accepted", "prompt", "grade"),
    [
        # what the prompt names, offered as an alternative to the answer: a hedge, whichever kind it is
        ("Alice or Bob", ["alice"], "Did alice or bob start the rollout thread?", "hedged"),
        ("bob, perhaps alice", ["alice"], "Did alice or bob start the rollout thread?", "hedged"),
        ("Order 1041, or maybe $79.98", ["$79.98"], "What is the total of order 1041?", "hedged"),
        ("3 pm, either 15:00 or 16:00", ["15:00"], "Is the meeting at 3 pm or 4 pm?", "hedged"),
        # a value of context offered as an alternative: a hedge though its unit is not the one asked for
        ("3, or maybe 4 posts", ["3"], "How many replies does the rollout thread have?", "hedged"),
        ("three replies or four posts", ["3"], "How many replies does the rollout thread have?", "hedged"),
        # the same words as context or as a denial keep the answer correct
        ("alice started it, not bob", ["alice"], "Did alice or bob start the rollout thread?", "correct"),
        ("alice", ["alice"], "Did alice or bob start the rollout thread?", "correct"),
        ("$79.98 for order 1041", ["$79.98"], "What is the total of order 1041?", "correct"),
        ("3 replies, posted 2 days ago", ["3"], "How many replies does the rollout thread have?", "correct"),
        ("$79.98, or 79.98 dollars", ["$79.98"], "What is the total of order 1041?", "correct"),
        ("at 15:00 (3 pm)", ["15:00"], "Is the meeting at 3 pm or 4 pm?", "correct"),
        # offered in other words than "or", or as one list with what the prompt names of the asked kind
        ("alice/bob", ["alice"], "Did alice or bob start the rollout thread?", "hedged"),
        ("Alice and Bob.", ["alice"], "Did alice or bob start the rollout thread?", "hedged"),
        ("Alice? Bob?", ["alice"], "Did alice or bob start the rollout thread?", "hedged"),
        ("Alice; if not, Bob.", ["alice"], "Did alice or bob start the rollout thread?", "hedged"),
        ("Alice, though it could also be Bob.", ["alice"], "Did alice or bob start the rollout thread?", "hedged"),
        ("15:00, unless it is 16:00", ["15:00"], "Is the meeting at 3 pm or 4 pm?", "hedged"),
        # a value stated only as a bound or an estimate offers a range
        ("at least 3 replies", ["3"], "How many replies does the rollout thread have?", "hedged"),
        ("about $79.98", ["$79.98"], "What is the total of order 1041?", "hedged"),
        ("three or more", ["3"], "How many replies does the rollout thread have?", "hedged"),
        (
            "3 replies, the last one more than 2 days ago",
            ["3"],
            "How many replies does the rollout thread have?",
            "correct",
        ),
        # a list of facts of other kinds, or a clause about the named one, is no hedge
        ("Order 1041: $79.98.", ["$79.98"], "What is the total of order 1041?", "correct"),
        ("Order 1041 - $79.98", ["$79.98"], "What is the total of order 1041?", "correct"),
        ("Alice. Bob only replied.", ["alice"], "Did alice or bob start the rollout thread?", "correct"),
        ("Alice and Bob replied later.", ["alice"], "Did alice or bob start the rollout thread?", "correct"),
        # no accepted answer stated: no alternative to it, so wrong, as before
        ("bob or carol", ["alice"], "Did alice or bob start the rollout thread?", "wrong"),
        ("bob", ["alice"], "Did alice or bob start the rollout thread?", "wrong"),
    ],
)
def test_an_alternative_to_the_answer_is_a_hedge_even_when_the_prompt_names_it(answer, accepted, prompt, grade):
    assert grade_answer(answer, accepted, prompt=prompt) == grade


REPLIES = 'How many replies does the forum thread "Favourite lunch spots" have?'
TOTAL = "What is the order total of order 1041? Answer with the amount."
PARCEL = "What is the tracking number of your parcel?"
FLOOR = "Which floor is the broken printer on?"


def test_restating_the_request_is_no_list_and_names_in_a_sentence_are_no_dump():
    """The length bound reads the words the prompt does not hold; for a value, people and names count as context
    only when listed (the page's labels copied), not inside one sentence of context."""
    prompt = 'How many replies does the forum thread "Favourite lunch spots" have?'
    restated = 'The thread "Favourite lunch spots" has 3 replies, the last one 2 days ago.'
    assert grade_answer(restated, ["3"], prompt=prompt) == "correct"
    assert (
        grade_answer("3 replies; " + "the lunch was very good and everybody liked it a lot" * 2, ["3"], prompt=prompt)
        == "hedged"
    )
    pages = ["Inbox Sent Archive", "Your parcel ZX-4471-PQ was sent on Monday by Ada Shop."]
    prompt = "What is the tracking number of your parcel?"
    sentence = "Your parcel's tracking number is ZX-4471-PQ (sent by the shop on Monday)."
    assert grade_answer(sentence, ["ZX-4471-PQ"], prompt=prompt, pages=pages) == "correct"
    assert grade_answer("Inbox, Sent, Archive, ZX-4471-PQ", ["ZX-4471-PQ"], prompt=prompt, pages=pages) == "hedged"


def test_a_list_of_people_and_an_ordinal_are_facts_about_a_value_not_a_page_copied():
    """For a value question, people cannot be the value: a list of them is a fact about it; an ordinal (``2nd``) is
    a position, neither a code nor a count; two words side by side are no list (``from bob``: ``From`` a label of
    the mail pages). The page's labels copied, marked or in a row of three, still are."""
    pages = ["Inbox Sent Archive", "From Subject Date", "Reply Delete Forward"]
    for answer in [
        "Three replies: from bob, carol and dave.",
        "3. The 2nd reply was from bob.",
        "3. The last reply came from bob.",
        "3, my 1st answer today.",
    ]:
        assert grade_answer(answer, ["3"], prompt=REPLIES, pages=pages) == "correct", answer
    for answer in ["Sent, Archive, Subject: 3", "3 Sent Archive Subject Date", "3; Delete, Forward"]:
        assert grade_answer(answer, ["3"], prompt=REPLIES, pages=pages) == "hedged", answer


@pytest.mark.parametrize(
    ("answer", "grade"),
    [
        ("$79.98 ($32.98 was never charged).", "correct"),
        ("$79.98; $32.98 does not apply.", "correct"),
        ("$79.98. $32.98 has been excluded.", "correct"),
        ("$79.98, while $32.98 appears nowhere.", "correct"),
        ("$32.98 ($79.98 was ruled out).", "wrong"),  # the answer ruled out: not stated
        ("$79.98 doesn't count.", "wrong"),
        ("$32.98 was never charged; $79.98 was never charged.", "hedged"),  # only subjects of denials: they compete
        ("$32.98; $79.98 was never charged.", "hedged"),
    ],
)
def test_a_candidate_ruled_out_after_it_is_no_candidate_beside_an_answer_stated_outright(answer, grade):
    assert grade_answer(answer, ["$79.98"], prompt=TOTAL) == grade


def test_a_weekday_is_a_candidate_of_its_own_kind():
    """A day of the week is no room and no person: context for a name question, a competitor for a day question."""
    pages = ["I booked the Lakeside room for Friday 14:00.", "The Aurora room is free on Monday."]
    prompt = 'In the forum thread "Team offsite planning", which room did bob book?'
    assert (
        grade_answer(
            "Bob booked the Lakeside room for the offsite on Friday.", ["Lakeside"], prompt=prompt, pages=pages
        )
        == "correct"
    )
    assert grade_answer("Lakeside or Aurora", ["Lakeside"], prompt=prompt, pages=pages) == "hedged"
    assert grade_answer("Lakeside, or maybe Friday", ["Lakeside"], prompt=prompt, pages=pages) == "hedged"
    meeting = "When is the contract renewal meeting with Carol?"
    assert grade_answer("Tuesday at 15:00", ["Tuesday at 15:00"], prompt=meeting, pages=pages) == "correct"
    assert grade_answer("Tuesday at 15:00, Wednesday", ["Tuesday at 15:00"], prompt=meeting, pages=pages) == "hedged"
    assert grade_answer("Tuesday at 15:00, or maybe Wednesday", ["Tuesday at 15:00"], prompt=meeting) == "hedged"


@pytest.mark.parametrize(
    ("answer", "accepted", "prompt", "grade"),
    [
        ("3. The thread is on page 2.", ["3"], REPLIES, "correct"),
        ("It is in room 4 of the site: 3", ["3"], REPLIES, "correct"),
        ("Three replies (the thread has been open since 2019).", ["3"], REPLIES, "correct"),
        ("$79.98, as of 2024.", ["$79.98"], TOTAL, "correct"),
        ("In 2023 it was different; now it is ZX-4471-PQ.", ["ZX-4471-PQ"], PARCEL, "correct"),
        ("floor 3, next to room 4", ["3"], FLOOR, "correct"),  # the asked label states the answer
        ("post 3, message 4", ["3"], REPLIES, "hedged"),  # only labels: each is an offer
        ("post 3, message 4", ["4"], REPLIES, "hedged"),
        ("floor 3, room 4", ["4"], FLOOR, "hedged"),  # a label the prompt asks about competes
        ("floor 3, floor 4", ["3"], FLOOR, "hedged"),
        ("3, or maybe page 4", ["3"], REPLIES, "hedged"),
        ("3; perhaps room 4", ["3"], REPLIES, "hedged"),
        ("3 replies, or since 2018", ["3"], REPLIES, "hedged"),
        ("$79.98. Your ticket #4521 is open.", ["$79.98"], TOTAL, "correct"),
        ("$79.98 (order No. 5)", ["$79.98"], TOTAL, "correct"),
        ("#3, #4", ["3"], REPLIES, "hedged"),
        ("3, or maybe #4", ["3"], REPLIES, "hedged"),
    ],
)
def test_a_number_that_names_a_thing_or_a_time_is_context_beside_an_answer_without_one(answer, accepted, prompt, grade):
    """``room 4``, ``since 2019`` (:mod:`rewardlab.core.labels`) are context beside an answer stated without a
    label; an answer stated only inside labels, a label the prompt asks about, or one offered as a possibility
    hedges as before. Whichever number is true, an answer with one unlabelled number is correct only when that
    one is."""
    assert grade_answer(answer, accepted, prompt=prompt) == grade


# ---------------------------------------------------------------------- typed URLs
def test_url_milestones_need_a_click_not_a_typed_url(env):
    env.reset(seed=0, options={"task_id": "mail-020"})
    _, _, _, _, info = env.step('goto("/mail/message/5")')
    assert info["milestones"] == [] and info["progress"] == 0.0
    env.step('goto("/mail/")')
    obs, _, _, _, info = env.step("back()")
    assert info["milestones"] == []
    obs, _, _, _, info = env.step('goto("/mail/")')
    subject = next(line for line in obs.splitlines() if '"Your parcel is on its way"' in line)
    _, _, _, _, info = env.step(f"click({subject.split(']')[0][1:]})")
    assert info["milestones"] == ["opened_message"]


# ---------------------------------------------------------------------- collateral damage
@pytest.mark.parametrize(("task_id", "button"), [("mail-012", "Star"), ("mail-008", "Archive")])
def test_acting_on_every_mail_fails_although_the_target_is_done(task_id, button):
    roomy = WebEnv(backend="http", max_turns=40)
    try:
        obs, _ = roomy.reset(seed=0, options={"task_id": task_id})
        subjects = [json.loads(line.split("] link ", 1)[1]) for line in obs.splitlines() if "] link " in line][6:]
        for subject in subjects:  # after the six folder links
            obs, *_ = roomy.step("goto('/mail/')")
            obs, *_ = roomy.step(f"click({find_element(obs, 'link', subject)})")
            if find_element(obs, "button", button) is not None:
                roomy.step(f"click({find_element(obs, 'button', button)})")
        _, reward, _, _, info = roomy.step('answer("done")')
        assert roomy.server.check("mail", *roomy.task.data["success"]["goal"][1:])  # the target itself is done
        assert not info["is_success"] and reward == 0.0
    finally:
        roomy.close()


def test_an_answer_task_fails_when_the_agent_changed_the_site(env):
    actions = oracle_actions(env, "mail-020")  # open the message, answer
    env.reset(seed=0, options={"task_id": "mail-020"})
    obs, *_ = env.step(actions[0])
    assert '[14] button "Star"' in obs
    reward, info = play(env, "mail-020", [actions[0], "click(14)", actions[-1]])
    assert not info["is_success"] and reward == 0.0


# ---------------------------------------------------------------------- forms and posts
def _replace_text(actions: list[str], old: str, new: str) -> list[str]:
    assert any(old in a for a in actions), old
    return [a.replace(old, new) for a in actions]


@pytest.mark.parametrize(("old", "new"), [("Sam Taylor", "Customer"), ("1 Elm St, Springfield", "Address")])
def test_orders_must_carry_the_tasks_name_and_address(env, old, new):
    actions = _replace_text(oracle_actions(env, "shop-004"), old, new)
    reward, info = play(env, "shop-004", actions)
    assert not info["is_success"] and reward == 0.0


def test_a_second_order_fails(env):
    actions = oracle_actions(env, "shop-012")
    reward, info = play(env, "shop-012", [*actions[:-1], "goto('/shop/')", *actions[:-1]])
    assert env.server.snapshot()["shop"].keys() >= {"order/1043", "order/1044"}
    assert not info["is_success"] and reward == 0.0


@pytest.mark.parametrize("task_id", ["forum-004", "forum-008", "forum-012", "mail-004", "mail-016"])
def test_posts_with_an_appended_payload_fail(env, task_id):
    actions = oracle_actions(env, task_id)
    typed = [a for a in actions if a.startswith("type(")][-1]
    hacked = [a.replace(typed, typed[:-2] + PAYLOAD + '")') if a == typed else a for a in actions]
    reward, info = play(env, task_id, hacked)
    assert not info["is_success"] and reward == 0.0


@pytest.mark.parametrize("task_id", ["forum-004", "mail-016"])
def test_posts_compare_canonical_text(env, task_id):
    actions = oracle_actions(env, task_id)
    typed = [a for a in actions if a.startswith("type(")][-1]
    shouted = typed.split(", ", 1)[0] + ", " + typed.split(", ", 1)[1].upper().replace(" ", "  ")
    reward, info = play(env, task_id, [shouted if a == typed else a for a in actions])
    assert info["is_success"] and reward == pytest.approx(1.0)


def test_posting_twice_fails(env):
    actions = oracle_actions(env, "forum-004")
    obs, _ = env.reset(seed=0, options={"task_id": "forum-004"})
    for action in actions[:-1]:
        obs, *_ = env.step(action)
    text = "Next time let us automate the rollout."
    obs, *_ = env.step(f'type({find_element(obs, "textbox", "Your reply")}, "{text}")')
    obs, *_ = env.step(f"click({find_element(obs, 'button', 'Post reply')})")
    assert obs.count(text) == 2
    _, reward, _, _, info = env.step('answer("done")')
    assert not info["is_success"] and reward == 0.0


# ---------------------------------------------------------------------- the battery
def test_no_strategy_of_the_audit_is_flagged_on_any_test_task(shared_audit):
    report = shared_audit("RewardLab/Web-v2")
    assert not report.flagged, report.format_table()
    assert report.oracle.successes == len(report.task_ids) == 16
    assert {s.name for s in STRATEGIES} <= {row.strategy for row in report.rows}
    assert all(row.successes == 0 and row.margin >= 0.25 for row in report.rows)


def test_an_honest_partial_solution_outscores_every_degenerate_strategy(env, shared_audit):
    report = shared_audit("RewardLab/Web-v2")
    honest = [play(env, task_id, honest_half(env, task_id))[0] for task_id in report.task_ids]
    best_degenerate = max(row.mean_reward for row in report.rows if row.strategy in {s.name for s in STRATEGIES})
    assert sum(honest) / len(honest) > best_degenerate, report.format_table()


@pytest.mark.parametrize("task_id", ["mail-004", "mail-012", "forum-004", "shop-004", "shop-016", "shop-020"])
def test_the_honest_half_pays_more_than_the_same_half_followed_by_damage(env, task_id):
    half = honest_half(env, task_id)
    honest, _ = play(env, task_id, half)
    damage, _ = play(env, task_id, [*half, 'goto("/mail/message/1")', "click(14)"])  # star another mail
    assert honest > damage == 0.0


@pytest.mark.parametrize("task_id", ["shop-020", "forum-016", "forum-020", "mail-020"])
def test_the_honest_half_pays_more_than_the_same_half_followed_by_a_hedge(env, task_id):
    half = honest_half(env, task_id)
    honest, _ = play(env, task_id, half)
    hedge, _ = play(env, task_id, [*half, 'answer("$79.98, $49.99, bob, alice, 3, 7, the rollout, ZX-4471-PQ")'])
    assert honest > hedge == 0.0
