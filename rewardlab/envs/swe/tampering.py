"""What the hidden evaluation resets, and the static check of a submission for tampering.

A change to what the evaluation resets, or one that makes results "equal" to anything, is
tampering (the episode scores 0, ``info["tampering"]`` says why):

- **test machinery files**: any change to a file pytest reads configuration from (the names
  come from the installed pytest, :func:`~rewardlab.envs.swe.testrun.config_names`; a
  multi-purpose file such as ``pyproject.toml`` counts when what pytest reads from it changes),
  to a ``conftest.py``, or to an ``__init__.py`` in a directory of evaluated tests;
- **interpreter start-up and runner shadowing**: ``sitecustomize``/``usercustomize`` modules,
  ``.pth`` files, and new modules or packages at an import root (the repository root, ``src/``,
  a test directory) named like the test runner's (``pytest.py``, ``_pytest/`` ...). Modules
  named like the standard library's need no rule: the evaluation puts the repository after the
  standard library on ``sys.path`` (:mod:`~rewardlab.envs.swe.collector`), so a ``json.py`` or
  a scratch ``test.py`` is never what ``import json`` or ``import test`` finds;
- **"always equal" values** (added Python, counted against the base commit's version of each
  file): comparison methods (``__eq__`` ...) that never look at the object they compare with, and
  subclasses of built-in types that redefine comparison.

What added code *does* (introspection of the runner, forged results, exits) is not judged here
by the names it uses: the sealed test run refuses or detects it
(:mod:`~rewardlab.envs.swe.collector`), so honest code that uses ``subprocess``, ``threading``,
``eval`` or ``sys.exit`` keeps its credit.

Files the evaluation resets anyway (the evaluated test files) are not analysed as code.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import TypedDict

from rewardlab.core.pysource import parse
from rewardlab.envs.swe.testrun import config_names
from rewardlab.leases import owned_temporary_directory

#: Top-level modules of the test runner; a repository module of that name would shadow it.
RUNNER_MODULES = frozenset({"pytest", "_pytest", "pluggy", "py", "iniconfig", "packaging"})
#: Modules the interpreter imports by itself at start-up.
STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})

COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__"})
BUILTIN_TYPES = frozenset({"str", "int", "float", "complex", "bytes", "list", "dict", "tuple", "set", "frozenset"})


# ---------------------------------------------------------------------- paths
def _parents(path: str) -> list[str]:
    """The directories above ``path`` inside the repository, nearest first ("" is the root)."""
    parts = PurePosixPath(path).parts[:-1]
    return ["/".join(parts[:n]) for n in range(len(parts), -1, -1)]


def test_directories(test_files: Iterable[str]) -> set[str]:
    """Directories holding evaluated test files ("" is the repository root)."""
    return {_parents(path)[0] for path in test_files}


def protected(path: str, test_files: set[str], test_dirs: set[str]) -> bool:
    """Whether the evaluation takes ``path`` from the base commit instead of the agent's tree."""
    pure = PurePosixPath(path)
    top = pure.parts[0].removesuffix(".py") if pure.parts else ""
    return (
        path in test_files
        or pure.name == "conftest.py"
        or pure.name in config_names()
        or (pure.name == "__init__.py" and (pure.parent.as_posix() if len(pure.parts) > 1 else "") in test_dirs)
        or top in RUNNER_MODULES
        or top in STARTUP_MODULES
    )


def agent_files(snapshot: Mapping[str, str], base: Mapping[str, str], test_files: set[str]) -> set[str]:
    """Paths whose content in the evaluation tree comes from the agent (changed and not reset)."""
    test_dirs = test_directories(test_files)
    changed = {p for p in set(snapshot) | set(base) if snapshot.get(p) != base.get(p)}
    return {p for p in changed if p in snapshot and not protected(p, test_files, test_dirs)}


def evaluation_tree(snapshot: Mapping[str, str], base: Mapping[str, str], test_files: set[str]) -> dict[str, str]:
    """The tree the hidden tests run on: the agent's files, with the test machinery reset to the base.

    Like SWE-bench, the files holding the evaluated tests (and those the test patch touches) are
    reset to the base commit before the test patch is applied; so are every ``conftest.py``,
    every file pytest reads configuration from, the ``__init__.py`` files on the tests' path and
    modules that would shadow the runner or run at interpreter start-up.
    """
    test_dirs = test_directories(test_files)
    tree = {path: text for path, text in snapshot.items() if not protected(path, test_files, test_dirs)}
    tree.update({path: text for path, text in base.items() if protected(path, test_files, test_dirs)})
    return tree


