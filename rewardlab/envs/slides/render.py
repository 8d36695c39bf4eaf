"""Render a :class:`~rewardlab.envs.slides.schema.Deck` to a real .pptx with python-pptx.

Every slide uses the blank layout of python-pptx's default template on a 16:9 page
(13.333 × 7.5 in) and gets named shapes: ``Title``, ``Subtitle``, ``Body`` (the bullets),
``Table`` and ``Chart``. Text is Arial. The geometry is a vertical flow, as a template would do:

- ``title``: title (40 pt) and subtitle (24 pt) centred on the page; ``section``: one title.
- ``bullets``/``closing``: title bar (32 pt) and a body box filling the rest of the page.
- ``table``/``chart``: the bullets box takes the height its text needs, the visual the rest of
  the page but at least ``MIN_VISUAL_HEIGHT``; when the bullets need more room than that leaves,
  the visual is pushed up over them (the layout metric sees the overlap).

Text shrinks on overflow like PowerPoint's "shrink text on overflow": the font steps down
2 pt at a time from the layout's size until the text fits its box (estimated with
:mod:`~rewardlab.envs.slides.fonts`), and stops at ``MIN_RENDER_PT``; text that still does not
fit overflows its box. Speaker notes go to each slide's notes page (``notes=True``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from rewardlab.envs.slides.fonts import FONT_NAME, text_height_pt
from rewardlab.envs.slides.schema import Chart, Deck, Slide, Table, clean_text
from rewardlab.errors import require

EMU_PER_INCH = 914_400
EMU_PER_PT = 12_700
SLIDE_WIDTH_IN = 13.333
SLIDE_HEIGHT_IN = 7.5
MARGIN_IN = 0.6
TITLE_TOP_IN, TITLE_HEIGHT_IN = 0.35, 1.15
BODY_TOP_IN, BODY_BOTTOM_IN = 1.7, 7.0
MIN_VISUAL_HEIGHT_IN = 2.4
GAP_IN = 0.15
INSET_X_IN, INSET_Y_IN = 0.1, 0.05
"""python-pptx text boxes keep 0.1 in left/right and 0.05 in top/bottom insets."""
BULLET_INDENT_IN = 0.3
PARAGRAPH_GAP_EM = 0.3
MIN_RENDER_PT = 8

TITLE_PAGE_PT, SUBTITLE_PT, TITLE_PT, BODY_PT, CELL_PT = 40, 24, 32, 24, 16


_NSDECLS = (
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
)


def _runs(text: str, size: int, bold: bool) -> str:
    """DrawingML runs of one paragraph: Arial at ``size``, a line break (``a:br``) per newline."""
    weight = ' b="1"' if bold else ""
    props = f'<a:rPr lang="en-US" sz="{size * 100}"{weight} dirty="0"><a:latin typeface="{FONT_NAME}"/></a:rPr>'
    runs = [f"<a:r>{props}<a:t>{escape(line)}</a:t></a:r>" for line in clean_text(text).split("\n")]
    return f"<a:br>{props}</a:br>".join(runs)


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    width: float
    height: float
    """Inches."""


def fit_font(paragraphs: list[str], box: Box, size: int, *, indent_in: float = 0.0) -> int:
    """The largest size in ``size, size-2, ...`` down to ``MIN_RENDER_PT`` at which the text fits ``box``."""
    width = (box.width - 2 * INSET_X_IN - indent_in) * 72
    height = (box.height - 2 * INSET_Y_IN) * 72
    while size > MIN_RENDER_PT:
        if text_height_pt(paragraphs, width, size, paragraph_gap=PARAGRAPH_GAP_EM) <= height:
            return size
        size -= 2
    return MIN_RENDER_PT


def bullets_height_in(bullets: tuple[str, ...], width_in: float, size: int) -> float:
    """Height a bullets box needs at ``size``, insets included."""
    width = (width_in - 2 * INSET_X_IN - BULLET_INDENT_IN) * 72
    return text_height_pt(list(bullets), width, size, paragraph_gap=PARAGRAPH_GAP_EM) / 72 + 2 * INSET_Y_IN


class DeckRenderer:
    """Builds python-pptx presentations; the import of python-pptx happens once, on first use."""

    def __init__(self) -> None:
        require("pptx", "slides")
        from pptx import Presentation
        from pptx.chart.data import CategoryChartData
        from pptx.enum.chart import XL_CHART_TYPE
        from pptx.oxml import parse_xml
        from pptx.util import Emu

        self._presentation = Presentation
        self._length = Emu
        self._chart_data = CategoryChartData
        self._chart_types = {
            "bar": XL_CHART_TYPE.BAR_CLUSTERED,
            "column": XL_CHART_TYPE.COLUMN_CLUSTERED,
            "line": XL_CHART_TYPE.LINE_MARKERS,
            "pie": XL_CHART_TYPE.PIE,
        }
        self._parse_xml = parse_xml

    def render(self, deck: Deck, *, notes: bool = True):  # -> pptx.presentation.Presentation
        """The deck as a python-pptx ``Presentation`` (not yet saved)."""
        prs = self._presentation()
        prs.slide_width = self._length(round(SLIDE_WIDTH_IN * EMU_PER_INCH))
        prs.slide_height = self._length(round(SLIDE_HEIGHT_IN * EMU_PER_INCH))
        prs.core_properties.title = deck.title[:250]
        blank = prs.slide_layouts[6]
        for spec in deck.slides:
            slide = prs.slides.add_slide(blank)
            self._fill(slide, spec)
            if notes and spec.notes:
                slide.notes_slide.notes_text_frame.text = spec.notes
        return prs

    def to_bytes(self, deck: Deck) -> bytes:
        """The deck as .pptx file bytes, rendered in memory."""
        buffer = io.BytesIO()
        self.render(deck).save(buffer)
        return buffer.getvalue()

    def save(self, prs, path: str | Path) -> Path:
        """Write a rendered presentation to ``path`` and return it."""
        path = Path(path)
        prs.save(str(path))
        return path

    # ------------------------------------------------------------------ slides
    def _fill(self, slide, spec: Slide) -> None:
        width = SLIDE_WIDTH_IN - 2 * MARGIN_IN
        if spec.layout == "title":
            self._text(slide, "Title", [spec.title], Box(MARGIN_IN, 2.2, width, 1.6), TITLE_PAGE_PT, bold=True)
            self._text(slide, "Subtitle", [spec.subtitle], Box(MARGIN_IN, 3.9, width, 1.0), SUBTITLE_PT)
            if spec.bullets:
                self._bullets(slide, spec.bullets, Box(MARGIN_IN, 5.0, width, 2.0), SUBTITLE_PT)
            return
        if spec.layout == "section":
            self._text(slide, "Title", [spec.title], Box(MARGIN_IN, 2.8, width, 1.6), TITLE_PAGE_PT, bold=True)
            if spec.bullets:
                self._bullets(slide, spec.bullets, Box(MARGIN_IN, 4.5, width, 2.5), BODY_PT)
            return
        self._text(
            slide, "Title", [spec.title], Box(MARGIN_IN, TITLE_TOP_IN, width, TITLE_HEIGHT_IN), TITLE_PT, bold=True
        )
        area = BODY_BOTTOM_IN - BODY_TOP_IN
        has_visual = spec.table is not None or spec.chart is not None
        if not has_visual:
            if spec.bullets:
                self._bullets(slide, spec.bullets, Box(MARGIN_IN, BODY_TOP_IN, width, area), BODY_PT)
            return
        bullets_h = min(area, bullets_height_in(spec.bullets, width, BODY_PT)) if spec.bullets else 0.0
        if spec.bullets:
            self._bullets(slide, spec.bullets, Box(MARGIN_IN, BODY_TOP_IN, width, bullets_h), BODY_PT)
        top = BODY_TOP_IN + (bullets_h + GAP_IN if spec.bullets else 0.0)
        top = min(top, BODY_BOTTOM_IN - MIN_VISUAL_HEIGHT_IN)
        visual = Box(MARGIN_IN, top, width, BODY_BOTTOM_IN - top)
        if spec.table is not None:
            self._table(slide, spec.table, visual)
        elif spec.chart is not None:
            self._chart(slide, spec.chart, visual)

    def _emu(self, box: Box) -> tuple[int, int, int, int]:
        left, top, width, height = (round(v * EMU_PER_INCH) for v in (box.left, box.top, box.width, box.height))
        return left, top, width, height

    def _text(self, slide, name: str, paragraphs: list[str], box: Box, size: int, *, bold: bool = False) -> None:
        size = fit_font(paragraphs, box, size)
        body = "".join(
            f'<a:p><a:pPr algn="ctr"/>{_runs(text, size, bold)}<a:endParaRPr lang="en-US" sz="{size * 100}"/></a:p>'
            for text in paragraphs
        )
        self._add_textbox(slide, name, box, body)

    def _bullets(self, slide, bullets: tuple[str, ...], box: Box, size: int) -> None:
        size = fit_font(list(bullets), box, size, indent_in=BULLET_INDENT_IN)
        indent = round(BULLET_INDENT_IN * EMU_PER_INCH)
        gap = round(PARAGRAPH_GAP_EM * size) * 100
        body = "".join(
            f'<a:p><a:pPr marL="{indent}" indent="{-indent}"><a:spcAft><a:spcPts val="{gap}"/></a:spcAft>'
            f'<a:buChar char="\u2022"/></a:pPr>{_runs(text, size, False)}</a:p>'
            for text in bullets
        )
        self._add_textbox(slide, "Body", box, body)

    def _add_textbox(self, slide, name: str, box: Box, paragraphs_xml: str) -> None:
        """Append a text box written as DrawingML (what ``add_textbox`` builds, without its per-call overhead).

        The body does not autofit: the renderer has already chosen the font size, and text that
        does not fit at ``MIN_RENDER_PT`` overflows, as the layout metric reports.
        """
        tree = slide.shapes._spTree
        shape_id = max((int(i) for i in tree.xpath("//p:cNvPr/@id")), default=1) + 1
        left, top, width, height = self._emu(box)
        xml = (
            f'<p:sp {_NSDECLS}><p:nvSpPr><p:cNvPr id="{shape_id}" name={quoteattr(name)}/>'
            '<p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>'
            f'<p:spPr><a:xfrm><a:off x="{left}" y="{top}"/><a:ext cx="{width}" cy="{height}"/></a:xfrm>'
            '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>'
            f'<p:txBody><a:bodyPr wrap="square" rtlCol="0"><a:noAutofit/></a:bodyPr><a:lstStyle/>{paragraphs_xml}'
            "</p:txBody></p:sp>"
        )
        tree.append(self._parse_xml(xml))

    def _table(self, slide, table_spec: Table, box: Box) -> None:
        n_rows, n_cols = len(table_spec.rows) + 1, len(table_spec.columns)
        frame = slide.shapes.add_table(n_rows, n_cols, *self._emu(box))
        frame.name = "Table"
        cell_box = Box(0, 0, box.width / n_cols, box.height / n_rows)
        rows = [table_spec.columns, *table_spec.rows]
        size = min(fit_font([text], cell_box, CELL_PT) for row in rows for text in row)
        table = frame.table
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                cell = table.cell(r, c)
                cell.text = text
                for paragraph in cell.text_frame.paragraphs:
                    for run in paragraph.runs:
                        run.font.size = size * EMU_PER_PT
                        run.font.name = FONT_NAME

    def _chart(self, slide, chart_spec: Chart, box: Box) -> None:
        data = self._chart_data()
        data.categories = list(chart_spec.categories)
        series = chart_spec.series[:1] if chart_spec.type == "pie" else chart_spec.series
        for item in series:
            data.add_series(item.name or "Series", item.values)
        frame = slide.shapes.add_chart(self._chart_types[chart_spec.type], *self._emu(box), data)
        frame.name = "Chart"
        chart = frame.chart
        chart.font.size = 14 * EMU_PER_PT
        chart.font.name = FONT_NAME
        chart.has_legend = len(series) > 1 or chart_spec.type == "pie"
