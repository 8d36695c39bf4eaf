"""Hardened reading of agent answers: find the XML, parse it safely, check it against the BPMN XSD.

Agent output is hostile input. :func:`read_answer` never raises; every problem becomes a short
message in :attr:`ParsedAnswer.error`. Defences, in the order they apply:

- a size cap (:data:`MAX_ANSWER_CHARS`) checked before anything else looks at the text;
- lenient extraction: an answer wrapped in a markdown code fence or in prose, or with comments,
  processing instructions or a DOCTYPE around its root, is read (and
  :attr:`ParsedAnswer.extracted_from` says from what); only the ``<definitions>`` element alone,
  after at most an XML declaration and whitespace, is a bare answer (see :func:`extract_xml`);
- any ``<!DOCTYPE`` is refused before parsing (no entity expansion, no external entities);
- an lxml parser with ``resolve_entities=False``, ``no_network=True``, ``load_dtd=False`` and
  ``huge_tree=False`` (libxml2's depth and size limits stay on: more than 256 levels of nesting
  is a parse error);
- the XML declaration of a text answer is dropped (the text is already decoded; an unknown
  declared encoding is reported), bytes are handed to libxml2 with their declared encoding.

The XSDs (OMG BPMN 2.0, ``data/xsd``) are loaded once per process and cached.
"""

from __future__ import annotations

import codecs
import itertools
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lxml import etree

BPMN_NS = "http://www.omg.org/spec/BPMN/20100524/MODEL"
BPMNDI_NS = "http://www.omg.org/spec/BPMN/20100524/DI"
DC_NS = "http://www.omg.org/spec/DD/20100524/DC"
_PREFIXES = (
    (BPMN_NS, "bpmn:"),
    (BPMNDI_NS, "bpmndi:"),
    (DC_NS, "dc:"),
    ("http://www.omg.org/spec/DD/20100524/DI", "di:"),
)
XSD_PATH = Path(__file__).parent / "data" / "xsd" / "BPMN20.xsd"

MAX_ANSWER_CHARS = 2_000_000
"""Longest answer read at all (characters, or bytes for byte input); the largest MIWG file is 0.9 MB."""
MAX_MESSAGE_CHARS = 240
"""Longest single validator message passed on to the agent."""
MAX_SCHEMA_MESSAGES = 8
"""Schema errors kept per answer."""

