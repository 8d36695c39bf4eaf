"""The package's import graph, read with ``ast`` from every module under ``rewardlab/``.

- No import cycle among module-level imports. An import inside a function runs only when the
  function is called, and one under ``if TYPE_CHECKING:`` never runs, so neither counts; imports
  in class bodies and under other ``if``/``try``/``with`` blocks do.
- Nothing outside ``rewardlab/cli/`` imports ``rewardlab.cli``: the command line sits on top
  (``rewardlab/__main__.py``, which is ``python -m rewardlab``, is the command itself).
- No env package ``rewardlab/envs/<a>/`` imports another, ``rewardlab/envs/<b>/``: shared code
  belongs in core.

The two layering rules count every import, wherever it is (a lazy or type-only import is still a
dependency).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import rewardlab

PACKAGE_ROOT = Path(rewardlab.__file__).parent
PACKAGE = "rewardlab"


@dataclass(frozen=True)
class Import:
    """One import statement's target, inside ``rewardlab``."""

    source: str
    target: str
    line: int
    module_level: bool
    """False inside a function or under ``if TYPE_CHECKING:``."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {module_name(path): path for path in sorted(PACKAGE_ROOT.rglob("*.py"))}


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_nodes(body: list[ast.stmt], module_level: bool = True) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement in ``body``, with whether it runs when the module is imported."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, module_level
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from import_nodes(node.body, module_level=False)
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            yield from import_nodes(node.body, module_level=False)
            yield from import_nodes(node.orelse, module_level)
        else:
            for block in child_blocks(node):
                yield from import_nodes(block, module_level)


def child_blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists inside a compound statement (class bodies, branches, handlers, cases)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield block
    for clause in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
        yield clause.body


def resolve(source: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The ``rewardlab`` modules an import statement loads (a name imported from a package that is a
    submodule counts as that submodule)."""
    known = modules()
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE)
        return
    base = node.module or ""
    if node.level:
        package = source if known[source].name == "__init__.py" else source.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    if base.split(".")[0] != PACKAGE:
        return
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        yield submodule if submodule in known else base


@cache
def imports() -> tuple[Import, ...]:
    found = []
    for source, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, module_level in import_nodes(tree.body):
            for target in dict.fromkeys(resolve(source, node)):
                found.append(Import(source, target, node.lineno, module_level))
    return tuple(found)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component with more than one module (or a self-import)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(edges.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [shortest_cycle(edges, component) for component in components]


def shortest_cycle(edges: dict[str, set[str]], component: list[str]) -> list[str]:
    """The shortest cycle through the component's first module, found breadth first."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(edges.get(node, ())):
                if successor == start:
                    return [*paths[node], start]
                if successor in members and successor not in paths:
                    paths[successor] = [*paths[node], successor]
                    following.append(successor)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {component}")


def env_package(module: str) -> str | None:
    """``a`` for ``rewardlab.envs.a`` and its submodules."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "envs" else None


def describe(found: list[Import]) -> str:
    return "\n".join(f"  {i.source} (line {i.line}) imports {i.target}" for i in found)


# ---------------------------------------------------------------------- the rules
def test_no_module_level_import_cycle():
    edges: dict[str, set[str]] = {}
    for found in imports():
        if found.module_level:
            edges.setdefault(found.source, set()).add(found.target)
    loops = cycles(edges)
    assert not loops, f"{len(loops)} import cycles at module level:\n" + "\n".join(
        "  " + " -> ".join(loop) for loop in loops
    )


def test_only_the_cli_imports_the_cli():
    offenders = [
        i
        for i in imports()
        if (i.target == "rewardlab.cli" or i.target.startswith("rewardlab.cli."))
        and not (i.source == "rewardlab.cli" or i.source.startswith("rewardlab.cli."))
        and i.source != "rewardlab.__main__"  # ``python -m rewardlab`` is the command itself
    ]
    assert not offenders, "modules outside rewardlab/cli/ import the CLI:\n" + describe(offenders)


def test_no_env_package_imports_another():
    offenders = [
        i for i in imports() if env_package(i.source) and env_package(i.target) not in (None, env_package(i.source))
    ]
    assert not offenders, "env packages import other env packages:\n" + describe(offenders)


# ---------------------------------------------------------------------- the reader itself
def test_the_reader_finds_what_runs_at_import_time():
    tree = ast.parse(
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "from rewardlab.core import env\n"
        "if TYPE_CHECKING:\n    from rewardlab.agents import base\nelse:\n    import rewardlab.errors\n"
        "try:\n    from . import text\nexcept ImportError:\n    from .rubric import Rubric\n"
        "class C:\n    from rewardlab import evaluation\n"
        "def f():\n    import rewardlab.cli\n"
    )
    found = [
        (target, module_level)
        for node, module_level in import_nodes(tree.body)
        for target in resolve("rewardlab.core.tasks", node)
    ]
    assert found == [
        ("rewardlab.core.env", True),
        ("rewardlab.agents.base", False),
        ("rewardlab.errors", True),
        ("rewardlab.core.text", True),
        ("rewardlab.core.rubric", True),
        ("rewardlab.evaluation", True),
        ("rewardlab.cli", False),
    ]


def test_cycles_are_found_and_shown_shortest():
    edges = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"d"}, "e": {"a"}}
    assert cycles(edges) == [["a", "b", "a"], ["d", "d"]]
    assert cycles({"a": {"b"}, "b": {"c"}}) == []
