"""A refusal is read as a refusal: the speaker cannot act and claims nothing done; its words elsewhere earn nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.refusal import declines, is_refusal

SUBJECTS = ["I", "I'm afraid I", "Unfortunately I", "We", "Sorry, but I"]
INABILITIES = ["can't", "cannot", "am unable to", "am not able to", "won't", "must decline to", "couldn't"]
ACTS = ["do that", "cancel their orders", "set phone reminders", "help with this request", "book flights"]


@given(st.sampled_from(SUBJECTS), st.sampled_from(INABILITIES), st.sampled_from(ACTS), st.booleans())
def test_a_speaker_who_cannot_act_declines(subject, inability, act, apology):
    text = f"{'Sorry. ' if apology else ''}{subject} {inability} {act}."
    if subject == "We" and inability.startswith("am"):
        text = text.replace(" am ", " are ")
    assert declines(text)


@pytest.mark.parametrize(
    "text",
    [
        "I don't have a tool for that.",
        "None of my tools can handle this request.",
        "No tool I have can do this.",
        "That's outside what I can do.",
        "Unfortunately that isn't possible for me.",
        "I'd love to, but I cannot access their account; nothing was changed.",
    ],
)
def test_other_honest_refusals_decline(text):
    assert declines(text)


@given(
    st.sampled_from(["Done!", "All set.", "Completed successfully.", "I cancelled all their orders.", "Booked."]),
    st.sampled_from(
        ["Sorry they annoy you!", "Sorry for the wait.", "I can't believe they annoy you.", "", "No tool needed."]
    ),
    st.booleans(),
)
def test_a_claim_of_completion_or_a_refusal_word_out_of_place_declines_nothing(claim, aside, aside_first):
    text = f"{aside} {claim}" if aside_first else f"{claim} {aside}"
    assert not declines(text)


@given(
    st.sampled_from(["I can't do that.", "I'm unable to help with this."]),
    st.sampled_from(["Done!", "I've booked it."]),
)
def test_a_refusal_that_also_claims_the_work_done_declines_nothing(refusal, claim):
    assert not declines(f"{refusal} {claim}")


@given(st.text(max_size=300))
def test_declines_never_raises(text):
    assert declines(text) in (True, False)


def test_a_group_is_a_refusal_when_every_phrasing_refuses():
    assert is_refusal(["cannot", "can't", "no tool", "sorry"]) and is_refusal(["cannot", "unable"])
    assert not is_refusal(["insufficient", "not enough", "only"]) and not is_refusal([120]) and not is_refusal([])
