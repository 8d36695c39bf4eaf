"""BFCL tasks, read lazily from the data files shipped in the installed ``bfcl-eval`` package.

Nothing is copied into RewardLab: the questions, function descriptions and possible answers
are read from ``bfcl_eval/data/`` the first time an env needs them (and cached per process),
without importing bfcl-eval (:mod:`rewardlab.envs.bfcl.package`).
Each BFCL entry that some answer can pass (:func:`~rewardlab.envs.bfcl.checker.satisfiable`)
becomes one :class:`~rewardlab.core.Task` whose id is BFCL's own id
(``simple_python_12``, ``live_multiple_3-1-0`` ...). The split is a stable hash of the id:
``test`` when ``sha256(id) mod 5 == 0`` (about 20%), else ``train``, so it never depends on
file order, category selection or the Python hash seed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardlab.core.tasks import Task, TaskSet
from rewardlab.envs.bfcl.checker import satisfiable
from rewardlab.envs.bfcl.constants import CATEGORIES, IRRELEVANCE_CATEGORIES
from rewardlab.envs.bfcl.package import BACKEND_CONFIG, load_module, package_dir
from rewardlab.errors import ConfigError, did_you_mean

TEST_MODULUS = 5
"""One task in ``TEST_MODULUS`` (by hash of its id) is in the test split."""


def split_of(task_id: str) -> str:
    """``"test"`` or ``"train"`` from a stable hash of the id.

    Example:
        >>> split_of("simple_python_0"), split_of("simple_python_1")
        ('test', 'train')
    """
    digest = hashlib.sha256(task_id.encode("utf-8")).digest()
    return "test" if int.from_bytes(digest[:8], "big") % TEST_MODULUS == 0 else "train"


def is_simple(category: str) -> bool:
    """BFCL's checker treats categories named neither ``parallel`` nor ``multiple`` as simple."""
    return "parallel" not in category and "multiple" not in category


def data_dir() -> Path:
    """The ``data`` folder of the installed ``bfcl_eval`` package (which is not imported).

    Raises:
        MissingDependencyError: when ``bfcl-eval`` is not installed (extra ``bfcl``).
    """
    return package_dir() / "data"


def _category_file(folder: Path, category: str) -> Path:
    """``BFCL_v<N>_<category>.json`` with the highest version present."""
    pattern = re.compile(rf"BFCL_v(\d+)_{re.escape(category)}\.json")
    versions = {int(m.group(1)): path for path in folder.iterdir() if (m := pattern.fullmatch(path.name))}
    if not versions:
        raise ConfigError(f"bfcl-eval has no data file for category {category!r} under {folder}")
    return versions[max(versions)]


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def render_prompt(messages: Sequence[Mapping[str, Any]], functions: Sequence[Mapping[str, Any]]) -> str:
    """The observation of a task: the conversation, then the functions as BFCL documents them."""
    if len(messages) == 1 and messages[0].get("role") == "user":
        conversation = str(messages[0].get("content", ""))
    else:
        conversation = "\n\n".join(f"[{m.get('role', 'user')}] {m.get('content', '')}" for m in messages)
    listing = json.dumps(list(functions), ensure_ascii=False, indent=1)
    return f"{conversation}\n\nAvailable functions:\n{listing}"


def validate_categories(categories: Sequence[str] | None) -> tuple[str, ...]:
    """The categories to load, checked; ``None`` means all of :data:`CATEGORIES`."""
    if categories is None:
        return CATEGORIES
    if isinstance(categories, str) or not isinstance(categories, Sequence):
        raise ConfigError(f"categories must be a list of names from {list(CATEGORIES)}, got {categories!r}")
    chosen = tuple(dict.fromkeys(categories))
    if not chosen:
        raise ConfigError(f"categories is empty; choose from {list(CATEGORIES)}")
    for category in chosen:
        if category not in CATEGORIES:
            raise ConfigError(
                f"unknown BFCL category {category!r}; allowed: {list(CATEGORIES)}." + did_you_mean(category, CATEGORIES)
            )
    return chosen