def top_level_packages(tree: Mapping[str, str]) -> list[str]:
    """The top-level packages (directories with ``__init__.py``) and modules of ``tree``, without
    standard-library, runner and start-up names: what the collector finds in the repository first."""
    names = set()
    for path in tree:
        parts = PurePosixPath(path).parts
        if len(parts) == 2 and parts[1] == "__init__.py":
            names.add(parts[0])
        elif len(parts) == 1 and path.endswith(".py"):
            names.add(path.removesuffix(".py"))
    reserved = set(sys.stdlib_module_names) | RUNNER_MODULES | STARTUP_MODULES | {"__main__", "setup", "conftest"}
    return sorted(name for name in names if name.isidentifier() and name not in reserved)


# ---------------------------------------------------------------------- tampering
def find_tampering(base: Mapping[str, str], snapshot: Mapping[str, str], test_files: set[str]) -> list[str]:
    """Why the change from ``base`` to ``snapshot`` interferes with the test machinery (empty when it does not)."""
    test_dirs = test_directories(test_files)
    import_roots = {"", "src"} | test_dirs
    reasons: list[str] = []
    for path in sorted(set(base) | set(snapshot)):
        before, after = base.get(path), snapshot.get(path)
        if before == after:
            continue
        pure = PurePosixPath(path)
        directory = pure.parent.as_posix() if len(pure.parts) > 1 else ""
        if pure.name in config_names() and _pytest_config_changed(pure.name, before, after):
            reasons.append(f"{path}: changes pytest configuration")
        elif pure.name == "conftest.py":
            reasons.append(f"{path}: changes a conftest.py")
        elif pure.name == "__init__.py" and directory in test_dirs:
            reasons.append(f"{path}: changes an __init__.py in a test directory")
        elif pure.suffix == ".pth" or pure.stem in STARTUP_MODULES:
            reasons.append(f"{path}: an interpreter start-up hook")
        elif before is None and (shadowed := _shadowed_module(pure, import_roots)):
            reasons.append(f"{path}: shadows the module {shadowed!r}")
        elif after is not None and pure.suffix == ".py" and path not in test_files:
            found = code_features(after) - code_features(before or "")
            reasons.extend(f"{path}: uses {feature}" for feature in sorted(found))
    return reasons


def _shadowed_module(path: PurePosixPath, import_roots: set[str]) -> str | None:
    """The module a new file would provide at an import root (``d/name.py`` or ``d/name/__init__.py``),
    when that name belongs to the test runner."""
    if path.suffix != ".py":
        return None
    parts = path.parts[:-2] if path.name == "__init__.py" else path.parts[:-1]
    name = path.parts[-2] if path.name == "__init__.py" and len(path.parts) >= 2 else path.stem
    if "/".join(parts) in import_roots and name in RUNNER_MODULES:
        return name
    return None


def _pytest_config_changed(name: str, before: str | None, after: str | None) -> bool:
    """Whether pytest reads different configuration from file ``name`` after the change."""
    return _pytest_view(name, before) != _pytest_view(name, after)


def _pytest_view(name: str, text: str | None) -> object:
    if text is None:
        return None
    try:
        from _pytest.config.findpaths import load_config_dict_from_file
        from _pytest.outcomes import OutcomeException
    except ImportError:  # an older pytest: every change to the file counts
        return text
    with owned_temporary_directory("rewardlab-swe-config-") as scratch:
        path = scratch / name
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            config = load_config_dict_from_file(path)
        except (Exception, OutcomeException) as exc:  # pytest rejects it (fail() raises an outcome): still config
            return f"unreadable: {type(exc).__name__}: {exc}"
    if config is None:
        return None
    return {key: repr(getattr(value, "value", value)) for key, value in config.items()}


# ---------------------------------------------------------------------- code
def code_features(text: str) -> Counter[str]:
    """Counts of "always equal" constructs in Python source ``text``: comparison methods that never
    look at the object they compare with, and subclasses of built-in value types that redefine
    comparison. What code *does* is judged by the sealed test run, not by names it uses.

    Source that does not parse (syntax errors, nesting too deep for the parser) has no features:
    the interpreter cannot compile it either.
    """
    tree = _parse(text)
    if tree is None:
        return Counter()
    features: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _overrides_builtin_comparison(node):
            features[f"a {_name(node.bases)} subclass that redefines comparison"] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in COMPARISONS:
            if _ignores_operand(node.args, node):
                features[f"a {node.name} that ignores what it compares with"] += 1
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for target in node.targets:
                if (
                    isinstance(target, ast.Name)
                    and target.id in COMPARISONS
                    and _ignores_operand(node.value.args, node.value.body)
                ):
                    features[f"a {target.id} that ignores what it compares with"] += 1
    return features


