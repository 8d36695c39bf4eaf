"""Procedural bug synthesis for SWERepo tasks: the sites each kind finds, what they skip, applying and sampling them."""

from __future__ import annotations

import ast
import random
import textwrap
import warnings
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewardlab.envs.swe.build.mutations import (
    KINDS,
    Mutation,
    apply_mutations,
    mutation_sites,
    sample_candidates,
)

SAMPLE = '''\
"""Module docstring with 1 number and x < 2."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections import OrderedDict

__all__ = ["area"]
__version__ = "1.0"
LIMIT = 10


def area(width: int = 3, height: int = 4) -> int:
    """Docstring mentioning x < 2 and f(a, b)."""
    if width < 0:
        raise ValueError("negative")
    total = width * height
    total += 1
    return total if total > 0 else 0


def check(items):
    while not items:
        items = fill(items, 2)
    return max(items, 0) and bool(items)


class Box:
    def __repr__(self):
        return "Box(%d)" % (1 + 2)

    def grow(self, by):
        self.size = self.size - by
        return self.size is None


if __name__ == "__main__":
    print(area(1, 2))
'''

SITE_PACKAGES = Path(__file__).resolve().parents[3] / ".venv" / "lib" / "python3.11" / "site-packages"
REAL_FILES = ["tabulate/__init__.py", "jmespath/parser.py", "pyparsing/core.py"]


