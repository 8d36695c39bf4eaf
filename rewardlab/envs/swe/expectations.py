"""The tests' expected values sealed: the file the hidden run sees holds stand-ins, the values travel in the ticket.

Code under test runs in the interpreter that holds the tests: it could read what they expect (the test files, the
constants of the test functions' code, the values of a ``parametrize``, the module's tables) and return it,
without solving anything. So the evaluated test files do not hold those values. :func:`seal_expectations`
rewrites a test file so that every *expected* value (what a comparison checks a result against) is a stand-in, a
random token string (:data:`TOKEN_PREFIX` and 64 random bits), and returns ``{token: value}`` (:class:`Sealed`).
The host puts that map in the run's one-time ticket, which the sealed runner reads and deletes before any
repository code is imported (:mod:`~rewardlab.envs.swe.collector`); from then on the values live only in the
closure of the audit hook. Every comparison of a guarded test file passes through that hook, which puts each
value back in place of its token just before comparing. A result that holds a token shows code that read the
tests; it compares unequal and the run is tampering.

An expected value is, in a test file:

- a literal operand of ``==`` in an ``assert`` (``assert slug("A B") == "a-b"``), on either side, or a literal
  string of :data:`MIN_NEEDLE` characters or more left of ``in`` (``assert "a-b-c-d" in out``); inside a literal
  list, tuple, set or dict, every element (a dict's values; its keys stay);
- the literal second (or first) argument of ``self.assertEqual`` and its family, the first of ``self.assertIn``
  (as for ``in``);
- in a ``parametrize``, the values given for an argument named like an expectation (:data:`EXPECTATION_NAMES`)
  that the test uses only as an operand of ``==``, written in the decorator or in a module-level table
  (``CASES = [...]``) that nothing else reads;
- a constant of the module or of a test function (``EXPECTED = "a-b"``, ``expected = {"a": 1}``), bound once,
  that is read only as an operand of ``==`` or ``assertEqual``, against something that is not a literal.

Only comparisons the runner guards count (a comparison chained inside a comprehension is not guarded, so a value
compared there is not sealed).

A test's id is part of what the code can see (pytest's argv, ``PYTEST_CURRENT_TEST``), and pytest derives a
parametrized test's id from its values (``test_slug[A B-a-b]``): where a sealed value shows in an id, the run asks
for the id the sealed file gives (:attr:`Sealed.renamed`). A ``parametrize`` whose ids cannot be worked out from
the source (an ``ids`` function, values computed at run time, ids pytest would number to keep them apart, a test
id this file's cases do not give) is left as it is; so is one whose ids would change when the run asks for every
collected test (``test_ids=None``).

Inputs are never sealed (``slug("A B")`` keeps its argument), so ``assert f(x) == x`` is left alone: its
expected value is the input itself. Expectations computed in the test, read from a data file or returned by a
fixture are not sealed either.

Example:
    >>> import random
    >>> sealed = seal_expectations('assert slug("A B") == "a-b"\\n', rng=random.Random(1))
    >>> [(token.startswith(TOKEN_PREFIX), value) for token, value in sealed.expected.items()]
    [(True, 'a-b')]
    >>> sealed.source == f'assert slug("A B") == "{next(iter(sealed.expected))}"\\n'
    True
"""

from __future__ import annotations

import ast
import random
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardlab.core.pysource import parse

EXPECTATION_NAMES = frozenset(
    {"expected", "expect", "expectation", "want", "wanted", "expected_output", "expected_result", "answer", "golden"}
)
"""``parametrize`` argument names whose values are expectations."""

EQUALITY_ASSERTIONS = frozenset(
    {
        "assertEqual", "assertEquals", "failUnlessEqual", "assertListEqual", "assertTupleEqual", "assertDictEqual",
        "assertSetEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertCountEqual",
    }
)  # fmt: skip
"""``unittest`` assertions whose two arguments are compared for equality."""

MAX_SOURCE = 2_000_000
"""Test files longer than this are not sealed."""

TOKEN_PREFIX = "rewardlab-expected-"
"""How a stand-in starts; 16 random hexadecimal digits follow."""