_FENCE = re.compile(r"```[ \t]*([\w.+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_XML_SPACE = "[ \t\r\n]"
_XML_DECLARATION = (
    rf"<\?xml{_XML_SPACE}+version{_XML_SPACE}*={_XML_SPACE}*([\"'])1\.[0-9]+\1"
    rf"(?:{_XML_SPACE}+encoding{_XML_SPACE}*={_XML_SPACE}*([\"'])[A-Za-z][A-Za-z0-9._-]*\2)?"
    rf"(?:{_XML_SPACE}+standalone{_XML_SPACE}*={_XML_SPACE}*([\"'])(?:yes|no)\3)?{_XML_SPACE}*\?>"
)
_ROOT = r"<(?:[A-Za-z_][\w.-]*:)?definitions\b"
_BARE_HEAD = re.compile(rf"\A\ufeff?{_XML_SPACE}*(?:{_XML_DECLARATION}{_XML_SPACE}*)?{_ROOT}")
_BARE_TAIL = re.compile(rf"(?:</(?:[A-Za-z_][\w.-]*:)?definitions{_XML_SPACE}*>|/>)\Z")
_START = re.compile(rf"<\?xml{_XML_SPACE}|{_ROOT}")
_END = re.compile(r"</(?:[A-Za-z_][\w.-]*:)?definitions\s*>")
_DECLARATION = re.compile(rf"\A\s*<\?xml{_XML_SPACE}([^>]*?)\?>")
MARKUP = "markup around the root element"
"""``extracted_from`` of an answer with comments, processing instructions, a DOCTYPE or a malformed
declaration around its root element."""
_ENCODING = re.compile(r"""encoding\s*=\s*["']([^"']*)["']""")


@dataclass(frozen=True)
class ParsedAnswer:
    """The result of reading one answer.

    Attributes:
        root: The parsed root element, or ``None`` when the answer is not well-formed XML.
        error: The first problem found (parse error, refused construct, schema errors), or ``None``.
        well_formed: The XML parsed.
        bpmn_root: The root element is ``definitions`` in the BPMN 2.0 model namespace.
        schema_valid: The document is valid against the BPMN 2.0 XSD.
        schema_errors: Up to :data:`MAX_SCHEMA_MESSAGES` schema messages with line numbers.
        extracted_from: ``None`` for a bare XML answer, else ``"code fence"``, ``"prose"`` or :data:`MARKUP`.
    """

    root: etree._Element | None
    error: str | None
    well_formed: bool = False
    bpmn_root: bool = False
    schema_valid: bool = False
    schema_errors: tuple[str, ...] = ()
    extracted_from: str | None = None

    @property
    def valid(self) -> bool:
        """Well-formed, a BPMN ``definitions`` root, and schema-valid."""
        return self.well_formed and self.bpmn_root and self.schema_valid


_local = threading.local()


def _parser() -> etree.XMLParser:
    """One hardened parser per thread (lxml parsers are not thread-safe)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.XMLParser(
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            dtd_validation=False,
            huge_tree=False,
            remove_comments=True,
            remove_pis=True,
            collect_ids=False,
        )
        _local.parser = parser
    return parser


@lru_cache(maxsize=1)
def bpmn_schema() -> etree.XMLSchema:
    """The OMG BPMN 2.0 schema shipped with the package, loaded once per process."""
    return etree.XMLSchema(etree.parse(str(XSD_PATH)))


def _clip(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= MAX_MESSAGE_CHARS else message[: MAX_MESSAGE_CHARS - 1] + "…"


def _short_names(message: str) -> str:
    """Schema messages with the BPMN namespaces written as prefixes (``bpmn:task``)."""
    for uri, prefix in _PREFIXES:
        message = message.replace(f"{{{uri}}}", prefix)
    return message


def extract_xml(text: str) -> tuple[str | None, str | None]:
    """Cut the XML document out of an answer: ``(xml, extracted_from)``.

    An answer is **bare** (``extracted_from is None``) when it is the ``definitions`` element alone,
    preceded at most by one byte-order mark, an XML declaration (``version``, optionally ``encoding``
    and ``standalone``, nothing else) and XML whitespace, and followed by XML whitespace only.
    Everything else is read leniently and says from what:

    - an answer starting with other markup (a comment, a processing instruction, a DOCTYPE, a
      malformed declaration) goes to the parser as it is, so a DOCTYPE is still refused
      (``extracted_from`` = :data:`MARKUP`);
    - otherwise the first markdown code fence whose body starts with ``<`` (``"code fence"``), else
      the span from ``<?xml`` or ``<definitions`` to the last ``</definitions>`` (``"prose"``: prose,
      reasoning tags such as ``<think>…</think>``, or a comment after the root);
    - any other answer starting with ``<`` is returned as is, so the parser reports on it.

    ``(None, None)`` when there is no XML at all.
    """
    if _BARE_HEAD.match(text) and _BARE_TAIL.search(text.rstrip(" \t\r\n")[-200:]):
        return text.removeprefix("\ufeff").strip(" \t\r\n"), None
    stripped = text.strip().lstrip("\ufeff")
    if stripped.startswith(("<!", "<?")) and not _BARE_HEAD.match(stripped):
        return stripped, MARKUP
    for match in _FENCE.finditer(text):
        body = match.group(2).strip()
        if body.startswith("<"):
            return body, "code fence"
    start = _START.search(text)
    if start is None:
        return (stripped, None) if stripped.startswith("<") else (None, None)
    ends = list(_END.finditer(text, start.start()))
    stop = ends[-1].end() if ends else len(text)
    return text[start.start() : stop].strip(), "prose"


def _to_bytes(xml: str) -> tuple[bytes | None, str | None]:
    """Drop the XML declaration of decoded text and encode it as UTF-8."""
    declaration = _DECLARATION.match(xml)
    if declaration is not None:
        encoding = _ENCODING.search(declaration.group(1))
        if encoding is not None:
            try:
                codecs.lookup(encoding.group(1))
            except LookupError:
                return None, f"the XML declaration names an unknown encoding {_clip(encoding.group(1))[:60]!r}"
        xml = xml[declaration.end() :]
    return xml.encode("utf-8", errors="replace"), None


def parse_xml(data: bytes) -> tuple[etree._Element | None, str | None]:
    """Parse bytes with the hardened parser: ``(root, None)`` or ``(None, error)``. Never raises."""
    if b"<!DOCTYPE" in data:
        return None, "DOCTYPE declarations are not allowed (no DTDs or entities in BPMN answers)"
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        return None, "not well-formed XML: " + _clip(str(exc).replace("(<string>, line", "(line"))
    except (ValueError, LookupError, etree.LxmlError) as exc:
        return None, "not well-formed XML: " + _clip(str(exc))
    if root is None:
        return None, "not well-formed XML: empty document"
    docinfo = root.getroottree().docinfo
    if docinfo.internalDTD is not None or docinfo.doctype:
        return None, "DOCTYPE declarations are not allowed (no DTDs or entities in BPMN answers)"
    return root, None


def read_answer(answer: str | bytes) -> ParsedAnswer:
    """Extract, parse and schema-check one answer. Never raises.

    ``str`` answers (agent text) may be wrapped in prose or a code fence; ``bytes`` (files) are
    parsed as they are, with their declared encoding.
    """
    if len(answer) > MAX_ANSWER_CHARS:
        return ParsedAnswer(None, f"the answer has {len(answer):,} characters; the limit is {MAX_ANSWER_CHARS:,}")
    extracted_from = None
    if isinstance(answer, str):
        xml, extracted_from = extract_xml(answer)
        if xml is None:
            what = "the answer is empty" if not answer.strip() else "no XML found in the answer"
            return ParsedAnswer(None, f"{what}; answer with a BPMN 2.0 <definitions> XML document")
        data, error = _to_bytes(xml)
        if data is None:
            return ParsedAnswer(None, error, extracted_from=extracted_from)
    else:
        data = bytes(answer)
    root, error = parse_xml(data)
    if root is None:
        return ParsedAnswer(None, error, extracted_from=extracted_from)
    if root.tag != f"{{{BPMN_NS}}}definitions":
        found = _clip(str(root.tag))[:120]
        return ParsedAnswer(
            root,
            f"the root element is {found!r}; a BPMN answer is a <definitions> element in namespace {BPMN_NS}",
            well_formed=True,
            extracted_from=extracted_from,
        )
    schema = bpmn_schema()
    if schema.validate(root):
        return ParsedAnswer(root, None, True, True, True, (), extracted_from)
    messages = tuple(
        f"line {e.line}: {_clip(_short_names(e.message))}"
        for e in itertools.islice(schema.error_log, MAX_SCHEMA_MESSAGES)
    )
    error = "not valid against the BPMN 2.0 XSD: " + (messages[0] if messages else "unknown schema error")
    return ParsedAnswer(root, error, True, True, False, messages, extracted_from)
