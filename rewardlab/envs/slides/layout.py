"""Layout metrics measured on a rendered python-pptx ``Presentation``.

Shapes, geometry, paragraphs, runs and font sizes are read straight from each slide's XML
(DrawingML), so any .pptx can be measured, not only the ones this package renders.

Each metric is computed per slide and averaged over the slides, but ``fit``, which is the worst slide's
(a deck without slides scores 0):

- ``fit``: for every text shape, ``min(1, available height / needed height)`` with the needed
  height estimated from font metrics (:mod:`~rewardlab.envs.slides.fonts`), the run's font size,
  the box width less insets and indent; tables compare the sum of their rows' needed heights
  (a row needs its tallest cell) with the frame's height. A slide scores its worst shape, and the
  deck its worst slide: text drawn outside its box is unreadable however many other slides fit, so
  a third of one slide's text overflowing costs the deck a third of ``fit``, not a third over the
  number of slides.
- ``fonts``: share of text runs whose size lies in [``MIN_FONT_PT``, ``MAX_FONT_PT``]
  (a run without an explicit size counts as 18 pt, python-pptx's default).
- ``words``: on-slide words ``w`` (notes excluded): 1 when ``w <= MAX_WORDS``, else
  ``max(0, 1 - (w - MAX_WORDS) / MAX_WORDS)``; a content slide (layout ``bullets``, ``table``,
  ``chart`` or ``closing``) whose body holds fewer than ``MIN_BODY_WORDS`` words and no table
  or chart scores 0.
- ``bullets``: paragraphs ``n`` in the ``Body`` shape: 1 when ``n <= MAX_BULLETS``, else
  ``max(0, 1 - (n - MAX_BULLETS) / MAX_BULLETS)``; a ``bullets`` or ``closing`` slide without
  bullets scores 0.
- ``placement``: 1 when every shape lies inside the page and no two shapes overlap (an
  intersection larger than 1% of the smaller shape), else 0.

``layout = mean(fit, fonts, words, bullets, placement)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rewardlab.envs.slides.fonts import text_height_pt

EMU_PER_PT = 12_700
MIN_FONT_PT, MAX_FONT_PT = 14, 48
MAX_WORDS = 60
MIN_BODY_WORDS = 8
MAX_BULLETS = 6
DEFAULT_FONT_PT = 18
LAYOUT_METRICS: tuple[str, ...] = ("fit", "fonts", "words", "bullets", "placement")

_WORD = re.compile(r"\w+")
_BODY_LAYOUTS = frozenset({"bullets", "table", "chart", "closing"})
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_DEFAULT_INSET_X, _DEFAULT_INSET_Y = 91_440, 45_720


def count_words(text: str) -> int:
    """Words as runs of letters/digits; a CJK run without spaces counts one word per 2 characters."""
    total = 0
    for word in _WORD.findall(text):
        wide = sum(1 for c in word if ord(c) >= 0x2E80)
        total += max(1, wide // 2 + (1 if len(word) > wide else 0))
    return total


@dataclass
class _Shape:
    """What the metrics need of one shape, read straight from the slide XML (EMU and pt)."""

    name: str
    left: int
    top: int
    width: int
    height: int
    available: float = 0.0
    need: float = 0.0
    sizes: list[float] = field(default_factory=list)
    text: str = ""
    paragraphs: int = 0
    visual: bool = False


def _run_size(run) -> float:
    r_pr = run.find(f"{_A}rPr")
    size = r_pr.get("sz") if r_pr is not None else None
    return int(size) / 100 if size else DEFAULT_FONT_PT


def _paragraphs_need(body, width_pt: float) -> tuple[float, list[float], list[str]]:
    """(needed height in pt, run sizes, paragraph texts) of an ``a:txBody``-like element."""
    need, sizes, texts = 0.0, [], []
    paragraphs = body.findall(f"{_A}p")
    for i, paragraph in enumerate(paragraphs):
        runs = paragraph.findall(f"{_A}r")
        run_sizes = [_run_size(r) for r in runs]
        text = "".join(
            "\n" if child.tag == f"{_A}br" else child.findtext(f"{_A}t") or ""
            for child in paragraph
            if child.tag in (f"{_A}r", f"{_A}br", f"{_A}fld")
        )
        sizes += [size for size, r in zip(run_sizes, runs, strict=True) if r.findtext(f"{_A}t")]
        size = max(run_sizes, default=DEFAULT_FONT_PT)
        p_pr = paragraph.find(f"{_A}pPr")
        indent = int(p_pr.get("marL", 0)) / EMU_PER_PT if p_pr is not None else 0.0
        need += text_height_pt([text], width_pt - indent, size)
        gap = p_pr.find(f"{_A}spcAft/{_A}spcPts") if p_pr is not None else None
        if gap is not None and i < len(paragraphs) - 1:
            need += int(gap.get("val", 0)) / 100
        texts.append(text)
    return need, sizes, texts


def _read_shape(element) -> _Shape | None:
    tag = element.tag
    if tag == f"{_P}sp":
        xfrm = element.find(f"{_P}spPr/{_A}xfrm")
    elif tag == f"{_P}graphicFrame":
        xfrm = element.find(f"{_P}xfrm")
    elif tag in (f"{_P}pic", f"{_P}cxnSp", f"{_P}grpSp"):
        xfrm = element.find(f"{_P}spPr/{_A}xfrm") if tag != f"{_P}grpSp" else element.find(f"{_P}grpSpPr/{_A}xfrm")
    else:
        return None
    if xfrm is None or xfrm.find(f"{_A}off") is None or xfrm.find(f"{_A}ext") is None:
        return None
    off, ext = xfrm.find(f"{_A}off"), xfrm.find(f"{_A}ext")
    name_el = next(element.iter(f"{_P}cNvPr"), None)
    shape = _Shape(
        name=name_el.get("name", "") if name_el is not None else "",
        left=int(off.get("x", 0)),
        top=int(off.get("y", 0)),
        width=int(ext.get("cx", 0)),
        height=int(ext.get("cy", 0)),
    )
    if tag == f"{_P}sp":
        body = element.find(f"{_P}txBody")
        if body is not None:
            body_pr = body.find(f"{_A}bodyPr")
            get = body_pr.get if body_pr is not None else {}.get
            insets_x = int(get("lIns", _DEFAULT_INSET_X)) + int(get("rIns", _DEFAULT_INSET_X))
            insets_y = int(get("tIns", _DEFAULT_INSET_Y)) + int(get("bIns", _DEFAULT_INSET_Y))
            shape.need, shape.sizes, texts = _paragraphs_need(body, (shape.width - insets_x) / EMU_PER_PT)
            shape.available = (shape.height - insets_y) / EMU_PER_PT
            shape.text = "\n".join(texts)
            shape.paragraphs = sum(1 for t in texts if t.strip())
        return shape
    if tag == f"{_P}graphicFrame":
        table = element.find(f"{_A}graphic/{_A}graphicData/{_A}tbl")
        shape.visual = True
        if table is not None:
            widths = [int(c.get("w", 0)) for c in table.iterfind(f"{_A}tblGrid/{_A}gridCol")]
            cells_text = []
            for row in table.iterfind(f"{_A}tr"):
                row_need = 0.0
                for cell, width in zip(row.iterfind(f"{_A}tc"), widths, strict=False):
                    body = cell.find(f"{_A}txBody")
                    tc_pr = cell.find(f"{_A}tcPr")
                    get = tc_pr.get if tc_pr is not None else {}.get
                    insets_x = int(get("marL", _DEFAULT_INSET_X)) + int(get("marR", _DEFAULT_INSET_X))
                    insets_y = int(get("marT", _DEFAULT_INSET_Y)) + int(get("marB", _DEFAULT_INSET_Y))
                    if body is None:
                        continue
                    need, sizes, texts = _paragraphs_need(body, (width - insets_x) / EMU_PER_PT)
                    row_need = max(row_need, need + insets_y / EMU_PER_PT)
                    shape.sizes += sizes
                    cells_text += texts
                shape.need += row_need
            shape.available = shape.height / EMU_PER_PT
            shape.text = " ".join(cells_text)
    return shape


def _overlap(a: _Shape, b: _Shape) -> bool:
    left, right = max(a.left, b.left), min(a.left + a.width, b.left + b.width)
    top, bottom = max(a.top, b.top), min(a.top + a.height, b.top + b.height)
    if right <= left or bottom <= top:
        return False
    smaller = min(a.width * a.height, b.width * b.height)
    return (right - left) * (bottom - top) > 0.01 * smaller


def slide_metrics(slide, slide_width: int, slide_height: int, layout: str | None = None) -> dict[str, float]:
    """The five layout metrics of one python-pptx slide (see the module docstring)."""
    tree = slide._element.find(f"{_P}cSld/{_P}spTree")
    shapes = [s for s in (_read_shape(e) for e in tree) if s is not None] if tree is not None else []
    fit, runs_in, runs_total, words, body_words, bullets = 1.0, 0, 0, 0, 0, 0
    has_visual = any(s.visual for s in shapes)
    for shape in shapes:
        if shape.need > 0:
            fit = min(fit, min(1.0, max(0.0, shape.available) / shape.need))
        runs_total += len(shape.sizes)
        runs_in += sum(1 for size in shape.sizes if MIN_FONT_PT <= size <= MAX_FONT_PT)
        shape_words = count_words(shape.text)
        words += shape_words
        if shape.name == "Body":
            body_words += shape_words
            bullets = shape.paragraphs
    tolerance = 9_525  # 0.01 inch
    inside = all(
        s.left >= 0
        and s.top >= 0
        and s.left + s.width <= slide_width + tolerance
        and s.top + s.height <= slide_height + tolerance
        for s in shapes
    )
    overlapping = any(_overlap(a, b) for i, a in enumerate(shapes) for b in shapes[i + 1 :])
    words_score = 1.0 if words <= MAX_WORDS else max(0.0, 1.0 - (words - MAX_WORDS) / MAX_WORDS)
    if layout in _BODY_LAYOUTS and body_words < MIN_BODY_WORDS and not has_visual:
        words_score = 0.0
    bullets_score = 1.0 if bullets <= MAX_BULLETS else max(0.0, 1.0 - (bullets - MAX_BULLETS) / MAX_BULLETS)
    if layout in ("bullets", "closing") and bullets == 0:
        bullets_score = 0.0
    return {
        "fit": fit,
        "fonts": runs_in / runs_total if runs_total else 1.0,
        "words": words_score,
        "bullets": bullets_score,
        "placement": float(inside and not overlapping),
    }


def layout_metrics(prs, layouts: Sequence[str] | None = None) -> dict[str, float]:
    """Deck-level layout metrics: each slide metric averaged over slides (``fit``: its minimum), plus
    ``layout`` (their mean).

    ``layouts`` names each slide's deck layout (``bullets``, ``title`` ...) so that empty content
    slides can be recognised; without it only the page itself is measured.
    """
    slides = list(prs.slides)
    if not slides:
        return {name: 0.0 for name in (*LAYOUT_METRICS, "layout")}
    totals = dict.fromkeys(LAYOUT_METRICS, 0.0)
    worst_fit = 1.0
    for i, slide in enumerate(slides):
        layout = layouts[i] if layouts is not None and i < len(layouts) else None
        for name, value in slide_metrics(slide, prs.slide_width, prs.slide_height, layout).items():
            totals[name] += value
            if name == "fit":
                worst_fit = min(worst_fit, value)
    metrics = {name: total / len(slides) for name, total in totals.items()}
    metrics["fit"] = worst_fit
    metrics["layout"] = sum(metrics.values()) / len(LAYOUT_METRICS)
    return metrics