@dataclass(frozen=True)
class Sealed:
    """A test file with its expected values sealed: the new ``source``, ``expected`` (``{token: the value it stands
    in for}``) and the new id of every given test id whose parametrized values were sealed (``renamed``).

    The file is changed as text, literal by literal at each literal's position (formatting, comments and line
    numbers kept), so the sealed file differs from the real one only in those values."""

    source: str
    expected: Mapping[str, Any] = field(default_factory=dict)
    renamed: Mapping[str, str] = field(default_factory=dict)


class _Expectations(ast.NodeVisitor):
    """Finds a test file's expected values (module docstring) and gives each a token; ``test_ids`` ``None``: every
    collected test will run, under the ids it has now."""

    def __init__(self, rng: random.Random, test_ids: Sequence[str] | None, module: ast.Module):
        self.rng = rng
        self.replacements: list[tuple[ast.expr, Any]] = []
        self.renamed: dict[str, str] = {}
        self.every_test = test_ids is None
        nodes = list(ast.walk(module))
        self.unguarded = _in_comprehensions(nodes)
        self.ids_by_function: dict[str, list[str]] = {}
        for test_id in test_ids or ():
            self.ids_by_function.setdefault(test_id.split("[", 1)[0].split("::")[-1], []).append(test_id)
        constants = _constants(nodes, module.body)
        #: Innermost last: ``{name: the value written for it}`` of the constants read only as expectations, and
        #: ``None`` for a name a function binds otherwise (it hides the module's).
        self.scopes: list[dict[str, ast.AST | None]] = [
            {name: constants[name] for name in _expectation_uses(nodes, constants, self.unguarded)}
        ]
        self.defined = Counter(n.name for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))

    def seal(self, node: ast.AST) -> None:
        """Give a token to every literal in ``node`` (a constant, or a list, tuple, set or dict display)."""
        if isinstance(node, (ast.Constant, ast.UnaryOp)) and self.literal(node):
            if all(n is not node for n, _ in self.replacements):
                self.replacements.append((node, f"{TOKEN_PREFIX}{self.rng.getrandbits(64):016x}"))
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            for element in node.elts:
                self.seal(element)
        elif isinstance(node, ast.Dict):
            for value in node.values:
                self.seal(value)

    def new_value(self, node: ast.AST) -> Any:
        """The token given to the constant ``node``, else its own value."""
        return next((new for n, new in self.replacements if n is node), _written_value(node))

    @staticmethod
    def literal(node: ast.AST) -> bool:
        """Whether ``node`` is a literal the sealer handles: a string or a number (signed too), or a non-empty
        list, tuple, set or dict display of them (a dict's values)."""
        if isinstance(node, (ast.Constant, ast.UnaryOp)):
            return _scalar(node) is not None
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return bool(node.elts) and all(_Expectations.literal(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return bool(node.values) and all(v is not None and _Expectations.literal(v) for v in node.values)
        return False

    def named(self, node: ast.AST) -> ast.AST | None:
        """The value written for the name ``node`` when it is a constant read only as an expected value."""
        if isinstance(node, ast.Name):
            for scope in reversed(self.scopes):
                if node.id in scope:
                    return scope[node.id]
        return None

    def operand(self, node: ast.AST, other: ast.AST) -> bool:
        """Whether ``node`` is an expected value compared with ``other``: a literal, or a constant (of the module
        or the test function) read only as such, against a non-literal."""
        if self.literal(other) or self.named(other) is not None:
            return False
        value = self.named(node)
        if value is not None:
            self.seal(value)
            return True
        if self.literal(node):
            self.seal(node)
            return True
        return False

    def visit_Assert(self, node: ast.Assert) -> None:
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op, left, right = test.ops[0], test.left, test.comparators[0]
            if isinstance(op, ast.Eq):
                self.operand(right, left) or self.operand(left, right)
            elif isinstance(op, ast.In) and _needle(left) and not self.literal(right):
                self.seal(left)

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        name = _assertion(node) if id(node) not in self.unguarded else ""
        args = node.args
        if name in EQUALITY_ASSERTIONS and len(args) >= 2:
            self.operand(args[1], args[0]) or self.operand(args[0], args[1])
        elif name == "assertIn" and len(args) >= 2 and _needle(args[0]) and not self.literal(args[1]):
            self.seal(args[0])

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        nodes = list(ast.walk(node))
        local = _constants(nodes, [n for n in nodes if isinstance(n, ast.Assign)])
        uses = _expectation_uses(nodes, local, self.unguarded)
        bound = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)} | {
            n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
        }
        self.scopes.append({name: local[name] if name in uses else None for name in bound})
        self.generic_visit(node)
        self.scopes.pop()
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call) or getattr(decorator.func, "attr", "") != "parametrize":
                continue
            if len(decorator.args) >= 2:
                self.parametrize(node, decorator, _compared_only(nodes, self.unguarded))

    visit_AsyncFunctionDef = visit_FunctionDef

    def parametrize(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, decorator: ast.Call, compared: frozenset[str]
    ) -> None:
        """The values of the expectation-named arguments of one ``parametrize(names, values)`` whose test uses
        them only as an operand of ``==`` (an expected value also fed to the code would be an input too), in the
        decorator or in the module table it names; nothing when the ids sealing gives cannot be worked out."""
        names = _argument_names(decorator.args[0])
        values_node: ast.AST = decorator.args[1]
        values_node = self.named(values_node) or values_node
        wanted = [i for i, n in enumerate(names) if n in EXPECTATION_NAMES and n in compared]
        if not wanted or not isinstance(values_node, (ast.List, ast.Tuple)):
            return
        keywords = {k.arg for k in decorator.keywords}
        if "indirect" in keywords or "ids" in keywords and not _listed(decorator):
            return  # values that reach fixtures, or ids a function makes of them
        cases = [_case(case, len(names)) for case in values_node.elts]
        before = len(self.replacements)
        for values, _ in cases:
            for i in wanted:
                if values is not None and self.literal(values[i]):
                    self.seal(values[i])
        if len(self.replacements) > before and "ids" not in keywords and not self.rename(function.name, names, cases):
            del self.replacements[before:]

    def rename(self, function: str, names: list[str], cases: list[tuple[list[ast.AST] | None, str | None]]) -> bool:
        """Record the new id of every test of ``function`` whose case's id changes; False when an id cannot be
        worked out (pytest's rule: the values' ids joined by ``-``, an explicit ``pytest.param(id=...)`` kept)."""
        old_ids: list[str] = []
        new_ids: list[str] = []
        for index, (values, explicit) in enumerate(cases):
            if values is None:
                return False
            if explicit is not None:
                old_ids.append(explicit)
                new_ids.append(explicit)
                continue
            old = [_id_part(v, names[i], index, _written_value) for i, v in enumerate(values)]
            new = [_id_part(v, names[i], index, self.new_value) for i, v in enumerate(values)]
            if None in old or None in new:
                return False
            old_ids.append("-".join(str(part) for part in old))
            new_ids.append("-".join(str(part) for part in new))
        if len(set(old_ids)) != len(old_ids) or self.defined[function] != 1:
            return False  # pytest numbers equal ids to keep them apart, or two tests share the name
        changes = {old: new for old, new in zip(old_ids, new_ids, strict=True) if old != new}
        if self.every_test:
            return not changes  # the run asks for no id: the ids must stay as they are
        renamed = {}
        for test_id in self.ids_by_function.get(function, []):
            bracket = test_id.partition("[")[2][:-1] if test_id.endswith("]") else None
            if bracket is None or bracket not in changes and bracket not in old_ids:
                return False  # an id this parametrize alone does not give (stacked, a class's parameters)
            if bracket in changes:
                renamed[test_id] = f"{test_id.partition('[')[0]}[{changes[bracket]}]"
        self.renamed.update(renamed)
        return True


