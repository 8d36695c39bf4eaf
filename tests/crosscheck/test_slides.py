"""Slides crosscheck with real python-pptx and LibreOffice (installed by scripts/setup-libreoffice.sh)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import rewardlab  # noqa: F401 - registers the envs
from rewardlab.crosscheck import cohen_kappa, crosscheck_env, spearman_rho
from rewardlab.crosscheck.answers import answer_set
from rewardlab.crosscheck.grader import family, graders_for
from rewardlab.crosscheck.slides import SlidesLayoutGrader, characters, outside_characters, parse_bbox
from rewardlab.errors import MissingDependencyError

pytest.importorskip("pptx", reason="python-pptx is absent: pip install 'rewardlab[slides]'")

INSTALLED = shutil.which("soffice") is not None and shutil.which("pdftotext") is not None
needs_soffice = pytest.mark.skipif(
    not INSTALLED, reason="LibreOffice (soffice) or pdftotext is absent: run scripts/setup-libreoffice.sh"
)
TASK = "slides-business-pricing-1"


@pytest.fixture(scope="module")
def env():
    env = gym.make("RewardLab/Slides-v2")
    yield env
    env.close()


@pytest.fixture(scope="module")
def oracle_deck(env):
    (oracle,) = answer_set(env, [TASK], kinds=("oracle",))
    return json.loads(oracle.actions[-1])


@pytest.fixture(scope="module")
def grader():
    grader = SlidesLayoutGrader()
    yield grader
    grader.close()


def _play(env, deck):
    env.reset(options={"task_id": TASK})
    action = json.dumps(deck)
    *_, info = env.step(action)
    return action, info


@pytest.mark.slow
@needs_soffice
def test_the_oracle_deck_passes(env, oracle_deck, grader):
    action, info = _play(env, oracle_deck)
    verdict = grader.grade(env.unwrapped, TASK, [action], info)
    assert info["is_success"]
    assert (verdict.success, verdict.score) == (True, 1.0), verdict.detail


@pytest.mark.slow
@needs_soffice
def test_an_overlong_bullet_overflows_its_box(env, oracle_deck, grader):
    deck = json.loads(json.dumps(oracle_deck))
    sentence = "The list price of sixteen dollars per seat has stayed the same for four years while costs rose. "
    long = (sentence * 50)[:4900].strip()
    deck["slides"][1]["bullets"] = [long, long, long]
    action, info = _play(env, deck)
    verdict = grader.grade(env.unwrapped, TASK, [action], info)
    assert verdict.success is False
    assert "slide 2: 'Body' text outside its box" in verdict.detail
    slides = len(deck["slides"])
    assert verdict.score == pytest.approx(1 - 1 / slides)


@pytest.mark.slow
@needs_soffice
def test_an_unusable_answer_is_not_graded_on_an_earlier_deck(env, grader):
    env.reset(options={"task_id": TASK})
    *_, info = env.step("not a deck")
    verdict = grader.grade(env.unwrapped, TASK, ["not a deck"], info)
    assert (verdict.success, verdict.score) == (False, 0.0)
    assert "no .pptx" in verdict.detail


@pytest.mark.slow
@needs_soffice
def test_crosscheck_on_two_test_briefs_explains_every_disagreement():
    report = crosscheck_env("RewardLab/Slides-v2", tasks=["slides-business-pricing-1", "slides-science-exoplanet-2"])
    (layout,) = report.graders
    assert layout.grader == "pptx+libreoffice"
    assert all(r.verdict.success for r in layout.rows if r.answer.kind in ("oracle", "equivalent"))
    defective = [r for r in layout.rows if r.answer.kind == "defective"]
    assert defective and not any(r.answer.is_success for r in defective)
    # well laid-out decks that miss or misplace a key point: the grader cannot see content, we can
    for row in defective:
        if row.verdict.success:
            assert row.disagrees and "in our favour" in row.explanation
    assert all(r.explanation for r in layout.disagreements)
    judged = layout.judged
    ours = [r.answer.is_success for r in judged]
    theirs = [bool(r.verdict.success) for r in judged]
    assert layout.kappa == cohen_kappa(ours, theirs)
    scored = [r for r in layout.rows if r.verdict.score is not None]
    rewards = [r.answer.reward for r in scored]
    scores = [float(r.verdict.score or 0.0) for r in scored]
    assert layout.rho == spearman_rho(rewards, scores)
    assert "| pptx+libreoffice |" in report.format_table()


def test_both_slides_envs_are_registered():
    assert family("RewardLab/SlidesAgent-v2") == "SlidesAgent"
    if INSTALLED:
        for env_id in ("RewardLab/Slides-v2", "RewardLab/SlidesAgent-v2"):
            (grader,) = graders_for(env_id)
            assert isinstance(grader, SlidesLayoutGrader)
            grader.close()


def test_missing_soffice_says_how_to_install(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(MissingDependencyError, match="setup-libreoffice.sh"):
        SlidesLayoutGrader()


def test_characters_outside_a_box_are_counted():
    page = parse_bbox(
        '<page width="960" height="540">'
        '<word xMin="10" yMin="10" xMax="40" yMax="20">Inside</word>'
        '<word xMin="10" yMin="60" xMax="40" yMax="70">below</word>'
        "</page>"
    )[0]
    from rewardlab.crosscheck.slides import TextShape

    shape = TextShape("Body", 0, 0, 100, 50, "Inside below")
    drawn = characters("Inside below")
    assert outside_characters(shape, page, 1.0, drawn) == len("below")
    assert outside_characters(TextShape("Body", 0, 0, 100, 80, "Inside below"), page, 1.0, drawn) == 0


@needs_soffice
def test_the_graders_work_folder_names_this_process_its_owner_and_goes_with_close():
    """The reaper removes a folder whose owner is gone only when a lease sidecar names the owner."""
    from rewardlab.leases import current_lease

    grader = SlidesLayoutGrader()
    folder = grader._dir
    sidecar = Path(f"{folder}.lease")
    assert folder.is_dir() and json.loads(sidecar.read_text())["owner"] == current_lease().owner.token
    grader.close()
    assert not folder.exists() and not sidecar.exists()
