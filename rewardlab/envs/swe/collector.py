"""The trusted result collector of SWE evaluations: a pytest plugin and the script that starts pytest.

This file runs *inside* the sandbox, so it imports only the standard library and pytest
(RewardLab itself is hidden there). The host copies it into a fresh runner directory next to
the evaluated repository, writes a one-time ticket beside it and runs::

    python -s -B <runner>/collector.py <ticket> <repo> <pytest args...>

Before anything of the repository is imported, the script

0. makes itself non-dumpable, so that a process the tests start cannot attach to it or read
   its memory (and the key in it);
1. reads the ticket (an HMAC key, a nonce, the result file's random name, the guarded files)
   and deletes it;
2. opens the result file with ``O_CREAT | O_EXCL | O_NOFOLLOW`` and keeps the descriptor;
3. drops its own directory from ``sys.path`` and *appends* the repository, so that nothing in
   the repository can shadow a standard-library or installed module (directories a
   ``pythonpath`` setting puts first are moved to the end too, at session start); only the
   repository's own top-level packages, named by the host from the base commit (never a
   standard-library or runner name), are found in the repository first, so that an installed
   package of the same name (a stray top-level ``tests`` package, the project itself in
   site-packages) cannot stand in for them;
4. imports pytest, captures the runner's functions, classes and modules it relies on, and
   hashes the guarded files (those the host vouches for: the evaluated test files, every
   ``conftest.py`` and every file the agent did not change).

pytest then runs with this module as a plugin that records each test's reports. When pytest
returns, the script checks that the captured objects and hook relays are still the originals,
that every implementation of an outcome-deciding hook comes from pytest, pluggy, a plugin from
outside the repository that the configuration loaded before any test import, or a guarded
repository file (a base ``conftest.py`` or ``pytest_plugins`` module), that no test item's
``runtest`` was swapped, and that no guarded file changed (after collection and at the end);
then it writes ``{"body": json, "mac": HMAC-SHA256(key, body)}`` through the descriptor. A run
that dies before that (``os._exit``, a crash) leaves no result, and every test counts as failed.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import importlib.machinery
import json
import os
import sys
from typing import Any

#: ``(module, class or None, attribute)``: the objects that decide whether a test passed.
WATCHED: tuple[tuple[str, str | None, str], ...] = (
    ("_pytest.python", "Function", "runtest"),
    ("_pytest.python", "Function", "_getobj"),
    ("_pytest.python", None, "pytest_pyfunc_call"),
    ("_pytest.runner", "CallInfo", "from_call"),
    ("_pytest.runner", None, "call_and_report"),
    ("_pytest.runner", None, "runtestprotocol"),
    ("_pytest.runner", None, "pytest_runtest_protocol"),
    ("_pytest.runner", None, "pytest_runtest_call"),
    ("_pytest.runner", None, "pytest_runtest_makereport"),
    ("_pytest.reports", "TestReport", "from_item_and_call"),
    ("_pytest.main", None, "pytest_runtestloop"),
    ("_pytest.config", None, "main"),
    ("pluggy._hooks", "HookCaller", "__call__"),
    ("pluggy._callers", None, "_multicall"),
    ("pluggy._manager", "PluginManager", "_hookexec"),
)
#: Hooks whose implementations may change a test's outcome or its report.
WATCHED_HOOKS: tuple[str, ...] = (
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_pyfunc_call",
    "pytest_runtestloop",
    "pytest_collection_modifyitems",
    "pytest_report_teststatus",
)


def _code(value: Any) -> Any:
    function = getattr(value, "__func__", value)
    return getattr(function, "__code__", None)


def capture(modules: dict[str, Any]) -> dict[tuple[str, str | None, str], tuple[Any, Any]]:
    """``{watched name: (object, its code object)}`` as found now (``vars``, so no descriptor runs)."""
    found = {}
    for module_name, class_name, attribute in WATCHED:
        owner = modules[module_name]
        if class_name is not None:
            owner = vars(owner).get(class_name)
        value = vars(owner).get(attribute) if owner is not None else None
        found[(module_name, class_name, attribute)] = (value, _code(value))
    return found


def digest(path: str) -> str | None:
    """SHA-256 of the file at ``path`` (``None`` when it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


class Collector:
    """The pytest plugin: per-test reports in, one signed verdict out.

    Args:
        repo: The repository root (the current directory).
        guarded: Repository paths the host vouches for (reset to the base commit or unchanged
            from it: test files, ``conftest.py`` files, untouched modules). Their content is
            hashed now and must not change while the tests run; within the repository, only
            they may implement hooks.
    """

    def __init__(self, repo: str, guarded: list[str]):
        self.repo = os.path.realpath(repo)
        self.guarded = {
            os.path.realpath(os.path.join(self.repo, p)): digest(os.path.join(self.repo, p)) for p in guarded
        }
        self.modules = {name: sys.modules[name] for name, _, _ in WATCHED}
        self.originals = capture(self.modules)
        self.function_class = vars(self.modules["_pytest.python"])["Function"]
        self.reports: dict[str, list[tuple[str, str, bool]]] = {}
        self.items: list[Any] = []
        self.changed_during_collection: list[str] = []
        self.config: Any = None
        self.relay: dict[str, Any] = {}
        #: Where trusted hook implementations live: the runner's packages and this file.
        self.trusted = {os.path.dirname(os.path.realpath(m.__file__)) + os.sep for m in self.modules.values()}
        self.trusted.add(os.path.realpath(__file__))

    # ---------------------------------------------------------------- hooks
    def pytest_configure(self, config: Any) -> None:
        self.config = config
        for name in WATCHED_HOOKS:
            caller = getattr(config.hook, name)
            self.relay[name] = caller
            for impl in caller.get_hookimpls():  # plugins the configuration asked for (before any test import)
                path = self._source(impl.function)
                if path is not None and not self._in_repository(path):
                    self.trusted.add(path)

    def pytest_sessionstart(self, session: Any) -> None:
        """Move the repository's entries of ``sys.path`` (a ``pythonpath`` setting puts them first) to the end."""
        inside = [p for p in sys.path if p and (os.path.realpath(p) + os.sep).startswith(self.repo + os.sep)]
        sys.path[:] = [p for p in sys.path if p not in inside] + inside

    def pytest_collection_finish(self, session: Any) -> None:
        self.items = list(session.items)
        self.changed_during_collection = self._changed_files()

    def _changed_files(self) -> list[str]:
        return [
            f"{os.path.relpath(p, self.repo)} changed during the run" for p, d in self.guarded.items() if digest(p) != d
        ]

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.reports.setdefault(report.nodeid, []).append(
            (report.when, report.outcome, bool(getattr(report, "wasxfail", False)))
        )

    # ---------------------------------------------------------------- verdict
    def outcomes(self) -> dict[str, str]:
        """``{node id: "passed" | "failed" | "skipped" | "xfail" | "incomplete"}``."""
        verdicts = {}
        for nodeid, reports in self.reports.items():
            phases = {when for when, _, _ in reports}
            if any(outcome == "failed" for _, outcome, _ in reports):
                verdicts[nodeid] = "failed"
            elif any(xfail for _, _, xfail in reports):
                verdicts[nodeid] = "xfail"
            elif any(outcome == "skipped" for _, outcome, _ in reports):
                verdicts[nodeid] = "skipped"
            elif {"setup", "call", "teardown"} <= phases:
                verdicts[nodeid] = "passed"
            else:
                verdicts[nodeid] = "incomplete"
        return verdicts

    def tampering(self) -> list[str]:
        """What was changed in the runner since the collector captured it (empty when intact)."""
        found = list(dict.fromkeys([*self.changed_during_collection, *self._changed_files()]))
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                found.append(f"module {name} was replaced in sys.modules")
        now = capture(self.modules)
        for key, (value, code) in self.originals.items():
            if now[key][0] is not value or _code(value) is not code:
                found.append(f"{'.'.join(k for k in key if k)} was replaced")
        original_runtest = self.originals[("_pytest.python", "Function", "runtest")][0]
        for item in self.items:
            runtest = getattr(type(item), "runtest", None)
            # pytest's own Function subclasses (unittest's TestCaseFunction) have their own runtest
            own = runtest is original_runtest or self._is_trusted(self._source(runtest) or "")
            if isinstance(item, self.function_class) and ("runtest" in vars(item) or not own):
                found.append(f"runtest of {item.nodeid} was replaced")
                break
        if self.config is None:
            return [*found, "pytest never configured the collector"]
        for name, relay in self.relay.items():
            caller = getattr(self.config.hook, name, None)
            if caller is not relay:
                found.append(f"hook {name} was replaced")
                continue
            for impl in caller.get_hookimpls():
                path = self._source(impl.function)
                if path is None or not (self._is_trusted(path) or path in self.guarded):
                    found.append(f"hook {name} gained an implementation from {path or impl.plugin_name}")
        return found

    @staticmethod
    def _source(function: Any) -> str | None:
        code = _code(function)
        return os.path.realpath(code.co_filename) if code is not None else None

    def _is_trusted(self, path: str) -> bool:
        return path in self.trusted or any(root.endswith(os.sep) and path.startswith(root) for root in self.trusted)

    def _in_repository(self, path: str) -> bool:
        return path.startswith(self.repo + os.sep)


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


def not_dumpable() -> None:
    """``prctl(PR_SET_DUMPABLE, 0)``: processes the tests start cannot ptrace this one or read its memory."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: nothing to do
        pass


def main(argv: list[str]) -> int:
    not_dumpable()
    ticket_path, repo, *pytest_args = argv
    with open(ticket_path, encoding="utf-8") as handle:
        ticket = json.load(handle)
    os.unlink(ticket_path)
    runner = os.path.dirname(os.path.realpath(__file__))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(os.path.join(runner, ticket["result"]), flags, 0o600)
    key, nonce, guarded = bytes.fromhex(ticket["key"]), ticket["nonce"], list(ticket["guarded"])
    packages = [str(name) for name in ticket.get("packages", ())]
    del ticket
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != runner]
    sys.path.append(os.path.realpath(repo))
    os.chdir(repo)
    for name in dict.fromkeys(module for module, _, _ in WATCHED):
        importlib.import_module(name)
    sys.meta_path.insert(0, RepositoryPackages(".", [name for name in packages if name not in sys.modules]))
    collector = Collector(".", guarded)  # hashes the guarded files before any repository code runs

    run = vars(sys.modules["_pytest.config"])["main"]
    dumps, write, close = json.dumps, os.write, os.close
    exitstatus = int(run(pytest_args, plugins=[collector]))
    body = dumps(
        {"nonce": nonce, "exitstatus": exitstatus, "tests": collector.outcomes(), "tampering": collector.tampering()},
        sort_keys=True,
    )
    data = dumps({"body": body, "mac": sign(key, body)}).encode("utf-8")
    while data:
        data = data[write(fd, data) :]
    close(fd)
    return exitstatus


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
