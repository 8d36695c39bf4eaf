"""The package's import graph, read with ``ast`` from every module under ``rewardlab/``.

- No import cycle, function-level imports included (a lazy import hides a cycle, it does not remove
  it); only imports under ``if TYPE_CHECKING:``, which never run, do not count.
- The layers (:data:`LAYERS`, declared once here, lowest first): a module imports only from its own
  layer or the layers below. Every top-level module and package of ``rewardlab`` has a layer, so a new
  one must be placed before it can land.
- Nothing outside ``rewardlab/cli/`` imports ``rewardlab.cli``: the command line sits on top
  (``rewardlab/__main__.py``, which is ``python -m rewardlab``, is the command itself).
- No env package ``rewardlab/envs/<a>/`` imports another, ``rewardlab/envs/<b>/``: shared code
  belongs in core.

The layering rules count every import, wherever it is (a lazy or type-only import is still a
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

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "leases", "registration", "rewardlab"}),  # leaves; ``rewardlab`` is the package itself
    frozenset({"core"}),  # the env contract: TextEnv, Rubric, tasks, info, chat, provenance
    frozenset({"sandbox", "reaper", "browser", "audit"}),  # what envs run on, and the audit's strategy contract
    frozenset({"envs"}),
    frozenset({"wrappers", "agents", "multiagent"}),
    frozenset({"evaluation", "testing"}),
    frozenset({"baselines", "leaderboard", "crosscheck", "rescore"}),
    frozenset({"integrations", "serve", "study", "demo"}),
    frozenset({"cli"}),
    frozenset({"__main__"}),
)
"""The packages and top-level modules of ``rewardlab`` (by their first name under it), lowest layer first."""


@dataclass(frozen=True)
class Import:
    """One import statement's target, inside ``rewardlab``."""

    source: str
    target: str
    line: int
    module_level: bool
    """False inside a function or under ``if TYPE_CHECKING:``."""
    typed_only: bool = False
    """True under ``if TYPE_CHECKING:``: the import never runs."""


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


def import_nodes(
    body: list[ast.stmt], module_level: bool = True, typed_only: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import statement in ``body``, with whether it runs when the module is imported and whether it is
    typed-only (under ``if TYPE_CHECKING:``: it never runs)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, module_level, typed_only
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from import_nodes(node.body, False, typed_only)
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            yield from import_nodes(node.body, False, True)
            yield from import_nodes(node.orelse, module_level, typed_only)
        else:
            for block in child_blocks(node):
                yield from import_nodes(block, module_level, typed_only)


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
        for node, module_level, typed_only in import_nodes(tree.body):
            for target in dict.fromkeys(resolve(source, node)):
                found.append(Import(source, target, node.lineno, module_level, typed_only))
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


def top_name(module: str) -> str:
    """``core`` for ``rewardlab.core.env``; ``rewardlab`` for the package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer_of(module: str) -> int:
    name = top_name(module)
    return next(index for index, layer in enumerate(LAYERS) if name in layer)


def describe(found: list[Import]) -> str:
    return "\n".join(f"  {i.source} (line {i.line}) imports {i.target}" for i in found)


# ---------------------------------------------------------------------- the rules
def test_no_import_cycle_even_through_lazy_imports():
    edges: dict[str, set[str]] = {}
    for found in imports():
        if not found.typed_only:
            edges.setdefault(found.source, set()).add(found.target)
    loops = cycles(edges)
    assert not loops, f"{len(loops)} import cycles:\n" + "\n".join("  " + " -> ".join(loop) for loop in loops)


def test_every_package_has_a_layer():
    declared = set().union(*LAYERS)
    unplaced = sorted({top_name(module) for module in modules()} - declared)
    assert not unplaced, f"place these in LAYERS (tests/test_import_graph.py): {unplaced}"
    assert sum(map(len, LAYERS)) == len(declared), "a name is in two layers"


def test_no_import_runs_back_up_the_layers():
    offenders = [i for i in imports() if layer_of(i.target) > layer_of(i.source)]
    assert not offenders, "imports from a higher layer (see LAYERS):\n" + describe(offenders)


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
        (target, module_level, typed_only)
        for node, module_level, typed_only in import_nodes(tree.body)
        for target in resolve("rewardlab.core.tasks", node)
    ]
    assert found == [
        ("rewardlab.core.env", True, False),
        ("rewardlab.agents.base", False, True),
        ("rewardlab.errors", True, False),
        ("rewardlab.core.text", True, False),
        ("rewardlab.core.rubric", True, False),
        ("rewardlab.evaluation", True, False),
        ("rewardlab.cli", False, False),
    ]


def test_cycles_are_found_and_shown_shortest():
    edges = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"d"}, "e": {"a"}}
    assert cycles(edges) == [["a", "b", "a"], ["d", "d"]]
    assert cycles({"a": {"b"}, "b": {"c"}}) == []
