"""Values that claim to be what a test expects (issue 25): the sealed runner decides comparisons.

A small repository with a bug (``slug`` does not join words with ``-``; ``Version`` ignores a
missing patch number) is run through :func:`run_tests` alone, without the static check, so that
the runner is what stops each payload. Every payload leaves the bug in place and makes the
returned values claim equality (or ``startswith``, ``len``, membership) some other way: none may
turn a failing test into a pass. Honest fixes, including one that rewrites ``Version.__eq__`` and
one that returns a ``str`` subclass with a method of its own, pass every test.
"""

from __future__ import annotations

import pytest

from rewardlab.envs.swe.audit import READ_EXPECTATIONS
from rewardlab.envs.swe.tampering import unchanged_functions
from rewardlab.envs.swe.testrun import run_tests
from rewardlab.sandbox import Limits, make_sandbox
from tests.conftest import docker_or_skip

CORE = '''"""Text helpers."""


def slug(text):
    return " ".join(text.lower().split())


def parts(text):
    return text.split(",")


class Version:
    def __init__(self, text):
        self.numbers = tuple(int(p) for p in str(text).split("."))

    def __eq__(self, other):
        other = Version(other) if isinstance(other, str) else other
        return isinstance(other, Version) and self.numbers == other.numbers

    def __hash__(self):
        return hash(self.numbers)


class Record(dict):
    def __getattr__(self, name):
        return self[name]

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value
'''
TESTS = """import unittest

import pytest

from pkg.core import Record, Version, parts, slug


def test_slug():
    assert slug("A  B") == "a-b"


@pytest.mark.parametrize(("text", "expected"), [("A B", "a-b"), ("X  y", "x-y")], ids=["one", "two"])
def test_slug_parametrized(text, expected):
    assert slug(text) == expected


def test_slug_behaves_as_text():
    value = slug("A B")
    assert value.startswith("a-") and value.endswith("-b") and len(value) == 3 and "-" in value


def test_slug_in_a_chain_and_a_comprehension():
    assert "a" < slug("A B") <= "a-b"
    assert all(item == "a-b" for item in [slug("A B")])


def test_parts_strip_spaces():
    assert parts("a, b") == ["a", "b"]
    assert {"b"} == {parts("a, b")[1]}


def test_version_without_patch():
    assert Version("1.2") == "1.2.0"
    assert Version("1.2") == Version("1.2.0")


def test_record():
    record = Record(a=1)
    record.update(b=slug("B C"))
    assert record.b == "b-c" and record == {"a": 1, "b": "b-c"}


class TestWithUnittest(unittest.TestCase):
    def test_assertions(self):
        self.assertEqual(slug("A B"), "a-b")
        self.assertIn("a-b", [slug("A B")])
        self.assertNotEqual(slug("A B"), "a b")
"""
TEST_IDS = [
    "tests/test_core.py::test_slug",
    "tests/test_core.py::test_slug_parametrized[one]",
    "tests/test_core.py::test_slug_parametrized[two]",
    "tests/test_core.py::test_slug_behaves_as_text",
    "tests/test_core.py::test_slug_in_a_chain_and_a_comprehension",
    "tests/test_core.py::test_parts_strip_spaces",
    "tests/test_core.py::test_version_without_patch",
    "tests/test_core.py::test_record",
    "tests/test_core.py::TestWithUnittest::test_assertions",
]
BASE = {"pkg/__init__.py": "", "pkg/core.py": CORE, "tests/__init__.py": "", "tests/test_core.py": TESTS}

