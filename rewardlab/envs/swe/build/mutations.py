"""Procedural bug synthesis in real Python sources, the way SWE-smith's procedural modifications work.

:func:`mutation_sites` lists every place in one file where a small deterministic edit, a
:class:`Mutation` of one of :data:`KINDS`, turns working code into buggy code that still compiles;
:func:`apply_mutations` applies several of them to a tree of files; :func:`sample_candidates` draws
a varied set of single and paired mutations for a task builder to try against a project's tests.

The kinds (each one's finder below says exactly what it changes):

- ``invert_condition``: the test of an ``if``/``elif``/``while``/conditional expression is negated,
  or loses its ``not``;
- ``change_comparison``: one comparison operator is swapped (``<`` becomes ``<=``, ``in`` becomes
  ``not in``...);
- ``change_arithmetic``: one arithmetic operator (``+`` becomes ``-``...) or boolean operator
  (``and`` becomes ``or``) is swapped;
- ``off_by_one``: an integer literal grows or shrinks by one;
- ``swap_arguments``: the first two positional arguments of a call change places;
- ``remove_statement``: an expression statement, assignment or ``raise`` in a function is deleted;
- ``remove_early_return``: an ``if <test>: return/raise ...`` guard in a function is deleted.

Sites come only from code that runs when the project is used: docstrings, ``if __name__ ==
"__main__":`` and ``if TYPE_CHECKING:`` blocks, ``pragma: no cover`` lines and clauses, annotations,
decorators, default argument values, ``__all__`` and ``__version__``, module- and class-level
constants assigned from literals, ``__repr__``/``__str__`` methods, ``except ImportError``
fallbacks, f-strings and version checks (comparisons naming a ``*version*`` value) are left alone.

Every site is checked when it is found: its enclosing function (or, outside functions, its
module- or class-level statement), mutated, must compile and parse to a different AST. That
statement is all the context the compiler needs (``return``, ``break``, ``nonlocal`` and the like
resolve inside it), so a site that passes also compiles in its file.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import random
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Mutation:
    """One edit of one file: the text from (line, col) to (end_line, end_col) becomes ``replacement``.

    Lines are 1-based; columns are 0-based *character* offsets into their line (``ast`` counts
    UTF-8 bytes; these count characters, so plain ``str`` slicing applies them), the end exclusive.
    The removal kinds span whole lines: from column 0 of the first removed line to column 0 of the
    line after the last (``end_line`` is then one past the file's last line when the removed
    statement ends the file), or to the end of the text when the file has no final newline.
    """

    path: str
    kind: str
    line: int
    col: int
    end_line: int
    end_col: int
    replacement: str
    function: str | None
    """Qualified name of the enclosing function or method (``"LRUCache.__getitem__"``); None outside one."""
    description: str
    """What changed, for build logs only (``"changed `<` to `<=` in `i < n`"``); never shown to the agent."""

    @property
    def lines(self) -> range:
        """The source lines the edit touches (a span ending at column 0 does not touch its end line)."""
        last = self.end_line - 1 if self.end_col == 0 and self.end_line > self.line else self.end_line
        return range(self.line, last + 1)


@dataclass(frozen=True)
class _Edit:
    """A mutation in the making: the string offsets ``start:end`` of the source become ``replacement``."""

    start: int
    end: int
    replacement: str
    description: str


_NEWLINE = re.compile(r"\r\n|\r|\n")
_PRAGMA = re.compile(r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)")  # coverage.py's default
_CLAUSE_HEADER = re.compile(r"\s*(else|finally)\s*:")
_BLANK_OR_COMMENT = re.compile(r"\s*(#.*)?")
# What may stand between two operands besides their operator: spaces, newlines, parentheses,
# line continuations and comments.
_FILLER = re.compile(r"(?:\s|[()]|\\(?:\r\n|\r|\n)|#[^\r\n]*)*")

_Node = ast.expr | ast.stmt
"""A node with a position in the source: the only kinds an edit spans."""


def _end_position(node: _Node) -> tuple[int, int]:
    """Where ``node`` ends: (1-based line, UTF-8 byte column)."""
    assert node.end_lineno is not None and node.end_col_offset is not None  # ast.parse sets every position
    return node.end_lineno, node.end_col_offset


class _Source:
    """A file's text, with the line starts that turn ``ast`` positions into string offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Python ends lines at \r\n, \r and \n only (str.splitlines also splits at \f, \x1c...).
        # A text ending in a newline gets the start of the empty line after its last.
        self.starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
        self.pragma_lines = {number for number in range(1, len(self.starts) + 1) if _PRAGMA.search(self.line(number))}

    def line(self, number: int) -> str:
        """Line ``number`` (1-based) without its newline."""
        start = self.starts[number - 1]
        end = self.starts[number] if number < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def line_after(self, number: int) -> int:
        """The offset just past line ``number`` and its newline."""
        return self.starts[number] if number < len(self.starts) else len(self.text)

    def point(self, line: int, byte_col: int) -> int:
        """The string offset of an ``ast`` position (1-based line, UTF-8 byte column)."""
        text = self.line(line)
        col = byte_col if text.isascii() else len(text.encode()[:byte_col].decode())
        return self.starts[line - 1] + col

    def start(self, node: _Node) -> int:
        return self.point(node.lineno, node.col_offset)

    def end(self, node: _Node) -> int:
        return self.point(*_end_position(node))

    def text_of(self, node: _Node) -> str:
        return self.text[self.start(node) : self.end(node)]

    def offset(self, line: int, col: int) -> int:
        """The string offset of a :class:`Mutation` position; ValueError when it is outside the text."""
        if not 1 <= line <= len(self.starts) or not 0 <= col <= self.line_after(line) - self.starts[line - 1]:
            raise ValueError(f"position {line}:{col} is outside the file")
        return self.starts[line - 1] + col

    def position(self, offset: int) -> tuple[int, int]:
        """The (1-based line, character column) of a string offset."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index]

    def whole_lines(self, node: ast.stmt) -> tuple[int, int] | None:
        """The offsets of the full lines holding ``node``; None when they hold other code too."""
        first, after = self.starts[node.lineno - 1], self.line_after(_end_position(node)[0])
        before, rest = self.text[first : self.start(node)], self.text[self.end(node) : after].rstrip("\r\n")
        return None if before.strip() or not _BLANK_OR_COMMENT.fullmatch(rest) else (first, after)

    def operator_span(self, left: _Node, right: _Node, operator: str) -> tuple[int, int] | None:
        """The offsets of ``operator`` written between the operands ``left`` and ``right``."""
        begin = self.end(left)
        gap = self.text[begin : self.start(right)]
        filler = _FILLER.match(gap)
        assert filler is not None  # the pattern matches the empty string too
        start = filler.end()
        found = re.compile(r"\s+".join(map(re.escape, operator.split()))).match(gap, start)
        if found is None or not _FILLER.fullmatch(gap, found.end()):
            return None
        return begin + start, begin + found.end()

    def clause_excluded(self, block: Sequence[ast.stmt]) -> bool:
        """Whether the ``else:``/``finally:`` header above ``block`` carries ``pragma: no cover``."""
        number = block[0].lineno
        if not _CLAUSE_HEADER.match(self.line(number)):  # not `else: x = 1` on one line
            number -= 1
            while number > 1 and _BLANK_OR_COMMENT.fullmatch(self.line(number)):
                number -= 1
        return number in self.pragma_lines and bool(_CLAUSE_HEADER.match(self.line(number)))


# --------------------------------------------------------------------------------------------
# Where sites may come from


@dataclass(frozen=True)
class _Where:
    """Where a node sits."""

    names: tuple[str, ...] = ()
    """The enclosing classes and functions, outermost first."""
    function: str | None = None
    """Qualified name of the innermost enclosing function."""
    in_function: bool = False
    """Whether the innermost enclosing scope is a function body (not a class or the module)."""
    block: Sequence[ast.stmt] = ()
    """The statement list that holds the node, for statements."""
    chunk: ast.stmt | None = None
    """The statement compiled alone to check the node's mutations."""


