"""Running pytest in a sandbox and reading per-test outcomes through a channel the tested code cannot forge.

The hidden evaluation (:func:`run_tests`) lays out a scratch directory the sandbox runs in::

    scratch/repo/                   the evaluated tree
    scratch/.rewardlab-<random>/    collector.py, a one-time ticket, an empty pytest.ini

and starts ``python -s -B .rewardlab-<random>/collector.py <ticket> repo <pytest args>``
(:mod:`rewardlab.envs.swe.collector`). The collector reads and deletes the ticket (HMAC key,
nonce, the result file's random name) before any repository code runs, puts the repository
*last* on ``sys.path``, runs pytest with ``--import-mode=append`` and exactly one configuration
file chosen here (the base commit's own, found with pytest's own rules, else the empty one), and
writes ``{"body", "mac"}`` to the result file. A test passes only when a result with a valid MAC
and the right nonce says ``passed``. No result (a crash, ``os._exit``) means every test failed;
a result that fails verification, or one whose collector found the runner modified, is
tampering. The run's standard output is never parsed (the tested code shares it).

The agent's own ``test`` command (:func:`pytest_command`) is plain pytest in the working copy:
its output is feedback for the agent, never a result.
"""

from __future__ import annotations

import binascii
import dataclasses
import functools
import hmac
import importlib.util
import json
import re
import secrets
import shutil
import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from rewardlab.envs.swe.collector import precompiled_guards, sign
from rewardlab.envs.swe.expectations import Sealed, seal_expectations
from rewardlab.envs.swe.workspace import Workspace
from rewardlab.leases import owned_tempdir, remove_owned_tempdir
from rewardlab.sandbox import Limits, Sandbox, SandboxError, SandboxResult

#: The most output (the record stream included) an evaluation keeps: 1.5 KB a test for 20,000 tests.
RECORDS_BYTES = 32 << 20
PYTEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": ""}
COLLECTOR = Path(__file__).with_name("collector.py")
RETRY_TIMEOUT_FACTOR = 3.0
"""The timeout and CPU limit of the second run of a hidden run that reached either, in multiples of the first's."""
_TIMING = re.compile(r" in \d+(?:\.\d+)?s\b")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,16}\b")


def pytest_command(test_ids: Sequence[str] = (), *, python: str | None = None) -> list[str]:
    """The argv of the agent's ``test`` command: ``test_ids`` (all collected tests when empty)."""
    return [python or sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *test_ids]


def stable_output(output: str) -> str:
    """``output`` without what differs between identical runs: pytest's wall-clock durations are
    removed and memory addresses (``0x7f...`` in object reprs) become ``0x…``."""
    return _ADDRESS.sub("0x…", _TIMING.sub("", output))


@functools.cache
def config_names() -> tuple[str, ...]:
    """Every file name the installed pytest reads configuration from (pytest's own list where it has one)."""
    names = {"pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"}
    try:
        from _pytest.config import findpaths
    except ImportError:  # pragma: no cover - pytest is a dependency of the swe extra
        return tuple(sorted(names))
    names |= set(getattr(findpaths, "CONFIG_LOADERS_BY_NAME", ()))
    return tuple(sorted(names))


def base_config(base: Mapping[str, str], test_ids: Sequence[str]) -> str | None:
    """The repository path of the configuration file pytest would read in the base tree, if any.

    Uses pytest's own search (:func:`_pytest.config.findpaths.locate_config`) on a copy of the
    configuration files of ``base``; files outside the repository never count.
    """
    candidates = {p: t for p, t in base.items() if PurePosixPath(p).name in config_names()}
    if not candidates:
        return None
    try:
        from _pytest.config.findpaths import locate_config
    except ImportError:  # pragma: no cover - no pytest on the host (Docker backend): the empty config
        return None
    scratch = owned_tempdir("rewardlab-swe-config-")
    try:
        root = scratch / "repo"
        Workspace(root, candidates)
        args = [root / test_id.split("::")[0] for test_id in test_ids] or [root]
        try:
            found = locate_config(root, args)[1]
        except Exception:  # a base configuration pytest itself cannot read: run without it
            return None
        if found is None or root not in Path(found).parents:
            return None
        return Path(found).relative_to(root).as_posix()
    finally:
        remove_owned_tempdir(scratch)


