"""Running pytest in a sandbox and reading per-test outcomes from its report.

Tests run with ``python -m pytest -rA -q -p no:cacheprovider`` and plugin autoloading off
(``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``), which keeps start-up near a plain interpreter's. The
``-rA`` summary lists every test as ``PASSED id``, ``FAILED id - reason``, ``ERROR id``, ...;
a requested test that the summary does not list (it was not collected) counts as failed.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rewardlab.sandbox import Limits, Sandbox, SandboxResult

_STATUS = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)")
_TIMING = re.compile(r" in \d+(?:\.\d+)?s\b")
PYTEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": ""}


def pytest_command(test_ids: Sequence[str] = (), *, python: str | None = None, report: bool = True) -> list[str]:
    """The argv that runs ``test_ids`` (all collected tests when empty); ``report`` adds the per-test summary."""
    summary = ["-rA"] if report else []
    return [python or sys.executable, "-m", "pytest", *summary, "-q", "-p", "no:cacheprovider", *test_ids]


def parse_report(output: str) -> dict[str, str]:
    """``{test id: status}`` from pytest's ``-rA`` short summary (``PASSED``, ``FAILED``, ...)."""
    statuses: dict[str, str] = {}
    for line in output.splitlines():
        match = _STATUS.match(line)
        if match:
            statuses[match.group(2)] = match.group(1)
    return statuses


def strip_timing(output: str) -> str:
    """Remove pytest's wall-clock durations so that identical runs print identical text."""
    return _TIMING.sub("", output)


@dataclass(frozen=True)
class TestRun:
    """Outcome of one pytest run: ``passed[test_id]`` for every requested id, plus the raw result."""

    passed: dict[str, bool]
    result: SandboxResult


def run_tests(
    sandbox: Sandbox,
    workdir: str | Path,
    test_ids: Sequence[str],
    *,
    timeout: float,
    limits: Limits | None = None,
    python: str | None = None,
) -> TestRun:
    """Run ``test_ids`` in ``workdir``; a test passes only when the report says ``PASSED``."""
    result = sandbox.run(
        pytest_command(test_ids, python=python), workdir=workdir, timeout=timeout, limits=limits, env=PYTEST_ENV
    )
    statuses = parse_report(result.stdout)
    return TestRun({test_id: statuses.get(test_id) == "PASSED" for test_id in test_ids}, result)