def _argument_names(node: ast.AST) -> list[str]:
    """The argument names a ``parametrize``'s first argument gives (``"a, b"`` or ``("a", "b")``), else none."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",")]
    if isinstance(node, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return [str(e.value) for e in node.elts]  # type: ignore[attr-defined]
    return []


def _listed(decorator: ast.Call) -> bool:
    """Whether the ``parametrize``'s ``ids`` is a written list (ids that no value changes), not a function."""
    return any(k.arg == "ids" and isinstance(k.value, (ast.List, ast.Tuple)) for k in decorator.keywords)


def _case(case: ast.AST, width: int) -> tuple[list[ast.AST] | None, str | None]:
    """``(the case's value nodes, the id it names for itself)``; no nodes when they are not written out (or the
    id it names is not a written string)."""
    if isinstance(case, ast.Call) and getattr(case.func, "attr", "") == "param":
        named = [k.value for k in case.keywords if k.arg == "id"]
        written = all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in named)
        if not written or any(isinstance(a, ast.Starred) for a in case.args):
            return None, None
        explicit = str(getattr(named[0], "value", "")) if named else None
        return (list(case.args) if len(case.args) == width else None), explicit
    if width == 1:
        return [case], None
    if isinstance(case, (ast.Tuple, ast.List)) and len(case.elts) == width:
        if any(isinstance(e, ast.Starred) for e in case.elts):
            return None, None
        return list(case.elts), None
    return None, None


