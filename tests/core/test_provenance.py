"""The pieces of ``reward_version``: stable for the same configuration, different for any change that can
change a reward."""

from __future__ import annotations

import dataclasses
import functools
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from rewardlab.core.provenance import (
    callable_identity,
    code_digest,
    derive,
    plain,
    rubric_identity,
    source_digest,
    stamp,
)
from rewardlab.core.rubric import Criterion, Rubric

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_plain_data_gives_a_stamp_and_the_same_one_twice(value: object) -> None:
    assert stamp({"value": value}) == stamp({"value": value})
    assert stamp({"value": value}).startswith("rv-")


def test_key_order_does_not_matter_values_do() -> None:
    assert stamp({"a": 1, "b": [1, 2]}) == stamp({"b": [1, 2], "a": 1})
    assert stamp({"a": 1, "b": [1, 2]}) != stamp({"a": 1, "b": [2, 1]})
    assert stamp({"a": 1}) != stamp({"a": 1.5})


def test_a_derived_stamp_differs_from_its_base_and_from_other_parts() -> None:
    base = stamp({"env": "x"})
    assert derive(base, {"w": 1}) not in {base, derive(base, {"w": 2}), derive(stamp({"env": "y"}), {"w": 1})}


def _rubric(**options: object) -> Rubric:
    criteria = [
        Criterion("a", lambda outcome: outcome["a"], role="outcome"),
        Criterion("b", lambda outcome: outcome["b"], role="quality"),
    ]
    return Rubric(criteria, **options)  # type: ignore[arg-type]


def test_rubric_identity_sees_weights_gates_aggregate_penalty_and_formulas() -> None:
    reference = stamp(rubric_identity(_rubric()))
    assert stamp(rubric_identity(_rubric())) == reference
    variants = [
        _rubric(weights={"a": 2.0, "b": 1.0}),
        _rubric(gates=["a"]),
        _rubric(gates={"a": 0.5}),
        _rubric(aggregate="geometric"),
        _rubric(invalid_penalty=-1.0),
        Rubric(
            [
                Criterion("a", lambda outcome: outcome["a"], role="outcome"),
                Criterion("b", lambda outcome: 1 - outcome["b"], role="quality"),
            ]
        ),
        Rubric(
            [
                Criterion("a", lambda outcome: outcome["a"], role="outcome"),
                Criterion("c", lambda outcome: outcome["b"], role="quality"),
            ]
        ),
    ]
    stamps = {stamp(rubric_identity(rubric)) for rubric in variants}
    assert reference not in stamps and len(stamps) == len(variants)


def test_equal_weights_written_differently_are_the_same_rubric() -> None:
    assert stamp(rubric_identity(_rubric(weights={"a": 1.0, "b": 1.0}))) == stamp(
        rubric_identity(_rubric(weights={"a": 3.0, "b": 3.0}))
    )


def _scaled(factor: float):  # type: ignore[no-untyped-def]
    def criterion(outcome: float) -> float:
        return factor * outcome

    return criterion


def test_closure_values_and_partial_arguments_are_part_of_a_function() -> None:
    assert callable_identity(_scaled(0.5)) == callable_identity(_scaled(0.5))
    assert callable_identity(_scaled(0.5)) != callable_identity(_scaled(0.25))
    assert callable_identity(functools.partial(pow, exp=2)) != callable_identity(functools.partial(pow, exp=3))


def test_a_recursive_closure_is_named_not_followed() -> None:
    def outer() -> object:
        def walk(depth: int) -> int:
            return 0 if depth == 0 else walk(depth - 1)

        return walk

    assert "recursion" in str(callable_identity(outer()))


@dataclasses.dataclass(frozen=True)
class Threshold:
    value: float


class Counter:
    def __init__(self) -> None:
        self.calls = 0


def test_dataclasses_are_described_by_their_fields_other_objects_by_class_never_by_address() -> None:
    assert plain(Threshold(0.5)) == plain(Threshold(0.5)) != plain(Threshold(0.7))
    counter = Counter()
    before = plain(counter)
    counter.calls += 1
    assert plain(counter) == before  # state that changes with use is not configuration
    assert "0x" not in str(plain(counter)) + str(plain(Threshold(0.5)))


def test_source_digest_ignores_docstrings_comments_and_layout_not_code(tmp_path: Path) -> None:
    def digest(text: str) -> str:
        path = tmp_path / f"m{abs(hash(text))}.py"
        path.write_text(textwrap.dedent(text))
        return source_digest(path)

    reference = digest('"""Doc."""\ndef f(x):\n    """Say."""\n    return x + 1\n')
    assert digest("def f(x):\n    # a comment\n\n    return x + 1\n") == reference
    assert digest("def f(x):\n    return x + 2\n") != reference
    assert digest("def f(x):\n    return 1 + x\n") != reference


def test_code_digest_is_the_same_in_another_process() -> None:
    here = code_digest(["rewardlab.core", "rewardlab.envs.echo"])
    script = (
        "from rewardlab.core.provenance import code_digest as d; print(d(['rewardlab.envs.echo', 'rewardlab.core']))"
    )
    there = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.strip()
    assert here == there
    assert code_digest(["rewardlab.core"]) != here


def test_sessions_starting_at_once_digest_each_file_once(monkeypatch) -> None:
    """Many threads needing the same stamp for the first time (a server's sessions starting together) parse
    each file once between them, and all get the digest a single thread gets."""
    import threading

    from rewardlab.core import provenance

    expected = provenance.code_digest(["rewardlab.core"])
    monkeypatch.setattr(provenance, "_FILE_DIGESTS", {})
    computed: list[str] = []
    original = provenance._file_digest
    monkeypatch.setattr(provenance, "_file_digest", lambda path: computed.append(str(path)) or original(path))
    start = threading.Barrier(8)
    digests: list[str] = []

    def session() -> None:
        start.wait()
        digests.append(provenance.code_digest(["rewardlab.core"]))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    files = provenance.package_files("rewardlab.core")[1]
    assert digests == [expected] * 8
    assert sorted(computed) == sorted(map(str, files))  # each file once, not once per thread
