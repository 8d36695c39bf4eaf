"""The Sandbox interface: results, limits validation, backend choice and the env option."""

from __future__ import annotations

import sys

import pytest

from rewardlab.errors import ConfigError
from rewardlab.sandbox import (
    Limits,
    LocalSandbox,
    Sandbox,
    SandboxedExecution,
    SandboxResult,
    docker_engine_error,
    isolation_modes,
    make_sandbox,
)
from rewardlab.sandbox.base import classify


@pytest.fixture(scope="module")
def box():
    return LocalSandbox(limits=Limits(cpu_seconds=5, max_processes=32))


def test_run_reports_output_and_exit_code(box):
    result = box.run([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"])
    assert (result.stdout, result.stderr, result.exit_code, result.timed_out) == ("out\n", "err\n", 3, False)
    assert result.killed_reason is None and not result.ok
    assert result.backend == "local" and result.isolation == isolation_modes()[0]
    assert isinstance(box, Sandbox)


def test_files_are_written_to_a_fresh_workdir_that_is_removed(box):
    result = box.run("cat a.txt sub/b.txt; pwd", files={"a.txt": "alpha\n", "sub/b.txt": b"beta\n"})
    lines = result.stdout.splitlines()
    assert lines[:2] == ["alpha", "beta"]
    second = box.run("ls", files={})
    assert second.stdout == "" and second.ok


def test_string_commands_run_through_sh(box):
    assert box.run("echo $((6 * 7)) | tr 4 x").stdout == "x2\n"


def test_output_is_capped_and_counted(box):
    result = box.run([sys.executable, "-c", "print('x' * 100000)"], limits=Limits(output_bytes=1000, max_processes=32))
    assert len(result.stdout) == 1000
    assert result.output_truncated == 100001 - 1000
    assert result.killed_reason == "output_limit"


def test_endless_output_is_stopped_by_the_timeout(box):
    result = box.run("yes", timeout=0.5, limits=Limits(output_bytes=10000, max_processes=32))
    assert result.timed_out and result.killed_reason == "timeout"
    assert len(result.stdout) == 10000 and result.output_truncated > 0


def test_workdir_changes_persist_locally(box, tmp_path):
    (tmp_path / "in.txt").write_text("1")
    result = box.run("cat in.txt > out.txt", workdir=tmp_path)
    assert result.ok and (tmp_path / "out.txt").read_text() == "1"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"cpu_seconds": 0}, "cpu_seconds must be a positive int"),
        ({"memory_bytes": -1}, "memory_bytes"),
        ({"max_processes": 1.5}, "max_processes"),
        ({"open_files": True}, "open_files"),
    ],
)
def test_limits_are_validated(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        Limits(**kwargs)


def test_misuse_raises_config_errors(box, tmp_path):
    with pytest.raises(ConfigError, match="either files"):
        box.run("true", files={}, workdir=tmp_path)
    with pytest.raises(ConfigError, match="timeout must be"):
        box.run("true", timeout=0)
    with pytest.raises(ConfigError, match="escapes the working directory"):
        box.run("true", files={"../x": "no"})
    with pytest.raises(ConfigError, match="isolation must be one of"):
        LocalSandbox(isolation="bwarp")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="Did you mean 'docker'"):
        make_sandbox("dokker")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="backend must be one of"):
        SandboxedExecution(backend="vm")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="sandbox must be"):
        SandboxedExecution.coerce(42)  # type: ignore[arg-type]


def test_no_isolation_mode_warns_loudly():
    with pytest.warns(RuntimeWarning, match="NO network or file-system isolation"):
        box = LocalSandbox(isolation="none")
    result = box.run("echo hi")
    assert result.stdout == "hi\n"
    assert any("NO network" in w for w in result.warnings)


def test_auto_follows_the_engine_and_docker_refuses_without_one():
    problem = docker_engine_error()
    box = make_sandbox("auto")
    try:
        assert box.backend == ("docker" if problem is None else "local")
    finally:
        box.close()
    if problem is not None:
        with pytest.raises(ConfigError, match="needs a running Docker engine"):
            make_sandbox("docker")


def test_sandboxed_execution_coerces_env_arguments(box):
    options, ready = SandboxedExecution.coerce("local")
    assert (options.backend, ready) == ("local", None)
    assert options.create().backend == "local"
    options, ready = SandboxedExecution.coerce(box)
    assert ready is box and options.backend == "local"
    custom = SandboxedExecution(limits=Limits(cpu_seconds=1), timeout=2)
    assert SandboxedExecution.coerce(custom) == (custom, None)


@pytest.mark.parametrize(
    ("exit_code", "timed_out", "stderr", "dropped", "reason"),
    [
        (None, True, "", 0, "timeout"),
        (-24, False, "", 0, "cpu_limit"),
        (-25, False, "", 0, "file_size_limit"),
        (-9, False, "", 0, "signal"),
        (1, False, "Traceback...\nMemoryError\n", 0, "memory_limit"),
        (1, False, "OSError: [Errno 27] File too large", 0, "file_size_limit"),
        (2, False, "/bin/sh: 1: Cannot fork", 0, "process_limit"),
        (1, False, "AssertionError", 0, None),
        (0, False, "MemoryError", 0, None),
        (0, False, "", 5, "output_limit"),
    ],
)
def test_classify_explains_runs(exit_code, timed_out, stderr, dropped, reason):
    assert classify(exit_code, timed_out, stderr, dropped) == reason


def test_result_ok_property():
    result = SandboxResult("", "", 0, False, None, 0.1, "local", "bwrap")
    assert result.ok
