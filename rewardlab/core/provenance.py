"""Reward provenance: ``reward_version``, a short stamp over everything that decides a reward.

Two configurations that can score the same episode differently must never share a stamp, and an
unchanged configuration must keep it across processes and machines. The stamp is the SHA-256 of the
canonical JSON of its *parts*, cut to 12 hex digits behind ``rv-``::

    reward_version = "rv-" + sha256(canonical_json(parts))[:12]

An env's parts (:meth:`rewardlab.core.TextEnv.reward_parts`) are:

- ``env``: the env class and its constructor arguments (:func:`plain` of each value);
- ``rubric``: :func:`rubric_identity`, each component's name, normalised weight, gate threshold and the
  code identity of its function (bytecode, constants, names and closure values: :func:`callable_identity`),
  the aggregate and the invalid penalty;
- ``code``: :func:`code_digest` of the packages whose code and data compute the outcome the rubric reads
  (the env's package and :mod:`rewardlab.core`, plus whatever the env names, e.g. the sandbox);
- ``tasks``: :func:`data_digest` of every task, as JSON;
- ``graders``: the versions of the external graders and models the env calls (``bfcl-eval``, the sandbox
  image tag, the sentence model).

A wrapper that changes rewards adds its own part on top of its env's stamp (:func:`derive`), so that
``ReweightRubric(env, "equal")`` and the bare env never share one.

Code is compared by its syntax tree with docstrings dropped (:func:`source_digest`): comments, docstrings,
blank lines and formatting do not change a stamp; any change to a statement or expression does. Digests are
cached per file (path, size, modification time), so a stamp is computed once per configuration. Other files
of a package (schemas, pages, task files) count by their bytes. A digest not cached yet is computed by one
thread while the others that need it wait (:data:`FIRST_DIGESTS`): a server whose sessions all start at
once would otherwise parse every source file once per session.

Example:
    >>> stamp({"weights": {"a": 0.5, "b": 0.5}}) == stamp({"weights": {"b": 0.5, "a": 0.5}})
    True
    >>> stamp({"weights": {"a": 0.5, "b": 0.5}}) == stamp({"weights": {"a": 0.6, "b": 0.4}})
    False
    >>> derive("rv-0123456789ab", {"wrapper": "ReweightRubric"}).startswith("rv-")
    True
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import math
import threading
import types
import weakref
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardlab.core.pysource import parse

if TYPE_CHECKING:
    from rewardlab.core.rubric import Rubric
    from rewardlab.core.tasks import TaskSet

PREFIX = "rv-"
DIGITS = 12
"""Hex digits of a stamp: 48 bits, so that two different configurations share one with odds of ~1e-14."""

BUILD_ONLY = frozenset({"build"})
"""Sub-packages that only build task files: their code reaches rewards only through the task data."""


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys and no spaces (:func:`plain` first)."""
    return json.dumps(plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def stamp(parts: Mapping[str, Any]) -> str:
    """``"rv-" + sha256(canonical_json(parts))[:12]``."""
    return PREFIX + hashlib.sha256(canonical_json(parts).encode()).hexdigest()[:DIGITS]


def derive(base: str, part: Mapping[str, Any]) -> str:
    """The stamp of a reward built on top of ``base`` (a wrapper's): :func:`stamp` of ``{"base", "part"}``."""
    return stamp({"base": base, "part": part})


def plain(value: Any) -> Any:
    """``value`` as plain JSON data: mappings (keys as strings), sequences, sets (sorted), numbers (non-finite
    ones as strings), strings, paths; a function by :func:`callable_identity`; a dataclass by its class and
    fields; any other object by its class's qualified name only: its attributes may be state that changes as
    it is used, and its ``repr`` may hold a memory address. (What configures such an object reaches the stamp
    through the env's constructor arguments.)"""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(item) for item in value), key=canonical_json)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    if callable(value) and hasattr(value, "__code__"):
        return callable_identity(value)
    if isinstance(value, type):
        return qualified_name(value)
    if dataclasses.is_dataclass(value):
        fields = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
        return {"class": qualified_name(type(value)), "fields": plain(fields)}
    return {"class": qualified_name(type(value))}


def qualified_name(obj: Any) -> str:
    """``module:qualname`` of a class or function."""
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', type(obj).__qualname__)}"


def callable_identity(fn: Any) -> dict[str, Any]:
    """What a function computes: its qualified name, :func:`code_identity` of its code and the plain values of
    its closure cells and keyword defaults (a ``functools.partial``: the function and its arguments). A
    function met again inside its own closure (recursion) is named, not followed."""
    if isinstance(fn, functools.partial):
        return {"partial": callable_identity(fn.func), "args": plain(fn.args), "keywords": plain(fn.keywords)}
    code = getattr(fn, "__code__", None)
    if code is None:
        return {"callable": qualified_name(fn)}
    if id(code) in _FOLLOWING:
        return {"recursion": qualified_name(fn)}
    _FOLLOWING.add(id(code))
    try:
        return _function_identity(fn, code)
    finally:
        _FOLLOWING.discard(id(code))


_FOLLOWING: set[int] = set()
"""Code objects whose identity is being computed (guards against cycles through closures)."""


def _function_identity(fn: Any, code: types.CodeType) -> dict[str, Any]:
    cells = [cell.cell_contents for cell in (fn.__closure__ or ()) if _cell_filled(cell)]
    return {
        "name": qualified_name(fn),
        "code": code_identity(code),
        "closure": [plain(item) for item in cells],
        "defaults": plain(fn.__defaults__ or ()),
        "kwdefaults": plain(fn.__kwdefaults__ or {}),
    }


