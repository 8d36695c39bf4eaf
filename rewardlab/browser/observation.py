"""The page as text: an accessibility-tree-style listing with stable numeric ids.

Both backends build the same list of :class:`Node` records with the same rules, written twice
side by side below: once over an lxml tree (:func:`extract_nodes`, the HTTP backend) and once as
one JavaScript DOM walk (:data:`WALK_JS`, the browser backend). :func:`render_page` turns the
list into the observation text, so the shipped (JavaScript-free) sites look identical through
either backend.

Rules (document order, from ``<body>``):

- Skipped with their subtree: ``script style head template noscript title meta link svg iframe
  object``, elements with a ``hidden`` attribute, ``aria-hidden="true"``, ``<input type=hidden>``
  and an inline style with ``display:none`` or ``visibility:hidden`` (the browser also skips
  elements its layout hides).
- Interactive elements are listed with their role and accessible name and their subtree is not
  walked: ``a[href]`` link; ``button`` and ``input`` of type submit/button/reset/image: button;
  ``input`` checkbox/radio; other ``input`` and ``textarea``: textbox; ``select``: combobox (with
  its options); elements with a ``role`` of button/link/checkbox/radio/tab/menuitem/option/switch
  or an ``onclick`` attribute.
- Other elements are listed when they carry text of their own (direct text children, whitespace
  collapsed): ``heading`` for ``h1``-``h6``, ``text`` otherwise; ``img`` with a non-empty ``alt``.
- Names: ``aria-label``, else (form fields) the ``<label for>`` text, an enclosing ``<label>``,
  ``placeholder``, ``title``; (links, buttons) the element's text, else ``title``; an input
  button's ``value``. Password values are shown as bullets.
- Ids count from 1 in document order on each page load. The browser stores them on the elements
  (``data-rlid``), so an element keeps its id while scripts change the page around it.

Line format: ``[12] button "Add to cart"``, ``[3] textbox "Search" value="shirt"``,
``[4] combobox "Size" value="M" options=["S", "M"]``, ``[5] checkbox "Gift wrap" checked``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import html as lxml_html

MAX_NAME = 300
"""Characters of a name shown before it is cut with an ellipsis."""

SKIP_TAGS = frozenset(
    ["script", "style", "head", "template", "noscript", "title", "meta", "link", "svg", "iframe", "object"]
)
ARIA_INTERACTIVE = frozenset(["button", "link", "checkbox", "radio", "tab", "menuitem", "option", "switch"])
BUTTON_INPUTS = frozenset(["submit", "button", "reset", "image"])
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
# JavaScript's \s, so that both walkers collapse exactly the same characters
_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
# characters str.splitlines() breaks on that json.dumps leaves as they are
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_TEXT_CHILDREN = lxml_html.etree.XPath("text()")


@dataclass(frozen=True)
class Node:
    """One listed element.

    Attributes:
        id: The element's number in the listing.
        role: ``link``, ``button``, ``textbox``, ``combobox``, ``checkbox``, ``radio``, ``heading``,
            ``text``, ``img`` or an ARIA role.
        name: The accessible name (or the text, for ``text``/``heading``).
        value: Current value of a textbox or the selected option's text of a combobox.
        checked: For checkbox and radio.
        options: Option texts of a combobox.
        target: ``href`` of a link; the form's ``action`` for a button that submits a form.
        submits: The element submits a form when clicked.
        disabled: The element has a ``disabled`` attribute.
    """

    id: int
    role: str
    name: str
    value: str | None = None
    checked: bool | None = None
    options: tuple[str, ...] | None = None
    target: str | None = None
    submits: bool = False
    disabled: bool = False

    @classmethod
    def from_json(cls, row: list) -> Node:
        """From the compact list the JavaScript walker returns."""
        nid, role, name, value, checked, options, target, submits, disabled = row
        return cls(
            nid,
            role,
            name,
            value,
            checked,
            tuple(options) if options is not None else None,
            target,
            bool(submits),
            bool(disabled),
        )


@dataclass
class PageState:
    """What a backend reports about the current page."""

    url: str
    title: str = ""
    nodes: list[Node] = field(default_factory=list)
    more: bool = False
    """The walk stopped at its limit: more elements follow."""
    note: str | None = None
    """Load problems: a timeout, a redirect loop, a failed or refused navigation."""
    fresh: bool = False
    """A new document was loaded since the previous snapshot."""


def collapse(text: str) -> str:
    """Whitespace runs become one space; ends are stripped."""
    return _SPACE.sub(" ", text).strip()


def quote(text: str) -> str:
    """A double-quoted string, JSON-escaped (so page text can neither close the quote nor start a line)."""
    quoted = json.dumps(text, ensure_ascii=False)
    for char, escaped in _LINE_BREAKS.items():
        quoted = quoted.replace(char, escaped)
    return quoted


def format_node(node: Node) -> str:
    """One listing line, e.g. ``[3] textbox "Search" value="shirt"``."""
    name = node.name if len(node.name) <= MAX_NAME else node.name[: MAX_NAME - 1] + "…"
    line = f"[{node.id}] {node.role} {quote(name)}"
    if node.value is not None:
        line += f" value={quote(node.value[:MAX_NAME])}"
    if node.options is not None:
        line += " options=[" + ", ".join(quote(o[:MAX_NAME]) for o in node.options) + "]"
    if node.checked is not None:
        line += " checked" if node.checked else " unchecked"
    if node.disabled:
        line += " disabled"
    return line


def render_page(state: PageState, *, offset: int, budget: int, url: str | None = None) -> tuple[str, int]:
    """The observation text of a page and how many listing lines it shows.

    Shows ``URL:`` (``url`` if given, else the page's URL), ``Title:``, any load note, then listing
    lines from ``offset`` while the whole text stays within ``budget`` characters; when lines are
    left out, a final note says which are shown and how to scroll.
    """
    head = [f"URL: {url or state.url}", f"Title: {quote(state.title)}"]
    if state.note:
        head.append(f"Note: {state.note}")
    head.append("Page:")
    text = "\n".join(head)
    reserve = 160
    shown = 0
    lines = []
    used = len(text) + reserve
    for node in state.nodes[offset:]:
        line = format_node(node)
        if used + len(line) + 1 > budget and shown > 0:
            break
        lines.append(line)
        used += len(line) + 1
        shown += 1
    if not state.nodes:
        lines.append("(no elements)")
    total = len(state.nodes)
    hidden_after = offset + shown < total or state.more
    if offset > 0 or hidden_after:
        count = f"{total}+" if state.more else str(total)
        hint = []
        if offset > 0:
            hint.append("scroll(up) for earlier elements")
        if hidden_after:
            hint.append("scroll(down) for more")
        lines.append(
            f"[page truncated: showing elements {offset + 1}-{offset + shown} of {count}; {' and '.join(hint)}]"
        )
    return text + "\n" + "\n".join(lines), shown


# ---------------------------------------------------------------------- lxml extractor (HTTP backend)
def parse_html(text: str) -> lxml_html.HtmlElement:
    """Parse a document; an empty or broken body still gives a tree with ``<body>``."""
    try:
        return lxml_html.document_fromstring(text or "<html><body></body></html>")
    except (ValueError, lxml_html.etree.ParserError):
        return lxml_html.document_fromstring("<html><body></body></html>")


def page_title(root: lxml_html.HtmlElement) -> str:
    head = root.find("head")
    title = head.find("title") if head is not None else None
    return collapse(title.text_content()) if title is not None else ""


def _hidden(el: lxml_html.HtmlElement) -> bool:
    tag = el.tag
    if tag in SKIP_TAGS:
        return True
    if el.get("hidden") is not None or el.get("aria-hidden") == "true":
        return True
    if tag == "input" and (el.get("type") or "").lower() == "hidden":
        return True
    style = el.get("style")
    return bool(style and _HIDDEN_STYLE.search(style))


def _role(el: lxml_html.HtmlElement) -> str | None:
    tag = el.tag
    if tag == "a" and el.get("href") is not None:
        return "link"
    if tag == "button":
        return "button"
    if tag == "input":
        kind = (el.get("type") or "text").lower()
        if kind in BUTTON_INPUTS:
            return "button"
        if kind in ("checkbox", "radio"):
            return kind
        return "textbox"
    if tag == "textarea":
        return "textbox"
    if tag == "select":
        return "combobox"
    role = (el.get("role") or "").lower()
    if role in ARIA_INTERACTIVE:
        return role
    if el.get("onclick") is not None:
        return "button"
    return None


class _Labels:
    """``<label for>`` texts of a document, computed once per page."""

    def __init__(self, root: lxml_html.HtmlElement):
        self.by_for: dict[str, str] = {}
        for label in root.iter("label"):
            target = label.get("for")
            if target and target not in self.by_for:
                self.by_for[target] = collapse(label.text_content())

    def field_name(self, el: lxml_html.HtmlElement) -> str:
        name = el.get("aria-label")
        if name:
            return collapse(name)
        el_id = el.get("id")
        if el_id and self.by_for.get(el_id):
            return self.by_for[el_id]
        for ancestor in el.iterancestors("label"):
            text = collapse(ancestor.text_content())
            if text:
                return text
            break
        return collapse(el.get("placeholder") or el.get("title") or "")


def _form_of(el: lxml_html.HtmlElement) -> lxml_html.HtmlElement | None:
    form_id = el.get("form")
    if form_id:
        found = el.getroottree().getroot().get_element_by_id(form_id, None)
        return found if found is not None and found.tag == "form" else None
    for ancestor in el.iterancestors("form"):
        return ancestor
    return None


def submits_form(el: lxml_html.HtmlElement) -> bool:
    """A submit button (``<button>`` without another type, or ``<input type=submit|image>``) inside a form."""
    if el.tag == "button":
        kind = (el.get("type") or "submit").lower()
    elif el.tag == "input":
        kind = (el.get("type") or "text").lower()
    else:
        return False
    return kind in ("submit", "image") and _form_of(el) is not None


def _interactive_node(nid: int, el: lxml_html.HtmlElement, role: str, labels: _Labels) -> Node:
    tag = el.tag
    disabled = el.get("disabled") is not None
    if role == "combobox":
        options = [o for o in el.iter("option")]
        texts = tuple(collapse(o.text_content()) for o in options)
        selected = next((o for o in options if o.get("selected") is not None), options[0] if options else None)
        value = collapse(selected.text_content()) if selected is not None else ""
        return Node(nid, role, labels.field_name(el), value=value, options=texts, disabled=disabled)
    if role in ("checkbox", "radio") and tag == "input":
        return Node(nid, role, labels.field_name(el), checked=el.get("checked") is not None, disabled=disabled)
    if role == "textbox":
        value = (el.text or "") if tag == "textarea" else (el.get("value") or "")
        if tag == "input" and (el.get("type") or "").lower() == "password":
            value = "•" * len(value)
        return Node(nid, role, labels.field_name(el), value=value, disabled=disabled)
    if tag == "input":
        kind = (el.get("type") or "").lower()
        default = {"submit": "Submit", "reset": "Reset"}.get(kind, "")
        name = collapse(el.get("aria-label") or el.get("value") or default)
    else:
        name = collapse(el.get("aria-label") or el.text_content() or el.get("title") or "")
    submits = submits_form(el)
    target = None
    if role == "link" and tag == "a":
        target = el.get("href")
    elif submits and (form := _form_of(el)) is not None:  # submits_form found the form
        target = form.get("action") or ""
    return Node(nid, role, name, target=target, submits=submits, disabled=disabled)


def _own_text(el: lxml_html.HtmlElement) -> str:
    """The element's direct text children: ``el.text`` and its children's tails."""
    if len(el) < 64:  # few children: Python is faster than an XPath call
        parts = [el.text or ""]
        parts.extend(child.tail or "" for child in el)
        return collapse(" ".join(parts))
    return collapse(" ".join(_TEXT_CHILDREN(el)))


def extract_nodes(root: lxml_html.HtmlElement, *, limit: int) -> tuple[list[Node], list[lxml_html.HtmlElement], bool]:
    """Walk the document: ``(nodes, elements, more)``; ``elements[i]`` is node ``i + 1``'s element."""
    body = root.find("body")
    if body is None:
        return [], [], False
    labels = _Labels(root)
    nodes: list[Node] = []
    elements: list[lxml_html.HtmlElement] = []
    stack: list[Iterator] = [iter([body])]
    while stack:
        el = next(stack[-1], None)
        if el is None:
            stack.pop()
            continue
        if not isinstance(el.tag, str) or _hidden(el):
            continue
        if len(nodes) >= limit:
            return nodes, elements, True
        nid = len(nodes) + 1
        role = _role(el)
        if role is not None:
            nodes.append(_interactive_node(nid, el, role, labels))
            elements.append(el)
            continue
        if el.tag == "img":
            alt = collapse(el.get("alt") or "")
            if alt:
                nodes.append(Node(nid, "img", alt))
                elements.append(el)
        else:
            text = _own_text(el)
            if text:
                role = "heading" if el.tag in ("h1", "h2", "h3", "h4", "h5", "h6") else "text"
                nodes.append(Node(nid, role, text))
                elements.append(el)
        stack.append(iter(el))
    return nodes, elements, False


# ---------------------------------------------------------------------- the same walk in the browser
WALK_JS = r"""
(limit) => {
  const SKIP = new Set(%(skip)s);
  const ARIA = new Set(%(aria)s);
  const BUTTON_INPUTS = new Set(%(button_inputs)s);
  const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;
  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 2000);
  let fresh = false;
  if (window.__rlNext === undefined) { window.__rlNext = 1; fresh = true; }
  const hidden = (el) => {
    const tag = el.localName;
    if (SKIP.has(tag)) return true;
    if (el.hasAttribute("hidden") || el.getAttribute("aria-hidden") === "true") return true;
    if (tag === "input" && (el.getAttribute("type") || "").toLowerCase() === "hidden") return true;
    const style = el.getAttribute("style");
    if (style && HIDDEN_STYLE.test(style)) return true;
    return !el.checkVisibility({visibilityProperty: true});
  };
  const roleOf = (el) => {
    const tag = el.localName;
    if (tag === "a" && el.hasAttribute("href")) return "link";
    if (tag === "button") return "button";
    if (tag === "input") {
      const kind = (el.getAttribute("type") || "text").toLowerCase();
      if (BUTTON_INPUTS.has(kind)) return "button";
      if (kind === "checkbox" || kind === "radio") return kind;
      return "textbox";
    }
    if (tag === "textarea") return "textbox";
    if (tag === "select") return "combobox";
    const role = (el.getAttribute("role") || "").toLowerCase();
    if (ARIA.has(role)) return role;
    if (el.hasAttribute("onclick")) return "button";
    return null;
  };
  const fieldName = (el) => {
    const aria = el.getAttribute("aria-label");
    if (aria) return collapse(aria);
    if (el.id) {
      const label = document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
      if (label && collapse(label.textContent)) return collapse(label.textContent);
    }
    const wrap = el.parentElement ? el.parentElement.closest("label") : null;
    if (wrap && collapse(wrap.textContent)) return collapse(wrap.textContent);
    return collapse(el.getAttribute("placeholder") || el.getAttribute("title") || "");
  };
  const submits = (el) => {
    let kind;
    if (el.localName === "button") kind = (el.getAttribute("type") || "submit").toLowerCase();
    else if (el.localName === "input") kind = (el.getAttribute("type") || "text").toLowerCase();
    else return false;
    return (kind === "submit" || kind === "image") && !!el.form;
  };
  const idOf = (el) => {
    let id = el.getAttribute("data-rlid");
    if (id === null) { id = String(window.__rlNext++); el.setAttribute("data-rlid", id); }
    return Number(id);
  };
  const nodes = [];
  let more = false;
  const walk = (el) => {
    if (more) return;
    if (hidden(el)) return;
    if (nodes.length >= limit) { more = true; return; }
    const role = roleOf(el);
    const tag = el.localName;
    const disabled = el.hasAttribute("disabled");
    if (role !== null) {
      let name = "", value = null, checked = null, options = null, target = null, sub = false;
      if (role === "combobox" && tag === "select") {
        options = Array.from(el.options).map((o) => collapse(o.textContent));
        value = el.selectedIndex >= 0 ? options[el.selectedIndex] : "";
        name = fieldName(el);
      } else if ((role === "checkbox" || role === "radio") && tag === "input") {
        name = fieldName(el); checked = el.checked;
      } else if (role === "textbox" && (tag === "input" || tag === "textarea")) {
        name = fieldName(el); value = el.value;
        const password = tag === "input" && (el.getAttribute("type") || "").toLowerCase() === "password";
        if (password) value = "\u2022".repeat(value.length);
      } else {
        if (tag === "input") {
          const kind = (el.getAttribute("type") || "").toLowerCase();
          const dflt = kind === "submit" ? "Submit" : kind === "reset" ? "Reset" : "";
          name = collapse(el.getAttribute("aria-label") || el.getAttribute("value") || dflt);
        } else {
          name = collapse(el.getAttribute("aria-label") || el.textContent || el.getAttribute("title") || "");
        }
        sub = submits(el);
        if (role === "link" && tag === "a") target = el.getAttribute("href");
        else if (sub) target = el.form.getAttribute("action") || "";
      }
      nodes.push([idOf(el), role, name, value, checked, options, target, sub, disabled]);
      return;
    }
    if (tag === "img") {
      const alt = collapse(el.getAttribute("alt") || "");
      if (alt) nodes.push([idOf(el), "img", alt, null, null, null, null, false, false]);
    } else {
      let own = "";
      for (const child of el.childNodes) if (child.nodeType === 3) own += " " + child.data;
      own = collapse(own);
      const textRole = /^h[1-6]$/.test(tag) ? "heading" : "text";
      if (own) nodes.push([idOf(el), textRole, own, null, null, null, null, false, false]);
    }
    for (const child of el.children) { if (more) break; walk(child); }
  };
  if (document.body) walk(document.body);
  // one JSON string crosses the DevTools protocol faster than a tree of values
  return JSON.stringify({url: location.href, title: document.title, nodes: nodes, more: more, fresh: fresh,
                         extra: %(extra)s});
}
"""


def walk_js(extra: str = "null") -> str:
    """The browser walker; ``extra`` is a JavaScript expression returned alongside (e.g. a page's reward)."""
    return WALK_JS % {
        "skip": json.dumps(sorted(SKIP_TAGS)),
        "aria": json.dumps(sorted(ARIA_INTERACTIVE)),
        "button_inputs": json.dumps(sorted(BUTTON_INPUTS)),
        "extra": extra,
    }
