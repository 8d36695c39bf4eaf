"""RewardLab/SWE-v2: fix a bug in a small, realistic Python repository (spec sheet: :class:`SWEEnv`)."""

from __future__ import annotations

import hashlib
import sys
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from rewardlab.audit.strategy import AuditProfile
from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, TextEnv, Turn, Unpack
from rewardlab.core.rubric import RubricResult
from rewardlab.core.tasks import Task, TaskSet
from rewardlab.core.text import truncate
from rewardlab.envs.swe.audit import audit_profile
from rewardlab.envs.swe.commands import USAGE, Command, CommandError, parse_command
from rewardlab.envs.swe.history import init_repository
from rewardlab.envs.swe.loader import load_swebench_jsonl
from rewardlab.envs.swe.oracle import GoldPatchOracle
from rewardlab.envs.swe.patch import PatchError, apply_patch, changed_files, make_patch
from rewardlab.envs.swe.rubric import SWEOutcome, TestStatistics, make_rubric
from rewardlab.envs.swe.tampering import (
    agent_files,
    changes_code,
    evaluation_tree,
    evaluation_trust,
    find_tampering,
    top_level_packages,
)
from rewardlab.envs.swe.tasks import base_tree, gold_files, load_tasks
from rewardlab.envs.swe.testrun import PYTEST_ENV, TestRun, base_config, pytest_command, run_tests, stable_output
from rewardlab.envs.swe.workspace import Workspace, WorkspaceError
from rewardlab.errors import ConfigError, ResetNeeded
from rewardlab.leases import owned_tempdir, remove_owned_tempdir
from rewardlab.sandbox import WORKSPACE, Sandbox, SandboxedExecution, SandboxError, SandboxResult

MILESTONES: tuple[str, ...] = ("opened_gold_file", "reproduced_failure", "first_fail_to_pass", "all_tests_pass")
EDIT_COMMANDS = ("edit", "replace", "create")
VERDICTS_KEPT = 64
"""How many hidden evaluations an env keeps, most recently used first (:meth:`SWEEnv._evaluate`)."""