def compiled_dump(text: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(text)
        compile(tree, "<test>", "exec", dont_inherit=True)
    return ast.dump(tree)


def mutated(source: str, site: Mutation) -> str:
    return apply_mutations({site.path: source}, [site])[site.path]


def only(sites: list[Mutation], kind: str, line: int, replacement: str | None = None) -> Mutation:
    found = [s for s in sites if s.kind == kind and s.line == line and replacement in (None, s.replacement)]
    assert len(found) == 1, (kind, line, found)
    return found[0]


def assert_sites_sound(source: str, sites: list[Mutation]) -> None:
    """Every site, applied alone, compiles and changes the AST."""
    original = compiled_dump(source)
    for site in sites:
        assert compiled_dump(mutated(source, site)) != original, site


@pytest.fixture(scope="module")
def sample_sites() -> list[Mutation]:
    return mutation_sites("pkg/shapes.py", SAMPLE)


# ---------------------------------------------------------------------------------------------
# Each kind on a hand-written module


def test_kinds_are_exactly_the_documented_ones():
    assert KINDS == (
        "invert_condition",
        "change_comparison",
        "change_arithmetic",
        "off_by_one",
        "swap_arguments",
        "remove_statement",
        "remove_early_return",
    )


def test_every_kind_appears_and_every_site_is_sound(sample_sites):
    assert {site.kind for site in sample_sites} == set(KINDS)
    assert all(site.path == "pkg/shapes.py" for site in sample_sites)
    assert_sites_sound(SAMPLE, sample_sites)


def test_sites_are_ordered_by_position_then_kind(sample_sites):
    keys = [(s.line, s.col, KINDS.index(s.kind)) for s in sample_sites]
    assert keys == sorted(keys)
    assert mutation_sites("pkg/shapes.py", SAMPLE) == sample_sites


def test_invert_condition(sample_sites):
    negated = only(sample_sites, "invert_condition", 15)
    assert (negated.line, negated.col, negated.end_line, negated.end_col) == (15, 7, 15, 16)
    assert negated.replacement == "not (width < 0)"
    assert "    if not (width < 0):\n        raise" in mutated(SAMPLE, negated)
    unnegated = only(sample_sites, "invert_condition", 23)
    assert "    while items:\n" in mutated(SAMPLE, unnegated)
    ternary = only(sample_sites, "invert_condition", 19)
    assert "    return total if not (total > 0) else 0\n" in mutated(SAMPLE, ternary)
    assert negated.function == "area" and unnegated.function == "check"


def test_change_comparison_changes_only_the_operator(sample_sites):
    site = only(sample_sites, "change_comparison", 15)
    assert (site.col, site.end_col, site.replacement) == (13, 14, "<=")
    assert site.description == "changed `<` to `<=` in `width < 0`"
    assert mutated(SAMPLE, site) == SAMPLE.replace("    if width < 0:", "    if width <= 0:")
    is_not = only(sample_sites, "change_comparison", 34)
    assert "        return self.size is not None\n" in mutated(SAMPLE, is_not)


def test_change_arithmetic_covers_binary_augmented_and_boolean_operators(sample_sites):
    assert "    total = width / height\n" in mutated(SAMPLE, only(sample_sites, "change_arithmetic", 17))
    assert "    total -= 1\n" in mutated(SAMPLE, only(sample_sites, "change_arithmetic", 18))
    assert "    return max(items, 0) or bool(items)\n" in mutated(SAMPLE, only(sample_sites, "change_arithmetic", 25))
    minus = only(sample_sites, "change_arithmetic", 33)
    assert minus.function == "Box.grow"
    assert "        self.size = self.size + by\n" in mutated(SAMPLE, minus)


def test_off_by_one_goes_up_from_zero_and_both_ways_otherwise(sample_sites):
    assert {s.replacement for s in sample_sites if s.kind == "off_by_one" and s.line == 18} == {"0", "2"}
    assert [s.replacement for s in sample_sites if s.kind == "off_by_one" and s.line == 15] == ["1"]
    up = only(sample_sites, "off_by_one", 24, "3")
    assert mutated(SAMPLE, up) == SAMPLE.replace("fill(items, 2)", "fill(items, 3)")


def test_off_by_one_keeps_the_literal_base():
    source = "def f(x):\n    return x & 0xff | 0b10\n"
    replacements = {s.replacement for s in mutation_sites("m.py", source) if s.kind == "off_by_one"}
    assert replacements == {"0x100", "0xfe", "0b11", "0b1"}


def test_swap_arguments(sample_sites):
    site = only(sample_sites, "swap_arguments", 24)
    assert site.replacement == "2, items"
    assert "        items = fill(2, items)\n" in mutated(SAMPLE, site)
    assert "    return max(0, items) and" in mutated(SAMPLE, only(sample_sites, "swap_arguments", 25))


def test_swap_arguments_skips_star_args_equal_and_multiline_arguments():
    source = textwrap.dedent(
        """\
        def f(a, b, rest):
            g(*rest, a)
            g(a, a)
            g(a .real, a.real)
            g(a, (b +
                  1))
            g(a, key=b)
            return g(a, b, rest)
        """
    )
    swaps = [s for s in mutation_sites("m.py", source) if s.kind == "swap_arguments"]
    assert [(s.line, s.replacement) for s in swaps] == [(8, "b, a")]


def test_remove_statement_deletes_whole_lines(sample_sites):
    site = only(sample_sites, "remove_statement", 18)
    assert (site.line, site.col, site.end_line, site.end_col, site.replacement) == (18, 0, 19, 0, "")
    assert mutated(SAMPLE, site) == SAMPLE.replace("    total += 1\n", "")
    assert "    total = width * height\n" not in mutated(SAMPLE, only(sample_sites, "remove_statement", 17))


def test_remove_statement_keeps_each_block_non_empty_and_docstrings_alone():
    source = textwrap.dedent(
        '''\
        def f(x):
            """Docstring."""
            x.append(1)


        def g(x):
            for item in x:
                print(item)
            x.clear(); x.append(2)
            raise RuntimeError(x)
        '''
    )
    removals = [s for s in mutation_sites("m.py", source) if s.kind == "remove_statement"]
    # f keeps nothing but its docstring without its only statement; the loop body has one statement;
    # the two statements of line 9 share it
    assert [s.line for s in removals] == [10]


def test_remove_early_return(sample_sites):
    site = only(sample_sites, "remove_early_return", 15)
    assert (site.line, site.end_line, site.end_col) == (15, 17, 0)
    assert mutated(SAMPLE, site) == SAMPLE.replace('    if width < 0:\n        raise ValueError("negative")\n', "")


def test_remove_early_return_needs_a_lone_guard_without_else():
    source = textwrap.dedent(
        """\
        def f(x):
            if x: return 1
            if x > 1:
                return 2
            else:
                return 3
            if x > 2:
                x += 1
                return 4
            if x > 3:
                return 5
            elif x > 4:
                return 6
        """
    )
    guards = [s for s in mutation_sites("m.py", source) if s.kind == "remove_early_return"]
    assert [(s.line, s.end_line) for s in guards] == [(2, 3)]
    assert mutated(source, guards[0]).startswith("def f(x):\n    if x > 1:\n")


def test_function_names_are_qualified():
    source = textwrap.dedent(
        """\
        x = f(1)


        class Cache:
            def get(self, key):
                def inner(a):
                    return a + 1

                return inner(key)
        """
    )
    functions = {s.function for s in mutation_sites("m.py", source)}
    assert functions == {None, "Cache.get.inner"}


# ---------------------------------------------------------------------------------------------
# What never yields sites


def test_no_sites_in_code_that_does_not_run_when_used(sample_sites):
    lines = {site.line for site in sample_sites}
    assert not lines & {1, 5, 6, 8, 9, 10}  # docstring, TYPE_CHECKING block, __all__, __version__, LIMIT
    assert not [s for s in sample_sites if s.line == 13]  # defaults and annotations
    assert not [s for s in sample_sites if s.line == 14]  # docstring
    assert not [s for s in sample_sites if s.line in (29, 30)]  # __repr__
    assert not [s for s in sample_sites if s.line >= 37]  # the __main__ block, its test included


def test_exclusions():
    source = textwrap.dedent(
        '''\
        import sys
        import functools

        try:
            import ujson as json
        except ImportError:
            json = make_json(1, 2)

        if sys.version_info >= (3, 8):
            PY38 = True

        TIMEOUT = 60 * 60
        COLORS = {"red": (255, 0, 0)}


        class Config:
            retries = 3
            __slots__ = ("a", "b")
            size: int = 4


        @functools.lru_cache(128)
        def f(x, scale=2, *, key=lambda v, d=1: v + d):
            """f(x) - 1"""
            label = f"{x + 1:>{2}}"
            if x is None:  # pragma: no cover
                return x - 1
            if x < 0:
                x = -x
            else:  # pragma: no cover
                x = x + 3
            try:
                return g(x, scale)  # pragma: no cover
            except ValueError:  # pragma: no cover
                return h(x, 5)
            finally:
                print(label, x)
        '''
    )
    sites = mutation_sites("m.py", source)
    assert all(site.function == "f" for site in sites), sites
    assert {(site.line, site.kind) for site in sites} == {
        (25, "remove_statement"),  # the f-string's insides are left alone, not the statement
        (28, "invert_condition"),
        (28, "change_comparison"),
        (28, "off_by_one"),
        (37, "swap_arguments"),
    }


def test_lambda_bodies_count_but_not_their_defaults():
    source = "def f(items):\n    return sorted(items, key=lambda v, d=1: v + d)\n"
    sites = mutation_sites("m.py", source)
    assert [(s.kind, s.replacement) for s in sites] == [("change_arithmetic", "-")]


@pytest.mark.parametrize("source", ["", "def f(:\n", "x = (", "\x00", "if True:\n  x\n y\n", "x = '\ud800'\n"])
def test_empty_or_unparsable_source_has_no_sites(source):
    assert mutation_sites("m.py", source) == []


def test_character_columns_and_crlf_line_endings():
    source = 'def f(n):\r\n    label = "ünïcode" + str(n - 1)\r\n    return label\r\n'
    sites = mutation_sites("m.py", source)
    minus = only(sites, "change_arithmetic", 2, "+")
    assert source.split("\r\n")[1][minus.col : minus.end_col] == "-"
    assert mutated(source, minus) == source.replace("n - 1", "n + 1")
    removal = only(sites, "remove_statement", 2)
    assert mutated(source, removal) == "def f(n):\r\n    return label\r\n"
    assert not [s for s in sites if s.kind == "change_arithmetic" and s.replacement == "-"]  # string concatenation


# ---------------------------------------------------------------------------------------------
# Real sources


@pytest.fixture(scope="module")
def real_sites() -> dict[str, tuple[str, list[Mutation]]]:
    found = {}
    for relative in REAL_FILES:
        path = SITE_PACKAGES / relative
        if path.exists():
            source = path.read_text(encoding="utf-8")
            found[relative] = source, mutation_sites(relative, source)
    return found


@pytest.mark.parametrize("relative", REAL_FILES)
def test_real_file_sites_compile_and_change_the_ast(real_sites, relative):
    if relative not in real_sites:
        pytest.skip(f"{relative} is not installed in the venv")
    source, sites = real_sites[relative]
    assert {site.kind for site in sites} == set(KINDS)
    # Checking all ~4,500 sites against their whole files takes minutes on two cores: check a fixed
    # sample of each kind.
    rng = random.Random(relative)
    by_kind = {kind: [site for site in sites if site.kind == kind] for kind in KINDS}
    checked = [site for group in by_kind.values() for site in rng.sample(group, min(len(group), 15))]
    assert_sites_sound(source, checked)
    positions = [(site.line, site.col, KINDS.index(site.kind)) for site in sites]
    assert positions == sorted(positions)
    assert len({(s.line, s.col, s.end_line, s.end_col, s.replacement) for s in sites}) == len(sites)


def test_real_file_sites_skip_their_docstrings(real_sites):
    if "jmespath/parser.py" not in real_sites:
        pytest.skip("jmespath is not installed in the venv")
    source, sites = real_sites["jmespath/parser.py"]
    docstring_lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and ast.get_docstring(node) is not None:
            docstring_lines.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    assert docstring_lines
    assert not [site for site in sites if set(site.lines) & docstring_lines]


# ---------------------------------------------------------------------------------------------
# Applying


def test_apply_mutations_across_files_and_within_one(sample_sites):
    other = "def g(a, b):\n    return a < b\n"
    tree = {"pkg/shapes.py": SAMPLE, "pkg/other.py": other, "pkg/untouched.py": "x = 1\n"}
    comparison = only(mutation_sites("pkg/other.py", other), "change_comparison", 2)
    guard, increment = only(sample_sites, "remove_early_return", 15), only(sample_sites, "off_by_one", 18, "2")
    result = apply_mutations(tree, (increment, comparison, guard))
    assert result["pkg/other.py"] == "def g(a, b):\n    return a <= b\n"
    assert result["pkg/shapes.py"] == SAMPLE.replace(
        '    if width < 0:\n        raise ValueError("negative")\n', ""
    ).replace("total += 1", "total += 2")
    assert result["pkg/untouched.py"] == "x = 1\n"
    assert tree["pkg/shapes.py"] == SAMPLE  # the input tree is not changed


def test_apply_mutations_rejects_overlaps_shared_lines_and_broken_results(sample_sites):
    tree = {"pkg/shapes.py": SAMPLE}
    guard, comparison = only(sample_sites, "remove_early_return", 15), only(sample_sites, "change_comparison", 15)
    with pytest.raises(ValueError):
        apply_mutations(tree, (guard, comparison))  # overlapping spans
    arithmetic, off_by_one = only(sample_sites, "change_arithmetic", 18), only(sample_sites, "off_by_one", 18, "2")
    with pytest.raises(ValueError):
        apply_mutations(tree, (arithmetic, off_by_one))  # disjoint spans on one line
    with pytest.raises(ValueError):
        apply_mutations({}, (arithmetic,))  # the file is not in the tree
    source = "def f(x):\n    x.a = 1\n    x.b = 2\n"
    removals = [s for s in mutation_sites("m.py", source) if s.kind == "remove_statement"]
    assert len(removals) == 2
    assert all(apply_mutations({"m.py": source}, [removal]) for removal in removals)
    with pytest.raises(ValueError, match="no longer compiles"):
        apply_mutations({"m.py": source}, removals)  # the body would be empty


def test_adjacent_removals_apply_together():
    source = "def f(x):\n    x.a = 1\n    x.b = 2\n    return x\n"
    removals = [s for s in mutation_sites("m.py", source) if s.kind == "remove_statement"]
    assert apply_mutations({"m.py": source}, removals)["m.py"] == "def f(x):\n    return x\n"


# ---------------------------------------------------------------------------------------------
# Sampling

MODULE_A = '''\
"""Geometry helpers."""


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def scale(points, factor):
    scaled = []
    for x, y in points:
        scaled.append((x * factor, y * factor))
    total = len(scaled) + 1
    return scaled[: total - 1]
'''

MODULE_B = """\
class Counter:
    def __init__(self, start=0):
        self.count = start
        self.history = []

    def add(self, amount):
        if amount <= 0:
            raise ValueError(amount)
        self.history.append(amount)
        self.count += amount
        return self.count >= 10 and not self.history


def merge(first, second):
    return divmod(first.count, second.count)
"""

TREE = {"geo/a.py": MODULE_A, "geo/b.py": MODULE_B, "README.md": "not python"}
PATHS = ["geo/a.py", "geo/b.py"]


def pair_sort(candidate: tuple[Mutation, ...]) -> str:
    first, second = candidate
    if first.path != second.path:
        return "files"
    return "function" if first.function is not None and first.function == second.function else "file"


def test_sample_candidates_is_deterministic_distinct_and_applicable():
    candidates = sample_candidates(TREE, PATHS, random.Random(7), count=40, pair_fraction=0.3)
    assert candidates == sample_candidates(TREE, PATHS, random.Random(7), count=40, pair_fraction=0.3)
    assert candidates != sample_candidates(TREE, PATHS, random.Random(8), count=40, pair_fraction=0.3)
    assert len(candidates) == 40 and len(set(candidates)) == 40
    for candidate in candidates:
        assert 1 <= len(candidate) <= 2
        buggy = apply_mutations(TREE, candidate)
        for path in {site.path for site in candidate}:
            compiled_dump(buggy[path])
    pairs = [c for c in candidates if len(c) == 2]
    assert len(pairs) == 12
    assert Counter(map(pair_sort, pairs)) == {"function": 4, "file": 4, "files": 4}
    singles = [c[0] for c in candidates if len(c) == 1]
    assert {site.path for site in singles} == set(PATHS)
    assert len({site.kind for site in singles}) >= 5


def test_sample_candidates_stops_when_sites_run_out():
    tree = {"m.py": "def f(a, b):\n    return a < b + 1\n"}
    sites = mutation_sites("m.py", tree["m.py"])
    assert len(sites) == 4  # all on one line: no two apply together
    candidates = sample_candidates(tree, ["m.py"], random.Random(1), count=100)
    assert len(candidates) == 4 and set(candidates) == {(site,) for site in sites}
    assert sample_candidates(tree, ["m.py"], random.Random(1), count=0) == []


def test_sample_candidates_pairs_only_within_one_file_without_others():
    candidates = sample_candidates(TREE, ["geo/a.py"], random.Random(3), count=30, pair_fraction=1.0)
    assert {pair_sort(c) for c in candidates if len(c) == 2} == {"function", "file"}


# ---------------------------------------------------------------------------------------------
# Properties

CODE_ALPHABET = st.sampled_from(list("abcxyz_0123456789 ()[]:,.=<>!+-*/%\n\t#'\"\\") + ["if ", "not ", "def ", "    "])


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(CODE_ALPHABET, max_size=60).map("".join)))
def test_arbitrary_text_never_raises(text):
    sites = mutation_sites("m.py", text)
    assert all(isinstance(site, Mutation) and site.kind in KINDS for site in sites)