@functools.lru_cache(maxsize=8)
def load_tasks(categories: tuple[str, ...] = CATEGORIES) -> TaskSet:
    """The tasks of ``categories`` (cached per process; the TaskSet is read-only).

    ``Task.data`` holds ``category``, ``functions`` (BFCL's function descriptions),
    ``ground_truth`` (BFCL's possible answers; ``[]`` for irrelevance) and ``messages``.
    """
    folder = data_dir()
    tasks = []
    for category in validate_categories(categories):
        entries = _read_jsonl(_category_file(folder, category))
        answers: dict[str, list[Any]] = {}
        if category not in IRRELEVANCE_CATEGORIES:
            answer_file = _category_file(folder / "possible_answer", category)
            answers = {row["id"]: row["ground_truth"] for row in _read_jsonl(answer_file)}
        for entry in entries:
            task_id = entry["id"]
            if category not in IRRELEVANCE_CATEGORIES and task_id not in answers:
                raise ConfigError(f"bfcl-eval has no possible answer for {task_id!r}")
            if not satisfiable(entry["function"], answers.get(task_id, []), simple=is_simple(category)):
                continue
            messages = entry["question"][0]
            functions = entry["function"]
            tasks.append(
                Task(
                    id=task_id,
                    split=split_of(task_id),
                    prompt=render_prompt(messages, functions),
                    data={
                        "category": category,
                        "functions": functions,
                        "ground_truth": answers.get(task_id, []),
                        "messages": messages,
                    },
                )
            )
    return TaskSet(tasks)


MULTI_TURN_CATEGORY = "multi_turn_base"
"""The multi-turn category served by ``RewardLab/BFCLMultiTurn-v1``."""


@functools.lru_cache(maxsize=16)
def _function_docs(file_name: str) -> tuple[dict[str, Any], ...]:
    return tuple(_read_jsonl(data_dir() / "multi_turn_func_doc" / file_name))


def multi_turn_functions(involved_classes: Sequence[str], excluded: Sequence[str]) -> list[dict[str, Any]]:
    """The function descriptions offered in a multi-turn task: every function of the involved
    API classes except the task's ``excluded_function`` (as bfcl-eval builds the prompt)."""
    mapping = load_module(BACKEND_CONFIG).MULTI_TURN_FUNC_DOC_FILE_MAPPING
    return [
        dict(doc)
        for class_name in involved_classes
        for doc in _function_docs(mapping[class_name])
        if doc.get("name") not in set(excluded)
    ]


@functools.lru_cache(maxsize=1)
def load_multi_turn_tasks() -> TaskSet:
    """The ``multi_turn_base`` tasks (cached per process).

    ``Task.data`` holds ``turns`` (the user messages of each turn), ``functions``,
    ``initial_config``, ``involved_classes`` and ``ground_truth`` (per turn, BFCL's calls as
    Python source, e.g. ``"cd(folder='document')"``).
    """
    folder = data_dir()
    answers = {
        row["id"]: row["ground_truth"]
        for row in _read_jsonl(_category_file(folder / "possible_answer", MULTI_TURN_CATEGORY))
    }
    tasks = []
    for entry in _read_jsonl(_category_file(folder, MULTI_TURN_CATEGORY)):
        task_id = entry["id"]
        functions = multi_turn_functions(entry["involved_classes"], entry.get("excluded_function", []))
        turns = entry["question"]
        tasks.append(
            Task(
                id=task_id,
                split=split_of(task_id),
                prompt=render_prompt(turns[0], functions),
                data={
                    "category": MULTI_TURN_CATEGORY,
                    "turns": turns,
                    "functions": functions,
                    "initial_config": entry["initial_config"],
                    "involved_classes": entry["involved_classes"],
                    "ground_truth": answers[task_id],
                },
            )
        )
    return TaskSet(tasks)