class SWEEnv(TextEnv):
    """RewardLab/SWE-v2: fix a bug in a small Python repository by reading, editing and running code.

    ## Description

    Each task is a SWE-bench instance: a repository at a buggy commit and a user's bug report.
    The agent explores the repository, edits files and runs code through text commands, then
    submits. The submission is evaluated like SWE-bench: the hidden test patch is applied on
    top of the agent's changes and the FAIL_TO_PASS and PASS_TO_PASS tests are run. The 24
    shipped tasks (18 train, 6 test) come from six repositories written for this env
    (``textkit``, ``invoicer``, ``tabular``, ``datekit``, ``envconf``, ``minirouter``) with
    the bugs real projects have: off-by-one errors, edge cases, unicode, wrong defaults,
    missing validation and regressions across two modules. Users can bring their own tasks in
    SWE-bench JSONL format pointing at local git repositories
    (:func:`~rewardlab.envs.swe.load_swebench_jsonl`, or ``tasks="path.jsonl"``).

    All code (tests and Python snippets) runs in a :mod:`rewardlab.sandbox` sandbox; file
    operations are done by the env on the host with every path confined to the repository.
    Each episode starts from a fresh temporary copy of the task's repository at the base commit
    (without the test patch). The reset observation is the issue text, the repository's file list
    and the commands; ``info`` adds ``repo``, ``sandbox`` (how code is contained: ``bwrap``,
    ``unshare``, ``none`` or ``docker``) and ``sandbox_warnings`` (loud notes when containment is weak).

    ## Action format

    Text, one command per step (see :mod:`rewardlab.envs.swe.commands`): ``view``, ``search``,
    ``list``, ``edit`` (line range), ``replace`` (exact string), ``create``, ``test``, ``python``,
    ``submit``. Observations are the command's result, cut to ``observation_budget`` characters with
    a note saying so. The final step's ``info["patch"]`` is the agent's diff against the base commit.

    ## Components

    Equal default weights, mean aggregate; formulas in :mod:`rewardlab.envs.swe.rubric`. With
    ``ok = [no tampering]``, ``F`` / ``P`` the FAIL_TO_PASS / PASS_TO_PASS tests (``#`` a count) and
    ``f = #(F passing) / #F``:

    | name           | role     | formula                                                        | weight | range  |
    |----------------|----------|----------------------------------------------------------------|--------|--------|
    | `resolved`     | outcome  | ok · [patch ≠ ∅ and every test of F and P passes]              | 1/5    | {0, 1} |
    | `tests`        | partial  | ok · Σ_{t∈F} w_t · [t passes]                                  | 1/5    | [0, 1] |
    | `regression`   | partial  | ok · f · #(P passing) / #P · [patch ≠ ∅]                       | 1/5    | [0, 1] |
    | `applies`      | validity | ok · f · valid-edit share · [patch ≠ ∅, applies, changes code] | 1/5    | [0, 1] |
    | `localization` | progress | ok · f · F1(edited files, gold files)                          | 1/5    | [0, 1] |

    ``resolved`` is SWE-bench's definition. ``tests`` is difficulty-weighted (VeRPO) with
    ``w_t ∝ 1 − (p_t + 1)/(n_t + 2)`` from pass counts across episodes, uniform until each test
    has ``difficulty_min_episodes`` episodes; the statistics live in ``env.test_statistics``.
    ``applies`` needs the test patch to apply cleanly on top and the patch to change code (not only
    comments, docstrings or layout).

    The last three are scaled by ``f``: none of them measures the fix, and each is free for a
    patch that changes nothing the tests see. So the reward is 0 until some FAIL_TO_PASS test
    passes; an honest fix of one of two FAIL_TO_PASS tests that keeps the PASS_TO_PASS tests green
    earns ``(0 + ½ + ½ + ½ + ½)/5 = 0.4``, the gold patch 1. An empty submission and a tampering
    one score 0 on every component. ``is_success`` = ``resolved``.

    ## Milestones

    ``opened_gold_file`` (viewed a file the gold patch edits), ``reproduced_failure`` (a ``test`` or
    ``python`` run failed while FAIL_TO_PASS tests fail), ``first_fail_to_pass`` (some FAIL_TO_PASS
    test passes), ``all_tests_pass`` (all FAIL_TO_PASS and PASS_TO_PASS tests pass); ``progress`` is
    the fraction reached. The last three are checked by a hidden evaluation after each ``test`` or
    ``python`` command; a tampering working copy passes no test there either.

    ## Episode end

    Terminates on ``submit``; truncates after ``max_turns`` steps (default 30) and scores the
    working copy as if submitted. Bad input never raises: malformed commands, paths outside the
    repository (``..``, absolute paths, symbolic links pointing out), binary content, files over
    ``max_file_bytes`` and code that never ends give an error observation and
    ``info["action_error"]``; the host outside the working copy is never touched.

    Infrastructure failures (the sandbox or the Docker engine failing, not the agent's code) end
    the episode as unusable with ``info["infra_error"]`` set, so a trainer can drop it instead of
    learning from a false 0; the next reset starts a fresh container.

    Replay: approximate, within ``replay_tolerance`` = 1/2 (:mod:`rewardlab.core.replay`). The actions rebuild
    the working copy, so a replay makes the recorded ``patch`` again (it is checked, not applied), but two
    things the record does not hold can move the reward: the ``tests`` weights come from the pass counts of
    earlier episodes (``test_statistics``; uniform in a fresh env), which moves ``tests`` by at most
    ``min(f, 1 − f) ≤ 1/2``; and a test that runs into the sandbox's timeout on a loaded machine fails, which
    can change any component (a replay then drifts beyond the tolerance, and is reported). A hidden run that
    reaches its timeout or CPU limit is run once more with three times as long and as much CPU time before that
    (:data:`~rewardlab.envs.swe.testrun.RETRY_TIMEOUT_FACTOR`), so only a machine busy enough to slow it threefold
    fails a correct fix; the price is that code that never ends costs four timeouts per evaluation (one per
    working-copy content: evaluations are cached).

    ## Arguments

    - ``tasks``: a TaskSet, a path to SWE-bench JSONL (see the loader), or ``None`` for the
      shipped tasks.
    - ``sandbox``: ``"local"`` (default), ``"docker"``, ``"auto"``, a
      :class:`~rewardlab.sandbox.SandboxedExecution` (backend, limits, timeout) or a Sandbox.
      The Docker image must provide Python with pytest.
    - ``observation_budget``: characters per observation (default 8000).
    - ``max_file_bytes``: largest file an edit may produce (default 1 MiB).
    - ``difficulty_min_episodes``: episodes per test before difficulty weights apply (default 8).
    - ``test_statistics``: a shared :class:`~rewardlab.envs.swe.rubric.TestStatistics`.
    - The common ones, :class:`~rewardlab.core.CommonArgs`: ``reward_weights``, ``aggregate``,
      ``gates``, ``invalid_penalty``, ``max_turns``, ``render_mode``.

    ## Known hack classes defended

    The evaluated code runs in the same interpreter as the tests, so nothing in that interpreter
    decides the verdict and nothing there that could is left reachable
    (:mod:`~rewardlab.envs.swe.collector` runs the tests; :mod:`~rewardlab.envs.swe.testrun`
    computes the verdict on the host). :mod:`rewardlab.envs.swe.audit` plays a strategy per class.

    **Ruled out by construction** (no detection involved; the operation fails or the verdict
    cannot be produced):

    - *Forged verdicts* (``N passed`` on stdout, result files written or replaced, a well-formed
      record stream written directly, records replayed): the host reads only an append-only
      stream of records, each signed with HMAC-SHA256 under a one-time key and carrying the nonce
      and its sequence number; the key lives only in the frame of a suspended generator made
      before any repository code runs, and reaching it needs one of the refused operations below
      (a process the tests start cannot read the runner's memory either: it is not dumpable). A
      test passes only when its setup, call and teardown records say so *and* a record says its
      ``runtest`` returned; a run without its final record fails every test.
    - *Ending the run early* (``sys.exit``, ``os._exit``, ``posix._exit``, signals, crashes):
      no final record, every test fails.
    - *Taking the key* (frames of the signer, its generator's frame, ``gc`` referents, ``ctypes``,
      ``/proc/self/mem``, signal handlers, an exception's traceback): the key exists only as a keyed
      HMAC state in the frame of a suspended generator; a PEP 578 audit hook installed before the
      repository is imported (it cannot be removed) refuses that frame to everyone, refuses every
      frame while the signer runs, and blocks signals then.
    - *Introspection of the runner by the agent's code* (``sys._getframe``, ``inspect.stack``,
      ``traceback.walk_stack``, ``logging.currentframe``, frames of tracebacks, generators and
      coroutines, ``sys._current_frames``, ``gc.get_objects``/``get_referrers``, ``ctypes``,
      ``sys.settrace``/``setprofile`` and their ``threading`` twins): refused when the asking code
      is code the agent wrote (a changed function or module, code without a file such as an
      ``exec`` of a data file), directly or through a helper that returns frames. Code that keeps
      what it obtains may ask: a standard-library function other than those returners, repository
      code the agent did not change (whole files, and unchanged functions of changed files), a
      known consumer, the runner, a test file. Decisions use code identity and location, never
      names. Creating code that claims a protected file name (``compile``, ``code.replace``,
      ``marshal``), reusing a consumer's code with other globals, and reassigning the code of the
      runner's functions are refused too.
    - *Values that claim to be what a test expects* (a subclass of ``str``, ``int``, a list ... made by
      a class statement, ``type()`` or code run from a data file, whose ``__eq__``, ``startswith``,
      ``__len__`` or other built-in method the agent overrides; a list of such values): the
      evaluated test files are recompiled from their files with every loaded value and every
      comparison (``==`` ... ``in``, ``unittest``'s ``assertEqual`` family) handed to the audit
      hook (``sys.audit`` is a constant of that code), which replaces such values by plain copies
      of their built-in contents before the test sees them
      (:func:`~rewardlab.envs.swe.collector.comparison_guard`).
    - *Reading what the tests expect* (the test files read as text, the constants of the test functions'
      code, the values of a ``parametrize``, a module's table of cases, the test ids): the evaluated test files
      do not hold their expected values (:mod:`~rewardlab.envs.swe.expectations`: the literal operands of ``==``
      and ``assertEqual``, long needles of ``in``, ``parametrize`` values named ``expected`` written in the
      decorator or in a module table, constants of the module or the test function bound once and read only as
      such operands). Each is a random token in the file the run sees, and the run asks for the ids pytest gives
      that file; the values travel in the one-time ticket and live only in the seal's closure, which puts each
      back in place of its token just before a guarded comparison. A result that holds a token is tampering.
      Expectations written otherwise (computed in the test, read from a data file, returned by a fixture, under
      ids an ``ids`` function makes, compared inside a comprehension) are not sealed; an agent-written ``__eq__``
      still sees the expected value it is compared with (among three canaries, see below).
    - *Reading the runner's memory by any route* (``/proc/self/mem`` through a directory descriptor
      and a relative name, a symbolic link swapped after a check, a child process): the runner
      forbids itself and its children every read beneath ``/proc`` with Landlock before the
      repository is imported (where the kernel offers none, the hook's path check remains).
    - *Pristine copies of the project* (installed or vendored copies of a pinned project): the
      local sandbox mounts the Docker image's Debian root as ``/`` (:mod:`rewardlab.sandbox.rootfs`),
      so both backends see the interpreter, the standard library, pytest and the working copy only.

    **Detected** (the run is tampering: every component 0, ``info["tampering"]`` says why):

    - *Patched test machinery* (``Function.runtest`` or ``call_and_report`` replaced through
      ``sys.modules`` or a name resolver, a ``sys.modules`` entry swapped, ``unittest`` or
      ``builtins`` patched, a standard-library function a test decides with replaced: ``math.isclose``,
      ``operator.eq``, ``json.loads`` …): every function and class of pytest, pluggy, ``unittest``,
      ``builtins`` and the standard-library modules of
      :data:`~rewardlab.envs.swe.collector.STANDARD_MODULES` is snapshotted before the repository is
      imported and compared with each call-phase record (``unittest``, ``builtins`` and the standard
      library at the end, after monkeypatch undoes a test's own patches, unless the replacement is code the
      repository wrote: a lambda, a callable object, a ``functools.partial`` of its own, at every record);
      the runner's own dependencies are compared before every record.
    - *Substituted tests* (a plugin or hook implementation from a changed file, an item class with
      its own ``runtest``, a test function from outside the guarded files, a test that reports
      another test's name, a guarded file rewritten during the run, records sent from repository
      code).
    - *Reset test machinery* (``pytest.ini``/``pyproject.toml``/``setup.cfg`` ``addopts``,
      ``conftest.py``, ``__init__.py`` under the tests, deleted tests): those files are reset to the
      base commit (:func:`~rewardlab.envs.swe.tampering.evaluation_tree`) and changing them is
      tampering; the run starts isolated (``python -s -B``, the repository *after* the standard
      library on ``sys.path``, ``--import-mode=append``, exactly one configuration file, plugin
      autoloading off).
    - *"Always equal" objects of other classes* (an ``__eq__`` the agent wrote, equal to any
      ``str`` or to anything): each such comparison in a test file is also asked of three near misses
      of the other operand, in random order (values of its kind and shape: ``"a-b"`` → ``"o-h"``, ``3`` →
      ``7``, every element of a list changed, since an honest equality may ignore a part of a value, as
      semver's ``Version`` ignores build metadata; the same ones for a value throughout the run, so neither how a
      value looks nor how often it comes back tells the expected one from its canaries); claiming equality
      with one of them decides the comparison unequal and is tampering. An agent-written order (``<`` …
      ``>=``) is asked likewise against near misses, and between two agent-ordered values held to
      antisymmetry: one that is both below and above is tampering. This is detection: a comparison that
      still tells a near miss from the expected value without computing it (a word list telling words from
      made-up ones) is left to the tests, as are comparisons made inside repository code and truthiness. The
      diff's
      literal shapes (a ``__eq__`` that ignores its operand, a ``str`` subclass redefining ``==``)
      are still read by :func:`~rewardlab.envs.swe.tampering.find_tampering`.
      It no longer judges what added code does by the names it uses: honest code with
      ``subprocess``, ``threading``, ``eval`` or ``sys.exit`` keeps its credit.
    - *No-op patches* (comment-only edits, edits that change nothing the tests see): scaled by
      ``f``, they earn 0.

    What this cannot cover: pytest's objects reached without the refused operations (through a
    fixture the test module imports from the repository, or an unchanged repository helper that
    returns frames) are detected only as far as the checks above go; an honest fix that changes a
    function which itself obtains frames (boltons' ``make_sentinel`` and ``Callpoint.from_current``:
    2 of a sample of 110 SWERepo train gold patches, ``benchmarks/swe_gold_sweep.py``) is refused, and
    scores 0: its frame would reach the tests' own locals, and no check could tell it from a takeover;
    hard-coding the expected output of the tests' inputs (the shipped hidden tests check inputs the
    issue does not show). Both backends run this evaluation the same way: the record stream comes
    back through ``SandboxResult.outputs``, read after every process of the run is dead.

    ## Version history

    - v0: initial version.
    - v1: results only from an HMAC-signed in-sandbox collector (never stdout), tampering scores 0,
      regression/applies/localization scaled by the fixed FAIL_TO_PASS fraction.
    - v2 (issue 25): the verdict is computed on the host from per-test records signed by a sealed runner, the
      local sandbox runs on the minimal Debian root, and the static check keeps only the
      test-machinery files and "always equal" values (honest fixes that use ``subprocess``,
      ``threading``, ``eval`` or ``sys.exit`` score as the gold patch). Later in v2 (no new id: the
      reward of every honest fix is unchanged, only dishonest runs lose): values and comparisons of
      the evaluated tests decided by the audit hook, ``/proc`` closed to the run by Landlock; then the
      standard library snapshotted with the test machinery, agent-written orders probed, and a probe run
      with the tests' expected values changed at random (an evaluation that passes tests took two runs); then
      the expected values sealed out of the evaluated files instead (one run again); then (stop 39) a hidden
      run that reaches its timeout or CPU limit runs once more with three times as long and as much CPU time,
      and that run decides.
    """

    system_prompt = (
        "You are a software engineer fixing a bug in a Python repository. Read the issue, find the "
        "cause, edit the code, run the tests, then submit. Reply with exactly one command per message.\n\n" + USAGE
    )
    default_max_turns = 30
    multi_turn = True
    replay: ClassVar[ReplayFidelity] = "approximate"
    replay_tolerance: ClassVar[float] = 0.5
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "resolved",
        "applies",
        "every FAIL_TO_PASS and PASS_TO_PASS test passes: SWE-bench's verdict",
        "the patch applies, changes code and leaves the test patch applicable",
    )
    recorded_info_keys: ClassVar[tuple[str, ...]] = ("patch", "tampering", "infra_error")
    """Final-info keys :class:`~rewardlab.wrappers.RecordEpisodes` records (``patch`` feeds
    ``rewardlab swe export-predictions``)."""
    git_history = False
    """Whether the working copy is a git repository holding one commit of the base (see
    :mod:`~rewardlab.envs.swe.history`)."""

    reward_packages: ClassVar[tuple[str, ...]] = ("rewardlab.sandbox",)
    unstamped_arguments: ClassVar[frozenset[str]] = TextEnv.unstamped_arguments | {"sandbox"}
    """The sandbox is stamped by what decides a verdict (:meth:`grader_versions`), not by the object passed."""

    def __init__(
        self,
        *,
        tasks: TaskSet | str | Path | None = None,
        sandbox: SandboxedExecution | Sandbox | str = "local",
        observation_budget: int = 8000,
        max_file_bytes: int = 1 << 20,
        difficulty_min_episodes: int = 8,
        test_statistics: TestStatistics | None = None,
        **common: Unpack[CommonArgs],
    ):
        if tasks is None:
            tasks = self.default_tasks()
        elif isinstance(tasks, (str, Path)):
            tasks = load_swebench_jsonl(tasks)
        if not isinstance(tasks, TaskSet):
            raise ConfigError(f"tasks must be a TaskSet, a JSONL path or None, got {type(tasks).__name__}")
        if not isinstance(observation_budget, int) or observation_budget < 200:
            raise ConfigError(f"observation_budget must be an int >= 200, got {observation_budget!r}")
        if not isinstance(max_file_bytes, int) or max_file_bytes < 1:
            raise ConfigError(f"max_file_bytes must be a positive int, got {max_file_bytes!r}")
        super().__init__(tasks=tasks, rubric=make_rubric(), **common)
        self.execution, ready = SandboxedExecution.coerce(sandbox)
        self.sandbox: Sandbox = ready if ready is not None else self.execution.create()
        self._owns_sandbox = ready is None
        self.observation_budget = observation_budget
        self.max_file_bytes = max_file_bytes
        self.test_statistics = test_statistics or TestStatistics(min_episodes=difficulty_min_episodes)
        self.python = getattr(self.sandbox, "python", sys.executable)
        self.workspace: Workspace | None = None
        self._tmp: Path | None = None
        self._base_cache: dict[str, dict[str, str]] = {}
        self._config_cache: dict[str, str | None] = {}
        self._packages_cache: dict[str, list[str]] = {}
        self._verdicts: OrderedDict[str, Evaluation] = OrderedDict()
        self._final: Evaluation | None = None

    @classmethod
    def default_tasks(cls) -> TaskSet:
        """The tasks used when ``tasks=None``: the 24 shipped tasks."""
        return load_tasks()

    @property
    def _working_copy(self) -> Workspace:
        """:attr:`workspace`, the working copy :meth:`_start` made, for the commands and evaluations that run
        inside an episode; ResetNeeded before the first ``reset`` and after ``close``."""
        if self.workspace is None:
            raise ResetNeeded("call reset() first: no working copy")
        return self.workspace

    # ------------------------------------------------------------------ episode
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        self._cleanup()
        restart = getattr(self.sandbox, "restart", None)
        if restart is not None:  # a warm container per episode (Docker): a fresh one now
            restart()
        if task.id not in self._base_cache:
            self._base_cache[task.id] = base_tree(task.data)
            tests = [*task.data["FAIL_TO_PASS"], *task.data["PASS_TO_PASS"]]
            self._config_cache[task.id] = base_config(self._base_cache[task.id], tests)
            self._packages_cache[task.id] = top_level_packages(self._base_cache[task.id])
        self._tmp = owned_tempdir("rewardlab-swe-")  # reaped once this process is gone
        self._tmp.chmod(0o711)  # an unprivileged sandbox uid may traverse it (not list it)
        self.workspace = Workspace(self._tmp / "repo", self._base_cache[task.id], max_file_bytes=self.max_file_bytes)
        if self.git_history:
            init_repository(self.workspace.root)
        self._gold = gold_files(task.data)
        self._fail_to_pass = list(task.data["FAIL_TO_PASS"])
        self._pass_to_pass = list(task.data["PASS_TO_PASS"])
        self._test_files = {t.split("::")[0] for t in self._fail_to_pass + self._pass_to_pass}
        self._test_files |= set(changed_files(task.data["test_patch"]))
        self._edit_commands = 0
        self._invalid_edits = 0
        self._final = None
        listing = "\n".join(self.workspace.files())
        observation = f"{task.prompt}\n\nRepository files:\n{listing}\n\n{USAGE}"
        isolation = getattr(self.sandbox, "isolation", self.sandbox.backend)
        warnings = list(getattr(self.sandbox, "warnings", ()))
        return observation, {"repo": task.data.get("repo", ""), "sandbox": isolation, "sandbox_warnings": warnings}

    def _act(self, action: str) -> Turn:
        try:
            command = parse_command(action)
        except CommandError as exc:
            first = action.strip().split(maxsplit=1)[0].lower() if action.strip() else ""
            if first in EDIT_COMMANDS:
                self._edit_commands += 1
                self._invalid_edits += 1
            return self._error(str(exc))
        if command.name == "submit":
            outcome, usable = self._outcome()
            assert self._final is not None  # _outcome() keeps its evaluation there
            if not usable:
                return self.infra_failure(self._final.run.infra_error or "the evaluation could not run")
            return Turn(
                observation=self._submission_note(outcome),
                done=True,
                outcome=outcome,
                milestones=self._milestones_from(self._evaluate(), agent_failed=False),
                info={"patch": outcome.patch},
            )
        if command.name in EDIT_COMMANDS:
            self._edit_commands += 1
            size = len(command.body) + sum(len(a) for a in command.args)
            if size > self.max_file_bytes:  # characters <= bytes: already too big, skip the work
                self._invalid_edits += 1
                return self._error(
                    f"{command.args[0]}: at least {size} bytes exceeds the {self.max_file_bytes}-byte file limit"
                )
        try:
            return getattr(self, f"_do_{command.name}")(command)
        except (WorkspaceError, CommandError) as exc:
            if command.name in EDIT_COMMANDS:
                self._invalid_edits += 1
            return self._error(str(exc))
        except SandboxError as exc:
            return self.infra_failure(str(exc))

    def _error(self, message: str) -> Turn:
        return Turn(observation=self._fit(f"error: {message}"), action_error=message)

    def _fit(self, text: str) -> str:
        text = text.replace(str(self.workspace.root) if self.workspace else WORKSPACE, WORKSPACE)
        return truncate(text, self.observation_budget)

    # ------------------------------------------------------------------ commands
    def _do_view(self, command: Command) -> Turn:
        path = command.args[0]
        lines = self._working_copy.read(path).splitlines()
        start = command.start or 1
        end = len(lines) if command.end is None else min(command.end, len(lines))
        if lines and start > len(lines):
            raise CommandError(f"{path} has {len(lines)} lines; START {start} is past the end")
        body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(start, end + 1))
        header = f"{path} (lines {start}-{end} of {len(lines)})"
        opened = ["opened_gold_file"] if path.removeprefix("./") in self._gold else []
        return Turn(observation=self._fit(f"{header}\n{body}"), milestones=opened)

    def _do_search(self, command: Command) -> Turn:
        needle = command.args[0]
        under = command.args[1] if len(command.args) > 1 else "."
        hits = []
        workspace = self._working_copy
        for path in workspace.files(under):
            try:
                text = workspace.read(path)
            except WorkspaceError:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if needle in line:
                    hits.append(f"{path}:{number}: {line.strip()[:200]}")
        if not hits:
            return Turn(observation=f"no matches for {needle!r}")
        return Turn(observation=self._fit(f"{len(hits)} match(es) for {needle!r}:\n" + "\n".join(hits)))

    def _do_list(self, command: Command) -> Turn:
        files = list(self._working_copy.files(command.args[0] if command.args else "."))
        return Turn(observation=self._fit("\n".join(files) if files else "(no files)"))

    def _do_edit(self, command: Command) -> Turn:
        path = command.args[0]
        lines = self._working_copy.read(path).splitlines(keepends=True)
        start, end = command.start or 1, command.end if command.end is not None else command.start or 1
        if start > len(lines) + 1:
            raise CommandError(f"{path} has {len(lines)} lines; START {start} is past the end")
        if end > len(lines):
            raise CommandError(f"{path} has {len(lines)} lines; END {end} is past the end")
        new = _body_lines(command.body)
        lines[start - 1 : end] = new
        self._working_copy.write(path, "".join(lines))
        return Turn(observation=self._fit(self._excerpt(path, start, start + len(new) - 1, "edited")))

    def _do_replace(self, command: Command) -> Turn:
        path, old, new = command.args
        text = self._working_copy.read(path)
        count = text.count(old)
        if count != 1:
            hint = "check whitespace and indentation" if count == 0 else "include more surrounding lines"
            raise CommandError(f"the old text occurs {count} times in {path}; it must occur exactly once ({hint})")
        at = text.index(old)
        self._working_copy.write(path, text.replace(old, new, 1))
        first = text[:at].count("\n") + 1
        return Turn(observation=self._fit(self._excerpt(path, first, first + new.count("\n"), "replaced")))

    def _do_create(self, command: Command) -> Turn:
        path = command.args[0]
        existed = self._working_copy.resolve(path, must_exist=False).exists()
        self._working_copy.write(path, command.body, create=True)
        verb = "overwrote" if existed else "created"
        return Turn(observation=f"{verb} {path} ({len(command.body.splitlines())} lines)")

    def _do_test(self, command: Command) -> Turn:
        result = self._run(pytest_command(command.args, python=self.python), env=PYTEST_ENV)
        return self._after_run(result)

    def _do_python(self, command: Command) -> Turn:
        if len(command.body) > 100_000:
            raise CommandError("the script is longer than 100000 characters; write it to a file with 'create'")
        return self._after_run(self._run([self.python, "-c", command.body]))

    # ------------------------------------------------------------------ running code
    def _run(self, argv: list[str], env: Mapping[str, str] | None = None) -> SandboxResult:
        return self.sandbox.run(
            argv, workdir=self._working_copy.root, timeout=self.execution.timeout, limits=self.execution.limits, env=env
        )

    def _after_run(self, result: SandboxResult) -> Turn:
        parts = [f"exit code: {result.exit_code}"]
        if result.stdout:
            parts.append(stable_output(result.stdout).rstrip())
        if result.stderr:
            parts.append("[stderr]\n" + stable_output(result.stderr).rstrip())
        error = None
        if result.killed_reason:
            limit = f" after {self.execution.timeout:g} s" if result.timed_out else ""
            parts.append(f"[stopped: {result.killed_reason}{limit}]")
            if result.killed_reason in ("timeout", "cpu_limit"):
                error = f"the command did not finish: {result.killed_reason}"
        evaluation = self._evaluate()
        if evaluation.run.infra_error is not None:
            return self.infra_failure(evaluation.run.infra_error)
        milestones = self._milestones_from(evaluation, agent_failed=not result.ok)
        return Turn(observation=self._fit("\n".join(parts)), action_error=error, milestones=milestones)

    def _evaluate(self) -> Evaluation:
        """Hidden evaluation of the working copy: the static tampering check, then the test patch
        on top and FAIL_TO_PASS + PASS_TO_PASS run through the trusted collector.

        Judged once per working-copy content: the verdicts of the last :data:`VERDICTS_KEPT` contents are kept
        across the env's episodes, keyed by the task and every file's text (the milestone check after a ``test``
        run and the submission of the same tree, or rollouts of one task that submit the same tree, cost one
        run). A run that ended in an infrastructure failure is never kept."""
        snapshot = self._working_copy.snapshot()
        key = hashlib.sha256(repr((self.current_task.id, sorted(snapshot.items()))).encode()).hexdigest()
        if key in self._verdicts:
            self._verdicts.move_to_end(key)
            return self._verdicts[key]
        base = self._base_cache[self.current_task.id]
        test_patch = self.current_task.data["test_patch"]
        touched = changed_files(test_patch)
        try:
            apply_patch({p: snapshot[p] for p in touched if p in snapshot}, test_patch)
            clean = True
        except PatchError:
            clean = False
        tree = apply_patch(evaluation_tree(snapshot, base, self._test_files), test_patch)
        changed = agent_files(snapshot, base, self._test_files)
        assert self._tmp is not None  # made and removed with the working copy
        run = run_tests(
            self.sandbox,
            tree,
            self._tmp / "eval",
            self._fail_to_pass + self._pass_to_pass,
            timeout=self.execution.timeout,
            limits=self.execution.limits,
            python=self.python,
            config=self._config_cache[self.current_task.id],
            packages=self._packages_cache[self.current_task.id],
            **evaluation_trust(base, tree, changed),
        )
        tampering = (*find_tampering(base, snapshot, self._test_files), *run.tampering)
        evaluation = Evaluation(run, clean, tampering, changes_code(base, snapshot))
        if run.infra_error is None:
            self._verdicts[key] = evaluation
            if len(self._verdicts) > VERDICTS_KEPT:
                self._verdicts.popitem(last=False)
        return evaluation

    def _milestones_from(self, evaluation: Evaluation, *, agent_failed: bool) -> list[str]:
        passed = evaluation.passed
        fail_to_pass = [passed[t] for t in self._fail_to_pass]
        reached = []
        if agent_failed and not all(fail_to_pass):
            reached.append("reproduced_failure")
        if any(fail_to_pass):
            reached.append("first_fail_to_pass")
        if all(passed.values()):
            reached.append("all_tests_pass")
        return reached

    def _outcome(self) -> tuple[SWEOutcome, bool]:
        evaluation = self._evaluate()
        self._final = evaluation
        passed = evaluation.passed
        patch = make_patch(self._base_cache[self.current_task.id], self._working_copy.snapshot())
        weights = self.test_statistics.weights(self.current_task.id, self._fail_to_pass)
        fail_to_pass = {t: passed[t] for t in self._fail_to_pass}
        if evaluation.run.infra_error is None:  # a run that could not report says nothing about the tests
            self.test_statistics.record(self.current_task.id, fail_to_pass)
        outcome = SWEOutcome(
            fail_to_pass=fail_to_pass,
            pass_to_pass={t: passed[t] for t in self._pass_to_pass},
            weights=weights,
            patch=patch,
            edited_files=tuple(changed_files(patch)),
            gold_files=tuple(self._gold),
            edit_commands=self._edit_commands,
            invalid_edits=self._invalid_edits,
            test_patch_applies=evaluation.test_patch_applies,
            tampering=evaluation.tampering,
            changes_code=evaluation.changes_code,
        )
        return outcome, evaluation.run.infra_error is None

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """One command; the final step's ``info`` adds ``tampering`` (a list of reasons, empty when
        none) and, when the sandbox could not return the results, ``infra_error``."""
        observation, reward, terminated, truncated, info = super().step(action)
        if (terminated or truncated) and self._final is not None:
            info["tampering"] = list(self._final.tampering)
            if self._final.run.infra_error:
                info["infra_error"] = self._final.run.infra_error
        return observation, reward, terminated, truncated, info

    def _is_success(self, outcome: SWEOutcome, result: RubricResult) -> bool:
        return result.components["resolved"] >= 1.0

    def _submission_note(self, outcome: SWEOutcome) -> str:
        f2p, p2p = outcome.fail_to_pass, outcome.pass_to_pass
        return (
            f"Submitted {len(outcome.edited_files)} changed file(s). Hidden tests: "
            f"{sum(f2p.values())}/{len(f2p)} FAIL_TO_PASS and {sum(p2p.values())}/{len(p2p)} PASS_TO_PASS pass."
        )

    def _excerpt(self, path: str, first: int, last: int, verb: str) -> str:
        lines = self._working_copy.read(path).splitlines()
        low, high = max(1, first - 3), min(len(lines), max(first, last) + 3)
        shown = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(low, high + 1))
        return f"{verb} {path}; lines {low}-{high} now read:\n{shown}"

    # ------------------------------------------------------------------ agents
    def milestone_names(self) -> tuple[str, ...]:
        return MILESTONES

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random well-formed command over the current repository's files."""
        files = list(self.workspace.files()) if self.workspace is not None else []
        if not files:
            return "list"
        path = files[int(rng.integers(len(files)))]
        kind = rng.choice(
            ["view", "search", "list", "edit", "replace", "create", "test", "python", "submit"],
            p=[0.2, 0.15, 0.1, 0.2, 0.1, 0.05, 0.07, 0.05, 0.08],
        )
        line = int(rng.integers(1, 40))
        if kind == "view":
            return f"view {path} {line}:{line + int(rng.integers(0, 30))}"
        if kind == "search":
            return f"search {rng.choice(['def', 'return', 'import', 'self', 'None', 'raise'])}"
        if kind == "list":
            return "list"
        if kind == "edit":
            return f"edit {path} {line}:{line}\n{rng.choice(['pass', '    return None', '# TODO', ''])}"
        if kind == "replace":
            old, new = rng.choice(["return", "if ", "=="]), rng.choice(["return 0 or", "if not "])
            return f"replace {path}\n{old}\n=======\n{new}"
        if kind == "create":
            return f"create notes_{int(rng.integers(100))}.txt\nrandom note"
        if kind == "test":
            return "test"
        if kind == "python":
            return "python\nprint(sum(range(10)))"
        return "submit"

    def make_oracle(self) -> GoldPatchOracle:
        return GoldPatchOracle(self)

    def audit_profile(self) -> AuditProfile:
        """The SWE strategies of :mod:`rewardlab.envs.swe.audit` (one per hack class), finishing with ``submit``."""
        return audit_profile()

    # ------------------------------------------------------------------ cleanup
    def _cleanup(self) -> None:
        if self._tmp is not None:
            remove_owned_tempdir(self._tmp)
            self._tmp = None
        self.workspace = None

    def grader_versions(self) -> dict[str, str | None]:
        """The sandbox backend and isolation, and the image (Docker) or root (local: its folder's name, the
        recipe hash the root was built from) the tests run in."""
        root = getattr(self.sandbox, "root", None)
        return {
            "sandbox": self.sandbox.backend,
            "isolation": getattr(self.sandbox, "isolation", None),
            "image": getattr(self.sandbox, "image", None) or (Path(root).name if root else None),
        }

    def close(self) -> None:
        """Remove the working copy and close the sandbox (if the env created it). Safe to call twice."""
        self._cleanup()
        if self._owns_sandbox:
            self.sandbox.close()
        super().close()


@dataclass(frozen=True)
class Evaluation:
    """One hidden evaluation of a working copy.

    Attributes:
        run: The collector's verified test results.
        test_patch_applies: The test patch applies cleanly on top of the agent's own tree.
        tampering: Why the submission or the run interferes with the test machinery (static
            check and collector); empty when clean.
        changes_code: Some change is more than comments, docstrings or layout.
    """

    run: TestRun
    test_patch_applies: bool
    tampering: tuple[str, ...]
    changes_code: bool

    @property
    def passed(self) -> dict[str, bool]:
        """Per-test results as the rubric and the milestones see them: all failed when tampering."""
        return {t: ok and not self.tampering for t, ok in self.run.passed.items()}


def _body_lines(body: str) -> list[str]:
    """The body of an ``edit`` as lines with newlines; an empty body deletes the range."""
    if body == "":
        return []
    lines = body.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line + "\n" for line in lines]