@dataclass(frozen=True)
class TestRun:
    """Outcome of one hidden run.

    Attributes:
        passed: ``passed[test_id]`` for every requested id.
        result: The raw sandbox result (never read for outcomes).
        statuses: ``{node id: status}`` of every test the verified result lists.
        tampering: Why the run cannot be trusted (a forged result, a modified runner); empty when clean.
        infra_error: Set when the sandbox itself failed (an infrastructure error, not the agent's).
    """

    __test__ = False  # not a pytest class

    passed: dict[str, bool]
    result: SandboxResult
    statuses: dict[str, str]
    tampering: tuple[str, ...] = ()
    infra_error: str | None = None


def run_tests(
    sandbox: Sandbox,
    tree: Mapping[str, str],
    scratch: str | Path,
    test_ids: Sequence[str],
    *,
    timeout: float,
    limits: Limits | None = None,
    python: str | None = None,
    config: str | None = None,
    vouched: Iterable[str] = (),
    packages: Iterable[str] = (),
    functions: Mapping[str, Iterable[str]] | None = None,
    classes: Mapping[str, Iterable[str]] | None = None,
    retry_late: bool = True,
) -> TestRun:
    """Run ``test_ids`` (all collected tests when empty) on ``tree`` in the fresh directory ``scratch``.

    ``config`` is the repository path of the one configuration file pytest reads (see
    :func:`base_config`); ``None`` gives it an empty one. ``vouched`` are further repository
    paths whose content the caller vouches for (unchanged from the base commit): with the test
    files and ``conftest.py`` files they are guarded by the collector. ``packages`` are the
    repository's own top-level packages (:func:`~rewardlab.envs.swe.tampering.top_level_packages`
    of the base commit), found in
    the repository before anything installed. ``functions`` maps changed files to the qualified
    names of their functions the agent did not change
    (:func:`~rewardlab.envs.swe.tampering.unchanged_functions`): the runner treats their code as the
    repository's own, like a vouched file's. ``classes`` maps changed files to the qualified names of their classes
    that the base commit defines too (:func:`~rewardlab.envs.swe.tampering.repository_classes`): values of them are
    the repository's, compared as they are (their ``==`` probed) rather than copied. ``scratch`` is removed first.

    A run that reaches ``timeout`` or its CPU limit is run once more with :data:`RETRY_TIMEOUT_FACTOR` times as long
    and as much CPU time (on a loaded machine a correct fix can be late, and the guards make a heavy suite dearer;
    code that never ends is late again), and that run decides; ``retry_late=False`` (building tasks, where a late
    candidate is dropped either way) keeps the first.

    The evaluated test files' expected values are sealed (:mod:`~rewardlab.envs.swe.expectations`): the run sees
    random tokens in their place, under the ids pytest derives from them, and the runner gets the values in its
    ticket; :attr:`TestRun.passed` and :attr:`TestRun.statuses` are keyed by the ids asked for here.
    """
    sealed_tree = dict(tree)
    expected: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    for path in sorted({test_id.split("::")[0] for test_id in test_ids}):
        if path.endswith(".py") and path in tree:
            ids = [test_id for test_id in test_ids if test_id.split("::")[0] == path]
            sealed = _sealed(tree[path], tuple(ids) if all("::" in test_id for test_id in ids) else None)
            sealed_tree[path] = sealed.source
            expected.update(sealed.expected)
            renamed.update(sealed.renamed)
    sealed_run = functools.partial(
        _run_sealed,
        sandbox,
        sealed_tree,
        scratch,
        [renamed.get(test_id, test_id) for test_id in test_ids],
        python=python,
        config=config,
        vouched=tuple(vouched),
        packages=tuple(packages),
        functions=functions,
        classes=classes,
        expected=expected,
    )
    run = sealed_run(timeout=timeout, limits=limits)
    # late: a machine too busy for the timeout, a suite the guards make dearer, or code that never ends? A longer
    # run says
    if run.result.killed_reason in ("timeout", "cpu_limit") and retry_late:
        base = limits or getattr(sandbox, "limits", None) or Limits()
        longer = dataclasses.replace(base, cpu_seconds=int(base.cpu_seconds * RETRY_TIMEOUT_FACTOR))
        run = sealed_run(timeout=timeout * RETRY_TIMEOUT_FACTOR, limits=longer)
    if not renamed:
        return run
    original = {new: old for old, new in renamed.items()}
    return dataclasses.replace(
        run,
        passed={test_id: run.passed[renamed.get(test_id, test_id)] for test_id in test_ids},
        statuses={original.get(test_id, test_id): status for test_id, status in run.statuses.items()},
    )