def _cell_filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def code_identity(code: types.CodeType) -> str:
    """SHA-256 of a code object's bytecode, names and constants, nested code objects included; line numbers
    and file names are left out, so moving a function does not change it."""
    digest = hashlib.sha256()
    digest.update(code.co_code)
    digest.update(repr(code.co_names).encode())
    digest.update(repr(code.co_varnames).encode())
    for constant in code.co_consts:
        digest.update(_constant_text(constant).encode())
    return digest.hexdigest()


def _constant_text(constant: Any) -> str:
    """A code constant as text that does not depend on the process (frozensets sorted, code by identity)."""
    if isinstance(constant, types.CodeType):
        return code_identity(constant)
    if isinstance(constant, tuple):
        return "(" + ",".join(map(_constant_text, constant)) + ")"
    if isinstance(constant, frozenset):
        return "frozenset(" + ",".join(sorted(map(_constant_text, constant))) + ")"
    return repr(constant)


def rubric_identity(rubric: Rubric) -> dict[str, Any]:
    """The parts of a rubric that decide a reward: each component's name, normalised weight, gate threshold
    (None when it is no gate) and :func:`callable_identity`, the aggregate and the invalid penalty."""
    return {
        "components": [
            {
                "name": criterion.name,
                "weight": rubric.normalized_weights[criterion.name],
                "gate": rubric.gate_thresholds.get(criterion.name),
                "fn": callable_identity(criterion.fn),
            }
            for criterion in rubric.criteria
        ],
        "aggregate": rubric.aggregate,
        "invalid_penalty": float(rubric.invalid_penalty),
    }


def tasks_digest(tasks: TaskSet) -> str:
    """:func:`data_digest` of every task's JSON, in order; cached per TaskSet object (tasks are data that does not
    change once loaded, and the envs of one process share their TaskSet: BFCL's 3,500 tasks take ~2 s to digest)."""
    return _once(_TASKS_DIGESTS, tasks, lambda: data_digest([task.to_json() for task in tasks]))


_TASKS_DIGESTS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
""":func:`tasks_digest` of each live TaskSet."""

FIRST_DIGESTS = threading.RLock()
"""Held while a file's or a TaskSet's digest is computed for the first time: the threads that need the same one
wait for it instead of computing it again (single flight; cached digests are read without it)."""


def _once(cache: MutableMapping[Any, str], key: Any, compute: Callable[[], str]) -> str:
    """``cache[key]``, computed under :data:`FIRST_DIGESTS` by the first thread that misses it."""
    cached = cache.get(key)
    if cached is None:
        with FIRST_DIGESTS:
            cached = cache.get(key)
            if cached is None:
                cached = cache[key] = compute()
    return cached


def data_digest(value: Any) -> str:
    """SHA-256 of ``canonical_json(value)``."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def file_digest(path: Path) -> str:
    """:func:`source_digest` of a Python file, SHA-256 of any other file's bytes; cached per (path, size,
    modification time)."""
    stat = path.stat()
    if len(_FILE_DIGESTS) >= MAX_FILE_DIGESTS:
        _FILE_DIGESTS.clear()
    return _once(_FILE_DIGESTS, (str(path), stat.st_size, stat.st_mtime_ns), lambda: _file_digest(path))


def source_digest(path: Path) -> str:
    """SHA-256 of a Python file's syntax tree without docstrings (``ast.dump`` leaves out line numbers)."""
    tree = parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


MAX_FILE_DIGESTS = 4096
"""Files whose digests are kept; the cache starts again when it is full."""

_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}
""":func:`file_digest` per (path, size, modification time)."""


def _file_digest(file: Path) -> str:
    return source_digest(file) if file.suffix == ".py" else hashlib.sha256(file.read_bytes()).hexdigest()


SKIPPED_PARTS = frozenset({"__pycache__"}) | BUILD_ONLY


def package_files(package: str) -> tuple[Path, list[Path]]:
    """``(root, files)``: every file of ``package`` (a dotted name) and its sub-packages in sorted order, code
    and data alike (schemas, pages, task files), :data:`BUILD_ONLY` folders and bytecode caches left out, and
    the folder they are relative to; a plain module is its own file."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no package {package!r}")
    if not spec.submodule_search_locations:
        origin = Path(spec.origin)
        return origin.parent, [origin]
    root = Path(next(iter(spec.submodule_search_locations)))
    files = (
        path
        for path in root.rglob("*")
        if path.is_file() and not SKIPPED_PARTS.intersection(path.relative_to(root).parts[:-1])
    )
    return root, sorted(files)


def code_digest(packages: Iterable[str]) -> str:
    """SHA-256 over :func:`file_digest` of every file of ``packages`` (:func:`package_files`), each with its
    path relative to its package, so that the same code on another machine gives the same digest."""
    digest = hashlib.sha256()
    for package in sorted(set(packages)):
        root, files = package_files(package)
        for path in files:
            digest.update(f"{package}/{path.relative_to(root).as_posix()}:{file_digest(path)}\n".encode())
    return digest.hexdigest()


def distribution_versions(names: Sequence[str]) -> dict[str, str | None]:
    """``{distribution: installed version}`` (None when it is not installed)."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions
