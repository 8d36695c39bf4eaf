"""Hidden runs (issue 25): the test files' guarded code, compiled on the host (the speed target), is the code the
runner would compile from the file itself, used only by an interpreter that runs its bytecode, and the signer accepts
no other guarded code for those files; a run that reaches its timeout gets a second, longer one."""

from __future__ import annotations

import binascii
import importlib.util
import json
import os
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.envs.swe import load_tasks, testrun
from rewardlab.envs.swe.collector import (
    guarded_code,
    nested_codes,
    precompiled_guards,
    signer,
    unmarshalled_guards,
)
from rewardlab.envs.swe.patch import apply_patch
from rewardlab.envs.swe.tasks import base_tree
from rewardlab.sandbox import Limits, LocalSandbox

TASKS = load_tasks()
MAGIC = importlib.util.MAGIC_NUMBER.hex()


def evaluated_test_files() -> list[tuple[str, str]]:
    """``(path, source)`` of every test file the shipped SWE tasks evaluate (test patch applied)."""
    files = {}
    for task in TASKS:
        tree = apply_patch(base_tree(task.data), task.data["test_patch"])
        for test_id in [*task.data["FAIL_TO_PASS"], *task.data["PASS_TO_PASS"]]:
            path = test_id.split("::")[0]
            files[f"{task.id}/{path}"] = tree[path]
    return sorted(files.items())


def shape(code: types.CodeType) -> list[tuple[Any, ...]]:
    """What running ``code`` and its nested code depends on, constants compared by value (code by its shape)."""
    return [
        (c.co_qualname, c.co_firstlineno, c.co_filename, c.co_code, c.co_names, c.co_varnames, c.co_freevars,
         c.co_linetable, tuple(k for k in c.co_consts if type(k) is not types.CodeType))
        for c in nested_codes(code)
    ]  # fmt: skip


def ticket_entry(path: str, source: str) -> dict[str, list[str]]:
    """The ticket's ``compiled`` entry the host writes for the test file ``path``."""
    data = precompiled_guards(source.encode("utf-8"))
    return {path: [MAGIC, binascii.b2a_base64(data, newline=False).decode("ascii")]}


@pytest.mark.parametrize(("name", "source"), evaluated_test_files()[:12], ids=lambda value: str(value)[:40])
def test_the_hosts_code_is_the_code_the_runner_compiles_from_the_file(tmp_path, monkeypatch, name, source):
    path = tmp_path / "test_file.py"
    path.write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    codes = unmarshalled_guards(ticket_entry(path.name, source))
    real = os.path.realpath(path.name)
    assert list(codes) == [real]
    assert shape(codes[real]) == shape(guarded_code(real))


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="0123456789abcdef", max_size=8).filter(lambda magic: magic != MAGIC))
def test_code_compiled_for_another_interpreter_is_not_used(magic):
    source = "def test_one():\n    assert 1 == 1\n"
    entry = ticket_entry("test_one.py", source)["test_one.py"]
    codes = unmarshalled_guards({"test_one.py": [magic, entry[1]]})
    assert codes == {}


def test_a_file_that_does_not_compile_is_left_to_the_runner():
    assert testrun._guarded("def test_broken(:\n    pass\n") is None
    assert testrun._guarded("def test_fine():\n    assert 1 == 1\n")[0] == MAGIC


class _Stub:
    """The parts of the signer's collaborators that a ``guarded`` and an ``end`` message use."""

    def changes(self, *, final: bool, files: bool) -> list[str]:
        return []

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def signed_records(tmp_path: Path, compiled: dict[str, types.CodeType], sent: list[types.CodeType]) -> list[dict]:
    """The records a signer writes after ``("guarded", (sent, files))`` and ``("end", (0,))``."""
    path = tmp_path / "records"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    channel = signer(b"k" * 32, "nonce", fd, lambda code: True, [], _Stub(), _Stub(), [], compiled)  # type: ignore[arg-type]
    next(channel)
    channel.send(("guarded", (sent, sorted(compiled))))
    with pytest.raises(StopIteration):
        channel.send(("end", (0,)))
    return [json.loads(json.loads(line)["body"]) for line in path.read_text().splitlines()]


