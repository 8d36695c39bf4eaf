"""The in-sandbox side of SWE evaluations: a sealed pytest run that streams signed, per-test evidence.

This file runs *inside* the sandbox, so it imports only the standard library and pytest
(RewardLab itself is hidden there). The host copies it into a fresh runner directory next to
the evaluated repository, writes a one-time ticket beside it and runs::

    python -s -B <runner>/collector.py <ticket> <repo> <pytest args...>

The verdict is computed on the host (:func:`rewardlab.envs.swe.testrun.read_result`), never
here. Here, before anything of the repository is imported, the script

0. makes itself non-dumpable, so no process the tests start can attach to it or read its memory,
   and (Landlock, :func:`confine_reads`) forbids itself and its children to read ``/proc``: no
   route to its own memory, and so to the key, stays open;
1. reads the ticket (HMAC key, nonce, the result file's random name, the guarded files, the
   repository's packages, the sealed expected values, the test files' guarded code as the host
   compiled it) and deletes it, opens the result file with ``O_CREAT | O_EXCL``;
2. imports pytest and the standard-library modules whose code it trusts, indexes their code
   objects, and snapshots the test machinery (every function and class of pytest, pluggy,
   ``unittest``, ``builtins`` and the standard-library modules a test may decide with, and their
   ``sys.modules`` entries);
3. moves the key into a suspended generator (:func:`signer`): no module, object attribute or
   closure holds it, only that generator's frame, and every signal is blocked while that frame
   runs (a Python signal handler receives the frame it interrupts: :func:`courier`);
4. installs a PEP 578 audit hook (:func:`seal`, which no code can remove) and only then lets
   pytest import the repository.

**The seal.** Every way Python code can *obtain* a frame or another object's internals raises
an audit event: ``sys._getframe``, ``sys._current_frames``, ``sys.settrace``/``setprofile``,
``tb_frame``/``gi_frame``/``cr_frame``/``ag_frame``, ``gc.get_objects``/``get_referrers``/
``get_referents`` and every ``ctypes`` event. The hook (:class:`Policy`) walks up from the code
that asked: library, pytest and untouched repository code passes the question to its caller; a
*consumer* (:data:`CONSUMERS`, standard-library functions that keep what they obtain, known by
code identity and checked with their dependencies), this file or an evaluated test file may; any
other code (a file the agent changed, code without a file) may not. Creating code that claims a
protected file name (``compile``, ``code.__new__``/``replace``, ``marshal``), reusing a
consumer's code with other globals, reassigning the code of the runner's functions and opening
``/proc/*/mem`` are refused as well. A refused operation raises ``PermissionError`` and is
recorded as tampering in the next signed record. Everything the hook uses is bound when it is
installed, and the runner's own functions look builtins up in a private copy, so no later
change to a module or to the builtins changes what they decide.

**The evidence.** The :class:`Witness` plugin hands pytest's own objects to the signer: each
report, the item just before and just after ``item.runtest()`` (with its call outcome), and, for
a plain test function (wrapped at collection, :func:`witnessed`), the fact that the function
itself returned. The signer refuses to sign unless every frame on the calling stack is the
runner's code (so repository code cannot call it, directly or through pytest) and everything the
runner's code looks up is unchanged; it then computes each record itself (:class:`Evidence`):
whether the machinery snapshot is intact, whether the test function comes from a guarded file and
is the one the test id names, whether an outcome-deciding hook has an implementation from
elsewhere. Each record carries the nonce and a sequence number and is signed with HMAC-SHA256;
after the final record the file is closed and the signer ends.
"""

from __future__ import annotations

import _thread
import ast
import binascii
import builtins
import contextlib
import functools
import hashlib
import hmac
import importlib
import importlib.machinery
import importlib.util
import inspect
import io
import json
import marshal
import operator
import os
import random
import signal
import sys
import sysconfig
import types
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from typing import Any

#: What the runner's code calls once the repository is imported, bound now: a test may monkeypatch
#: ``os``, ``sys``, ``types`` or the builtins, and what the runner decides must not change with it.
#: Its functions look builtins up in this private copy (functions take their builtins from their
#: module's ``__builtins__`` when they are made, so it is set before any is defined).
PRIVATE_BUILTINS = dict(vars(builtins))
globals()["__builtins__"] = PRIVATE_BUILTINS
FUNCTION, BUILTIN_FUNCTION, MODULE, CODE = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.ModuleType,
    types.CodeType,
)
_realpath, _relpath, _sha256, _MODULES = os.path.realpath, os.path.relpath, hashlib.sha256, sys.modules
_AUDIT, _TYPE_DICT, _ONLY_AST = sys.audit, type.__dict__["__dict__"].__get__, ast.PyCF_ONLY_AST
_ALL, _MAP, _IS, _GETITEM = all, map, operator.is_, operator.getitem

#: Events that hand out frames or object internals; ``ctypes.*`` events are policed too.
FRAME_EVENTS = frozenset(
    {"sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile", "gc.get_objects",
     "gc.get_referrers", "gc.get_referents", "sys.monitoring.register_callback"}
)  # fmt: skip
#: Attributes whose read raises ``object.__getattr__`` and yields a frame.
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
#: Modules whose code is imported before the repository and may appear in the allowlists below.
TRUSTED_MODULES: tuple[str, ...] = (
    "logging", "collections", "typing", "enum", "dataclasses", "traceback", "inspect", "warnings",
    "linecache", "functools", "abc", "importlib._bootstrap_external", "importlib._bootstrap", "unittest",
    "unittest.case", "unittest.result", "unittest.mock", "threading", "contextlib", "doctest", "pdb",
    "bdb", "ast", "pprint", "re", "string", "textwrap", "tokenize", "copy", "asyncio",
)  # fmt: skip
#: ``(module, qualified name)`` of functions that may obtain frames and object internals: each
#: uses what it obtains and returns none of it (a name, a line, a formatted string, a decision).
CONSUMERS: tuple[tuple[str, str], ...] = (
    ("collections", "namedtuple"),
    ("typing", "_caller"),
    ("typing", "TypeVar.__init__"),
    ("typing", "ParamSpec.__init__"),
    ("typing", "TypeVarTuple.__init__"),
    ("typing", "NewType.__init__"),
    ("typing", "_ProtocolMeta.__instancecheck__"),
    ("typing", "_allow_reckless_class_checks"),
    ("typing", "_no_init_or_replace_init"),
    ("typing", "NamedTupleMeta.__new__"),
    ("typing", "_namedtuple_mro_entries"),
    ("typing", "NamedTuple"),
    ("typing", "_TypedDictMeta.__new__"),
    ("typing", "TypedDict"),
    ("enum", "EnumType._create_"),
    ("enum", "EnumMeta._create_"),
    ("enum", "_EnumDict.__setitem__"),
    ("logging", "Logger.findCaller"),
    ("warnings", "_is_internal_frame"),
    ("warnings", "_next_external_frame"),
    ("warnings", "warn"),
    ("traceback", "StackSummary._extract_from_extended_frame_gen"),
    ("traceback", "StackSummary.extract"),
    ("traceback", "extract_stack"),
    ("traceback", "format_stack"),
    ("traceback", "print_stack"),
    ("traceback", "TracebackException.__init__"),
    ("traceback", "_walk_tb_with_full_positions"),
    ("traceback", "clear_frames"),
    ("inspect", "getframeinfo"),
    ("unittest.result", "TestResult._is_relevant_tb_level"),
    ("unittest.result", "TestResult._clean_tracebacks"),
    ("unittest.result", "TestResult._exc_info_to_string"),
    ("unittest.case", "_Outcome.testPartExecutor"),
    ("unittest.mock", "_patch.__exit__"),
    ("dataclasses", "_process_class"),
    ("dataclasses", "make_dataclass"),
    ("threading", "excepthook"),
    ("threading", "_make_invoke_excepthook"),
)
#: Standard-library functions that hand the frames (or frame locals) they obtain to their caller: when
#: one of them asks, the question passes to its caller. Every other standard-library function that
#: obtains a frame keeps it (it returns a name, a line, a formatted string).
RETURNERS: tuple[tuple[str, str], ...] = (
    ("inspect", "currentframe"), ("inspect", "stack"), ("inspect", "trace"), ("inspect", "getouterframes"),
    ("inspect", "getinnerframes"), ("inspect", "getgeneratorlocals"), ("inspect", "getcoroutinelocals"),
    ("inspect", "getasyncgenlocals"), ("traceback", "walk_stack"), ("traceback", "walk_tb"), ("logging", "<lambda>"),
    ("asyncio.base_tasks", "_task_get_stack"),
)  # fmt: skip
#: ``(module, qualified name)`` of functions that may compile source under a protected file name, and
#: only the source that file holds (checked); ``_rewrite_test`` compiles the tree it parsed from that file.
COMPILERS: tuple[tuple[str, str], ...] = (
    ("importlib._bootstrap", "_call_with_frames_removed"),
    ("importlib._bootstrap_external", "SourceLoader.source_to_code"),
    ("ast", "parse"),
    ("_pytest.assertion.rewrite", "_rewrite_test"),
)
#: Functions that may unmarshal code (the import system's and pytest's byte-code caches).
UNMARSHALLERS: tuple[tuple[str, str], ...] = (
    ("importlib._bootstrap_external", "_compile_bytecode"),
    ("_pytest.assertion.rewrite", "_read_pyc"),
)
#: Hooks whose implementations may change a test's outcome or its report.
OUTCOME_HOOKS: tuple[str, ...] = (
    "pytest_runtest_protocol", "pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown",
    "pytest_runtest_makereport", "pytest_runtest_logreport", "pytest_pyfunc_call", "pytest_runtestloop",
    "pytest_collection_modifyitems", "pytest_report_teststatus",
)  # fmt: skip
#: Standard-library modules whose functions a test may use to decide (``math.isclose``, ``operator.eq``,
#: ``json.loads``, ``difflib``): imported before the repository and snapshotted with the test machinery.
STANDARD_MODULES: tuple[str, ...] = (
    "math", "cmath", "operator", "decimal", "fractions", "numbers", "statistics", "datetime", "time", "calendar",
    "json", "json.decoder", "json.encoder", "re", "string", "textwrap", "difflib", "collections", "collections.abc",
    "itertools", "functools", "copy", "os", "posixpath", "pathlib", "shutil", "tempfile", "io", "csv", "base64",
    "binascii", "hashlib", "struct", "fnmatch", "glob", "keyword", "enum", "dataclasses", "html", "urllib.parse",
    "uuid", "ipaddress", "random", "pprint", "warnings", "contextlib", "abc", "types", "inspect",
)  # fmt: skip
#: Test machinery whose functions and classes must stay as they were imported.
MACHINERY_PREFIXES: tuple[str, ...] = ("pytest", "_pytest", "pluggy", "unittest", "builtins")
RUNNER_PREFIXES: tuple[str, ...] = ("pytest", "_pytest", "pluggy")
#: The packages whose directories hold the runner's code (only packages count: a directory of
#: ``__init__.py``).
RUNNER_PACKAGES: tuple[str, ...] = ("_pytest", "pluggy", "pytest")