NAMES = st.sampled_from(["a", "b", "c", "self.x", "items[0]"])
ATOMS = st.one_of(NAMES, st.integers(0, 12).map(str), st.just("'s'"))
COMPARATORS = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"]
COMPARISON = st.tuples(ATOMS, st.sampled_from(COMPARATORS), ATOMS)
ARITHMETIC = st.tuples(ATOMS, st.sampled_from(["+", "-", "*", "/", "//", "%", "and", "or"]), ATOMS)
EXPRESSIONS = st.one_of(
    ATOMS,
    COMPARISON.map(" ".join),
    ARITHMETIC.map(" ".join),
    st.tuples(ATOMS, ATOMS).map(lambda args: f"f({args[0]}, {args[1]})"),
    COMPARISON.map(lambda parts: "not " + " ".join(parts)),
    st.tuples(ATOMS, COMPARISON.map(" ".join), ATOMS).map(lambda parts: f"({parts[0]} if {parts[1]} else {parts[2]})"),
)
STATEMENTS = st.one_of(
    EXPRESSIONS.map(lambda e: f"a = {e}"),
    ATOMS.map(lambda e: f"b += {e}"),
    st.tuples(EXPRESSIONS, EXPRESSIONS).map(lambda args: f"g({args[0]}, {args[1]})"),
    st.tuples(EXPRESSIONS, EXPRESSIONS).map(lambda parts: f"if {parts[0]}:\n    return {parts[1]}"),
    st.tuples(EXPRESSIONS, EXPRESSIONS).map(lambda parts: f"if {parts[0]}:\n    raise ValueError({parts[1]})"),
    st.tuples(EXPRESSIONS, ATOMS, ATOMS).map(lambda p: f"if {p[0]}:\n    c = {p[1]}\nelse:\n    c = {p[2]}"),
    st.tuples(EXPRESSIONS, ATOMS).map(lambda parts: f"while {parts[0]}:\n    c -= {parts[1]}\n    break"),
    EXPRESSIONS.map(lambda e: f"assert {e}"),
)
PROGRAMS = st.lists(st.lists(STATEMENTS, min_size=1, max_size=5), min_size=1, max_size=3).map(
    lambda functions: "".join(
        f"def fn{index}(a, b, c=1):\n{textwrap.indent(chr(10).join(body), '    ')}\n    return a\n\n\n"
        for index, body in enumerate(functions)
    )
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS)
def test_every_site_of_a_generated_program_compiles_and_changes_it(program):
    assert_sites_sound(program, mutation_sites("m.py", program))