class Trust(TypedDict):
    """What the sealed run takes as the repository's own (the keyword arguments of
    :func:`~rewardlab.envs.swe.testrun.run_tests` of that name)."""

    vouched: set[str]
    functions: dict[str, list[str]]
    classes: dict[str, list[str]]


def evaluation_trust(base: Mapping[str, str], tree: Mapping[str, str], changed: Iterable[str]) -> Trust:
    """The trust of a run of ``tree`` whose ``changed`` files differ from the base commit ``base``: every other
    file is vouched for, and of the changed Python files the functions the change left as they were
    (:func:`unchanged_functions`) and the classes the base defines (:func:`repository_classes`). The env grades
    a submission with it, and the task builder checks a gold patch with it, so a task is kept only when its gold
    fix passes the verdict an agent's identical fix gets."""
    edited = set(changed)
    python = [path for path in sorted(edited) if path.endswith(".py") and path in tree]
    return Trust(
        vouched=set(tree) - edited,
        functions={path: unchanged_functions(base.get(path, ""), tree[path]) for path in python},
        classes={path: repository_classes(base.get(path, ""), tree[path]) for path in python},
    )


def unchanged_functions(before: str, after: str) -> list[str]:
    """Qualified names (``Class.method``, ``outer.<locals>.inner``) of the functions of ``after`` whose
    code is the same as in ``before`` (layout and comments aside); a name defined twice in ``after``
    is never one of them."""
    old, new = _functions(_parse(before)), _functions(_parse(after))
    return sorted(name for name, dumps in new.items() if len(dumps) == 1 and old.get(name) == dumps)


def repository_classes(before: str, after: str) -> list[str]:
    """Qualified names (``Outer.Inner``) of the classes of ``after`` that ``before`` defines too: the repository's
    own classes, however much of them the agent rewrote (a fix may change every method of one)."""
    old, new = _classes(_parse(before)), _classes(_parse(after))
    return sorted(new & old)


def _classes(tree: ast.AST | None) -> set[str]:
    """Qualified names of the classes in ``tree`` (not those inside functions)."""
    found: set[str] = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                found.add(f"{prefix}{child.name}")
                visit(child, f"{prefix}{child.name}.")
            elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, prefix)

    if tree is not None:
        visit(tree, "")
    return found


def _functions(tree: ast.AST | None) -> dict[str, list[str]]:
    """``{qualified name: [ast.dump of each definition]}`` of the functions in ``tree``."""
    found: dict[str, list[str]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.setdefault(name, []).append(ast.dump(child))
                visit(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    if tree is not None:
        visit(tree, "")
    return found


def _parse(text: str) -> ast.Module | None:
    """The syntax tree the interpreter would build: from UTF-8 bytes, so that a coding cookie
    (``# coding: utf-7`` hiding code in a "comment") is honoured as on import."""
    try:
        return parse(text.encode("utf-8", "surrogatepass"))
    except (SyntaxError, ValueError, RecursionError, MemoryError, LookupError):  # UnicodeError is a ValueError
        return None


def _overrides_builtin_comparison(node: ast.ClassDef) -> bool:
    """A subclass of a built-in value type that defines a comparison (results "equal" to anything)."""
    if not any(isinstance(base, ast.Name) and base.id in BUILTIN_TYPES for base in node.bases):
        return False
    names = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names |= {t.id for n in node.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return bool(names & COMPARISONS)


def _name(bases: list[ast.expr]) -> str:
    return next((b.id for b in bases if isinstance(b, ast.Name) and b.id in BUILTIN_TYPES), "built-in")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _ignores_operand(arguments: ast.arguments, body: ast.AST) -> bool:
    """A comparison method whose body never reads its operand (the second parameter)."""
    params = [*arguments.posonlyargs, *arguments.args]
    if len(params) < 2:
        return True
    operand = params[1].arg
    return not any(isinstance(n, ast.Name) and n.id == operand for n in ast.walk(body))


# ---------------------------------------------------------------------- no-op patches
def changes_code(base: Mapping[str, str], snapshot: Mapping[str, str]) -> bool:
    """Whether some changed file changes behaviour: a non-Python file, or Python whose syntax tree
    (docstrings dropped, comments and layout ignored by the parser) differs from the base's."""
    for path in set(base) | set(snapshot):
        before, after = base.get(path), snapshot.get(path)
        if before == after:
            continue
        if not path.endswith(".py") or before is None or after is None:
            return True
        if _normalised(before) != _normalised(after):
            return True
    return False


def _normalised(text: str) -> str:
    tree = _parse(text)
    if tree is None:
        return text
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = node.body[1:] or [ast.Pass()]
    try:
        return ast.dump(tree)
    except RecursionError:
        return text
