"""RewardLab/SWERepo-v1: fix a synthesised bug in a real open-source project."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

from rewardlab.core.tasks import Task, TaskSet
from rewardlab.envs.swe.env import SWEEnv
from rewardlab.envs.swe.loader import load_swebench_jsonl
from rewardlab.envs.swe.sources import PROJECTS, Project
from rewardlab.sandbox import LocalSandbox

REPO_TASKS_FILE = Path(__file__).parent / "data" / "repo_tasks.jsonl.gz"


@functools.cache
def installed_copies(projects: tuple[Project, ...] = tuple(PROJECTS.values())) -> tuple[str, ...]:
    """Where this interpreter (the one the local sandbox runs code with) finds ``projects`` installed:
    their top-level package directories and modules, the original source an agent must not read.
    A user's environment often has some of them (``cachetools`` comes with ``google-auth``)."""
    found = []
    for project in projects:
        for name in project.source:
            module = name.removesuffix(".py")
            spec = importlib.util.find_spec(module) if module.isidentifier() else None
            if spec is None or spec.origin is None:
                continue
            origin = Path(spec.origin)
            found.append(str(origin.parent if origin.name == "__init__.py" else origin))
    return tuple(found)


def load_repo_tasks(path: str | Path = REPO_TASKS_FILE) -> TaskSet:
    """The shipped SWERepo tasks (built and validated by ``rewardlab swe build``; loading fetches nothing)."""
    return load_swebench_jsonl(path, validate=False)


class SWERepoEnv(SWEEnv):
    """RewardLab/SWERepo-v1: fix a bug planted in a real open-source Python project, graded by its own tests.

    ## Description

    SWE-smith style tasks on real projects: each task is one of the pinned PyPI releases of
    :mod:`rewardlab.envs.swe.sources` (``boltons``, ``cachetools``, ``toolz``, ``inflection``,
    ``parse``, ``semver``, ``sqlparse``, ``mistune`` for train; ``schema``, ``tinydb``,
    ``xmltodict``, ``munch`` for test: test projects are never seen in train) with one or two
    procedurally synthesised bugs (inverted conditions, changed comparison or arithmetic
    operators, off-by-one constants, swapped arguments, removed statements or early returns,
    across one or two files). ``rewardlab swe build`` kept a bug only when some previously
    passing tests fail with it (FAIL_TO_PASS, twice) and the gold fix makes every test pass
    again, through the same hidden evaluation this env grades with. The problem statement is a bug
    report written from the failing tests (names, assertion messages, test-file frames of the
    traceback), never from the patch. The test files holding the FAIL_TO_PASS tests are hidden:
    the agent works from the report, as in SWE-bench, and they come back only in the hidden
    evaluation. Each task's data carries ``difficulty`` (``easy``/``medium``/``hard``, from the
    number of failing tests and files touched), ``files_touched`` and ``num_fail_to_pass``.

    The sdists are fetched with pip and verified by sha256 the first time a task of the project
    is reset (``rewardlab swe fetch`` does it ahead of time; the README's set-up runs it) and
    cached in ``$REWARDLAB_CACHE/swe-sdists``, outside anything a sandbox exposes. The local
    sandbox's minimal root and the Docker image hold none of the projects (a test reads every
    source file of every pinned release and finds none). Without the root (not built), the local
    sandbox shows the host's interpreter; a copy of a project installed there (a user's
    environment often has ``cachetools``) is then hidden (:func:`installed_copies`).

    The working copy is a git repository with exactly one commit, the buggy state (fixed author
    and date, so ``HEAD`` equals the task's ``base_commit``), without reflog: no history, file
    or object in it holds the fix.

    ## Action format

    As :class:`~rewardlab.envs.swe.env.SWEEnv`: one command per step (``view``, ``search``, ``list``,
    ``edit``, ``replace``, ``create``, ``test``, ``python``, ``submit``).

    ## Components

    As :class:`~rewardlab.envs.swe.env.SWEEnv` (the same rubric, formulas and notation), graded on
    the project's own tests:

    | name           | role     | formula                                                        | weight | range  |
    |----------------|----------|----------------------------------------------------------------|--------|--------|
    | `resolved`     | outcome  | ok · [patch ≠ ∅ and every test of F and P passes]              | 1/5    | {0, 1} |
    | `tests`        | partial  | ok · Σ_{t∈F} w_t · [t passes]                                  | 1/5    | [0, 1] |
    | `regression`   | partial  | ok · f · #(P passing) / #P · [patch ≠ ∅]                       | 1/5    | [0, 1] |
    | `applies`      | validity | ok · f · valid-edit share · [patch ≠ ∅, applies, changes code] | 1/5    | [0, 1] |
    | `localization` | progress | ok · f · F1(edited files, gold files)                          | 1/5    | [0, 1] |

    ## Milestones

    As :class:`~rewardlab.envs.swe.env.SWEEnv`: ``opened_gold_file``, ``reproduced_failure``,
    ``first_fail_to_pass``, ``all_tests_pass``.

    ## Episode end

    As :class:`~rewardlab.envs.swe.env.SWEEnv`: ``submit`` terminates, ``max_turns`` (default 30)
    truncates and scores the working copy, an infrastructure fault ends the episode unusable. Replay:
    approximate, within 1/2, as SWE-v2 (difficulty weights from earlier episodes, tests that time out).

    ## Arguments

    As :class:`~rewardlab.envs.swe.env.SWEEnv`; ``tasks=None`` gives the shipped SWERepo tasks,
    and ``sandbox`` takes ``"local"`` (default), ``"docker"`` or ``"auto"``.

    ## Known hack classes defended

    As :class:`~rewardlab.envs.swe.env.SWEEnv` (the same evaluation: the verdict computed on the
    host from the sealed runner's signed records, the reset test machinery, the minimal root,
    the check for "always equal" values). The evaluation
    finds the repository's own top-level packages in the repository first, so an installed package
    of the same name (or a stray ``tests`` package in site-packages) cannot stand in for them; the
    working copy's single commit holds no trace of the fix.

    ## Version history

    - v0: initial version.
    - v1 (issue 25): the verdicts of SWE-v2 (computed on the host from a sealed runner's signed per-test
      records; the static check keeps only the test machinery and "always equal" values). Later, under the
      same id: a hidden run that reaches its timeout or CPU limit runs once more with three times as long and
      as much CPU time (stop 39; boltons' cacheutils suite exceeded the 20 CPU seconds under the guards, and its
      gold patch scored 0). Stop 40: five train tasks removed (435 train, 220 test), each a bug in a function that
      obtains frames (boltons' ``make_sentinel``, ``namedtuple``, ``Callpoint.from_current``; semver's
      deprecation wrapper): the seal refuses frames to a function the agent changed, so no fix of them could
      pass, their gold patches included; the builder had vouched for the gold fix's files, and now checks it with
      the verdict an agent's fix gets.
    """

    git_history = True

    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        """As SWE-v2's, after hiding any installed copy of the pinned projects from a local sandbox
        that shows the host's interpreter (one on the minimal root shows none)."""
        if self._owns_sandbox and isinstance(self.sandbox, LocalSandbox) and self.sandbox.root is None:
            hidden = self.sandbox.hidden_paths
            hidden.extend(path for path in installed_copies() if path not in hidden)
        return super()._start(task)

    @classmethod
    def default_tasks(cls) -> TaskSet:
        """The shipped SWERepo tasks (:data:`REPO_TASKS_FILE`)."""
        return load_repo_tasks()
