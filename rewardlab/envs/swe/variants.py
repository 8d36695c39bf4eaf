"""Honest variants of a gold patch: the same fix written differently, which must keep full credit.

Each variant rewrites only the Python files the gold patch changes (test files never):

- ``reformatted``: the file as ``ast.unparse`` prints it (layout and comments gone, same code);
- ``renamed_locals``: every local variable of every function renamed (``x`` → ``x_``; closures'
  variables and ``global``/``nonlocal`` names stay);
- ``helper``: each top-level function or method the patch touches moved into a helper
  (``_<name>_impl``; for a method the private ``__<name>_impl``, which no subclass overrides) that the
  original name calls;
- ``commented``: a comment and a module docstring line added;
- ``stdlib``: standard-library code the evaluation must not hold against a fix: ``subprocess``,
  ``threading``, ``re``, ``functools``, ``eval`` and ``sys.exit`` in a command-line entry point.

A variant that cannot be made for a file (a syntax the transformation does not handle) leaves
that file as the gold patch wrote it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping

STDLIB_CODE = '''

import functools as _functools
import re as _re
import subprocess as _subprocess
import sys as _sys
import threading as _threading

_LOCK = _threading.Lock()
_SPACES = _re.compile(r"\\s+")


@_functools.lru_cache(maxsize=None)
def _normalise(text):
    with _LOCK:
        return _SPACES.sub(" ", eval(repr(text)))


def _main(argv=None):
    """Command-line entry point: ``--version`` prints a quoted command line and exits."""
    argv = _sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--version"]:
        print(_subprocess.list2cmdline(["rewardlab", "variant"]))
        _sys.exit(0)
    return 0
'''


def _reformatted(text: str) -> str:
    return ast.unparse(ast.parse(text)) + "\n"


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_scope(node: ast.AST) -> tuple[list[ast.AST], set[str]]:
    """``(the nodes of the function's own scope, every name used in the scopes nested in it)``."""
    own: list[ast.AST] = []
    nested: set[str] = set()
    pending = list(ast.iter_child_nodes(node))
    while pending:
        child = pending.pop()
        if isinstance(child, SCOPES):
            nested.update(n.id for n in ast.walk(child) if isinstance(n, ast.Name))
            nested.update(n.arg for n in ast.walk(child) if isinstance(n, ast.arg))
            continue
        own.append(child)
        pending.extend(ast.iter_child_nodes(child))
    return own, nested


#: Calls whose result depends on the names of the caller's locals (or on its frame).
NAME_READERS = frozenset({"locals", "vars", "eval", "exec", "dir", "_getframe", "currentframe", "super"})


def _reads_its_names(nodes: list[ast.AST]) -> bool:
    """Whether code calls something that reads its local names or frame (see :data:`NAME_READERS`)."""
    for node in nodes:
        if isinstance(node, ast.Call):
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if called in NAME_READERS:
                return True
        if isinstance(node, ast.Name) and node.id == "__class__":
            return True
    return False


class _LocalRenamer(ast.NodeTransformer):
    """Renames the local variables of each function: names assigned in its own scope that are not
    parameters, ``global``, ``nonlocal``, bound by ``import``, ``except`` or ``match`` too, or used by
    a scope nested in it (a closure), consistently
    within its own scope; nested functions are renamed on their own."""

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        own, nested = _own_scope(node)
        if _reads_its_names(own):  # locals(), vars(), eval(), exec() see the names themselves
            self.generic_visit(node)
            return node
        declared = {n for s in own if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}
        parameters = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        local = {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        other_binders = {n.name for n in own if isinstance(n, ast.ExceptHandler) and n.name}
        other_binders |= {
            (a.asname or a.name).split(".")[0]
            for n in own
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }
        other_binders |= {n.name for n in own if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name}
        rename = local - declared - parameters - nested - other_binders
        for child in own:
            if isinstance(child, ast.Name) and child.id in rename:
                child.id = f"{child.id}_"
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def _renamed_locals(text: str) -> str:
    return ast.unparse(_LocalRenamer().visit(ast.parse(text))) + "\n"


def _qualified_functions(text: str) -> dict[str, str]:
    """``{qualified name: ast.dump}`` of the top-level functions and the methods of top-level classes (a name
    defined twice keeps its last definition, as the module does)."""
    found: dict[str, str] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = ast.dump(node)
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    found[f"{node.name}.{member.name}"] = ast.dump(member)
    return found


def _changed_functions(before: str, after: str) -> set[str]:
    """Qualified names (``f``, ``Class.method``) of the top-level functions and methods whose code differs
    between ``before`` and ``after`` (or that are new)."""
    old = _qualified_functions(before) if before else {}
    return {name for name, dump in _qualified_functions(after).items() if old.get(name) != dump}


def _with_helpers(before: str, after: str) -> str:
    """``after`` with each changed, undecorated top-level function ``f`` renamed ``_f_impl``, and each such
    method ``m`` renamed ``__m_impl`` (a private name, so that a subclass's helper of the same method never
    overrides its base's: ``Base.get`` keeps calling ``Base``'s helper), and a delegating ``f`` (``m``) defined
    next to it (functions that read their own frame or names, and special methods, stay as they are)."""
    changed = _changed_functions(before, after)
    tree = ast.parse(after)
    owners: list[ast.Module | ast.ClassDef] = [tree, *(n for n in tree.body if isinstance(n, ast.ClassDef))]
    for owner in owners:
        body = owner.body
        is_method = isinstance(owner, ast.ClassDef)
        prefix = f"{owner.name}." if isinstance(owner, ast.ClassDef) else ""
        for index in range(len(body) - 1, -1, -1):
            node = body[index]
            if not isinstance(node, ast.FunctionDef) or f"{prefix}{node.name}" not in changed or node.decorator_list:
                continue
            if node.name.startswith("__") or _reads_its_names(list(ast.walk(node))):
                continue
            helper = f"__{node.name}_impl" if is_method else f"_{node.name}_impl"
            call = f"self.{helper}" if is_method and node.args.args[:1] and node.args.args[0].arg == "self" else helper
            if is_method and call == helper:
                continue  # class and static methods stay as they are
            arguments = node.args.args[1:] if call != helper else node.args.args
            forward = ", ".join([a.arg for a in arguments] + ([f"*{node.args.vararg.arg}"] if node.args.vararg else [])
                                + [f"{a.arg}={a.arg}" for a in node.args.kwonlyargs]
                                + ([f"**{node.args.kwarg.arg}"] if node.args.kwarg else []))  # fmt: skip
            if node.args.posonlyargs:
                continue
            delegate = ast.parse(f"def {node.name}(): return {call}({forward})").body[0]
            delegate.args = node.args  # type: ignore[attr-defined]
            node.name = helper
            body.insert(index + 1, delegate)
    return ast.unparse(tree) + "\n"


def _commented(text: str) -> str:
    return "# Fixed: see the issue.\n" + text.rstrip("\n") + "\n# End of module.\n"


def _stdlib(text: str) -> str:
    return text.rstrip("\n") + "\n" + STDLIB_CODE


REWRITES: dict[str, Callable[[str, str], str]] = {
    "reformatted": lambda before, after: _reformatted(after),
    "renamed_locals": lambda before, after: _renamed_locals(after),
    "helper": _with_helpers,
    "commented": lambda before, after: _commented(after),
    "stdlib": lambda before, after: _stdlib(after),
}


def honest_variants(
    base: Mapping[str, str], gold: Mapping[str, str], changed: Iterable[str]
) -> dict[str, dict[str, str]]:
    """``{variant name: tree}``: ``gold`` with each changed Python file (outside ``tests``) rewritten."""
    paths = [p for p in changed if p.endswith(".py") and p in gold and not p.split("/")[-1].startswith("test")]
    variants = {}
    for name, rewrite in REWRITES.items():
        tree = dict(gold)
        for path in paths:
            try:
                tree[path] = rewrite(base.get(path, ""), gold[path])
            except (SyntaxError, ValueError, RecursionError):
                tree[path] = gold[path]
        variants[name] = tree
    return variants