@functools.lru_cache(maxsize=32)
def _sealed(source: str, test_ids: tuple[str, ...] | None) -> Sealed:
    """:func:`~rewardlab.envs.swe.expectations.seal_expectations`, once per test file and ids in a process: an
    episode evaluates the same test files again and again (the tokens stay; they are no secret, the values are)."""
    return seal_expectations(source, test_ids)


@functools.lru_cache(maxsize=64)
def _guarded(source: str) -> tuple[str, str] | None:
    """``(magic number, base64)`` of a test file's guarded code
    (:func:`~rewardlab.envs.swe.collector.precompiled_guards` of the bytes the workspace writes), once per file in
    a process, or ``None`` when it does not compile (the runner then reports what it does). Compiling it here
    rather than in every run saves a large test file's guarding (a quarter of a second for a 64 KB file); the
    runner uses it only when its interpreter has the same magic number."""
    try:
        with warnings.catch_warnings():  # the test file's own warnings (an invalid escape): the run reports them
            warnings.simplefilter("ignore")
            data = precompiled_guards(source.encode("utf-8"))
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    return importlib.util.MAGIC_NUMBER.hex(), binascii.b2a_base64(data, newline=False).decode("ascii")


def _run_sealed(
    sandbox: Sandbox,
    tree: Mapping[str, str],
    scratch: str | Path,
    test_ids: Sequence[str],
    *,
    timeout: float,
    limits: Limits | None,
    python: str | None,
    config: str | None,
    vouched: Iterable[str],
    packages: Iterable[str],
    functions: Mapping[str, Iterable[str]] | None,
    classes: Mapping[str, Iterable[str]] | None,
    expected: Mapping[str, Any],
) -> TestRun:
    """The sealed run of :func:`run_tests` on ``tree`` (its test files sealed already); ``expected`` maps their
    tokens to the values they stand in for."""
    scratch = Path(scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    Workspace(scratch / "repo", tree)
    runner_name = f".rewardlab-{secrets.token_hex(8)}"
    runner = scratch / runner_name
    runner.mkdir()
    shutil.copyfile(COLLECTOR, runner / "collector.py")
    (runner / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    key, nonce, result_name = secrets.token_bytes(32), secrets.token_hex(16), f"{secrets.token_hex(16)}.json"
    ticket_name = f"{secrets.token_hex(8)}.ticket"
    test_files = {test_id.split("::")[0] for test_id in test_ids}
    tests = sorted(p for p in tree if p in test_files or PurePosixPath(p).name == "conftest.py")
    guarded = sorted({*tests, *(p for p in vouched if p in tree and p.endswith(".py"))})
    ticket = {
        "key": key.hex(),
        "nonce": nonce,
        "result": result_name,
        "guarded": guarded,
        "tests": tests,
        "packages": sorted(packages),
        "functions": {path: sorted(names) for path, names in (functions or {}).items() if path in tree},
        "classes": {path: sorted(names) for path, names in (classes or {}).items() if path in tree},
        "expected": dict(expected),
        "compiled": {path: compiled for path in tests if (compiled := _guarded(tree[path])) is not None},
    }
    (runner / ticket_name).write_text(json.dumps(ticket), encoding="utf-8")
    config_arg = config if config is not None else f"../{runner_name}/pytest.ini"
    argv = [
        python or sys.executable,
        "-s",
        "-B",
        f"{runner_name}/collector.py",
        f"{runner_name}/{ticket_name}",
        "repo",
        "-q",
        "-p",
        "no:cacheprovider",
        "--tb=no",
        "--import-mode=append",
        "--rootdir=.",
        "--confcutdir=.",
        "-c",
        config_arg,
        *test_ids,
    ]
    env = {**PYTEST_ENV, "PYTHONHASHSEED": "0"}
    result_path = f"{runner_name}/{result_name}"
    # the record stream of a large suite exceeds the default 1 MiB of kept output: keep all of it
    base = limits or getattr(sandbox, "limits", None) or Limits()
    limits = dataclasses.replace(base, output_bytes=max(base.output_bytes, RECORDS_BYTES))
    try:
        result = sandbox.run(argv, workdir=scratch, timeout=timeout, limits=limits, env=env, outputs=[result_path])
    except SandboxError as exc:  # the sandbox itself failed: no verdict on the tests, and no false 0
        failed = SandboxResult("", str(exc), None, False, None, 0.0, sandbox.backend, sandbox.backend)
        return TestRun({test_id: False for test_id in test_ids}, failed, {}, (), str(exc))
    statuses, tampering = read_result(result.outputs, result_path, key, nonce)
    statuses = statuses or {}
    passed = {test_id: statuses.get(test_id) == "passed" and not tampering for test_id in test_ids}
    return TestRun(passed, result, statuses, tuple(tampering))


def read_result(
    outputs: Mapping[str, bytes | None], path: str, key: bytes, nonce: str
) -> tuple[dict[str, str] | None, list[str]]:
    """``(statuses or None when there is no complete result, tampering reasons)`` from the signed
    record stream the sealed runner wrote (:mod:`~rewardlab.envs.swe.collector`).

    Every line must carry a valid HMAC, the run's nonce and the next sequence number, and the
    stream must end with an ``end`` record; anything else is forged or truncated. A test's status
    is ``passed`` only when its setup, call and teardown reports all passed *and* the runner saw
    its ``runtest`` return, for a test function that comes from a guarded file, *and*, for a
    plain test function (which the runner wraps), the function itself returned, called from
    runner code.
    """
    if path not in outputs:
        return None, []
    data = outputs[path]
    if data is None:
        return None, ["the result file was replaced (not a regular file)"]
    records: list[dict[str, Any]] = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines()):
        record = _verified(line, key)
        if record is None or record.get("nonce") != nonce or record.get("seq") != number:
            return None, ["the test result was forged or altered (a record does not verify)"]
        records.append(record)
    tampering: list[str] = []
    if not records or records[-1].get("kind") != "end":  # the run died before it finished: every test failed
        return None, [f"runner: {r}" for record in records if record.get("kind") == "tampering" for r in record["data"]]
    reports: dict[str, list[tuple[str, str, bool]]] = {}
    ran: dict[str, bool] = {}
    returned: set[str] = set()
    for record in records:
        kind = record.get("kind")
        body: Any = record.get("data")
        if kind == "tampering":
            tampering.extend(f"runner: {reason}" for reason in body)
        elif kind == "report":
            phases = reports.setdefault(str(body["nodeid"]), [])
            if any(when == body["when"] for when, _, _ in phases):
                tampering.append(f"{body['nodeid']} reported its {body['when']} phase twice")
            phases.append((body["when"], body["outcome"], bool(body["xfail"])))
        elif kind == "ran":
            nodeid = str(body["nodeid"])
            problem = body.get("origin") or _identity_problem(nodeid, body.get("function"))
            if problem:
                tampering.append(f"runner: {problem}")
            if nodeid in ran:
                tampering.append(f"{nodeid} ran twice")
            ran[nodeid] = bool(body["ok"]) and (not body.get("witnessed") or nodeid in returned)
        elif kind == "returned":
            if body["nodeid"] in returned:
                tampering.append(f"{body['nodeid']} returned twice")
            returned.add(str(body["nodeid"]))
    statuses = {nodeid: _status(phases, ran.get(nodeid)) for nodeid, phases in reports.items()}
    return statuses, list(dict.fromkeys(tampering))


def _identity_problem(nodeid: str, function: list[str] | None) -> str | None:
    """Why the function that ran (``[file, function name]``) is not the test ``nodeid`` names: a
    function from the test's own file must carry its name (tests made by a factory elsewhere in a
    guarded file are vouched for by the runner's origin check)."""
    if function is None:
        return None
    parts = nodeid.split("[", 1)[0].split("::")
    if function[0] == parts[0] and function[1] != parts[-1]:
        return f"{nodeid} ran {function[1]} of {function[0]}"
    return None


def _verified(line: str, key: bytes) -> dict[str, Any] | None:
    """The record a ``{"body", "mac"}`` line carries, when its MAC verifies under ``key``."""
    try:
        envelope = json.loads(line)
        body, mac = envelope["body"], envelope["mac"]
        if not (isinstance(body, str) and isinstance(mac, str) and hmac.compare_digest(sign(key, body), mac)):
            return None
        record = json.loads(body)
    except (ValueError, KeyError, TypeError):
        return None
    return record if isinstance(record, dict) else None


def _status(phases: list[tuple[str, str, bool]], ran: bool | None) -> str:
    """``"passed" | "failed" | "skipped" | "xfail" | "incomplete"`` of one test from its reports and
    whether its ``runtest`` returned (``None``: the runner never saw it run)."""
    if any(outcome == "failed" for _, outcome, _ in phases):
        return "failed"
    if any(xfail for _, _, xfail in phases):
        return "xfail"
    if any(outcome == "skipped" for _, outcome, _ in phases):
        return "skipped"
    if {"setup", "call", "teardown"} <= {when for when, _, _ in phases} and ran:
        return "passed"
    return "incomplete"