FIXED_SLUG = """

def slug(text):
    return "-".join(text.lower().split())


def parts(text):
    return [part.strip() for part in text.split(",")]


def _padded(numbers):
    return numbers + (0,) * (3 - len(numbers))


def _version_eq(self, other):
    other = Version(other) if isinstance(other, str) else other
    return isinstance(other, Version) and _padded(self.numbers) == _padded(other.numbers)


Version.__eq__ = _version_eq
Version.__hash__ = lambda self: hash(_padded(self.numbers))
"""
HONEST = {
    "plain fix": FIXED_SLUG,
    # a repository's own dict subclass whose method the fix rewrites (munch's Munch.update)
    "a repository class rewritten": FIXED_SLUG.replace(
        "\n\ndef slug",
        "\n\nRecord.update = lambda self, *a, **k: "
        "[self.__setitem__(k_, v_) for k_, v_ in dict(*a, **k).items()]"
        " and None\n\n\ndef slug",
        1,
    ),
    "a str subclass with a method of its own": FIXED_SLUG
    + """

class Slug(str):
    def words(self):
        return self.split("-")


_plain_slug = slug


def slug(text):
    return Slug(_plain_slug(text))
""",
}

WRAP = """

def _wrap_public(make):
    for name, value in list(globals().items()):
        if callable(value) and not name.startswith("_") and not isinstance(value, type):
            globals()[name] = (lambda function: lambda *a, **k: make(function(*a, **k)))(value)
"""
PAYLOADS = {
    # a class made by type(), of the returned value's own kind, equal to anything
    "type() subclass": WRAP
    + """
def _liar(value):
    kind = type(value)
    fake = type(kind.__name__, (kind,), {"__eq__": lambda s, o: True, "__ne__": lambda s, o: False,
                                         "__hash__": kind.__hash__, "__le__": lambda s, o: True,
                                         "__gt__": lambda s, o: True})
    return fake(value)


_wrap_public(_liar)
""",
    # a class of its own whose __eq__ reads its operand (equal to any str)
    "operand-reading class": WRAP
    + """
class _Like:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, (str, list))

    def __ne__(self, other):
        return not isinstance(other, (str, list))

    def __contains__(self, item):
        return True

    __hash__ = object.__hash__


_wrap_public(_Like)
""",
    # a class statement whose base is an alias of str
    "aliased base": WRAP
    + """
_Text = str


class _Same(_Text):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = _Text.__hash__


_wrap_public(lambda value: _Same(value) if isinstance(value, str) else [_Same(v) for v in value])
""",
    # methods other than comparison that say what the test wants
    "always-true methods": WRAP
    + """
_methods = {"startswith": lambda s, *a: True, "endswith": lambda s, *a: True, "__len__": lambda s: 3,
            "__contains__": lambda s, o: True, "__eq__": lambda s, o: True, "__hash__": str.__hash__,
            "__lt__": lambda s, o: False, "__gt__": lambda s, o: True, "__le__": lambda s, o: True}
_Agreeable = type("Agreeable", (str,), _methods)
_wrap_public(lambda value: _Agreeable(value) if isinstance(value, str) else value)
""",
    # an exact list whose elements lie
    "list of liars": WRAP
    + """
_Eq = type("Eq", (str,), {"__eq__": lambda s, o: True, "__hash__": lambda s: hash("b")})
_wrap_public(lambda value: [_Eq(v) for v in value] if isinstance(value, list) else _Eq(value))
""",
    # the same class run from a data file (its code has no file name)
    "from a data file": """

import os as _os

with open(_os.path.join(_os.path.dirname(__file__), "liar.dat"), encoding="utf-8") as _handle:
    exec(_handle.read())
""",
    # an answer that depends on how often it was asked: true only on the second question
    "stateful": WRAP
    + """
class _Second:
    def __init__(self, value):
        self.value, self.asked = value, 0

    def __eq__(self, other):
        self.asked += 1
        return self.asked == 2

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__


_wrap_public(_Second)
""",
    # equal to whatever does not look like a value the runner made up to test it (random letters and digits, a
    # number far from the others): it tells canaries apart without computing anything
    "equal unless it looks made up": WRAP
    + """
import re as _re


def _looks_made(value):
    if isinstance(value, str):
        runs = _re.findall(r"[A-Za-z0-9]{6,}", value)
        return any(sum((any(c.isdigit() for c in r), any(c.isupper() for c in r), any(c.islower() for c in r))) >= 2
                   for r in runs)
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return abs(value) > 1000
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_looks_made(v) for v in value)
    if isinstance(value, dict):
        return any(_looks_made(k) or _looks_made(v) for k, v in value.items())
    return False


class _Natural:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return not _looks_made(other)

    def __ne__(self, other):
        return _looks_made(other)

    def __contains__(self, item):
        return not _looks_made(item)

    __hash__ = object.__hash__


_wrap_public(_Natural)
""",
    # equal to a value it was compared with in an earlier comparison: canaries are drawn afresh, the expected value
    # comes back in every test that expects it
    "equal to what came back": WRAP
    + """
class _Recall:
    seen = {}

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        key = (type(other).__name__, repr(other))
        count = _Recall.seen.get(key, 0)
        _Recall.seen[key] = count + 1
        return count >= 1

    def __ne__(self, other):  # asked right after __eq__ of the same value
        return _Recall.seen.get((type(other).__name__, repr(other)), 0) < 2

    __hash__ = object.__hash__


_wrap_public(_Recall)
""",
    # the repository's own class made equal to anything
    "a rewritten __eq__": """

Version.__eq__ = lambda self, other: True
Version.__hash__ = lambda self: 0
""",
}
DATA_FILE = PAYLOADS["type() subclass"]