def _is_static_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` or ``TYPE_CHECKING``: a block that does not run when the project is used."""
    if isinstance(test, ast.Name | ast.Attribute):
        return (test.id if isinstance(test, ast.Name) else test.attr) == "TYPE_CHECKING"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
        return sides == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}
    return False


def _is_import_fallback(handler: ast.ExceptHandler) -> bool:
    """``except ImportError:`` (or ``ModuleNotFoundError``, alone or in a tuple)."""
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(name, ast.Name) and name.id in {"ImportError", "ModuleNotFoundError"} for name in caught)


def _is_literal(node: ast.expr) -> bool:
    """A constant, or containers and arithmetic of constants (``(1, 2)``, ``60 * 60``, ``{"a": 1}``)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(map(_is_literal, node.elts))
    if isinstance(node, ast.Dict):
        return all(key is None or _is_literal(key) for key in node.keys) and all(map(_is_literal, node.values))
    if isinstance(node, ast.UnaryOp):
        return _is_literal(node.operand)
    return isinstance(node, ast.BinOp) and _is_literal(node.left) and _is_literal(node.right)


def _is_version_check(node: ast.AST) -> bool:
    """A comparison that names a version (``sys.version_info >= (3, 8)``): its outcome depends on the platform."""
    return isinstance(node, ast.Compare) and any(
        "version" in (part.id if isinstance(part, ast.Name) else part.attr).lower()
        for part in ast.walk(node)
        if isinstance(part, ast.Name | ast.Attribute)
    )


def _excluded(stmt: ast.stmt, where: _Where, src: _Source) -> bool:
    """Statements whose code never yields sites."""
    if stmt.lineno in src.pragma_lines:
        return True
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return stmt.name in {"__repr__", "__str__"}
    if not isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if any(isinstance(target, ast.Name) and target.id in {"__all__", "__version__"} for target in targets):
        return True
    constant = where.function is None and not isinstance(stmt, ast.AugAssign)
    return constant and stmt.value is not None and _is_literal(stmt.value)


def _block(
    stmts: Sequence[ast.stmt], where: _Where, src: _Source, *, top: bool = False
) -> Iterator[tuple[ast.stmt, _Where]]:
    """The statements of a block that may hold sites; ``top`` for module and class bodies outside functions."""
    block = tuple(stmts)
    for stmt in stmts:
        if isinstance(stmt, ast.If) and _is_static_guard(stmt.test):
            yield from _block(stmt.orelse, where, src, top=top)
        elif not _excluded(stmt, where, src):
            yield stmt, replace(where, block=block, chunk=stmt if top else where.chunk)


def _children(node: ast.AST, where: _Where, src: _Source) -> Iterator[tuple[ast.AST, _Where]]:
    """The parts of ``node`` that may hold sites, each with where it sits."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):  # not its decorators, defaults, annotations
        names = (*where.names, node.name)
        chunk = where.chunk if where.function else node
        yield from _block(node.body, _Where(names, ".".join(names), True, chunk=chunk), src)
    elif isinstance(node, ast.ClassDef):  # not its decorators and bases
        inner = replace(where, names=(*where.names, node.name), in_function=False)
        yield from _block(node.body, inner, src, top=where.function is None)
    elif isinstance(node, ast.Lambda):  # not its defaults
        yield node.body, where
    elif isinstance(node, ast.AnnAssign):  # not its annotation
        yield from ((part, where) for part in (node.target, node.value) if part is not None)
    elif isinstance(node, ast.ExceptHandler):
        if not _is_import_fallback(node) and node.lineno not in src.pragma_lines:
            yield from _block(node.body, where, src)
    elif not isinstance(node, ast.JoinedStr):  # positions inside f-strings are unreliable before 3.12
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                yield value, where
            elif not isinstance(value, list) or not value:
                continue
            elif isinstance(value[0], ast.stmt):
                if name not in {"orelse", "finalbody"} or not src.clause_excluded(value):
                    yield from _block(value, where, src)
            else:
                yield from ((item, where) for item in value if isinstance(item, ast.AST))


def _walk(tree: ast.Module, src: _Source) -> Iterator[tuple[ast.AST, _Where]]:
    """Every node that may hold sites, with where it sits (iteratively: deep code must not recurse)."""
    stack: list[tuple[ast.AST, _Where]] = list(_block(tree.body, _Where(), src, top=True))
    while stack:
        node, where = stack.pop()
        if not _is_version_check(node):
            yield node, where
            stack.extend(_children(node, where, src))


# --------------------------------------------------------------------------------------------
# The kinds: one finder each, yielding the edits a node allows


def _snippet(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


_CONDITIONALS = {ast.If: "if", ast.While: "while", ast.IfExp: "conditional expression"}
_LEADING_NOT = re.compile(r"not(?:\s|\\(?:\r\n|\r|\n)|#[^\r\n]*)*")


def _invert_condition(src: _Source, node: ast.AST, where: _Where) -> Iterator[_Edit]:
    """The test of an ``if``, ``elif``, ``while`` or conditional expression becomes ``not (<test>)``;
    a test that already is ``not X`` becomes ``X`` (as written, parentheses and all)."""
    if not isinstance(node, ast.If | ast.While | ast.IfExp) or _is_version_check(node.test):
        return
    test, statement = node.test, _CONDITIONALS[type(node)]
    text = src.text_of(test)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        leading_not = _LEADING_NOT.match(text)
        assert leading_not is not None  # the text of a `not X` node starts with its `not`
        new, description = text[leading_not.end() :], f"removed `not` from the {statement} test"
    else:
        new, description = f"not ({text})", f"negated the {statement} test"
    yield _Edit(src.start(test), src.end(test), new, f"{description} `{_snippet(text)}`")


_COMPARISONS = {
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
}


def _change_comparison(src: _Source, node: ast.AST, where: _Where) -> Iterator[_Edit]:
    """One operator of a single-line comparison is swapped: ``==``/``!=``, ``<`` to ``<=`` and back,
    ``>`` to ``>=`` and back, ``in``/``not in``, ``is``/``is not``; the operands stay as written."""
    if not isinstance(node, ast.Compare) or node.lineno != node.end_lineno:
        return
    operands = [node.left, *node.comparators]
    for (left, right), op in zip(itertools.pairwise(operands), node.ops, strict=True):
        old, new = _COMPARISONS[type(op)]
        span = src.operator_span(left, right, old)
        if span:
            yield _Edit(*span, new, f"changed `{old}` to `{new}` in `{_snippet(src.text_of(node))}`")


_ARITHMETIC = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "/"),
    ast.Mod: ("%", "//"),
}
_BOOLEAN = {ast.And: ("and", "or"), ast.Or: ("or", "and")}


def _is_text(node: ast.expr) -> bool:
    """A string or bytes literal, or an f-string: ``+``, ``*`` and ``%`` on it concatenate, repeat, format."""
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)


def _change_arithmetic(src: _Source, node: ast.AST, where: _Where) -> Iterator[_Edit]:
    """One arithmetic operator is swapped (``+``/``-``, ``*`` to ``/`` and back, ``//`` to ``/``,
    ``%`` to ``//``; also in augmented assignments, ``+=`` to ``-=``...) unless an operand is a
    string literal (concatenation, repetition, ``%`` formatting), or one ``and``/``or`` of a
    boolean operation becomes the other. Only the operator's text changes."""
    if isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _ARITHMETIC:
        left, right = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
        if _is_text(left) or _is_text(right):
            return
        old, new = _ARITHMETIC[type(node.op)]
        if isinstance(node, ast.AugAssign):
            old, new = old + "=", new + "="
        span = src.operator_span(left, right, old)
        if span:
            yield _Edit(*span, new, f"changed `{old}` to `{new}` in `{_snippet(src.text_of(node))}`")
    elif isinstance(node, ast.BoolOp):
        old, new = _BOOLEAN[type(node.op)]
        for left, right in itertools.pairwise(node.values):
            span = src.operator_span(left, right, old)
            if span:
                yield _Edit(*span, new, f"changed `{old}` to `{new}` in `{_snippet(src.text_of(node))}`")


_INT_PREFIXES = {"0x": "x", "0o": "o", "0b": "b"}


def _off_by_one(src: _Source, node: ast.AST, where: _Where) -> Iterator[_Edit]:
    """An integer literal ``n`` (not a bool) becomes ``n + 1``, and also ``n - 1`` when ``n > 0``
    (so the new literal is never negative), written in the literal's base."""
    if not isinstance(node, ast.Constant) or type(node.value) is not int:
        return
    text = src.text_of(node)
    prefix = text[:2].lower()
    for value in (node.value + 1, node.value - 1) if node.value > 0 else (node.value + 1,):
        new = text[:2] + format(value, _INT_PREFIXES[prefix]) if prefix in _INT_PREFIXES else str(value)
        yield _Edit(src.start(node), src.end(node), new, f"changed `{text}` to `{new}`")


def _swap_arguments(src: _Source, node: ast.AST, where: _Where) -> Iterator[_Edit]:
    """The first two positional arguments of a call change places, when neither is ``*args``, each
    fits on one line and they differ; whatever stands between them (the comma, comments) stays."""
    if not isinstance(node, ast.Call) or len(node.args) < 2:
        return
    first, second = node.args[:2]
    if any(isinstance(arg, ast.Starred) or arg.lineno != arg.end_lineno for arg in (first, second)):
        return
    if ast.dump(first) == ast.dump(second):
        return
    between = src.text[src.end(first) : src.start(second)]
    call = _snippet(src.text_of(node.func))
    yield _Edit(
        src.start(first),
        src.end(second),
        src.text_of(second) + between + src.text_of(first),
        f"swapped the arguments `{_snippet(src.text_of(first))}` and `{_snippet(src.text_of(second))}` of `{call}`",
    )


def _is_bare_constant(stmt: ast.stmt) -> bool:
    """A statement that is just a literal: a docstring, ``...``."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _keeps_another(stmt: ast.stmt, where: _Where) -> bool:
    """Whether the block holding ``stmt`` has another statement that does something."""
    return any(other is not stmt and not _is_bare_constant(other) for other in where.block)


def _remove_statement(src: _Source, node: ast.AST, where: _Where) -> Iterator[_Edit]:
    """An expression statement (not a bare literal such as a docstring), assignment, augmented
    assignment or ``raise`` in a function body is deleted, whole lines with their newline, when it
    has its lines to itself and its block keeps another statement."""
    if not where.in_function or not isinstance(node, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Raise):
        return
    if _is_bare_constant(node) or isinstance(node, ast.AnnAssign) and node.value is None:
        return
    span = src.whole_lines(node) if _keeps_another(node, where) else None
    if span:
        yield _Edit(*span, "", f"removed `{_snippet(src.text_of(node))}`")


def _remove_early_return(src: _Source, node: ast.AST, where: _Where) -> Iterator[_Edit]:
    """A guard ``if <test>: return/raise ...`` (no ``elif``/``else``, the body that single statement)
    in a function body is deleted, whole lines with their newline, when it has its lines to itself
    and its block keeps another statement."""
    if not where.in_function or not isinstance(node, ast.If) or node.orelse or len(node.body) != 1:
        return
    if not isinstance(node.body[0], ast.Return | ast.Raise):
        return
    span = src.whole_lines(node) if _keeps_another(node, where) else None
    if span:
        yield _Edit(*span, "", f"removed the guard `{_snippet(src.text_of(node))}`")


_FINDERS: dict[str, Callable[[_Source, ast.AST, _Where], Iterator[_Edit]]] = {
    "invert_condition": _invert_condition,
    "change_comparison": _change_comparison,
    "change_arithmetic": _change_arithmetic,
    "off_by_one": _off_by_one,
    "swap_arguments": _swap_arguments,
    "remove_statement": _remove_statement,
    "remove_early_return": _remove_early_return,
}

KINDS: tuple[str, ...] = tuple(_FINDERS)
"""The kinds of mutation, in the order sites at one position are listed."""


# --------------------------------------------------------------------------------------------
# Checking, listing and applying


def _compiled_dump(text: str) -> str | None:
    """``ast.dump`` of ``text`` if it compiles, else None; indented code is compiled inside ``if 1:``."""
    if text[:1].isspace():
        text = "if 1:\n" + text
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
            compile(tree, "<mutation>", "exec", dont_inherit=True)
        return ast.dump(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class _Checker:
    """Checks edits by compiling the statement that encloses them, mutated, on its own."""

    def __init__(self, src: _Source) -> None:
        self.src = src
        self.originals: dict[tuple[int, int], str | None] = {}

    def valid(self, edit: _Edit, chunk: ast.stmt) -> bool:
        first = min([chunk.lineno, *(decorator.lineno for decorator in getattr(chunk, "decorator_list", ()))])
        start, end = self.src.starts[first - 1], self.src.line_after(_end_position(chunk)[0])
        if not start <= edit.start <= edit.end <= end:
            return False
        text = self.src.text[start:end]
        if (start, end) not in self.originals:
            self.originals[start, end] = _compiled_dump(text)
        mutated = text[: edit.start - start] + edit.replacement + text[edit.end - start :]
        dump = _compiled_dump(mutated)
        return dump is not None and dump != self.originals[start, end]


def mutation_sites(path: str, source: str) -> list[Mutation]:
    """Every mutation site of ``source`` (the text of the file ``path``), ordered by position, then kind.

    Each returned mutation, applied alone, leaves source that compiles and parses to a different
    AST. Source that does not parse has no sites.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    src = _Source(source)
    checker = _Checker(src)
    sites: dict[tuple[int, int, str], Mutation] = {}
    for node, where in _walk(tree, src):
        chunk = where.chunk
        assert chunk is not None  # _walk starts at the module's statements, each its own chunk
        for kind, finder in _FINDERS.items():
            for edit in finder(src, node, where):
                if (edit.start, edit.end, edit.replacement) in sites:
                    continue
                site = Mutation(
                    path,
                    kind,
                    *src.position(edit.start),
                    *src.position(edit.end),
                    edit.replacement,
                    where.function,
                    edit.description,
                )
                if src.pragma_lines.isdisjoint(site.lines) and checker.valid(edit, chunk):
                    sites[edit.start, edit.end, edit.replacement] = site
    return sorted(sites.values(), key=_site_order)


def _site_order(site: Mutation) -> tuple:
    return site.path, site.line, site.col, KINDS.index(site.kind), site.end_line, site.end_col, site.replacement


def apply_mutations(tree: Mapping[str, str], mutations: Iterable[Mutation]) -> dict[str, str]:
    """A copy of ``tree`` (``{path: text}``) with every mutation applied.

    Several mutations may edit one file, or several files. ValueError when a mutation's file is
    not in the tree or its span is outside the file, when two spans in one file overlap or touch
    the same line, or when a mutated file no longer compiles.
    """
    by_path: dict[str, list[Mutation]] = {}
    for mutation in mutations:
        by_path.setdefault(mutation.path, []).append(mutation)
    result = dict(tree)
    for path, edits in by_path.items():
        if path not in tree:
            raise ValueError(f"{path}: not in the tree")
        edits.sort(key=_site_order)
        for before, after in itertools.pairwise(edits):
            if after.line < before.lines.stop:
                raise ValueError(f"{path}: {before.description!r} and {after.description!r} share line {after.line}")
        src = _Source(tree[path])
        text = tree[path]
        for edit in reversed(edits):  # from the end backwards, so earlier offsets stay valid
            start, end = src.offset(edit.line, edit.col), src.offset(edit.end_line, edit.end_col)
            if end < start:
                raise ValueError(f"{path}: the span of {edit.description!r} ends before it starts")
            text = text[:start] + edit.replacement + text[end:]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            raise ValueError(f"{path} no longer compiles: {error}") from error
        result[path] = text
    return result


# --------------------------------------------------------------------------------------------
# Sampling candidates

_PAIR_SORTS = ("function", "file", "files")
_PAIR_ATTEMPTS = 20


def _spread(sites: Sequence[Mutation], rng: random.Random) -> list[Mutation]:
    """All ``sites`` in a random order that takes turns between files and kinds."""
    groups: dict[tuple[str, str], list[Mutation]] = {}
    for site in sites:
        groups.setdefault((site.path, site.kind), []).append(site)
    queues = list(groups.values())
    for queue in queues:
        rng.shuffle(queue)
    rng.shuffle(queues)
    return [site for turn in itertools.zip_longest(*queues) for site in turn if site is not None]


def _applies(tree: Mapping[str, str], pair: tuple[Mutation, ...]) -> bool:
    try:
        apply_mutations({site.path: tree[site.path] for site in pair}, pair)
    except ValueError:
        return False
    return True


def _draw_pair(
    tree: Mapping[str, str],
    pool: list[list[Mutation]],
    sort: str,
    rng: random.Random,
    taken: set[tuple[Mutation, ...]],
) -> tuple[Mutation, ...] | None:
    """A new pair of ``sort`` that applies, drawn from ``pool`` (groups of sites); None after a few misses."""
    for _ in range(_PAIR_ATTEMPTS):
        if sort == "files":
            first, second = (rng.choice(group) for group in rng.sample(pool, 2))
        else:
            first, second = rng.sample(rng.choice(pool), 2)
        if sort == "file" and first.function is not None and first.function == second.function:
            continue
        pair = tuple(sorted((first, second), key=_site_order))
        if pair not in taken and _applies(tree, pair):
            return pair
    return None


def _draw_pairs(
    tree: Mapping[str, str],
    sites: Sequence[Mutation],
    rng: random.Random,
    wanted: int,
    taken: set[tuple[Mutation, ...]],
) -> list[tuple[Mutation, ...]]:
    """Up to ``wanted`` new pairs, taking turns between the sorts: in one function, in one file
    (different functions), across two files. A sort that keeps missing drops out."""
    if wanted <= 0:
        return []
    by_file: dict[str, list[Mutation]] = {}
    by_function: dict[tuple[str, str], list[Mutation]] = {}
    for site in sites:
        by_file.setdefault(site.path, []).append(site)
        if site.function is not None:
            by_function.setdefault((site.path, site.function), []).append(site)
    pools = {
        "function": [group for group in by_function.values() if len(group) > 1],
        "file": [group for group in by_file.values() if len(group) > 1],
        "files": list(by_file.values()) if len(by_file) > 1 else [],
    }
    sorts = [sort for sort in _PAIR_SORTS if pools[sort]]
    pairs: list[tuple[Mutation, ...]] = []
    while sorts and len(pairs) < wanted:
        for sort in list(sorts):
            if len(pairs) == wanted:
                break
            pair = _draw_pair(tree, pools[sort], sort, rng, taken)
            if pair is None:
                sorts.remove(sort)
            else:
                pairs.append(pair)
                taken.add(pair)
    return pairs


def sample_candidates(
    tree: Mapping[str, str],
    paths: Sequence[str],
    rng: random.Random,
    *,
    count: int,
    pair_fraction: float = 0.3,
) -> list[tuple[Mutation, ...]]:
    """Up to ``count`` distinct candidate bugs among the files ``paths`` of ``tree``, in a random order.

    About ``pair_fraction`` of them are pairs of mutations that apply together, in roughly equal
    shares in one function, in one file and across two files (as far as the sites allow); the rest
    are single mutations spread across files and kinds. When one sort runs short the other fills in.
    Deterministic for a given ``rng`` state, tree and paths.
    """
    sites = [site for path in dict.fromkeys(paths) for site in mutation_sites(path, tree[path])]
    taken: set[tuple[Mutation, ...]] = set()
    pairs = _draw_pairs(tree, sites, rng, round(count * pair_fraction), taken)
    singles = [(site,) for site in _spread(sites, rng)][: max(count - len(pairs), 0)]
    taken.update(singles)
    candidates = singles + pairs
    candidates += _draw_pairs(tree, sites, rng, count - len(candidates), taken)
    rng.shuffle(candidates)
    return candidates