def _is_under(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _functions_of(value: Any) -> list[Any]:
    """The plain functions behind ``value`` (a function, method wrapper, property or class member)."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if isinstance(f, FUNCTION)]
    if not isinstance(value, FUNCTION):
        try:
            value = value.__wrapped__
        except Exception:  # noqa: BLE001 - any object: its attribute lookup may fail any way
            return []
    return [value] if isinstance(value, FUNCTION) else []


def module_codes(module: types.ModuleType) -> dict[str, list[types.CodeType]]:
    """``{qualified name: [code objects]}`` of every function of ``module``, nested ones included."""
    found: dict[str, list[types.CodeType]] = {}
    pending: list[types.CodeType] = []
    seen_classes: set[int] = set()

    namespace_of_module = vars(module)

    def visit(namespace: dict[str, Any]) -> None:
        for value in list(namespace.values()):
            if isinstance(value, type) and id(value) not in seen_classes:
                seen_classes.add(id(value))
                visit(dict(vars(value)))
            for function in _functions_of(value):
                if function.__globals__ is namespace_of_module:
                    pending.append(function.__code__)

    visit(dict(namespace_of_module))
    seen: set[int] = set()
    while pending:
        code = pending.pop()
        if id(code) in seen:
            continue
        seen.add(id(code))
        found.setdefault(getattr(code, "co_qualname", code.co_name), []).append(code)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def resolve(entries: Iterable[tuple[str, str]]) -> dict[types.CodeType, dict[str, Any]]:
    """``{code: its module's namespace}`` of the functions named by ``(module, qualified name)``
    entries; absent modules or names are skipped (pytest and the standard library differ between versions)."""
    codes: dict[types.CodeType, dict[str, Any]] = {}
    index: dict[str, dict[str, list[types.CodeType]]] = {}
    for module_name, qualname in entries:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        if module_name not in index:
            index[module_name] = module_codes(module)
        codes.update(dict.fromkeys(index[module_name].get(qualname, ()), vars(module)))
    return codes


class RunnerCode:
    """Whether code is the runner's own: its file lies in the pytest, pluggy or ``_pytest`` package
    directories or is this file (no new code may claim those names: :func:`seal` refuses it)."""

    def __init__(self) -> None:
        files = [os.path.realpath(getattr(sys.modules.get(n), "__file__", None) or "") for n in RUNNER_PACKAGES]
        roots = {os.path.dirname(f) + os.sep for f in files if os.path.basename(f) == "__init__.py"}
        self.roots = tuple(sorted(roots))
        self.own = os.path.realpath(__file__)
        self._paths: dict[str, bool] = {}

    def __call__(self, code: Any) -> bool:
        filename = getattr(code, "co_filename", None)
        if not isinstance(filename, str):
            return False
        known = self._paths.get(filename)
        if known is None:
            path = _realpath(filename)
            known = self._paths[filename] = path == self.own or path.startswith(self.roots)
        return known


def _methods(cls: type) -> dict[str, Any]:
    """The functions (and static, class and property wrappers) in the class's own namespace."""
    kinds = (FUNCTION, staticmethod, classmethod, property)
    return {k: v for k, v in vars(cls).items() if isinstance(v, kinds)}


def _codes_of(value: Any) -> list[Any]:
    """The code objects behind a function, method wrapper or property."""
    return [f.__code__ for f in _functions_of(value)] if value is not None else []


class Machinery:
    """A snapshot of the test machinery's functions and classes, checked for replacement later.

    Covers every module of pytest, pluggy and ``unittest``, ``builtins`` and the :data:`STANDARD_MODULES`:
    each module's ``sys.modules`` entry, each module-level function, class and builtin, and each method of
    the classes defined there. A class that gained a method counts as changed unless the method is the
    runner's own (pytest's plugins install some at configuration); one that lost a method too.

    A test may monkeypatch the standard library and ``unittest`` until its teardown, so a replacement there
    counts at the end of the run; one whose new value is code from neither the library nor an evaluated test
    file (a function the repository wrote: ``math.isclose = lambda *a: True``) counts at every check.

    Args:
        guarded: Paths of the files whose content must not change.
        is_runner_code: Whether a code object is the runner's (:class:`RunnerCode`).
        library: Directories of trusted code (:func:`protected_roots`).
        tests: Paths of the evaluated test files.
    """

    def __init__(
        self,
        guarded: Iterable[str],
        is_runner_code: Callable[[Any], bool],
        library: tuple[str, ...] = (),
        tests: frozenset[str] = frozenset(),
    ) -> None:
        self.is_runner_code = is_runner_code
        self.library, self.tests = library, tests
        self.files = {path: digest(path) for path in guarded}
        self.modules = {
            n: m
            for n, m in sys.modules.items()
            if m is not None and (_is_under(n, MACHINERY_PREFIXES) or n in STANDARD_MODULES)
        }
        #: ``[runner, final]``: entries checked always, and only at the end (``unittest``, ``builtins``).
        self.entries: tuple[list[tuple[Any, str, Any]], list[tuple[Any, str, Any]]] = ([], [])
        #: ``[runner, final]``: ``(namespaces, names, values)``, one of each per entry: all of them read at once.
        self.every: list[tuple[tuple[Any, ...], tuple[str, ...], tuple[Any, ...]]] = []
        #: ``[runner, final]``: ``[class, its method names, the size of its namespace]``.
        self.classes: tuple[list[list[Any]], list[list[Any]]] = ([], [])
        kinds = (FUNCTION, BUILTIN_FUNCTION, type)
        for name, module in self.modules.items():
            which = 0 if _is_under(name, RUNNER_PREFIXES) else 1
            for key, value in list(vars(module).items()):
                if isinstance(value, kinds):
                    self.entries[which].append((module, key, value))
                if isinstance(value, type) and value.__module__ == name:
                    methods = _methods(value)
                    self.classes[which].append([value, frozenset(methods), len(vars(value))])
                    self.entries[which].extend((value, k, v) for k, v in methods.items())
        for which in (0, 1):
            namespaces = {id(owner): vars(owner) for owner, _, _ in self.entries[which]}
            self.every.append(
                (
                    tuple(namespaces[id(owner)] for owner, _, _ in self.entries[which]),
                    tuple(key for _, key, _ in self.entries[which]),
                    tuple(value for _, _, value in self.entries[which]),
                )
            )

    def changes(self, *, final: bool = False, files: bool = False) -> list[str]:
        """What was replaced since the snapshot (empty when intact).

        pytest, pluggy and every snapshotted ``sys.modules`` entry always; ``builtins``, ``unittest`` and the
        standard library only when ``final`` (a test may monkeypatch them until its teardown), unless the new
        value is code the repository wrote (:meth:`_agent_made`); the guarded files' content when ``files``.
        """
        found = [f"module {n} was replaced in sys.modules" for n, m in self.modules.items() if _MODULES.get(n) is not m]
        for which in (0, 1):
            for owner, key, value in self._replaced(which):
                now = vars(owner).get(key, self)
                if now is value or self._runner_made(now) or not (final or which == 0 or self._agent_made(now)):
                    continue
                found.append(f"{getattr(owner, '__name__', owner)}.{key} was replaced")
            if which and not final:
                continue
            for record in self.classes[which]:
                cls, names, size = record
                if len(vars(cls)) == size:
                    continue
                methods = _methods(cls)
                added = [k for k in methods.keys() - names if not self._runner_made(methods[k])]
                removed = names - methods.keys()
                found += [f"{cls.__qualname__}.{k} was added" for k in added]
                found += [f"{cls.__qualname__}.{k} was removed" for k in removed]
                if not added and not removed:  # only the runner's own additions or their removal
                    record[2] = len(vars(cls))
        if files:
            found += [
                f"{_relpath(path)} changed during the run"
                for path, before in self.files.items()
                if digest(path) != before
            ]
        return found

    def _replaced(self, which: int) -> list[tuple[Any, str, Any]]:
        """``self.entries[which]``, or none when every value is still the one snapshotted: read all at once and
        compared by identity (a check runs before every record, over some 7,000 entries)."""
        namespaces, keys, snapshot = self.every[which]
        try:
            if _ALL(_MAP(_IS, _MAP(_GETITEM, namespaces, keys), snapshot)):
                return []
        except KeyError:  # a name was deleted
            pass
        return self.entries[which]

    def _agent_made(self, value: Any) -> bool:
        """Whether ``value`` runs code written outside the library, the guarded files and the evaluated test files:
        a function, a class's methods, a callable object's ``__call__`` or a ``functools.partial``'s function."""
        behind = [value]
        if isinstance(value, functools.partial):
            behind.append(value.func)
        if isinstance(value, type):
            behind.extend(_methods(value).values())
        else:
            behind.append(vars(type(value)).get("__call__"))
        for code in (c for item in behind for c in _codes_of(item)):
            path = _realpath(code.co_filename)
            if not path.startswith(self.library) and path not in self.tests and path not in self.files:
                return True
        return False

    def _runner_made(self, value: Any) -> bool:
        """Whether ``value`` is a function or property of pytest's own (its plugins install some on classes)."""
        codes = _codes_of(value)
        return bool(codes) and all(self.is_runner_code(code) for code in codes)


def digest(path: str) -> str | None:
    """SHA-256 of the file at ``path`` (``None`` when it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return _sha256(handle.read()).hexdigest()
    except OSError:
        return None


def protected_roots(guarded: Iterable[str], library: Iterable[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """``(guarded files, protected directories)``: file names no new code object may claim.

    The directories are ``library`` (``sys.path`` before the repository joins it: the standard
    library and the site-packages the interpreter and its distribution use), the installation's
    own paths and this runner's directory.
    """
    paths = sysconfig.get_paths()
    roots = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots |= {os.path.realpath(p) for p in library if p and os.path.isdir(p)}
    roots.add(os.path.dirname(os.path.realpath(__file__)))
    return frozenset(os.path.realpath(p) for p in guarded), tuple(sorted(r.rstrip(os.sep) + os.sep for r in roots))


def dependencies(
    code: types.CodeType, namespace: dict[str, Any], *, modules: bool = True
) -> list[tuple[Any, str, Any]]:
    """``(namespace, name, value)`` of every global, builtin and (with ``modules``) module attribute
    ``code`` (and the code nested in it) may look up by a name it uses: what must be unchanged for
    it to behave. Builtins are looked up where ``namespace``'s functions find them."""
    names: set[str] = set()
    pending = [code]
    while pending:
        current = pending.pop()
        names.update(current.co_names)
        pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    private = namespace.get("__builtins__")
    builtins_namespace = private if isinstance(private, dict) else vars(builtins)
    found: list[tuple[Any, str, Any]] = []
    referenced: list[types.ModuleType] = []
    for name in sorted(names):
        if name in namespace and _behaviour(namespace[name]):
            found.append((namespace, name, namespace[name]))
            if modules and isinstance(namespace[name], MODULE):
                referenced.append(namespace[name])
        elif name not in namespace and name in builtins_namespace:
            found.append((builtins_namespace, name, builtins_namespace[name]))
    for module in referenced:
        attributes = vars(module)
        for name in sorted(names & attributes.keys()):
            if _behaviour(attributes[name]):
                found.append((attributes, name, attributes[name]))
            if isinstance(attributes[name], types.ModuleType):
                inner = vars(attributes[name])
                found.extend((inner, n, inner[n]) for n in sorted(names & inner.keys()) if _behaviour(inner[n]))
    return found


def own_needs(codes: Iterable[types.CodeType], namespace: dict[str, Any]) -> list[tuple[Any, str, Any]]:
    """What this file's code must find unchanged: the :func:`dependencies` of each of its ``codes``
    within this file (its globals and private builtins; it calls other modules' functions only
    through names bound here) and every method of each class it defines (``namespace`` is its module's)."""
    needs = [need for code in codes for need in dependencies(code, namespace, modules=False)]
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == namespace["__name__"]:
            methods = vars(value)
            needs.extend((methods, key, method) for key, method in _methods(value).items())
    return needs


def _behaviour(value: Any) -> bool:
    """Whether ``value`` is code or a module (what a replacement could make behave differently);
    data such as ``sys.path`` or ``sys.stdout`` may change legitimately."""
    return isinstance(value, (MODULE, type, FUNCTION, BUILTIN_FUNCTION))


#: Audit events through which the evaluated tests' code hands values and comparisons to the seal:
#: ``VALUE_EVENT`` with ``[value]`` (the seal puts the plain value in its place), ``COMPARE_EVENT``
#: with ``[operator, left, right, want_result]`` (the seal puts the result first, then operands that
#: give that result under plain comparison). See :func:`comparison_guard`, :func:`guarded_tree`.
VALUE_EVENT, COMPARE_EVENT = "rewardlab.value", "rewardlab.compare"
#: The constant the transformed test code calls; replaced by ``sys.audit`` itself in its code objects.
AUDIT_PLACEHOLDER = "\x00rewardlab:sys.audit"
#: The file name of guarded code the host compiles (:func:`precompiled_guards`); the sandbox names it after the file.
PRECOMPILED_NAME = "<rewardlab:guarded test file>"
#: ``unittest`` assertions that compare two operands, and the comparison each makes.
UNITTEST_COMPARISONS: dict[str, str] = {
    **dict.fromkeys(
        ("assertEqual", "assertEquals", "failUnlessEqual", "assertListEqual", "assertTupleEqual", "assertDictEqual",
         "assertSetEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertCountEqual", "assertAlmostEqual",
         "assertAlmostEquals"),
        "==",
    ),
    **dict.fromkeys(("assertNotEqual", "assertNotEquals", "failIfEqual", "assertNotAlmostEqual"), "!="),
    "assertIn": "in",
    "assertNotIn": "not in",
}  # fmt: skip
_OPERATOR_NAMES: dict[type, str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.In: "in",
    ast.NotIn: "not in",
}  # fmt: skip
_AST = types.SimpleNamespace(
    **{name: getattr(ast, name) for name in (
        "AST", "Attribute", "Call", "Compare", "Constant", "Del", "List", "ListComp", "Load", "Name", "NamedExpr",
        "Starred", "Store", "Subscript", "Tuple", "BoolOp", "And", "Or", "comprehension", "expr", "Lambda",
        "FunctionDef",
        "AsyncFunctionDef", "GeneratorExp", "SetComp", "DictComp", "Yield", "YieldFrom", "Await", "match_case",
        "arg", "arguments", "AnnAssign", "Slice", "keyword")}
)  # fmt: skip
_walk, _fix_locations = ast.walk, ast.fix_missing_locations


#: Methods of built-in types whose override does not change what a value does (construction, pickling, ``repr``).
NEUTRAL_METHODS = frozenset(
    {"__new__", "__init__", "__init_subclass__", "__repr__", "__getnewargs__", "__reduce__", "__reduce_ex__",
     "__getstate__", "__setstate__", "__sizeof__", "__dir__", "__doc__", "__class_getitem__", "__subclasshook__"}
)  # fmt: skip
#: Methods of built-in types that change what a value holds or its attributes, not what it reports about its
#: contents: a class that overrides only these (munch's ``AutoMunch.__setattr__``, a dict that transforms what is
#: stored) keeps its behaviour; what it stored is read by the built-in's own code anyway.
MUTATING_METHODS = frozenset(
    {"__setattr__", "__delattr__", "__setitem__", "__delitem__", "__iadd__", "__imul__", "__ior__", "__iand__",
     "__ixor__", "__isub__", "append", "extend", "insert", "pop", "popitem", "remove", "clear", "update",
     "setdefault", "add", "discard", "sort", "reverse", "intersection_update", "difference_update",
     "symmetric_difference_update"}
)  # fmt: skip


class HookRefused(RuntimeError):
    """Raised for ``sys.addaudithook``: Python then drops the new hook and the exception silently."""


class Unmatched:
    """Stands in for a value whose agent-written comparison claimed equality with a different value too:
    it equals nothing but itself, so the assertion that compares it fails with this description."""

    def __repr__(self) -> str:
        return "<a value that compares equal to values that differ (agent-written comparison)>"


def comparison_guard(
    trusted_code: Callable[[Any], bool],
    violations: list[str],
    sealed: Mapping[str, Any] | None = None,
    classes: frozenset[tuple[str, str]] = frozenset(),
) -> Callable[[str, Any], None]:
    """``handle(event, box)`` for :data:`VALUE_EVENT` and :data:`COMPARE_EVENT`; called by the seal's hook only.

    **Plain values.** A value whose type derives from a built-in type (``str``, ``bytes``, the numbers,
    the containers) and whose class, or a class it inherits from, overrides a method of that type
    with code the agent wrote (``trusted_code`` false; construction and ``repr`` aside, :data:`NEUTRAL_METHODS`,
    and methods that only store, :data:`MUTATING_METHODS`) is replaced by a plain copy of its built-in contents;
    the elements of built-in containers likewise (a subclass that only adds methods, ``Slug.words``, stays as it is).
    So ``"x" == result`` compares characters, whatever ``__eq__``, ``startswith`` or ``__len__`` the
    returned value's class overrides. A class of the repository itself (one of its functions is
    unchanged, or the base commit defines it in that file: ``classes``, ``(real path, qualified name)``; munch's
    ``Munch(dict)`` or boltons' ``LRU(dict)``, whose methods a fix may rewrite, every one of them) is not copied;
    its ``==`` and ``!=`` are checked as below. Honest values keep their identity (nothing is copied unless it
    must be).

    **Discriminating comparison.** A value of another class (or of such a repository class) whose ``==``
    or ``!=`` (or, as a container, ``in``) is agent-written is compared with the other operand and with
    three near misses of the other operand (:func:`canary`), in random order: if it claims equality with one of
    those as well, it is not telling equal from unequal, the comparison is decided unequal and the seal
    records it as tampering (a container is asked whether it holds distant near misses of the needle, which no
    honest container of such values holds by chance). Honest comparison methods (a version compared with
    ``"1.2.3"``) tell the difference and keep their answer; a value that is honestly unequal to the expected one
    and happens to equal a near miss is only unequal.

    **Consistent order.** A value whose ordering (``<``, ``<=``, ``>``, ``>=``) is agent-written, compared with
    a value whose ordering is not, is asked its order against three near misses of the other operand, in random
    order: one it claims to be both below and above (strictly, for ``<`` and ``>``; or at once at
    most and at least, for ``<=`` and ``>=``) shows an order that holds whatever the values; the comparison is
    decided false and recorded as tampering. Two values of agent-ordered classes are held to antisymmetry between
    themselves (not both ``a < b`` and ``a > b``). An honest order is antisymmetric and keeps its answer.

    **Sealed expectations.** The evaluated test files hold random tokens in place of their expected values
    (:mod:`~rewardlab.envs.swe.expectations`); ``sealed`` maps each token to its value. Before any comparison, a
    token that is an operand, or inside a built-in container that is one, is replaced by its value. A comparison
    whose both sides hold tokens compares a result that holds one, which only code that read the tests can
    return: it is decided false (unequal, not contained) and recorded as tampering.

    Everything it uses is bound here, in its closure, which only the seal's hook can reach.
    """
    kind_of, is_instance, is_subclass, to_bool, length = type, isinstance, issubclass, bool, len
    dict_items, list_iter, tuple_iter, set_iter, frozenset_iter = (
        dict.items, list.__iter__, tuple.__iter__, set.__iter__, frozenset.__iter__,
    )  # fmt: skip
    type_dict, type_mro = type.__dict__["__dict__"].__get__, type.__dict__["__mro__"].__get__
    qualname_of, realpath = type.__dict__["__qualname__"].__get__, os.path.realpath
    scalars = frozenset({str, bytes, int, float, complex, bool, type(None)})
    collections_ = (list, tuple, dict, set, frozenset)
    copies: dict[type, Callable[[Any], Any]] = {
        str: str.__str__, bytes: vars(bytes)["__bytes__"], bytearray: bytearray.copy, int: int.__int__,
        float: float.__float__, complex: vars(complex)["__complex__"],
    }  # fmt: skip
    bases = (*copies, *collections_)
    native = (BUILTIN_FUNCTION, types.MethodDescriptorType, types.WrapperDescriptorType, types.MethodWrapperType,
              types.GetSetDescriptorType, types.MemberDescriptorType, types.ClassMethodDescriptorType)  # fmt: skip
    function_kinds = (FUNCTION, staticmethod, classmethod, property)
    #: per built-in base, the names whose override changes what a value of it does (not how it is made or shown)
    behaviour = {
        base: frozenset(dir(base)) - NEUTRAL_METHODS - MUTATING_METHODS | {"__getattribute__"} for base in bases
    }
    rng = random.Random(os.urandom(16))
    secret = os.urandom(16).hex()
    vowels, consonants = "aeiou", "bcdfghjklmnpqrstvwxyz"
    character_classes = (vowels, consonants, vowels.upper(), consonants.upper(), "0123456789")
    equalities = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
                  ">=": operator.ge, "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}  # fmt: skip
    reported: set[tuple[str, str]] = set()
    expected = dict(sealed or {})

    def written_by_agent(value: Any, name: str) -> bool:
        if is_instance(value, native) or value is None:
            return False
        if is_instance(value, function_kinds):
            codes = [f.__code__ for f in _functions_of(value)]
            return not codes or not all(trusted_code(code) for code in codes)
        if is_instance(value, type):
            return name.startswith("__") and value not in scalars and value not in bases
        return callable(value)

    def agent_classes(kind: type, names: Any = None) -> list[type]:
        """The classes ``kind`` inherits from (not built-ins) that define an agent-written method (of ``names``)."""
        found = []
        for cls in type_mro(kind):
            if cls is object or cls in bases or cls is bool:
                continue
            namespace = type_dict(cls)
            wanted = namespace if names is None else [n for n in names if n in namespace]
            if any(written_by_agent(namespace[n], n) for n in wanted):
                found.append(cls)
        return found

    def agent_methods(kind: type, names: Any = None) -> bool:
        return bool(agent_classes(kind, names))

    def from_repository(cls: type) -> bool:
        """Whether ``cls`` is a class of the repository's own: a function of it is code the agent did not change, or
        it is defined, under the qualified name the base commit gives a class, in that class's file."""
        members = [v for v in type_dict(cls).values() if is_instance(v, function_kinds)]
        if any(all(trusted_code(f.__code__) for f in _functions_of(v)) for v in members):
            return True
        name = qualname_of(cls)
        return bool(classes) and any(
            (realpath(f.__code__.co_filename), name) in classes for v in members for f in _functions_of(v)
        )

    def plain(value: Any, depth: int = 0, memo: dict[int, Any] | None = None) -> Any:
        """``value`` with every value of an agent-overridden built-in type in it replaced by a plain copy (see the
        docstring). Each container is converted once per call (``memo``, by identity, made at the first container
        that holds more than scalars): a linked structure of lists (boltons' LRU links, each node holding its
        neighbours) is walked in linear time, not once per path to a node, and a cycle ends where it began."""
        kind = kind_of(value)
        if kind in scalars or depth > 64:
            return value
        if memo is not None and id(value) in memo:
            return memo[id(value)]
        return converted(value, kind, depth, memo)

    def converted(value: Any, kind: type, depth: int, memo: dict[int, Any] | None) -> Any:
        if kind in collections_:
            return plain_collection(value, kind, depth, memo)
        for base in bases:
            if is_subclass(kind, base):
                break
        else:
            return value
        made = agent_classes(kind, behaviour[base])
        if not made or all(from_repository(cls) for cls in made):  # a repository class the fix may change:
            return plain_collection(value, base, depth, memo) if base in collections_ else value  # its ==, != probed
        if base in copies:
            return copies[base](value)
        return rebuilt(value, base, depth, memo)

    def plain_collection(value: Any, base: type, depth: int, memo: dict[int, Any] | None) -> Any:
        """``value`` itself when its elements are plain already, else a plain copy."""
        items = list(dict_items(value)) if base is dict else list(iterate(value, base))
        flat = [part for pair in items for part in pair] if base is dict else items
        if all(kind_of(item) in scalars for item in flat):
            return value
        memo = {} if memo is None else memo
        memo[id(value)] = value  # a cycle back to ``value`` keeps it as it is
        plain_items = [plain(item, depth + 1, memo) for item in flat]
        unchanged = all(a is b for a, b in zip(plain_items, flat, strict=True))
        made = value if unchanged else rebuilt(value, base, depth, memo)
        memo[id(value)] = made
        return made

    def iterate(value: Any, base: type) -> Any:
        iterators: dict[type, Callable[[Any], Any]] = {
            list: list_iter, tuple: tuple_iter, set: set_iter, frozenset: frozenset_iter
        }  # fmt: skip
        return iterators[base](value)

    def rebuilt(value: Any, base: type, depth: int, memo: dict[int, Any] | None) -> Any:
        if base is dict:
            return {plain(k, depth + 1, memo): plain(v, depth + 1, memo) for k, v in dict_items(value)}
        return base(plain(item, depth + 1, memo) for item in iterate(value, base))

    def alike_character(character: str, pick: random.Random) -> str:
        """Another character of ``character``'s class (a vowel, a consonant, each case; a digit), else itself."""
        for group in character_classes:
            if character in group:
                return pick.choice([c for c in group if c != character])
        return character

    def alike_characters(text: str, pick: random.Random) -> str:
        return "".join(alike_character(c, pick) for c in text)

    def word(pick: random.Random) -> str:
        """A pronounceable lowercase word of four to eight letters."""
        return "".join(pick.choice(consonants) + pick.choice(vowels) for _ in range(pick.randint(2, 4)))

    def alike_text(text: str, pick: random.Random) -> str:
        """``text`` with every ASCII letter and digit replaced by another of its class: the same length, spacing,
        punctuation and rhythm of vowels and consonants. A text without any gets a word added."""
        made = alike_characters(text, pick)
        return made if made != text else text + word(pick)

    def alike_number(number: Any, pick: random.Random) -> Any:
        """A number written with as many digits, each changed (a leading digit stays non-zero), the sign kept:
        ``3`` → ``7``, ``1.25`` → ``4.07``; a number written otherwise (``1e-05``, infinities) is scaled."""
        text = repr(number)
        sign, body = ("-", text[1:]) if text.startswith("-") else ("", text)
        whole, _, fraction = body.partition(".")
        if not whole.isdigit() or fraction and not fraction.isdigit():
            finite = number - number == 0  # not an infinity, not NaN
            return number * pick.uniform(1.5, 3.0) + pick.uniform(1.0, 9.0) if finite else pick.uniform(1.0, 9.0)
        lead = pick.choice([d for d in "123456789" if d != whole[0]]) if len(whole) > 1 else alike_text(whole, pick)
        rest = alike_characters(whole[1:], pick) + ("." + alike_characters(fraction, pick) if fraction else "")
        return kind_of(number)(sign + lead + rest)

    def canary(other: Any, pick: random.Random, distant: bool = False, depth: int = 0) -> Any:
        """A near miss of ``other``: a value of its kind and shape that differs from it (:func:`alike_text`,
        :func:`alike_number`; in a container, every element's near miss), so that how it looks does not tell it
        from the value a test expects. Every element, not one: an honest equality may ignore a part of a value
        (semver's ``Version`` compared with a dict ignores its ``build``), and one part changed would look equal to
        it. ``distant``: a near miss no honest container of values like ``other`` holds by chance (to ask a
        container whether it holds it): a string gets a word added, a number three digits."""
        kind = kind_of(other)
        if depth > 8:
            return Unmatched()
        if kind is bool:
            return not other
        if kind is str:
            return alike_text(other, pick) + (word(pick) if distant else "")
        if kind in (bytes, bytearray):
            return kind(canary(bytes(other).decode("latin-1"), pick, distant).encode("latin-1"))
        if kind in (int, float):
            near = alike_number(other, pick)
            return near * 1000 + kind(pick.randint(100, 999)) if distant else near
        if kind is complex:
            return other + complex(0, abs(other) + pick.uniform(2.0, 5.0))
        if kind in (list, tuple, set, frozenset):
            items = list(iterate(other, kind))
            if not items:
                return kind((word(pick),))
            return kind(canary(item, pick, distant, depth + 1) for item in items)
        if kind is dict:
            pairs = list(dict_items(other))
            if not pairs:
                return {word(pick): word(pick)}
            return {key: canary(value, pick, distant, depth + 1) for key, value in pairs}
        return word(pick) if other is None else Unmatched()

    def near_misses(other: Any, distant: bool = False) -> Iterator[Any]:
        """The canaries of ``other`` (:func:`canary`), one after another: the same ones for an equal plain value
        throughout the run (seeded by the run's secret and the value), so that a value seen in several comparisons
        is no more likely the expected one than its canaries are."""
        plain_value = all(kind_of(v) in scalars for v in flat(other))
        seed = f"{secret}:{distant}:{kind_of(other).__name__}:{other!r}" if plain_value else rng.random()
        pick = random.Random(seed)
        while True:
            yield canary(other, pick, distant)

    def flat(value: Any, depth: int = 0) -> list[Any]:
        """A plain value and, through built-in containers (three levels), the values inside it."""
        kind = kind_of(value)
        if kind not in collections_ or depth > 2:
            return [value]
        items = [v for pair in dict_items(value) for v in pair] if kind is dict else list(iterate(value, kind))
        return [value, *(inner for item in items for inner in flat(item, depth + 1))]

    def answer(compare: Callable[[Any, Any], Any], left: Any, right: Any) -> bool | None:
        """The comparison's truth, ``None`` when it raises (an honest comparison may reject a stranger)."""
        try:
            return to_bool(compare(left, right))
        except Exception:  # noqa: BLE001
            return None

    def probed(real: Callable[[], bool], fooled_by: Callable[[], bool]) -> tuple[bool, bool]:
        """``(real answer, discriminating)``: ``real()`` once among three ``fooled_by()`` probes, in random order."""
        position, result, fooled = rng.randrange(4), False, False
        for index in range(4):
            if index == position:
                result = real()
            else:
                fooled = fooled_by() or fooled
        return result, not fooled

    def discriminates(suspect: Any, other: Any, suspect_left: bool) -> tuple[bool, bool]:
        """``(equal, discriminating)``: the suspect's own answer, and whether it told every canary apart."""

        def real() -> bool:
            return to_bool(suspect == other if suspect_left else other == suspect)

        canaries = near_misses(other)

        def fooled_by() -> bool:
            probe = next(canaries)
            pair = (suspect, probe) if suspect_left else (probe, suspect)
            return answer(operator.eq, *pair) is True or answer(operator.ne, *pair) is False

        return probed(real, fooled_by)

    def suspect(value: Any, names: tuple[str, ...]) -> bool:
        kind = kind_of(value)
        return kind not in scalars and kind not in collections_ and agent_methods(kind, names)

    def report(value: Any, what: str = "compared equal to values that differ") -> None:
        name = kind_of(value).__qualname__
        if (name, what) not in reported:
            reported.add((name, what))
            violations.append(f"a {name} value {what} (an agent-written comparison)")

    def ordered(suspect: Any, other: Any, operator_name: str, suspect_left: bool) -> tuple[bool, bool]:
        """``(answer, consistent)``: the suspect's own answer, and whether no canary was both below and above it."""
        below, above = (operator.lt, operator.gt) if operator_name in ("<", ">") else (operator.le, operator.ge)

        def real() -> bool:
            pair = (suspect, other) if suspect_left else (other, suspect)
            return to_bool(equalities[operator_name](*pair))

        canaries = near_misses(other)

        def fooled_by() -> bool:
            probe = next(canaries)
            return answer(below, suspect, probe) is True and answer(above, suspect, probe) is True

        return probed(real, fooled_by)

    def compare(box: list[Any]) -> None:
        operator_name, left, right, want = box
        left, right = plain(left), plain(right)
        if operator_name in ("<", "<=", ">", ">="):
            order = ("__lt__", "__le__", "__gt__", "__ge__")
            for value, other, on_left in ((left, right, True), (right, left, False)):
                if suspect(value, order) and not suspect(other, order):
                    result, honest = ordered(value, other, operator_name, on_left)
                    if result and not honest:
                        report(value, "was ordered both below and above values")
                        result = False
                    box[:] = [result if want else None, left, right, want]
                    return
            if suspect(left, order) and answer(operator.lt, left, right) and answer(operator.gt, left, right):
                report(left, "was ordered both below and above values")  # two agent-ordered values: antisymmetry
                box[:] = [False if want else None, left, right, want]
                return
        if operator_name in ("==", "!="):
            for value, other, on_left in ((left, right, True), (right, left, False)):
                if suspect(value, ("__eq__", "__ne__")) and not suspect(other, ("__eq__", "__ne__")):
                    equal, honest = discriminates(value, other, on_left)
                    if equal and not honest:
                        report(value)
                        equal = False
                    stand_in = other if equal else Unmatched()
                    left, right = (stand_in, other) if on_left else (other, stand_in)
                    box[:] = [equal if operator_name == "==" else not equal, left, right, want]
                    return
        elif operator_name in ("in", "not in"):
            if suspect(right, ("__contains__", "__iter__", "__getitem__", "__eq__")) and not suspect(left, ("__eq__",)):
                canaries = near_misses(left, distant=True)
                contained, honest = probed(
                    lambda: to_bool(left in right), lambda: answer(equalities["in"], next(canaries), right) is True
                )
                if contained and not honest:
                    report(right)
                    contained = False
                right = (left,) if contained else ()
            elif suspect(left, ("__eq__", "__ne__")) and kind_of(right) in collections_:
                members = list(dict_items(right)) if kind_of(right) is dict else list(iterate(right, kind_of(right)))
                keys = [k for k, _ in members] if kind_of(right) is dict else members
                found: Any = Unmatched()
                for member in keys:
                    equal, honest = discriminates(left, member, True)
                    if equal and not honest:
                        report(left)
                        break
                    if equal:
                        found = member
                        break
                left = found
            box[:] = [equalities[operator_name](left, right) if want else None, left, right, want]
            return
        box[:] = [equalities[operator_name](left, right) if want else None, left, right, want]

    def unsealed(value: Any, depth: int = 0) -> tuple[Any, bool]:
        """``(value with every token in place of its expected value, whether it held a token)``: a token string,
        or one inside built-in containers (eight levels; a dict's values), each rebuilt only when it held one."""
        kind = kind_of(value)
        if kind is str:
            return (expected[value], True) if value in expected else (value, False)
        if kind not in collections_ or depth > 8:
            return value, False
        if kind is dict:
            pairs = [(k, unsealed(v, depth + 1)) for k, v in dict_items(value)]
            held = any(found for _, (_, found) in pairs)
            return ({k: v for k, (v, _) in pairs} if held else value), held
        items = [unsealed(item, depth + 1) for item in iterate(value, kind)]
        held = any(found for _, found in items)
        return (kind(v for v, _ in items) if held else value), held

    def unseal(box: list[Any]) -> bool:
        """Put the expected values in place of the operands' tokens; False (and tampering) when both hold one."""
        left, left_sealed = unsealed(box[1])
        right, right_sealed = unsealed(box[2])
        if left_sealed and right_sealed:
            if ("sealed", "") not in reported:
                reported.add(("sealed", ""))
                violations.append(
                    "a result that holds a stand-in for an expected value: the code read the tests' expectations"
                )
            return False
        box[1:3] = [left, right]
        return True

    def handle(event: str, box: Any) -> None:
        if kind_of(box) is not list:
            return
        if event == VALUE_EVENT and length(box) == 1:
            box[0] = plain(box[0])
        elif event == COMPARE_EVENT and length(box) == 4 and box[0] in equalities:
            if expected and not unseal(box):
                box[:] = [False if box[3] else None, Unmatched(), Unmatched(), box[3]]
                return
            compare(box)

    return handle


class GuardedTests:
    """Rewrites a test file's syntax tree so that its values and comparisons pass through the seal.

    - every value the test code loads (a name, an attribute, an item, a call's result; not a call's
      callee nor an assignment target) becomes ``sys.audit(VALUE_EVENT, box := [value]) ... box[0]``;
    - every comparison (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``, ``not in``; chains pairwise,
      ``is`` left as it is) becomes the result the seal puts in ``[op, left, right, True]``;
    - the two compared operands of a ``unittest`` assertion (:data:`UNITTEST_COMPARISONS`) are the
      operands the seal puts in ``[op, first, second, False]``.

    ``sys.audit`` is a constant of the compiled code (:func:`with_audit`), not a name a test or the
    repository could rebind. Inside comprehensions the box is a one-item comprehension's variable
    (an assignment expression may not appear there), elsewhere an assignment expression. Annotations
    and ``match`` patterns are left alone (they are not evaluated values).
    """

    def __init__(self) -> None:
        self.comprehensions = 0
        self.temporaries = 0

    def visit(self, node: Any, wrap: bool = True) -> Any:
        kind = type(node)
        if kind is _AST.match_case:
            node.guard = self.visit(node.guard) if node.guard is not None else None
            node.body = [self.visit(child) for child in node.body]
            return node
        if kind is _AST.arg:
            return node
        nested = kind in (_AST.ListComp, _AST.SetComp, _AST.DictComp, _AST.GeneratorExp)
        self.comprehensions += nested
        for field in node._fields:
            if field in ("annotation", "returns", "type_comment"):
                continue
            value = getattr(node, field, None)
            keep = self.keeps(node, field)
            if isinstance(value, list):
                setattr(node, field, [self.visit(v, not keep) if isinstance(v, _AST.AST) else v for v in value])
            elif isinstance(value, _AST.AST):
                setattr(node, field, self.visit(value, not keep))
        self.comprehensions -= nested
        if kind is _AST.Compare:
            return self.compared(node)
        if kind is _AST.Call:
            self.unittest_operands(node)
        if wrap and kind in (_AST.Name, _AST.Attribute, _AST.Subscript, _AST.Call) and self.loads(node):
            return self.passed(
                [node], VALUE_EVENT, lambda box: _AST.Subscript(box, _AST.Constant(0), _AST.Load()), node
            )
        return node

    @staticmethod
    def keeps(node: Any, field: str) -> bool:
        """Whether ``node``'s ``field`` must stay the object it is: a callee, or what an assignment changes."""
        if type(node) is _AST.Call and field == "func":
            return True
        stored = type(getattr(node, "ctx", None)) in (_AST.Store, _AST.Del)
        return stored and field == "value"

    @staticmethod
    def loads(node: Any) -> bool:
        if type(node) is _AST.Name:
            return type(node.ctx) is _AST.Load and not node.id.startswith("@")
        return type(getattr(node, "ctx", _AST.Load())) is _AST.Load

    def passed(self, items: list[Any], event: str, pick: Callable[[Any], Any], origin: Any) -> Any:
        """``items`` handed to the seal as a list; ``pick(box)`` of what it leaves there, at ``origin``'s place."""
        made = self._passed(items, event, pick)
        return _located(made, origin) if made is not None else None

    def _passed(self, items: list[Any], event: str, pick: Callable[[Any], Any]) -> Any:
        audit = _AST.BoolOp(_AST.Or(), [_AST.Constant(AUDIT_PLACEHOLDER), _AST.Constant(0)])
        box = _AST.List(items, _AST.Load())
        if self.comprehensions:
            unsafe = (_AST.Yield, _AST.YieldFrom, _AST.Await, _AST.NamedExpr)
            if any(type(n) in unsafe for i in items for n in _walk(i)):
                return items[0] if event == VALUE_EVENT else None
            name = "@rl"
            element = _AST.Tuple(
                [_AST.Call(audit, [_AST.Constant(event), _AST.Name(name, _AST.Load())], []),
                 pick(_AST.Name(name, _AST.Load()))], _AST.Load(),
            )  # fmt: skip
            loop = _AST.comprehension(_AST.Name(name, _AST.Store()), _AST.Tuple([box], _AST.Load()), [], 0)
            listed = _AST.ListComp(_AST.Subscript(element, _AST.Constant(1), _AST.Load()), [loop])
            return _AST.Subscript(listed, _AST.Constant(0), _AST.Load())
        assigned = _AST.NamedExpr(_AST.Name("@rl", _AST.Store()), box)
        pair = _AST.Tuple(
            [_AST.Call(audit, [_AST.Constant(event), assigned], []), pick(_AST.Name("@rl", _AST.Load()))], _AST.Load()
        )
        return _AST.Subscript(pair, _AST.Constant(1), _AST.Load())

    def compared(self, node: Any) -> Any:
        """A comparison (chains pairwise, operands evaluated once) whose every step the seal decides."""
        operands = [node.left, *node.comparators]
        steps = []
        for index, op in enumerate(node.ops):
            left, right = operands[index], operands[index + 1]
            if index + 1 < len(node.ops) and not self.comprehensions:
                self.temporaries += 1
                name = f"@rl_t{self.temporaries}"
                right = _located(_AST.NamedExpr(_AST.Name(name, _AST.Store()), right), node)
                operands[index + 1] = _located(_AST.Name(name, _AST.Load()), node)
            elif index + 1 < len(node.ops):
                return node  # a chain inside a comprehension: its operands are plain values already
            symbol = _OPERATOR_NAMES.get(type(op))
            if symbol is None:
                steps.append(_AST.Compare(left, [op], [right]))
                continue
            step = self.passed(
                [_AST.Constant(symbol), left, right, _AST.Constant(True)],
                COMPARE_EVENT,
                lambda box: _AST.Subscript(box, _AST.Constant(0), _AST.Load()),
                node,
            )
            steps.append(step if step is not None else _AST.Compare(left, [op], [right]))
        return steps[0] if len(steps) == 1 else _located(_AST.BoolOp(_AST.And(), steps), node)

    def unittest_operands(self, node: Any) -> None:
        """``self.assertEqual(a, b, ...)`` → ``self.assertEqual(*<operands the seal gives>, ...)``."""
        func = node.func
        symbol = UNITTEST_COMPARISONS.get(func.attr) if type(func) is _AST.Attribute else None
        if symbol is None or len(node.args) < 2 or any(type(a) is _AST.Starred for a in node.args[:2]):
            return
        operands = self.passed(
            [_AST.Constant(symbol), node.args[0], node.args[1], _AST.Constant(False)],
            COMPARE_EVENT,
            lambda box: _AST.Subscript(box, _AST.Slice(_AST.Constant(1), _AST.Constant(3)), _AST.Load()),
            node.args[0],
        )
        if operands is not None:
            node.args[:2] = [_AST.Starred(operands, _AST.Load())]


def _located(made: Any, origin: Any) -> Any:
    """``made`` with every node of it that has no position given ``origin``'s (a function's first line,
    which decides how its code is found again, is its first decorator's)."""
    pending = [made]
    while pending:
        node = pending.pop()
        if "lineno" in node._attributes:
            if hasattr(node, "lineno"):
                continue  # a node of the file (or one located already): so is all below it
            for name in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                setattr(node, name, getattr(origin, name, None))
        for field in node._fields:
            value = getattr(node, field, None)
            pending.extend(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, _AST.AST))
    return made


def with_audit(code: types.CodeType, filename: str | None = None) -> types.CodeType:
    """``code`` (and the code nested in it) with :data:`AUDIT_PLACEHOLDER` constants replaced by ``sys.audit``
    (and named ``filename``, when given)."""
    constants = tuple(
        _AUDIT if type(c) is str and c == AUDIT_PLACEHOLDER else with_audit(c, filename) if type(c) is CODE else c
        for c in code.co_consts
    )
    if filename is None:
        return code.replace(co_consts=constants)
    return code.replace(co_consts=constants, co_filename=filename)


def guarded_code(path: str) -> types.CodeType:
    """The code of the test file at ``path``, read from the file (so no caller chooses what it says),
    with :class:`GuardedTests`' guards. pytest's assertion rewriting (its failure messages) is not
    applied: an assertion fails or passes the same without it."""
    with open(path, "rb") as handle:
        source = handle.read()
    return with_audit(compile(_guarded_tree(source, path), path, "exec", dont_inherit=True, optimize=0))


def _guarded_tree(source: bytes, path: str) -> Any:
    """The syntax tree of ``source`` (the test file ``path``) with :class:`GuardedTests`' guards, located."""
    return _fix_locations(GuardedTests().visit(compile(source, path, "exec", _ONLY_AST, dont_inherit=True)))


def precompiled_guards(source: bytes) -> bytes:
    """The host's side of :func:`guarded_code`: the guarded code of a test file's ``source``, marshalled, with
    :data:`AUDIT_PLACEHOLDER` constants and the file name :data:`PRECOMPILED_NAME` (the sandbox puts ``sys.audit``
    and the file's path in, :func:`unmarshalled_guards`). Raises ``SyntaxError``/``ValueError`` as ``compile``."""
    return marshal.dumps(
        compile(_guarded_tree(source, PRECOMPILED_NAME), PRECOMPILED_NAME, "exec", dont_inherit=True, optimize=0)
    )


def unmarshalled_guards(compiled: Mapping[str, Any]) -> dict[str, types.CodeType]:
    """``{real path: guarded code}`` from the ticket's ``compiled`` (``{test file: [magic number, base64 of
    precompiled_guards]}``), for the files compiled by an interpreter whose bytecode this one runs (the same
    magic number; the others are compiled here, :func:`guarded_code`). Called before the seal is installed:
    it makes code that claims the test files' names."""
    magic = importlib.util.MAGIC_NUMBER.hex()
    codes: dict[str, types.CodeType] = {}
    for path, (their_magic, data) in compiled.items():
        if their_magic == magic:
            real = os.path.realpath(path)
            codes[real] = with_audit(marshal.loads(binascii.a2b_base64(data)), real)
    return codes


def nested_codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (its functions', classes' and comprehensions')."""
    pending = [code]
    while pending:
        code = pending.pop()
        yield code
        pending.extend(c for c in code.co_consts if type(c) is CODE)


def guard_module(module: types.ModuleType, path: str, compiled: types.CodeType | None = None) -> list[types.CodeType]:
    """Give every function of the test module at ``path`` (classes' methods included) its guarded code
    (``compiled``, the module's guarded code the host compiled, or :func:`guarded_code` of the file);
    the guarded code objects."""
    namespace = vars(module)
    guarded = {
        (getattr(code, "co_qualname", code.co_name), code.co_firstlineno): code
        for code in nested_codes(compiled if compiled is not None else guarded_code(path))
    }
    replaced: list[types.CodeType] = []
    for function in _functions_in(namespace):
        code = function.__code__
        if _realpath(code.co_filename) != path:
            continue
        new = guarded.get((getattr(code, "co_qualname", code.co_name), code.co_firstlineno))
        if new is not None and new.co_freevars == code.co_freevars:
            function.__code__ = new
            replaced.append(new)
    return replaced


def _functions_in(namespace: dict[str, Any]) -> list[Any]:
    """The functions of a module namespace and of the classes in it (nested classes too), without
    calling any code (class namespaces are read through ``type``'s own descriptor)."""
    found: list[Any] = []
    seen: set[int] = set()
    pending = list(namespace.values())
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if type(value) is FUNCTION:
            found.append(value)
            pending.append(vars(value).get("__wrapped__"))  # a decorated test (hypothesis' @given ...)
        elif type(value) in (staticmethod, classmethod):
            pending.append(value.__func__)
        elif isinstance(value, type):
            pending.extend(_TYPE_DICT(value).values())
    return found


class Policy:
    """Who may obtain frames and object internals, decided by walking up the asking stack.

    From the code that raised the event upwards, each frame is

    - a **consumer** (allowed, then stop): a function of :data:`CONSUMERS` whose dependencies
      (:func:`dependencies`) are unchanged, code of this file, or code of an evaluated test file
      or ``conftest.py`` (the host vouches for them);
    - **pass-through** (ask its caller): any other code of the standard library, site-packages,
      pytest or pluggy, frozen import machinery, or a repository file the agent did not change;
      such code may hand what it obtains to its caller;
    - otherwise the **asker**: code of a file the agent changed or code without a file; refused.

    A stack of pass-through frames only is refused too.

    Args:
        consumers: ``{code: its dependencies}`` of the allowed consumers.
        tests: Real paths of the evaluated test files and ``conftest.py`` files.
        vouched: Real paths of every guarded file (tests and unchanged repository files).
        protected_dirs: Directories of library code (standard library, site-packages, this runner).
        runner: The runner's code (:class:`RunnerCode`): no function of it may get another ``__code__``.
        returners: Code of :data:`RETURNERS`.
        secret: The signer's generator: its frame is never handed out, to anyone.
        functions: ``(real path, qualified name)`` of the functions of changed files that the agent did
            not change: pass-through like an unchanged file's (their files' names may not be claimed).
    """

    def __init__(
        self,
        consumers: dict[types.CodeType, list[tuple[Any, str, Any]]],
        tests: frozenset[str],
        vouched: frozenset[str],
        protected_dirs: tuple[str, ...],
        runner: RunnerCode,
        returners: set[types.CodeType],
        secret: Any,
        functions: frozenset[tuple[str, str]],
    ):
        self.signer_code = secret.gi_code
        self.returners = returners
        self.functions = functions
        self.stdlib_dirs = tuple(
            sorted({os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib")})
        )
        self.secret = secret
        self.consumers = consumers
        self.tests = tests
        self.vouched = vouched
        self.protected_dirs = protected_dirs
        self.runner_roots = runner.roots
        self.runner_file = runner.own


def seal(
    policy: Policy,
    compilers: set[types.CodeType],
    unmarshallers: set[types.CodeType],
    violations: list[str],
    sealed: Mapping[str, Any] | None = None,
    classes: frozenset[tuple[str, str]] = frozenset(),
) -> None:
    """Install the audit hook that refuses frame and object introspection except to consumers.

    A refused operation raises ``PermissionError``; its description is appended to
    ``violations`` (read by the signer only). Everything the hook uses is bound here, so no
    later change to a module or to the builtins changes what it decides; events raised while it
    runs (its own frame walk) are ignored. ``sealed`` maps the evaluated test files' tokens to the expected values
    they stand in for (:func:`comparison_guard`).
    """
    busy: set[int] = set()
    rewriters = {id(code): code for code in compilers if code.co_name == "_rewrite_test"}
    get_ident, getframe, realpath, fsdecode = _thread.get_ident, sys._getframe, os.path.realpath, os.fsdecode
    is_instance, length, to_str, permission_error, missing = isinstance, len, str, PermissionError, object()
    refused = HookRefused
    getattr_ = getattr
    consumers = {id(code): (code, needs) for code, needs in policy.consumers.items()}
    tests, vouched, protected_dirs = policy.tests, policy.vouched, policy.protected_dirs
    runner_roots, runner_file = policy.runner_roots, policy.runner_file
    returners = {id(code): code for code in policy.returners}
    stdlib_dirs, secret, functions, signer_code = (
        policy.stdlib_dirs,
        policy.secret,
        policy.functions,
        policy.signer_code,
    )
    claimed = frozenset(path for path, _ in functions)
    compilers_by_id = {id(code): code for code in compilers}
    unmarshallers_by_id = {id(code): code for code in unmarshallers}
    open_file, read_mode = io.open, "rb"
    frame_events, frame_attributes = FRAME_EVENTS, FRAME_ATTRIBUTES
    guard_events = frozenset({VALUE_EVENT, COMPARE_EVENT})
    guard_compilers = {id(code): code for code in (guarded_code.__code__, _guarded_tree.__code__, with_audit.__code__)}
    ast_types = frozenset(id(v) for v in vars(ast).values() if isinstance(v, type) and issubclass(v, ast.AST))
    policed = FRAME_EVENTS | guard_events | {
        "object.__getattr__", "object.__setattr__", "function.__new__", "exec", "open", "compile", "code.__new__",
        "marshal.loads", "marshal.load", "sys.addaudithook",
    }  # fmt: skip
    paths: dict[str, str] = {}

    def real(name: str) -> str:
        path = paths.get(name)
        if path is None:
            path = paths[name] = realpath(name)
        return path

    def trusted_code(code: Any) -> bool:
        """Whether code is not the agent's: library or runner code, a vouched file, an unchanged function."""
        filename = code.co_filename
        if filename.startswith("<frozen "):
            return True
        if filename.startswith("<"):
            return False
        path = real(filename)
        return path in vouched or path.startswith(protected_dirs) or (path, code.co_qualname) in functions

    guard = comparison_guard(trusted_code, violations, sealed, classes)

    def claims_protected(name: Any) -> bool:
        if not is_instance(name, to_str) or name.startswith("<"):
            return False
        path = real(name)
        return path in vouched or path in claimed or path.startswith(protected_dirs)

    def describe(code: Any) -> str:
        return f"{code.co_name} in {code.co_filename}" if code is not None else "no Python caller"

    def decide(depth: int, *, keepers: bool) -> str | None:
        """``None`` when the stack from ``depth`` up is allowed to obtain frames, else who asked.

        While the signer runs, only the signer itself may. With ``keepers``, a function that asks
        itself and keeps what it gets may: a standard-library function that is no returner, or
        repository code the agent did not change; that repository code may also receive the frame
        through returners (``inspect.currentframe()`` in semver's deprecation wrapper), as it may
        call ``sys._getframe`` itself.
        """
        frame: Any = getframe(depth)
        asker: Any = frame.f_code if frame is not None else None
        above = frame
        while above is not None:
            if above.f_code is signer_code and above.f_code is not asker:
                return f"{describe(asker)} while the signer runs"
            above = above.f_back
        if keepers and frame is not None and not is_one_of(asker, returners):
            filename = asker.co_filename
            if filename.startswith("<frozen ") or real(filename).startswith(stdlib_dirs):
                return None
            path = real(filename)
            if path in vouched or (path, getattr_(asker, "co_qualname", asker.co_name)) in functions:
                return None
        if keepers and frame is not None:
            receiver = frame
            while receiver is not None and is_one_of(receiver.f_code, returners):
                receiver = receiver.f_back
            if receiver is not None and receiver is not frame:
                code = receiver.f_code
                path = real(code.co_filename) if not code.co_filename.startswith("<") else ""
                if path in vouched or (path, getattr_(code, "co_qualname", code.co_name)) in functions:
                    return None
        while frame is not None:
            code = frame.f_code
            entry = consumers.get(id(code))
            if entry is not None and entry[0] is code:
                for namespace, name, value in entry[1]:
                    if namespace.get(name, missing) is not value:
                        return f"{describe(code)} after its {name!r} was replaced"
                return None
            filename = code.co_filename
            if filename.startswith("<frozen "):
                frame = frame.f_back
                continue
            if filename.startswith("<"):
                return describe(code)
            path = real(filename)
            if path in tests:
                return None
            if path in vouched or path.startswith(protected_dirs):
                frame = frame.f_back
                continue
            if (path, getattr_(code, "co_qualname", code.co_name)) in functions:
                frame = frame.f_back
                continue
            return describe(code)
        return describe(None)

    def caller(depth: int) -> Any:
        return getframe(depth).f_code

    def is_one_of(code: Any, codes: dict[int, Any]) -> bool:
        return codes.get(id(code)) is code

    def is_consumer(code: Any) -> bool:
        entry = consumers.get(id(code))
        return entry is not None and entry[0] is code

    def same_content(path: str, source: Any) -> bool:
        """Whether ``source`` is what the file at ``path`` holds (a compile that claims a file must compile it)."""
        try:
            with open_file(path, read_mode) as handle:
                data = handle.read()
        except OSError:
            return False
        return data == (source.encode("utf-8") if is_instance(source, to_str) else source)

    def verdict(event: str, args: tuple[Any, ...]) -> str | None:
        if event == "object.__getattr__":
            if length(args) < 2 or args[1] not in frame_attributes:
                return None
        elif event == "object.__setattr__":
            if length(args) >= 1 and id(args[0]) in ast_types:
                return f"a syntax tree class changed by {describe(caller(3))}"
            if length(args) < 3 or args[1] != "__code__":
                return None
            current = getattr_(args[0], "__code__", None)
            filename = real(current.co_filename) if current is not None else ""
            protected_code = is_consumer(args[2]) or is_consumer(current) or filename == runner_file
            if not protected_code and not filename.startswith(runner_roots):
                return None
            return f"__code__ of a runner or consumer function assigned by {describe(caller(3))}"
        elif event in ("function.__new__", "exec"):
            if not args or not is_consumer(args[0]):
                return None
            return f"{event} of a consumer's code by {describe(caller(3))}"
        elif event == "open":
            path: Any = args[0] if args else None
            if is_instance(path, bytes):
                path = fsdecode(path)
            if is_instance(path, to_str):
                parts = realpath(path).split("/")
                if parts[1:2] == ["proc"] and (parts[-1] in ("mem", "pagemap") or "map_files" in parts):
                    return f"open({path!r}): reading process memory"
                if parts[1:2] == ["proc"] and (length(parts) <= 3 or parts[-2] == "task"):
                    return f"open({path!r}): a process directory (a base for opening its memory by a relative name)"
            return None
        elif event in ("compile", "code.__new__"):
            name: Any = args[1] if length(args) > 1 else None
            if not claims_protected(name):
                return None
            code = caller(3)
            if real(code.co_filename) in tests:  # an evaluated test compiling code of its own
                return None
            if is_one_of(code, guard_compilers) and real(name) in tests:  # the guarded test code, from its file
                return None
            if event == "compile" and is_one_of(code, compilers_by_id):
                source = args[0]
                if is_instance(source, (bytes, to_str)) and same_content(name, source):
                    return None
                if not is_instance(source, (bytes, to_str)) and is_one_of(code, rewriters):
                    return None
            return f"{event} claiming {name!r} by {describe(code)}"
        elif event in ("marshal.loads", "marshal.load"):
            code = caller(3)
            return None if is_one_of(code, unmarshallers_by_id) else f"{event} by {describe(code)}"
        elif event not in frame_events and not event.startswith("ctypes."):
            return None
        if (event == "object.__getattr__" and args[0] is secret) or (
            event == "gc.get_referents"
            and any(obj is secret for obj in (args[0] if is_instance(args[0], tuple) else ()))
        ):
            return f"{event} of the signer"
        keepers = event in ("sys._getframe", "sys._current_frames", "object.__getattr__")
        asker = decide(3, keepers=keepers)
        return None if asker is None else f"{event} by {asker}"

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event not in policed and not event.startswith("ctypes."):
            return  # the fast path: most events (imports, reads of __code__ ...) concern nobody
        if event in guard_events:  # the evaluated tests' values and comparisons (comparison_guard)
            if args:
                guard(event, args[0])
            return
        if event == "sys.addaudithook":  # a later hook could change what this one decides
            raise refused("refused by the RewardLab evaluation: another audit hook")
        if event == "object.__getattr__" and (length(args) < 2 or args[1] not in frame_attributes):
            return
        ident = get_ident()
        if ident in busy:
            return
        busy.add(ident)
        try:
            reason = verdict(event, args)
        finally:
            busy.discard(ident)
        if reason is not None:
            violations.append(reason)
            raise permission_error(f"refused by the RewardLab evaluation: {reason}")

    sys.addaudithook(hook)


def signer(
    key: bytes,
    nonce: str,
    fd: int,
    is_runner_code: Callable[[Any], bool],
    needs: list[tuple[Any, str, Any]],
    machinery: Machinery,
    evidence: Evidence,
    violations: list[str],
    compiled: Mapping[str, types.CodeType],
) -> Generator[None, tuple[str, tuple[Any, ...]], None]:
    """The only holder of the key: receives ``(kind, objects)`` messages and writes signed records to ``fd``.

    Records: ``{"seq", "nonce", "kind", "data"}`` as JSON, written as ``{"body", "mac"}`` lines with
    ``mac = HMAC-SHA256(key, body)``, all at once after the ``end`` record (a run that dies before
    it fails every test anyway). Messages carry pytest's own objects (an item and its call outcome,
    a report); the record's data is computed from them here (:class:`Evidence`), only after two
    checks made with nothing but what the signer bound when it started: every frame calling it runs
    the runner's code (``is_runner_code``: pytest, pluggy, this file), and, before any record that
    could make a test pass, everything this file's code looks up (``needs``: its globals, its
    classes' methods, its private builtins) is unchanged; when either fails it signs a
    ``tampering`` record instead. It forwards new ``violations`` of the seal, checks the test's
    origin just before ``runtest`` (``calling``) and the machinery (:meth:`Machinery.changes`) with
    ``ran``, ``collected`` and ``end`` records. Guarded code of a file the host compiled (``compiled``) is
    accepted only as those code objects themselves.
    """
    getframe, dumps, write, close, new_mac, sha256 = (  # the key becomes a keyed HMAC state below
        sys._getframe,
        json.dumps,
        os.write,
        os.close,
        hmac.new,
        hashlib.sha256,
    )
    changes, ran, report, origin, missing = machinery.changes, evidence.ran, evidence.report, evidence.origin, object()
    unguarded_code = evidence.unguarded
    witnessed: set[str] = set()
    guarded: dict[int, Any] = {}
    guarded_files: set[str] = set()
    made = {id(code): code for module in compiled.values() for code in nested_codes(module)}
    compiled_files = frozenset(compiled)  # a copy: the plugin's mapping is the same object
    seq, forwarded = 0, 0
    pending: list[str] = []
    keyed = new_mac(key, digestmod=sha256)  # no frame of this generator holds the key's bytes after this
    del key

    def emit(kind: str, data: Any) -> None:
        nonlocal seq
        body = dumps({"seq": seq, "nonce": nonce, "kind": kind, "data": data}, sort_keys=True)
        mac = keyed.copy()
        mac.update(body.encode("utf-8"))
        line = dumps({"body": body, "mac": mac.hexdigest()})
        pending.append(line)
        seq += 1

    def flush() -> None:
        """Write every record at once (a run that dies before its end record fails every test anyway)."""
        payload = ("\n".join(pending) + "\n").encode("utf-8")
        while payload:
            payload = payload[write(fd, payload) :]
        close(fd)

    while True:
        kind, objects = yield
        strangers = []
        frame: Any = getframe(1)
        while frame is not None:
            code = frame.f_code
            if not is_runner_code(code):
                strangers.append(f"{code.co_name} in {code.co_filename}")
            frame = frame.f_back
        # what decides a verdict (the runner's own code) is checked before it computes a record that
        # could make a test pass; a report or a "returned" record cannot do that alone
        replaced = [
            f"{name!r} of the runner was replaced"
            for space, name, value in (needs if kind not in ("report", "returned") else ())
            if space.get(name, missing) is not value
        ]
        if violations[forwarded:]:
            emit("tampering", [f"refused: {reason}" for reason in violations[forwarded:]])
            forwarded = len(violations)
        if strangers or replaced:
            emit("tampering", [*(f"the evidence channel was called from {s}" for s in strangers[:3]), *replaced[:5]])
            if kind != "end":
                continue
            emit("end", {"exitstatus": objects[0]})
            flush()
            return
        try:
            if kind == "guarded":  # the test code whose values and comparisons the seal decides
                foreign = {id(c): c for c in objects[0] if c.co_filename in compiled_files and made.get(id(c)) is not c}
                if foreign:
                    emit(
                        "tampering",
                        [f"guarded code of {c.co_filename} the host did not compile" for c in foreign.values()][:3],
                    )
                guarded.update((id(code), code) for code in objects[0] if id(code) not in foreign)
                guarded_files.update(objects[1])
                continue
            if kind == "calling":  # just before item.runtest(): the test must be the guarded one
                found = [p for p in (origin(objects[0]), unguarded_code(objects[0], guarded, guarded_files)) if p]
                if found:
                    emit("tampering", found[:10])
                continue
            if kind == "returned":
                if objects[0] not in witnessed:
                    emit("tampering", [f"{objects[0]} returned without being witnessed"])
                    continue
                data: Any = {"nodeid": objects[0]}
            elif kind == "ran":
                data = ran(*objects)
                data["witnessed"] = data["nodeid"] in witnessed
            elif kind == "report":
                data = report(*objects)
            elif kind == "collected":
                witnessed.update(objects[1])
                data = {"items": objects[0]}
            else:
                data = {"exitstatus": objects[0]}
            if kind in ("ran", "collected", "end"):
                found = changes(final=kind == "end", files=kind in ("collected", "end"))
                if found:
                    emit("tampering", found[:10])
        except Exception as error:  # noqa: BLE001 - pytest's objects may hold anything; nothing may escape here
            error.__traceback__ = None  # the traceback would lead back into this frame
            emit("tampering", [f"the runner could not record a {kind} message ({type(error).__name__})"])
            if kind != "end":
                continue
            data = {"exitstatus": objects[0]}
        emit(kind, data)
        if kind == "end":
            flush()
            return


class Evidence:
    """What the signer records about a test, computed by the signer itself after its checks.

    Args:
        guarded: Real paths of the files the host vouches for (test files among them).
        trusted_dirs: Directories of library code (standard library, site-packages).
        is_runner_code: Whether a code object is the runner's (:class:`RunnerCode`).
    """

    def __init__(self, guarded: frozenset[str], trusted_dirs: tuple[str, ...], is_runner_code: Callable[[Any], bool]):
        self.guarded = guarded
        self.trusted_dirs = trusted_dirs
        self.is_runner_code = is_runner_code
        self.function_class = vars(sys.modules["_pytest.python"])["Function"]

    def ran(self, item: Any, outcome: Any, config: Any) -> dict[str, Any]:
        """``{"nodeid", "ok", "origin", "function"}``: whether ``item.runtest()`` returned, why the test
        cannot be trusted to be the guarded one (``None`` when it can) and which function ran."""
        code = _test_code(getattr(item, "obj", None))
        function = None if code is None else [_relpath(_realpath(code.co_filename)), code.co_name]
        origin = self.origin(item) or self.hooks(config)
        return {"nodeid": item.nodeid, "ok": outcome.excinfo is None, "origin": origin, "function": function}

    @staticmethod
    def report(report: Any) -> dict[str, Any]:
        """``{"nodeid", "when", "outcome", "xfail"}`` of one of pytest's reports."""
        xfail = bool(getattr(report, "wasxfail", False))
        return {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome, "xfail": xfail}

    def hooks(self, config: Any) -> str | None:
        """Why an outcome-deciding hook cannot be trusted: an implementation from outside pytest and
        the guarded files (``None`` when every one is pytest's, this runner's or a guarded file's)."""
        for name in OUTCOME_HOOKS:
            for impl in getattr(config.hook, name).get_hookimpls():
                code = getattr(impl.function, "__code__", None)
                if code is None or not (self.is_runner_code(code) or _realpath(code.co_filename) in self.guarded):
                    return f"hook {name} has an implementation from {getattr(code, 'co_filename', impl.plugin_name)}"
        return None

    @staticmethod
    def unguarded(item: Any, guarded: dict[int, Any], files: set[str]) -> str | None:
        """Why ``item``'s test function is not the guarded code :func:`guard_module` gave it (``None`` when
        it is, when it is no Python function, or when it comes from no guarded file)."""
        code = _test_code(getattr(item, "obj", None))
        if code is None or guarded.get(id(code)) is code or _realpath(code.co_filename) not in files:
            return None
        return f"{item.nodeid}: the test runs code other than its guarded code"

    def origin(self, item: Any) -> str | None:
        """Why ``item``'s test function cannot be trusted to be the guarded test (``None`` when it can)."""
        if not isinstance(item, self.function_class):
            return None
        if "runtest" in vars(item):
            return f"{item.nodeid}: runtest was replaced on the item"
        runtest = getattr(type(item), "runtest", None)
        if not _codes_of(runtest) or not all(self.is_runner_code(code) for code in _codes_of(runtest)):
            return f"{item.nodeid}: its class {type(item).__qualname__} has a runtest that is not pytest's"
        function = getattr(item, "obj", None)
        for _ in range(16):
            function = getattr(function, "__func__", function)
            code = getattr(function, "__code__", None) if isinstance(function, FUNCTION) else None
            if code is None:
                return f"{item.nodeid}: the test object is not a Python function"
            path = _realpath(code.co_filename)
            inner = vars(function).get("__wrapped__")
            if inner is None:
                return None if path in self.guarded else f"{item.nodeid}: the test function comes from {path}"
            if path not in self.guarded and not path.startswith(self.trusted_dirs):
                return f"{item.nodeid}: a wrapper of the test comes from {path}"
            function = inner
        return f"{item.nodeid}: the test is wrapped too deeply"


def _test_code(obj: Any) -> types.CodeType | None:
    """The code of the innermost function behind a test object (methods and ``__wrapped__`` followed)."""
    function = getattr(obj, "__func__", obj)
    for _ in range(16):
        if not isinstance(function, FUNCTION):
            return None
        inner = vars(function).get("__wrapped__")
        if not isinstance(inner, FUNCTION):
            return function.__code__
        function = inner
    return None


class Witness:
    """The pytest plugin: hands pytest's own objects to the signer, which checks and records them.

    pluggy keeps the bound methods it registered, so replacing a method on this class later
    changes nothing; the signer computes every recorded value itself (:class:`Evidence`).

    Args:
        send: The signer's ``send``.
        tests: Real paths of the evaluated test files and ``conftest.py`` files (their functions get
            guarded code at the end of collection, :func:`guard_module`).
        compiled: The guarded code the host compiled, by real path (:func:`unmarshalled_guards`; the signer
            refuses any other code for those files).
    """

    def __init__(
        self,
        send: Callable[[tuple[Any, ...]], None],
        tests: frozenset[str],
        compiled: Mapping[str, types.CodeType],
    ):
        self._send = send
        self._tests = tests
        self._compiled = compiled
        self._config: Any = None
        self._function_class = vars(sys.modules["_pytest.python"])["Function"]
        unittest_plugin = sys.modules.get("_pytest.unittest")
        self._unittest_class = vars(unittest_plugin).get("TestCaseFunction", ()) if unittest_plugin else ()

    def pytest_configure(self, config: Any) -> None:
        self._config = config

    def pytest_sessionstart(self, session: Any) -> None:
        """Move the repository's entries of ``sys.path`` (a ``pythonpath`` setting puts them first) to the end."""
        repo = os.path.realpath(".")
        inside = [p for p in sys.path if p and (os.path.realpath(p) + os.sep).startswith(repo + os.sep)]
        sys.path[:] = [p for p in sys.path if p not in inside] + inside

    def pytest_collection_finish(self, session: Any) -> None:
        self._guard(session)
        witnessed = [item.nodeid for item in session.items if self._witness(item)]
        self._send(("collected", (len(session.items), witnessed)))

    def _guard(self, session: Any) -> None:
        """Give the evaluated test modules' functions guarded code and tell the signer which code that is,
        and of which files (a module whose guarded code cannot be made runs as it is)."""
        modules = [getattr(item, "module", None) for item in session.items] + list(_MODULES.values())
        seen: set[int] = set()
        codes: list[types.CodeType] = []
        done: list[str] = []
        for module in modules:
            if type(module) is not MODULE or id(module) in seen:
                continue
            seen.add(id(module))
            path = vars(module).get("__file__")
            path = _realpath(path) if type(path) is str else None
            if path not in self._tests:
                continue
            try:
                codes.extend(guard_module(module, path, self._compiled.get(path)))
            except (SyntaxError, ValueError, TypeError, OSError):
                continue
            done.append(path)
        self._send(("guarded", (codes, done)))

    def _witness(self, item: Any) -> bool:
        """Wrap a plain test function so that it reports having returned (see :func:`witnessed`);
        unittest test cases and coroutine functions are left as they are."""
        if not isinstance(item, self._function_class) or isinstance(item, self._unittest_class):
            return False
        test = item.obj
        if inspect.iscoroutinefunction(test) or inspect.isasyncgenfunction(test) or inspect.isgeneratorfunction(test):
            return False
        item.obj = witnessed(test, item.nodeid, self._send)
        return True

    def pytest_runtest_call(self, item: Any) -> Generator[None, Any, None]:
        self._send(("calling", (item,)))
        outcome = yield
        self._send(("ran", (item, outcome, self._config)))

    def pytest_runtest_logreport(self, report: Any) -> None:
        self._send(("report", (report,)))


def main(argv: list[str]) -> int:
    """Run pytest sealed (see the module docstring); only the courier and the plugin outlive :func:`prepare`."""
    not_dumpable()
    deliver, witness, pytest_args = prepare(argv)
    run = vars(sys.modules["_pytest.config"])["main"]
    exitstatus = int(run(pytest_args, plugins=[witness]))
    deliver(("end", (exitstatus,)))
    return exitstatus


def prepare(argv: list[str]) -> tuple[Callable[[tuple[str, tuple[Any, ...]]], None], Witness, list[str]]:
    """Read the ticket, import and snapshot the runner, start the signer and install the seal;
    ``(deliver, plugin, pytest arguments)``. Everything else it made is reachable from nothing but
    the signer's frame and the seal's closure once it returns."""
    ticket_path, repo, *pytest_args = argv
    with open(ticket_path, encoding="utf-8") as handle:
        ticket = json.load(handle)
    os.unlink(ticket_path)
    runner = os.path.dirname(os.path.realpath(__file__))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(os.path.join(runner, ticket.pop("result")), flags, 0o600)
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != runner]
    library = list(sys.path)
    sys.path.append(os.path.realpath(repo))
    os.chdir(repo)
    confine_reads()
    import pytest  # noqa: F401  (the runner: imported before any repository code)

    plugins = vars(sys.modules["_pytest.config"]).get("default_plugins", ())
    for name in ("python", "runner", "unittest", "raises", "python_api", "legacypath", *plugins):
        name = name if name.startswith("_pytest") or "." in name else f"_pytest.{name}"
        with contextlib.suppress(ImportError):  # older or newer pytest: not every module exists
            importlib.import_module(name)
    for name in (*TRUSTED_MODULES, *STANDARD_MODULES):
        importlib.import_module(name)
    guarded = [os.path.join(os.getcwd(), p) for p in ticket["guarded"]]
    tests = frozenset(os.path.realpath(p) for p in ticket["tests"])
    protected = protected_roots(guarded, library)
    violations: list[str] = []
    own = [code for codes in module_codes(sys.modules[__name__]).values() for code in codes]
    is_runner_code = RunnerCode()
    setup = {main.__code__, prepare.__code__, *(c for c in own if c.co_name == "<module>")}
    needs = own_needs([code for code in own if code not in setup], vars(sys.modules[__name__]))
    machinery = Machinery(protected[0], is_runner_code, protected[1], tests)
    evidence = Evidence(protected[0], protected[1], is_runner_code)
    key = bytes.fromhex(ticket.pop("key"))
    compiled = unmarshalled_guards(ticket.pop("compiled", {}))
    channel = signer(key, ticket.pop("nonce"), fd, is_runner_code, needs, machinery, evidence, violations, compiled)
    del key
    next(channel)
    packages = [str(name) for name in ticket.get("packages", ())]
    sys.meta_path.insert(0, RepositoryPackages(".", [name for name in packages if name not in sys.modules]))
    deliver = courier(channel.send)
    witness = Witness(deliver, tests, compiled)
    pytest_hookimpl = vars(sys.modules["pytest"])["hookimpl"]
    pytest_hookimpl(hookwrapper=True)(Witness.pytest_runtest_call)
    consumers = {code: dependencies(code, namespace) for code, namespace in resolve(CONSUMERS).items()}
    consumers.update(dict.fromkeys(own, []))
    functions = frozenset(
        (os.path.realpath(path), name) for path, names in ticket.get("functions", {}).items() for name in names
    )
    returners = set(resolve(RETURNERS))
    policy = Policy(consumers, tests, protected[0], protected[1], is_runner_code, returners, channel, functions)
    sealed = {
        token: value
        for token, value in dict(ticket.pop("expected", {})).items()
        if type(token) is str and type(value) in (str, int, float)
    }
    classes = frozenset(
        (os.path.realpath(path), str(name)) for path, names in ticket.get("classes", {}).items() for name in names
    )
    seal(policy, set(resolve(COMPILERS)), set(resolve(UNMARSHALLERS)), violations, sealed, classes)
    return deliver, witness, pytest_args


def courier(send: Callable[[tuple[str, tuple[Any, ...]]], Any]) -> Callable[[tuple[str, tuple[Any, ...]]], None]:
    """``deliver(message)``: hands a message to the signer with every signal blocked.

    A Python signal handler receives the frame it interrupted, with no audit event; were it to
    interrupt the signer, that frame would hold the key. So signals are blocked around each
    delivery, and handlers already pending run first, in :func:`_settle`'s frame.
    """
    mask, block, restore, every = signal.pthread_sigmask, signal.SIG_BLOCK, signal.SIG_SETMASK, signal.valid_signals()

    def deliver(message: tuple[str, tuple[Any, ...]]) -> None:
        previous = mask(block, every)
        try:
            _settle()
            with contextlib.suppress(StopIteration):  # the signer ends after the final record
                send(message)
        finally:
            mask(restore, previous)

    return deliver


def witnessed(test: Callable[..., Any], nodeid: str, send: Callable[[tuple[Any, ...]], None]) -> Callable[..., Any]:
    """``test`` wrapped so that, when it returns normally, the signer records that it did.

    The signer accepts that message only from a stack of runner and library code: when a
    replaced ``runtest`` calls the test itself, or skips it, no ``returned`` record is written,
    and a witnessed test passes only with one.
    """

    @functools.wraps(test)
    def witnessed_test(*args: Any, **kwargs: Any) -> Any:
        result = test(*args, **kwargs)
        send(("returned", (nodeid,)))
        return result

    return witnessed_test


def _settle() -> None:
    """Nothing: calling a Python function runs the signal handlers already pending, here."""


class RepositoryPackages:
    """A meta path finder that finds the named top-level packages in the repository only.

    Args:
        root: The repository root.
        names: Top-level package and module names of the base commit (never a standard-library
            or runner name: the host leaves those out).
    """

    def __init__(self, root: str, names: list[str]):
        self.root = os.path.realpath(root)
        self.names = frozenset(names)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if path is not None or name not in self.names:
            return None
        return importlib.machinery.PathFinder.find_spec(name, [self.root])


def sign(key: bytes, body: str) -> str:
    """HMAC-SHA256 of ``body`` under ``key``, hex."""
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


#: Landlock (Linux ≥ 5.13) system calls and access rights used by :func:`confine_reads`.
_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_ACCESS_READ_FILE, _ACCESS_READ_DIR, _RULE_PATH_BENEATH, _PR_SET_NO_NEW_PRIVS = 1 << 2, 1 << 3, 1, 38


def confine_reads(hidden: str = "proc") -> bool:
    """Forbid this process and every process it starts to read anything beneath ``/proc`` (Landlock).

    Process memory (``/proc/self/mem``, ``pagemap``, ``map_files``) is then unreadable by any route
    (a directory descriptor and a relative name, a symbolic link swapped after a check, a child
    process): the kernel refuses the open. Reading and listing stay allowed beneath every other
    top-level directory. ``False`` when the kernel (or a container's seccomp profile) offers no
    Landlock: the seal's path check of ``open`` is then the only guard.
    """
    try:
        import ctypes
    except ImportError:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    if syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1)) < 1:
        return False

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    handled = _ACCESS_READ_FILE | _ACCESS_READ_DIR
    attr = RulesetAttr(handled)
    ruleset = syscall(_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0)
    if ruleset < 0:
        return False
    try:
        for name in os.listdir("/"):
            if name == hidden:
                continue
            try:
                parent = os.open("/" + name, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                access = handled if os.path.isdir("/" + name) else _ACCESS_READ_FILE
                rule = PathBeneath(access, parent)
                if syscall(_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) < 0:
                    return False
            finally:
                os.close(parent)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def not_dumpable() -> None:
    """``prctl(PR_SET_DUMPABLE, 0)``: processes the tests start cannot ptrace this one or read its memory."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: nothing to do
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