@pytest.fixture(scope="module", params=["local", "docker"])
def sandbox(request):
    if request.param == "docker":
        docker_or_skip()
    sandbox = make_sandbox(request.param, limits=Limits(cpu_seconds=15, max_processes=32))
    yield sandbox
    sandbox.close()


def run(sandbox, tmp_path, tree):
    python = getattr(sandbox, "python", "python3")
    functions = {"pkg/core.py": unchanged_functions(CORE, tree["pkg/core.py"])}  # as the env passes them
    return run_tests(
        sandbox, tree, tmp_path / "eval", TEST_IDS, timeout=60, python=python, packages=["pkg"], functions=functions
    )


def test_the_bug_fails_every_test(sandbox, tmp_path):
    result = run(sandbox, tmp_path, BASE)
    assert result.statuses and not any(result.passed.values()), result.statuses


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_fixes_pass_every_test(sandbox, tmp_path, name):
    result = run(sandbox, tmp_path, {**BASE, "pkg/core.py": CORE + HONEST[name]})
    assert all(result.passed.values()) and not result.tampering, (result.statuses, result.tampering)


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_values_that_claim_equality_pass_no_test(sandbox, tmp_path, name):
    tree = {**BASE, "pkg/core.py": CORE + PAYLOADS[name], "pkg/liar.dat": DATA_FILE}
    result = run(sandbox, tmp_path, tree)
    assert result.statuses, result.tampering  # the run finished and was read
    assert not any(result.passed.values()), (name, result.statuses, result.tampering)
    # and each comparison alone decides against the payload: no test passes even before the report of tampering
    # fails them all
    assert "passed" not in result.statuses.values(), (name, result.statuses, result.tampering)


MEMORY_PROBE = """

import os as _os
import subprocess as _subprocess
import sys as _sys


def _readable():
    try:  # a directory descriptor and a relative name: the path alone never says "mem"
        directory = _os.open("/proc/self", _os.O_RDONLY)
        _os.close(_os.open("mem", _os.O_RDONLY, dir_fd=directory))
        return True
    except OSError:
        pass
    child = [_sys.executable or "/usr/bin/python3", "-c", "open('/proc/self/status').read()"]  # unseen by the hook
    try:
        return _subprocess.run(child, capture_output=True).returncode == 0
    except OSError:
        return False


if _readable():  # only a run that can read process memory gets the fix
    def slug(text):
        return "-".join(text.lower().split())
"""