def _id_part(node: ast.AST, name: str, index: int, value_of: Any) -> str | None:
    """pytest's id for one parameter value written as ``node``: a string escaped to ASCII, a number, ``None`` or
    a bool as ``str``, a display (list, dict ...) as ``name`` + case index; ``None`` when only the run knows."""
    if isinstance(node, (ast.Constant, ast.UnaryOp)):
        value = value_of(node)
        if isinstance(value, str):
            return value.encode("unicode_escape").decode("ascii")
        if isinstance(value, bytes):
            return value.decode("ascii", "backslashreplace")
        if value is None or isinstance(value, (int, float, complex)):
            return str(value)
        return None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return f"{name}{index}"
    return None


def _scalar(node: ast.AST) -> str | int | float | None:
    """The value of a string or number literal (``-3``, ``+2.5`` included; not a bool), else ``None``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _scalar(node.operand)
        if isinstance(inner, (int, float)) and isinstance(node.operand, ast.Constant):
            return -inner if isinstance(node.op, ast.USub) else inner
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
        return None if isinstance(node.value, bool) else node.value
    return None


def _written_value(node: ast.AST) -> Any:
    """The value a constant or signed number literal ``node`` is written as (``None`` for anything else)."""
    if isinstance(node, ast.UnaryOp):
        try:
            return ast.literal_eval(node)
        except ValueError:
            return None
    return getattr(node, "value", None)


def _constants(scope: Sequence[ast.AST], statements: Sequence[ast.AST]) -> dict[str, ast.AST]:
    """``{name: value}`` of the names ``scope`` (every node of a module or a function) binds exactly once, by one of the
    ``statements`` ``NAME = <value>``."""
    bound = Counter(n.id for n in scope if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)))
    constants: dict[str, ast.AST] = {}
    for statement in statements:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and bound[target.id] == 1:
                constants[target.id] = statement.value
    return constants


def _expectation_uses(
    scope: Sequence[ast.AST], constants: Mapping[str, ast.AST], unguarded: frozenset[int]
) -> frozenset[str]:
    """The constants of ``scope`` (every node of a module or a function) it reads only as expectations: every read
    an operand of ``==`` in an ``assert`` or of an ``assertEqual`` (the constant then a literal), or its one read the
    values of a ``parametrize`` (a table of written-out cases). A name read in any other way (fed to the code, a
    ``global``) is an input. Assertions among ``unguarded`` nodes (:func:`_in_comprehensions`) do not count."""
    compared: set[int] = set()
    tables: list[int] = []
    for node in scope:
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1:
            if isinstance(node.test.ops[0], ast.Eq):
                compared.update(id(n) for n in (node.test.left, *node.test.comparators))
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", "") if id(node) not in unguarded else ""
            if name in EQUALITY_ASSERTIONS:
                compared.update(id(n) for n in node.args[:2])
            elif name == "parametrize" and len(node.args) >= 2:
                tables.append(id(node.args[1]))
    reads: dict[str, list[str]] = {}
    for node in scope:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in constants:
            kind = "compared" if id(node) in compared else "table" if id(node) in tables else "other"
            reads.setdefault(node.id, []).append(kind)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                reads.setdefault(name, []).append("other")
    compared_only = {name for name, kinds in reads.items() if set(kinds) == {"compared"}}
    one_table = {name for name, kinds in reads.items() if kinds == ["table"]}
    return frozenset(
        {n for n in compared_only if _Expectations.literal(constants[n])}
        | {n for n in one_table if _table(constants[n])}
    )


def _table(node: ast.AST) -> bool:
    """Whether ``node`` is a written-out list or tuple of cases."""
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts)


MIN_NEEDLE = 6
"""A string looked for with ``in`` is sealed only from this length (a short one is as much an input as an answer)."""


def _needle(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= MIN_NEEDLE


def _compared_only(function: Sequence[ast.AST], unguarded: frozenset[int]) -> frozenset[str]:
    """The argument names ``function`` (every node of a test function) loads only as a direct operand of ``==``
    (or of ``self.assertEqual``), in a comparison the runner guards (not among the ``unguarded`` nodes, inside a
    comprehension)."""
    operands: set[int] = set()
    for node in function:
        if id(node) in unguarded:
            continue
        if isinstance(node, ast.Compare) and all(isinstance(op, ast.Eq) for op in node.ops):
            operands.update(id(n) for n in (node.left, *node.comparators) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Call) and _assertion(node) in EQUALITY_ASSERTIONS:
            operands.update(id(n) for n in node.args[:2] if isinstance(n, ast.Name))
    loads: dict[str, bool] = {}
    for node in function:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, True) and id(node) in operands
    return frozenset(name for name, only in loads.items() if only)


def _assertion(call: ast.Call) -> str:
    """The name of the method ``call`` calls on an object (``self.assertEqual(...)``): the only form of a
    ``unittest`` assertion the runner guards; ``""`` for any other call."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else ""


