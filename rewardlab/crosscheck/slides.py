"""Slides-v2's and SlidesAgent-v2's external grader: python-pptx reopens the .pptx, LibreOffice renders it.

The file graded is the one the env rendered for the episode (``env.unwrapped.last_pptx``, the
.pptx bytes of the last scored deck). Two independent tools judge it, sharing no code with our rubric
(our layout metric *estimates* text height from font metrics; here LibreOffice lays the text out):

1. **python-pptx** reopens the file. Every slide must have a *title* with text (a title placeholder,
   or, on the blank layout our renderer uses, the shape named ``Title``, PowerPoint's own name for a
   slide's title) and a *body* with text: another text frame with text (a text box, a placeholder, a
   table cell) or a chart with categories (its labels live in the chart part, not in a text frame).
2. **LibreOffice** (``soffice --headless --convert-to pdf``, a private user profile per grader) lays the
   deck out and exports a PDF, one page per slide; **poppler's** ``pdftotext -bbox`` gives every word
   drawn on a page with its bounding box in points. A text shape's box is its python-pptx frame
   (EMU / 12 700 = pt, scaled by page width / slide width). With ``C(s)`` the multiset of alphanumeric
   characters (NFKC, case-folded) of shape ``s``'s text and ``D(s)`` that of the words whose centre lies
   in ``s``'s box widened by ``TOLERANCE_PT``::

       outside(s) = |C(s) ∖ D(s)|            (characters of s drawn outside its box, or not drawn at all)

   counted over characters the page's text layer holds somewhere (a glyph without a text mapping
   cannot be located, so it is not held against the deck). Text past the page's edge is clipped and
   never drawn: it counts as outside. Tables are text shapes too (LibreOffice grows a row to fit its
   text, pushing the table past its frame); charts lay out their own labels and are not checked.

A slide has a problem when it has no title, no body or some ``outside(s) > 0``; the page count
must equal the slide count. ::

    success = python-pptx opens it ∧ ≥ 1 slide ∧ no slide has a problem
    score   = (slides without a problem) / (slides)            (0 when it does not open or has no slides)

A layout grader cannot see what the slides *say*: our success also needs the brief's key points
covered by grounded evidence under titles that state them (content, inverse_spec), so a defective
deck that is well laid out (a key point missing, bullets under the wrong title) is a disagreement
in our favour, and :meth:`SlidesLayoutGrader.explain` says so from our components.
"""

from __future__ import annotations

import hashlib
import html
import io
import re
import shutil
import subprocess
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardlab.crosscheck.answers import Answer
from rewardlab.crosscheck.grader import ExternalVerdict
from rewardlab.errors import MissingDependencyError, RewardLabError
from rewardlab.leases import owned_tempdir, remove_owned_tempdir

SETUP_HINT = (
    "run scripts/setup-libreoffice.sh (as root it installs Debian's libreoffice-impress and poppler-utils; "
    "otherwise: apt-get install --no-install-recommends libreoffice-impress poppler-utils)"
)

EMU_PER_PT = 12_700
TOLERANCE_PT = 2.0
"""How far outside its box a word's centre may lie and still count as inside (rounding of glyph boxes)."""

TIMEOUT_S = 120.0
"""The longest LibreOffice may take to convert one deck."""

_WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>')
_PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)


def check_installed() -> tuple[str, str]:
    """``(soffice, pdftotext)`` executables.

    Raises:
        MissingDependencyError: when LibreOffice, poppler's pdftotext or python-pptx is missing.
    """
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise MissingDependencyError(f"the Slides grader needs LibreOffice (soffice) on PATH; {SETUP_HINT}")
    pdftotext = shutil.which("pdftotext")
    if pdftotext is None:
        raise MissingDependencyError(f"the Slides grader needs poppler's pdftotext on PATH; {SETUP_HINT}")
    try:
        import pptx  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            f"the Slides grader needs python-pptx ({exc}); install it: pip install 'rewardlab[slides]'"
        ) from exc
    return soffice, pdftotext