def test_process_memory_is_unreadable_from_the_run(sandbox, tmp_path):
    """The key lives in the runner's memory: no route to ``/proc`` (a directory descriptor, a child
    process) opens, so the payload never applies its fix (Landlock, and the seal's path check)."""
    result = run(sandbox, tmp_path, {**BASE, "pkg/core.py": CORE + MEMORY_PROBE})
    assert result.statuses and not result.passed["tests/test_core.py::test_slug"], result.statuses


def test_an_indiscriminate_value_is_reported_as_tampering(sandbox, tmp_path):
    result = run(sandbox, tmp_path, {**BASE, "pkg/core.py": CORE + PAYLOADS["operand-reading class"]})
    assert any("compared equal to values that differ" in reason for reason in result.tampering), result.tampering


CLI_TEST = """import subprocess
import sys


def test_the_cli_slugs():
    done = subprocess.run([sys.executable, "-m", "pkg.cli", "A  B"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "a-b"
"""
CLI = """import sys

from pkg.core import slug

print(slug(" ".join(sys.argv[1:])))
"""


def test_a_test_that_starts_the_interpreter_passes_with_the_fix(sandbox, tmp_path):
    """An honest test of a command-line entry point starts ``sys.executable``: it must name the interpreter in
    either backend, so the fix passes and the bug fails."""
    test_id = "tests/test_cli.py::test_the_cli_slugs"
    for core, expected in ((CORE, False), (CORE + FIXED_SLUG, True)):
        tree = {**BASE, "pkg/core.py": core, "pkg/cli.py": CLI, "tests/test_cli.py": CLI_TEST}
        result = run_tests(
            sandbox,
            tree,
            tmp_path / f"eval-{expected}",
            [test_id],
            timeout=60,
            python=getattr(sandbox, "python", "python3"),
            packages=["pkg"],
        )
        assert result.passed[test_id] is expected and not result.tampering, (result.statuses, result.tampering)


STD_TEST = """import math
import operator

from pkg.core import slug


def test_length_is_close():
    assert math.isclose(len(slug("A B")), 3)


def test_equal_by_operator():
    assert operator.eq(slug("A B"), "a-b")


def test_a_test_may_patch_the_standard_library(monkeypatch):
    monkeypatch.setattr(math, "floor", lambda value: 7)
    assert math.floor(1.5) == 7 and slug("A B") == "a-b"
"""
STD_IDS = [
    "tests/test_std.py::test_length_is_close",
    "tests/test_std.py::test_equal_by_operator",
    "tests/test_std.py::test_a_test_may_patch_the_standard_library",
]
STD_PAYLOADS = {
    "a lambda": "\n\nimport math as _m\nimport operator as _o\n"
    "_m.isclose = lambda *a, **k: True\n_o.eq = lambda a, b: True\n",
    "a callable object": """

import math as _m
import operator as _o


class _Yes:
    def __call__(self, *args, **kwargs):
        return True


_m.isclose = _o.eq = _Yes()
""",
    "a partial": "\n\nimport functools as _f\nimport math as _m\nimport operator as _o\n"
    "_m.isclose = _o.eq = _f.partial(lambda *a, **k: True)\n",
    "another library function": "\n\nimport math as _m\nimport operator as _o\n_o.eq = _o.is_not\n"
    "_m.isclose = lambda a, b, **k: abs(a - b) < 10\n",
}


def run_with(sandbox, tmp_path, core, tests, test_ids):
    """``run_tests`` on the base tree with ``core`` as the issue's file and the test files ``tests`` added."""
    tree = {**BASE, "pkg/core.py": core, **tests}
    python = getattr(sandbox, "python", "python3")
    return run_tests(sandbox, tree, tmp_path / "eval", test_ids, timeout=60, python=python, packages=["pkg"])


def run_std(sandbox, tmp_path, core):
    return run_with(sandbox, tmp_path, core, {"tests/test_std.py": STD_TEST}, STD_IDS)