def _in_comprehensions(scope: Sequence[ast.AST]) -> frozenset[int]:
    """The ids of the nodes inside a comprehension or generator expression among ``scope`` (every node of a
    module): a comparison there may
    run unguarded (a chain, an assignment expression), so nothing compared there is sealed."""
    inside: set[int] = set()
    for node in scope:
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            inside.update(id(n) for n in ast.walk(node))
    return frozenset(inside)


def seal_expectations(
    source: str, test_ids: Sequence[str] | None = None, *, rng: random.Random | None = None
) -> Sealed:
    """``source`` (a test file) with its expected values sealed (module docstring); unchanged when it does not
    parse or holds none. ``test_ids`` are the ids of the file's tests the run will ask for: those whose sealed
    values show in their id are in :attr:`Sealed.renamed`; ``None`` when the run asks for every collected test
    (no id may change then). ``rng`` draws the tokens (the system's randomness by default). Never raises."""
    rng = rng or secrets.SystemRandom()
    if len(source) > MAX_SOURCE:
        return Sealed(source)
    try:
        tree = parse(source, quiet=True)  # a repository's test file: its warnings are not the user's concern
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Sealed(source)
    sealer = _Expectations(rng, test_ids, tree)
    try:
        sealer.visit(tree)
    except (RecursionError, ValueError, TypeError, AttributeError):
        return Sealed(source)
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    spans = []
    for node, token in sealer.replacements:
        if node.end_lineno is None or node.end_col_offset is None:
            return Sealed(source)
        start = starts[node.lineno - 1] + len(lines[node.lineno - 1].encode()[: node.col_offset].decode())
        end = starts[node.end_lineno - 1] + len(lines[node.end_lineno - 1].encode()[: node.end_col_offset].decode())
        spans.append((start, end, token, _scalar(node)))
    spans.sort()
    if not spans or any(a[1] > b[0] for a, b in zip(spans, spans[1:], strict=False)):
        return Sealed(source)
    out, position = [], 0
    for start, end, token, _ in spans:
        out += [source[position:start], _written_like(source[start:end], token)]
        position = end
    out.append(source[position:])
    return Sealed("".join(out), {token: value for _, _, token, value in spans}, sealer.renamed)


def _written_like(original: str, token: str) -> str:
    """``token`` as source, in the quotes of the ``original`` literal where it has plain ones (``"…"``, ``'…'``)."""
    quote = original[:1]
    if quote in ('"', "'") and not original.startswith(quote * 3):
        return f"{quote}{token}{quote}"
    return repr(token)