def characters(text: str) -> Counter[str]:
    """The multiset of alphanumeric characters of ``text`` (NFKC, case-folded).

    Example:
        >>> sorted(characters("Ｈi, h1!").items())
        [('1', 1), ('h', 2), ('i', 1)]
    """
    return Counter(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


@dataclass(frozen=True)
class Word:
    """One word ``pdftotext -bbox`` found on a page (points, origin top left)."""

    left: float
    top: float
    right: float
    bottom: float
    text: str


@dataclass(frozen=True)
class Page:
    width: float
    height: float
    words: tuple[Word, ...]


def parse_bbox(xhtml: str) -> list[Page]:
    """The pages of ``pdftotext -bbox`` output.

    Example:
        >>> doc = '<page width="960" height="540"><word xMin="1" yMin="2" xMax="3" yMax="4">a&amp;b</word></page>'
        >>> parse_bbox(doc)[0].words[0].text
        'a&b'
    """
    pages = []
    for width, height, body in _PAGE.findall(xhtml):
        words = tuple(
            Word(float(x0), float(y0), float(x1), float(y1), html.unescape(text))
            for x0, y0, x1, y1, text in _WORD.findall(body)
        )
        pages.append(Page(float(width), float(height), words))
    return pages


@dataclass
class TextShape:
    """A shape whose text must stay inside its box (points, origin top left)."""

    name: str
    left: float
    top: float
    right: float
    bottom: float
    text: str


@dataclass
class SlideCheck:
    """What the grader found on one slide."""

    index: int
    has_title: bool
    has_body: bool
    shapes: list[TextShape] = field(default_factory=list)
    outside: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Shape name → (characters outside its box, characters of its text)."""

    @property
    def problems(self) -> list[str]:
        found = [] if self.has_title else ["no title with text"]
        found += [] if self.has_body else ["no body text"]
        found += [
            f"{name!r} text outside its box ({n} of {total} characters)" for name, (n, total) in self.outside.items()
        ]
        return found


def outside_characters(shape: TextShape, page: Page, scale: float, drawn: Counter[str]) -> int:
    """``|C(s) ∖ D(s)|`` over characters the page's text layer holds (``drawn``); shape in pt, words in page
    units, ``scale`` = page units per pt."""
    tol = TOLERANCE_PT * scale
    left, top, right, bottom = (v * scale for v in (shape.left, shape.top, shape.right, shape.bottom))
    inside: Counter[str] = Counter()
    for word in page.words:
        cx, cy = (word.left + word.right) / 2, (word.top + word.bottom) / 2
        if left - tol <= cx <= right + tol and top - tol <= cy <= bottom + tol:
            inside.update(characters(word.text))
    expected = Counter({c: n for c, n in characters(shape.text).items() if c in drawn})
    return sum((expected - inside).values())


def read_slides(data: bytes) -> tuple[list[SlideCheck], float]:
    """python-pptx's view of the deck: per slide, title and body present and the text shapes' boxes (pt);
    and the slide width in pt."""
    from pptx import Presentation
    from pptx.enum.shapes import PP_PLACEHOLDER

    prs = Presentation(io.BytesIO(data))
    checks = []
    for index, slide in enumerate(prs.slides, start=1):
        check = SlideCheck(index, has_title=False, has_body=False)
        for shape in slide.shapes:
            text = ""
            if shape.has_text_frame:
                text = shape.text_frame.text
            elif getattr(shape, "has_table", False) and shape.has_table:
                text = "\n".join(cell.text for row in shape.table.rows for cell in row.cells)
            elif getattr(shape, "has_chart", False) and shape.has_chart:
                categories = shape.chart.plots[0].categories if len(shape.chart.plots) else ()
                check.has_body = check.has_body or len(categories) > 0
                continue
            else:
                continue
            titles = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE)
            is_title = shape.is_placeholder and shape.placeholder_format.type in titles
            is_title = is_title or (not shape.is_placeholder and shape.name == "Title")
            if text.strip():
                if is_title:
                    check.has_title = True
                else:
                    check.has_body = True
            if text.strip() and None not in (shape.left, shape.top, shape.width, shape.height):
                left, top = shape.left / EMU_PER_PT, shape.top / EMU_PER_PT
                check.shapes.append(
                    TextShape(
                        shape.name, left, top, left + shape.width / EMU_PER_PT, top + shape.height / EMU_PER_PT, text
                    )
                )
        checks.append(check)
    return checks, (prs.slide_width or 0) / EMU_PER_PT


class SlidesLayoutGrader:
    """python-pptx reopens the env's .pptx (titles, bodies); LibreOffice's PDF shows no text outside its box."""

    name = "pptx+libreoffice"
    description = (
        "python-pptx reopens the .pptx (every slide: a title and a body with text) and LibreOffice's PDF export, read "
        "by pdftotext -bbox, draws every character of each text shape inside the shape's box (±2 pt); "
        "success = opens ∧ no slide has a problem, score = share of slides without a problem. "
        "Judges layout, not content."
    )

    def __init__(self) -> None:
        self._soffice, self._pdftotext = check_installed()
        self._dir = owned_tempdir("rewardlab-slides-grader-")  # the reaper removes it once this process is gone
        self._profile = (self._dir / "profile").as_uri()
        self._cache: dict[str, tuple[bool, float, str]] = {}

    # ------------------------------------------------------------------ tools
    def render_pages(self, data: bytes) -> list[Page]:
        """LibreOffice's PDF of the .pptx ``data``, read by ``pdftotext -bbox``."""
        work = Path(tempfile.mkdtemp(dir=self._dir))
        try:
            source = work / "deck.pptx"
            source.write_bytes(data)
            command = [
                self._soffice, f"-env:UserInstallation={self._profile}", "--headless", "--norestore",
                "--convert-to", "pdf", "--outdir", str(work), str(source),
            ]  # fmt: skip
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
            except subprocess.TimeoutExpired as exc:
                raise RewardLabError(f"LibreOffice did not convert the deck within {TIMEOUT_S:.0f} s") from exc
            pdf = work / "deck.pdf"
            if not pdf.is_file():
                raise RuntimeError(f"LibreOffice wrote no PDF (exit {done.returncode}): {done.stderr.strip()[-300:]}")
            text = subprocess.run(
                [self._pdftotext, "-bbox", str(pdf), "-"], capture_output=True, text=True, timeout=TIMEOUT_S, check=True
            ).stdout
            return parse_bbox(text)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def judge_pptx(self, data: bytes) -> tuple[bool, float, str]:
        """``(success, score, detail)`` of one .pptx file (cached by content: the same bytes get the same verdict)."""
        key = hashlib.sha256(data).hexdigest()
        if key not in self._cache:
            self._cache[key] = self._judge(data)
        return self._cache[key]

    def _judge(self, data: bytes) -> tuple[bool, float, str]:
        try:
            slides, slide_width = read_slides(data)
        except Exception as exc:  # noqa: BLE001 - a file python-pptx cannot open is the verdict, not an error
            return False, 0.0, f"python-pptx cannot open it: {type(exc).__name__}: {str(exc)[:200]}"
        if not slides:
            return False, 0.0, "the presentation has no slides"
        pages = self.render_pages(data)
        if len(pages) != len(slides):
            return False, 0.0, f"LibreOffice rendered {len(pages)} pages for {len(slides)} slides"
        for check, page in zip(slides, pages, strict=True):
            scale = page.width / slide_width if slide_width else 1.0
            drawn: Counter[str] = Counter()
            for word in page.words:
                drawn.update(characters(word.text))
            for shape in check.shapes:
                missing = outside_characters(shape, page, scale, drawn)
                if missing:
                    check.outside[shape.name] = (missing, sum(characters(shape.text).values()))
        bad = [check for check in slides if check.problems]
        score = 1.0 - len(bad) / len(slides)
        if not bad:
            return True, score, f"{len(slides)} slides: titles and bodies present, no text outside its box"
        found = "; ".join(f"slide {c.index}: {', '.join(c.problems)}" for c in bad)
        return False, score, f"{len(bad)} of {len(slides)} slides with problems: {found}"[:1000]

    # ------------------------------------------------------------------ grading
    def grade(self, env: Any, task_id: str, actions: Sequence[str], info: Mapping[str, Any]) -> ExternalVerdict:
        """The .pptx the env rendered for this episode (``last_pptx``), judged on its own."""
        task = getattr(env, "task", None)
        if task is None or task.id != task_id:
            raise RuntimeError(f"the env's last episode is not {task_id}'s")
        errors = [str(e) for e in info.get("deck_errors", [])]
        if not info.get("usable") or any(e.startswith("rendering failed") for e in errors):
            # no deck was rendered this episode; last_pptx would be an earlier episode's
            return ExternalVerdict(
                False, 0.0, "the answer produced no .pptx: " + ("; ".join(errors)[:300] or "no deck")
            )
        data = env.last_pptx
        if data is None:
            return ExternalVerdict(False, 0.0, "the env holds no .pptx for the episode")
        success, score, detail = self.judge_pptx(data)
        return ExternalVerdict(success, score, detail)

    def explain(self, answer: Answer, verdict: ExternalVerdict) -> str:
        """Why our success and the layout grader's differ, from our components and metrics and what it found."""
        from rewardlab.envs.slides.rubric import SUCCESS_THRESHOLDS

        components: Mapping[str, float] = answer.info.get("reward_components") or {}
        metrics: Mapping[str, float] = answer.info.get("metrics") or {}
        below = {k: v for k, v in components.items() if k in SUCCESS_THRESHOLDS and v < SUCCESS_THRESHOLDS[k]}
        if verdict.success:  # we fail it, the layout grader passes it
            if not answer.info.get("usable", True):
                return f"our parser refused the deck ({answer.info.get('action_error')}) yet a .pptx was judged"
            reasons = []
            if "content" in below:
                reasons.append(
                    f"content {below['content']:.3f} < {SUCCESS_THRESHOLDS['content']} (key-point coverage "
                    f"{metrics.get('content/coverage', float('nan')):.3f}, faithfulness "
                    f"{metrics.get('content/faithfulness', float('nan')):.3f}): a key point is missing, unsupported or "
                    "under a title that does not state it, which a layout grader cannot see: a disagreement in our "
                    "favour"
                )
            if "inverse_spec" in below:
                reasons.append(
                    f"inverse_spec {below['inverse_spec']:.3f} < {SUCCESS_THRESHOLDS['inverse_spec']}: the brief "
                    "cannot be recovered from the deck's readable content (what the slides say, not their layout)"
                )
            misstated = metrics.get("brief_adherence/misstated", 0.0)
            if misstated > 0:
                reasons.append(
                    f"the requested visual misstates the notes (brief_adherence/misstated = {misstated:.3f}: values "
                    "under another row's label), which a layout grader cannot see: a disagreement in our favour"
                )
            for name, what in (("misplaced", "a key point's support under another point's title"),
                               ("invented", "a figure the notes do not hold"), ("inverted", "a bullet that inverts "
                               "its source")):  # fmt: skip
                share = metrics.get(f"content/{name}_share", 0.0)
                if share > 0:
                    reasons.append(
                        f"content/{name}_share = {share:.3f} ({what}) fails our success, which a layout grader "
                        "cannot see: a disagreement in our favour"
                    )
            gate = metrics.get("layout/content_gate", 1.0)
            scaled = [k for k in ("structure", "layout", "brief_adherence") if k in below]
            if scaled and gate < 1.0:
                raw = {k: metrics.get(f"layout/{k}", 1.0) for k in ("fit", "placement", "fonts")}
                verb = "falls" if len(scaled) == 1 else "fall"
                reasons.append(
                    f"{', '.join(scaled)} {verb} below threshold because our format components are scaled by "
                    f"content (g = {gate:.3f}), not from a layout fault: our own layout/fit, placement and fonts are "
                    f"{raw['fit']:.2f}, {raw['placement']:.2f}, {raw['fonts']:.2f}, as the grader finds"
                )
            elif scaled and not misstated:
                low = sorted(k for k, v in metrics.items() if k.split("/")[0] in scaled and v < 1.0 and "gate" not in k)
                reasons.append(
                    f"{', '.join(scaled)} below threshold from our own rules ({', '.join(low) or 'none named'}): rules "
                    "on the brief (slide count, tone, requested visual, words per slide) the grader does not have"
                )
            other = (
                f"our success is false (components {dict(components)}) for a reason the layout grader does not check"
            )
            return "; ".join(reasons) or other
        if answer.is_success:  # we pass it, the layout grader fails it
            fit = metrics.get("layout/fit", 1.0)
            reasons = [f"{self.name}: {verdict.detail}"]
            if "outside its box" in verdict.detail:
                reasons.append(
                    f"overflow: LibreOffice lays out more lines than our font-metric estimate (our layout/fit = "
                    f"{fit:.3f}, layout = {components.get('layout', float('nan')):.3f} ≥ 0.9); a gap on our side "
                    "when our estimate is too tight, or a font substitution (Arial → Liberation Sans) on theirs"
                )
            if "no body text" in verdict.detail or "no title" in verdict.detail:
                reasons.append(
                    "our structure rules accept the slide (a section or title slide needs no body; titles are "
                    "checked by layout name), the grader requires a title and a body on every slide"
                )
            return "; ".join(reasons)
        return "no disagreement"

    def close(self) -> None:
        """Remove the private LibreOffice profile and the work files."""
        remove_owned_tempdir(self._dir)