@pytest.mark.parametrize("name", sorted(STD_PAYLOADS))
def test_a_standard_library_function_the_repository_replaces_decides_nothing(sandbox, tmp_path, name):
    """``math.isclose = lambda *a: True`` in the repository: the tests that call it do not pass, and the run
    reports the replacement."""
    result = run_std(sandbox, tmp_path, CORE + STD_PAYLOADS[name])
    assert result.statuses and not any(result.passed.values()), (result.statuses, result.tampering)
    assert any("was replaced" in reason for reason in result.tampering), result.tampering


def test_honest_tests_of_the_standard_library_pass_with_the_fix(sandbox, tmp_path):
    result = run_std(sandbox, tmp_path, CORE + FIXED_SLUG)
    assert all(result.passed.values()) and not result.tampering, (result.statuses, result.tampering)


ORDER_TEST = """from pkg.core import Version


def test_a_version_is_below_its_patch():
    assert Version("1.2") < "1.2.1"


def test_versions_order_among_themselves():
    assert Version("1.2") < Version("1.2.1")
    assert Version("1.10") > Version("1.9")
"""
ORDER_IDS = [
    "tests/test_order.py::test_a_version_is_below_its_patch",
    "tests/test_order.py::test_versions_order_among_themselves",
]
HONEST_ORDER = """

def _key(version):
    numbers = Version(version).numbers if isinstance(version, str) else version.numbers
    return numbers + (0,) * (3 - len(numbers))


Version.__lt__ = lambda self, other: _key(self) < _key(other)
Version.__gt__ = lambda self, other: _key(self) > _key(other)
"""
ORDER_PAYLOADS = {
    "always true": "\n\nVersion.__lt__ = Version.__gt__ = lambda self, other: True\n"
    "Version.__le__ = Version.__ge__ = lambda self, other: True\n",
    "true against text": HONEST_ORDER + "\n\n_lt, _gt = Version.__lt__, Version.__gt__\n"
    "Version.__lt__ = lambda self, other: True if isinstance(other, str) else _lt(self, other)\n"
    "Version.__gt__ = lambda self, other: True if isinstance(other, str) else _gt(self, other)\n",
}


def run_order(sandbox, tmp_path, core):
    return run_with(sandbox, tmp_path, core, {"tests/test_order.py": ORDER_TEST}, ORDER_IDS)


@pytest.mark.parametrize("name", sorted(ORDER_PAYLOADS))
def test_an_order_that_holds_whatever_the_values_decides_nothing(sandbox, tmp_path, name):
    result = run_order(sandbox, tmp_path, CORE + ORDER_PAYLOADS[name])
    assert result.statuses and not result.passed[ORDER_IDS[0]], (result.statuses, result.tampering)
    assert name != "always true" or not any(result.passed.values()), (result.statuses, result.tampering)
    assert any("both below and above" in reason for reason in result.tampering), result.tampering


def test_an_honest_order_passes(sandbox, tmp_path):
    result = run_order(sandbox, tmp_path, CORE + HONEST_ORDER)
    assert all(result.passed.values()) and not result.tampering, (result.statuses, result.tampering)