def test_the_signer_accepts_only_the_hosts_code_for_a_compiled_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "def test_one():\n    assert 1 + 1 == 2\n"
    (tmp_path / "test_one.py").write_text(source, encoding="utf-8")
    compiled = unmarshalled_guards(ticket_entry("test_one.py", source))
    hosts = list(nested_codes(next(iter(compiled.values()))))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    clean = signed_records(tmp_path / "a", compiled, hosts)
    assert [r["kind"] for r in clean] == ["end"]
    lookalike = list(nested_codes(guarded_code(os.path.realpath("test_one.py"))))  # equal, but not the host's
    forged = signed_records(tmp_path / "b", compiled, [*hosts[:1], *lookalike[1:]])
    assert [r["kind"] for r in forged] == ["tampering", "end"]
    assert "the host did not compile" in forged[0]["data"][0]


@pytest.mark.parametrize("magic", ["host", "other"])
def test_a_sealed_run_resolves_the_gold_patch_with_either_code(tmp_path, monkeypatch, magic):
    task = TASKS.get("textkit-1")
    ids = [*task.data["FAIL_TO_PASS"], *task.data["PASS_TO_PASS"]]
    if magic == "other":  # as from a host whose Python the sandbox's cannot read: the runner compiles the files
        monkeypatch.setattr(testrun, "_guarded", lambda source: ["0000", ""])
    tree = apply_patch(apply_patch(base_tree(task.data), task.data["patch"]), task.data["test_patch"])
    run = testrun.run_tests(LocalSandbox(limits=Limits(cpu_seconds=20)), tree, tmp_path / "eval", ids, timeout=30)
    assert not run.tampering and all(run.passed.values()), (run.tampering, run.statuses, run.result.stderr[-800:])
    base = apply_patch(base_tree(task.data), task.data["test_patch"])
    failing = testrun.run_tests(LocalSandbox(limits=Limits(cpu_seconds=20)), base, tmp_path / "base", ids, timeout=30)
    assert not failing.tampering and not all(failing.passed.values())


SLOW_TEST = "import time\n\n\ndef test_slow():\n    time.sleep({seconds})\n    assert 1 + 1 == 2\n"


@pytest.mark.parametrize(("seconds", "resolved"), [(2.5, True), (60, False)])
def test_a_run_that_reaches_its_timeout_gets_a_second_longer_one(tmp_path, seconds, resolved):
    """A correct test late on a busy machine (here: slower than the timeout) passes on the second run, three times
    as long; one that never ends within it fails."""
    tree = {"tests/test_slow.py": SLOW_TEST.format(seconds=seconds)}
    run = testrun.run_tests(LocalSandbox(), tree, tmp_path / "eval", ["tests/test_slow.py::test_slow"], timeout=2)
    assert run.passed == {"tests/test_slow.py::test_slow": resolved}
    assert run.result.timed_out is not resolved and not run.tampering


BUSY_TEST = (
    "import time\n\n\ndef test_busy():\n    end = time.process_time() + {seconds}\n"
    "    while time.process_time() < end:\n        pass\n"
)


def test_a_run_that_reaches_its_cpu_limit_gets_a_second_one_with_more(tmp_path):
    """The guards make a heavy suite dearer: a correct test over the CPU limit passes on the second run."""
    tree = {"tests/test_busy.py": BUSY_TEST.format(seconds=2.5)}
    sandbox = LocalSandbox(limits=Limits(cpu_seconds=2))
    run = testrun.run_tests(sandbox, tree, tmp_path / "eval", ["tests/test_busy.py::test_busy"], timeout=30)
    assert run.passed == {"tests/test_busy.py::test_busy": True} and not run.tampering