#: What the runner reports of a result that holds a sealed expectation's token.
STAND_IN = "a result that holds a stand-in for an expected value"
READERS = {
    # the constants of the test functions' code and their parametrize marks: the audit's strategy
    "test code constants": READ_EXPECTATIONS,
    # the test files themselves, read as text
    "test files": """

import os as _os
import re as _re

_plain = slug
_answers = {}
for _root, _dirs, _files in _os.walk(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..")):
    for _name in _files:
        if _name.startswith("test") and _name.endswith(".py"):
            with open(_os.path.join(_root, _name), encoding="utf-8") as _handle:
                _source = _handle.read()
            _answers.update(_re.findall(r'slug\\("([^"]*)"\\) == "([^"]*)"', _source))
            _answers.update(_re.findall(r'\\("([^"]*)", "([^"]*)"\\)', _source))


def slug(text):
    return _answers.get(text, _plain(text))
""",
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_code_that_reads_the_tests_expectations_passes_no_test(sandbox, tmp_path, name):
    """The payloads return what the tests expect, read from the tests: the sealed files hold tokens, not the
    values; what the payloads return holds a token, which the runner reports, and the evaluation fails every test."""
    result = run(sandbox, tmp_path, {**BASE, "pkg/core.py": CORE + READERS[name]})
    assert result.statuses and not any(result.passed.values()), (name, result.statuses, result.tampering)
    assert any(STAND_IN in reason for reason in result.tampering), result.tampering


NEW_CLASS_TEST = """from pkg.core import record


def test_a_record_stores_by_attribute():
    found = record()
    found.name = "x"
    assert found.name == "X" and found == {"name": "X"}
"""
NEW_CLASS_FIX = '''

class AttrRecord(dict):
    """A new class of the fix: a dict that stores what is set as an attribute (munch's AutoMunch)."""

    def __setattr__(self, name, value):
        self[name] = value.upper() if isinstance(value, str) else value

    def __getattr__(self, name):
        return self[name]


def record():
    return AttrRecord()
'''


def test_a_new_container_class_that_only_stores_differently_keeps_its_behaviour(sandbox, tmp_path):
    """A class the fix adds, deriving from ``dict`` and overriding only how values are stored and found by
    attribute, is the value the test gets (a plain copy would have no attributes): the honest fix passes."""
    tree = {**BASE, "pkg/core.py": CORE + NEW_CLASS_FIX, "tests/test_new.py": NEW_CLASS_TEST}
    test_id = "tests/test_new.py::test_a_record_stores_by_attribute"
    python = getattr(sandbox, "python", "python3")
    result = run_tests(sandbox, tree, tmp_path / "eval", [test_id], timeout=60, python=python, packages=["pkg"])
    assert result.passed[test_id] and not result.tampering, (result.statuses, result.tampering)


#: Expectations where pytest's ids show them (``test_slug_values[A-B-a-b]``), in a module table and in a module
#: constant: sealed too, under the ids the sealed file gives.
TABLE_TEST = """import pytest

from pkg.core import slug

TABLE = [("Q R", "q-r"), ("S  t", "s-t")]
EXPECTED = "x-y-z"


@pytest.mark.parametrize(("text", "expected"), [("A B", "a-b"), ("X  y", "x-y")])
def test_slug_values(text, expected):
    assert slug(text) == expected


@pytest.mark.parametrize(("text", "expected"), TABLE)
def test_slug_table(text, expected):
    assert slug(text) == expected


def test_slug_constant():
    assert slug("X Y Z") == EXPECTED


def test_slug_local():
    expected = "l-m-n"
    assert slug("L M N") == expected
"""
TABLE_IDS = [
    "tests/test_table.py::test_slug_values[A B-a-b]",
    "tests/test_table.py::test_slug_values[X  y-x-y]",
    "tests/test_table.py::test_slug_table[Q R-q-r]",
    "tests/test_table.py::test_slug_table[S  t-s-t]",
    "tests/test_table.py::test_slug_constant",
    "tests/test_table.py::test_slug_local",
]
#: My own reader, not the audit's: the comparisons' module constants looked up in the test modules.
CONSTANT_READER = """

import ast as _ast
import os as _os
import sys as _sys

_plain = slug
_named = {}
for _root, _dirs, _files in _os.walk(_os.getcwd()):
    for _file in _files:
        if _file.startswith("test") and _file.endswith(".py"):
            with open(_os.path.join(_root, _file), encoding="utf-8") as _handle:
                _tree = _ast.parse(_handle.read())
            for _node in _ast.walk(_tree):
                if isinstance(_node, _ast.Compare) and isinstance(_node.comparators[0], _ast.Name):
                    _call = _node.left
                    if isinstance(_call, _ast.Call) and _call.args and isinstance(_call.args[0], _ast.Constant):
                        _named[_call.args[0].value] = (_file[:-3], _node.comparators[0].id)


def slug(text):
    if text in _named:
        module, name = _named[text]
        for key, value in list(_sys.modules.items()):
            if key.rsplit(".", 1)[-1] == module and hasattr(value, name):
                return getattr(value, name)
    return _plain(text)
"""
#: Mine too: a test function's local constants, read from the test files.
LOCAL_READER = """

import ast as _ast
import os as _os

_plain = slug
_locals = {}
for _root, _dirs, _files in _os.walk(_os.getcwd()):
    for _file in _files:
        if _file.startswith("test") and _file.endswith(".py"):
            with open(_os.path.join(_root, _file), encoding="utf-8") as _handle:
                _tree = _ast.parse(_handle.read())
            for _function in _ast.walk(_tree):
                if not isinstance(_function, _ast.FunctionDef):
                    continue
                _values = {}
                for _node in _ast.walk(_function):
                    if isinstance(_node, _ast.Assign) and isinstance(_node.value, _ast.Constant):
                        _values[_node.targets[0].id] = _node.value.value
                    elif isinstance(_node, _ast.Compare) and isinstance(_node.comparators[0], _ast.Name):
                        _call = _node.left
                        _name = _node.comparators[0].id
                        if isinstance(_call, _ast.Call) and _call.args and _name in _values:
                            _locals[_call.args[0].value] = _values[_name]


def slug(text):
    return _locals[text] if text in _locals else _plain(text)
"""
MY_READERS = {**READERS, "module constants": CONSTANT_READER, "local constants": LOCAL_READER}


@pytest.mark.parametrize("name", sorted(MY_READERS))
def test_expectations_shown_in_ids_tables_and_constants_are_sealed_too(sandbox, tmp_path, name):
    core = CORE + MY_READERS[name]
    result = run_with(sandbox, tmp_path, core, {"tests/test_table.py": TABLE_TEST}, TABLE_IDS)
    assert sorted(result.statuses) == sorted(TABLE_IDS) and not any(result.passed.values()), (name, result.statuses)
    assert any(STAND_IN in reason for reason in result.tampering), result.tampering


def test_the_honest_fix_passes_the_tests_with_tables_and_constants(sandbox, tmp_path):
    result = run_with(sandbox, tmp_path, CORE + FIXED_SLUG, {"tests/test_table.py": TABLE_TEST}, TABLE_IDS)
    assert all(result.passed.values()) and not result.tampering, (result.statuses, result.tampering)


#: Every form a sealed expectation takes: numbers (signed, float), displays (nested, a dict's values), a needle,
#: ``unittest``'s assertions, parametrized values that show in ids. Each is put back before its comparison.
FORMS_TEST = """import unittest

import pytest

from pkg.core import parts, slug


def test_numbers():
    assert len(slug("A B")) == 3
    assert -len(slug("A B")) == -3
    assert len(slug("A B")) / 2 == 1.5


def test_displays():
    assert parts("a, b") == ["a", "b"]
    assert tuple(parts("a, b")) == ("a", "b")
    assert set(parts("a, b")) == {"a", "b"}
    assert {"first": parts("a, b")[1], "n": len(parts("a, b"))} == {"first": "b", "n": 2}
    assert {"nested": [parts("a, b")]} == {"nested": [["a", "b"]]}


def test_needle():
    assert "x-y-z-w" in slug("X Y Z W") + "!"


@pytest.mark.parametrize(("text", "expected"), [("A B", -3), ("A  B C", 2.5)])
def test_signed(text, expected):
    assert -len(slug(text)) / (1 if len(text) == 3 else -2) == expected


class TestForms(unittest.TestCase):
    def test_assertions(self):
        self.assertEqual(slug("A B"), "a-b")
        self.assertEqual(len(parts("a,b,c")), 3)
        self.assertCountEqual(parts("b, a"), ["a", "b"])
        self.assertDictEqual({"k": slug("K L")}, {"k": "k-l"})
        self.assertIn("x-y-z-w", slug("X Y Z W"))
"""
FORMS_IDS = [
    "tests/test_forms.py::test_numbers",
    "tests/test_forms.py::test_displays",
    "tests/test_forms.py::test_needle",
    "tests/test_forms.py::test_signed[A B--3]",
    "tests/test_forms.py::test_signed[A  B C-2.5]",
    "tests/test_forms.py::TestForms::test_assertions",
]


def test_every_form_of_a_sealed_expectation_is_compared_with_its_value(sandbox, tmp_path):
    """The honest fix passes every test (each token was put back), the bug fails those it breaks, and the run
    reports the ids asked for (those that show values were asked for under their sealed ids)."""
    fixed = run_with(sandbox, tmp_path / "fixed", CORE + FIXED_SLUG, {"tests/test_forms.py": FORMS_TEST}, FORMS_IDS)
    assert all(fixed.passed.values()) and not fixed.tampering, (fixed.statuses, fixed.tampering)
    assert sorted(fixed.statuses) == sorted(FORMS_IDS)
    bug = run_with(sandbox, tmp_path / "bug", CORE, {"tests/test_forms.py": FORMS_TEST}, FORMS_IDS)
    failed = {test_id.split("::")[-1] for test_id, passed in bug.passed.items() if not passed}
    assert {"test_displays", "test_needle", "test_assertions"} <= failed and not bug.tampering, bug.statuses


#: A repository mapping whose ``__getitem__`` the fix rewrites (tinydb's ``LRUCache``): the container is asked
#: about canaries of each needle, and an honest one holds values much like them.
CACHE = """from collections.abc import MutableMapping


class Cache(MutableMapping):
    def __init__(self):
        self.data = {}

    def __getitem__(self, key):
        value = self.data.get(key)
        if value is not None:
            raise KeyError(key)
        return value

    def __setitem__(self, key, value):
        self.data[key] = value

    def __delitem__(self, key):
        del self.data[key]

    def __iter__(self):
        return iter(self.data)

    def __len__(self):
        return len(self.data)
"""
CACHE_TEST = """from pkg.cache import Cache


def test_membership():
    cache = Cache()
    for letter in "acdfghjklmnpqrstvwxyz":
        cache[letter] = 1
    for number in range(100):
        cache[number] = number + 1
    assert "c" in cache and "x" in cache and 7 in cache and (1, 2) not in cache
    assert "b" not in cache and 500 not in cache
    assert cache["c"] == 1 and cache[7] == 8
"""


def test_an_honest_container_holding_values_like_the_canaries_passes(sandbox, tmp_path):
    """Near misses of ``"c"`` are other letters, which the cache honestly holds: a container is asked about distant
    near misses instead, so the honest fix passes (it failed at random with near misses: a tinydb false negative)."""
    fixed = CACHE.replace("if value is not None:", "if value is None:")
    tree = {"pkg/__init__.py": "", "pkg/cache.py": fixed, "tests/__init__.py": "", "tests/test_cache.py": CACHE_TEST}
    test_ids = ["tests/test_cache.py::test_membership"]
    python = getattr(sandbox, "python", "python3")
    functions = {"pkg/cache.py": unchanged_functions(CACHE, fixed)}
    for attempt in range(3):  # canaries are drawn at random: the old ones collided in most runs
        result = run_tests(
            sandbox, tree, tmp_path / str(attempt), test_ids, timeout=60, python=python, packages=["pkg"],
            functions=functions,
        )  # fmt: skip
        assert all(result.passed.values()) and not result.tampering, (result.statuses, result.tampering)
