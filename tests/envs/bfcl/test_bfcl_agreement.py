"""Our BFCL checker against bfcl-eval's own ``ast_checker``, on the same candidate answers.

The candidates are built from real BFCL tasks of every AST category: gold answers (random
choices among the possible answers, shuffled for parallel categories), and perturbations of
them (a dropped or extra parameter, a wrong type, a changed value, a string re-cased and
re-punctuated, an int given as float and back, an extra or missing call, a renamed or swapped
function, an arbitrary JSON value in a parameter or inside a list/dict value).

Importing ``ast_checker`` imports ``bfcl_eval.constants.model_config``, which imports every
model handler of bfcl-eval and their SDKs (installed with bfcl-eval, plus ``soundfile`` that
``qwen-agent`` needs); our env never imports it.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed (pip install 'rewardlab[bfcl]')")

from rewardlab.envs.bfcl.checker import AnswerSpec  # noqa: E402
from rewardlab.envs.bfcl.constants import AST_CATEGORIES  # noqa: E402
from rewardlab.envs.bfcl.loader import is_simple, load_tasks  # noqa: E402
from rewardlab.envs.bfcl.oracle import answer_value  # noqa: E402

MODEL_NAME = "gorilla-openfunctions-v2"
"""A bfcl-eval model whose function names keep their dots (``underscore_to_dot`` is False), as ours do."""

FC_MODEL_NAME = "gpt-4.1-2025-04-14-FC"
"""A bfcl-eval model whose function names have ``.`` -> ``_`` (our ``underscore_names=True``)."""

ODD_VALUES: list[Any] = [None, 0, 1, 1.0, 2.5, -3, True, False, "", "abc", "ABC, x", [], [1, 2], ["a"], {}, {"k": "v"}]

Candidate = list[tuple[str, dict[str, Any]]]


@pytest.fixture(scope="module")
def bfcl():
    """bfcl-eval's checker and the Python language enum."""
    from bfcl_eval.constants.enums import Language

    try:
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    except ImportError as exc:  # a model SDK that bfcl-eval's handlers import is missing
        pytest.fail(f"bfcl-eval's ast_checker cannot be imported ({exc}); install the test extra (e.g. soundfile)")
    return ast_checker, Language.PYTHON


@pytest.fixture(scope="module")
def ast_tasks():
    tasks = load_tasks(AST_CATEGORIES)
    return [tasks.get(task_id) for task_id in tasks.ids()]


def spec_of(task, underscores: bool = False) -> AnswerSpec:
    simple = is_simple(task.data["category"])
    return AnswerSpec.compile(task.data["functions"], task.data["ground_truth"], simple=simple, underscores=underscores)


def gold(task, rng: random.Random) -> Candidate:
    """A random right answer: any real option of each parameter, optional ones sometimes left out."""
    calls = []
    for call in spec_of(task).calls:
        arguments = {}
        for param, options in call.answer.items():
            real = [o for o in options if o != ""]
            if param not in call.properties or not real:
                continue
            if "" in options and param not in call.required and rng.random() < 0.3:
                continue
            arguments[param] = copy.deepcopy(answer_value(call.params.get(param), rng.choice(real)))
        calls.append((call.name, arguments))
    if "parallel" in task.data["category"]:
        rng.shuffle(calls)
    return calls


def perturb(task, calls: Candidate, rng: random.Random) -> Candidate:
    calls = copy.deepcopy(calls)
    if not calls:
        return [(rng.choice(task.data["functions"])["name"], {})]
    index = rng.randrange(len(calls))
    name, arguments = calls[index]
    param = rng.choice(sorted(arguments)) if arguments else None
    value = arguments.get(param)
    kind = rng.randrange(10)
    if kind == 0 and param:
        del arguments[param]
    elif kind == 1:
        arguments["unexpected_parameter"] = 1
    elif kind == 2 and param:
        arguments[param] = 12345 if isinstance(value, str) else str(value)
    elif kind == 3 and param:
        if isinstance(value, str):
            arguments[param] = value.upper() + " ,-"
        elif isinstance(value, bool):
            arguments[param] = not value
        elif isinstance(value, (int, float)):
            arguments[param] = value + 1
        elif isinstance(value, list):
            arguments[param] = value[::-1] if len(value) > 1 else value + value
    elif kind == 4:
        calls.append(copy.deepcopy(calls[index]))
    elif kind == 5:
        calls.pop(index)
    elif kind == 6:
        calls[index] = (name + "_v2", arguments)
    elif kind == 7 and param:
        if isinstance(value, int) and not isinstance(value, bool):
            arguments[param] = float(value)
        elif isinstance(value, float) and value.is_integer():
            arguments[param] = int(value)
        elif isinstance(value, list):
            arguments[param] = [str(v) for v in value]
        elif isinstance(value, dict):
            arguments[param] = {k: str(v) for k, v in value.items()}
    elif kind == 8:
        calls[index] = (rng.choice(task.data["functions"])["name"], arguments)
    elif param:
        if isinstance(value, list) and value:
            value = list(value)
            value[rng.randrange(len(value))] = rng.choice(ODD_VALUES)
        elif isinstance(value, dict) and value:
            value = dict(value)
            value[rng.choice(sorted(value))] = rng.choice(ODD_VALUES)
        else:
            value = rng.choice(ODD_VALUES)
        arguments[param] = value
    return calls


def candidates(tasks, per_task: int, seed: int) -> list[tuple[Any, Candidate]]:
    rng = random.Random(seed)
    result = []
    for task in tasks:
        for _ in range(per_task):
            answer = gold(task, rng)
            result.append((task, answer))
            for depth in (1, 2):
                changed = answer
                for _ in range(depth):
                    changed = perturb(task, changed, rng)
                result.append((task, changed))
    return result


def verdicts(bfcl, task, calls: Candidate, model_name: str = MODEL_NAME) -> tuple[bool, bool | None]:
    """(ours, theirs); theirs is None where bfcl-eval's checker itself raises."""
    ast_checker, python = bfcl
    ours = spec_of(task, underscores=model_name == FC_MODEL_NAME).check(calls)
    model_output = [{name: copy.deepcopy(arguments)} for name, arguments in calls]
    try:
        theirs = ast_checker(
            task.data["functions"], model_output, task.data["ground_truth"], python, task.data["category"], model_name
        )["valid"]
    except (TypeError, KeyError, AttributeError, OverflowError):
        theirs = None
    return ours.valid, theirs


def test_agreement_with_bfcl_ast_checker(bfcl, ast_tasks):
    sample = ast_tasks[::3]  # every category: about 780 tasks, 2,300 candidates
    pairs = [verdicts(bfcl, task, calls) for task, calls in candidates(sample, per_task=1, seed=7)]
    compared = [(ours, theirs) for ours, theirs in pairs if theirs is not None]
    agreement = sum(ours == theirs for ours, theirs in compared) / len(compared)
    passed = sum(theirs for _, theirs in compared)
    crashed = len(pairs) - len(compared)
    print(f"\nBFCL agreement: {agreement:.4%} of {len(compared)} candidates ({passed} pass in bfcl-eval;", end=" ")
    print(f"{crashed} more left out where bfcl-eval's checker raised)")
    assert len(compared) >= 300
    assert 0.2 * len(compared) < passed < 0.8 * len(compared), "the sample must hold both verdicts"
    assert agreement >= 0.99


def test_agreement_with_underscored_names(bfcl, ast_tasks):
    dotted = [t for t in ast_tasks if any("." in f["name"] for f in t.data["functions"])][::2]
    compared = []
    for task, calls in candidates(dotted, per_task=1, seed=11):
        renamed = [(name.replace(".", "_"), arguments) for name, arguments in calls]
        ours, theirs = verdicts(bfcl, task, renamed, FC_MODEL_NAME)
        if theirs is not None:
            compared.append((ours, theirs))
    agreement = sum(ours == theirs for ours, theirs in compared) / len(compared)
    print(f"\nBFCL agreement with underscored names: {agreement:.4%} of {len(compared)} candidates")
    assert len(compared) >= 300 and 0.2 * len(compared) < sum(t for _, t in compared) < 0.8 * len(compared)
    assert agreement >= 0.99


@pytest.mark.parametrize("category", AST_CATEGORIES)
def test_gold_answers_pass_in_both(bfcl, ast_tasks, category):
    tasks = [t for t in ast_tasks if t.data["category"] == category][:40]
    rng = random.Random(1)
    for task in tasks:
        assert verdicts(bfcl, task, gold(task, rng)) == (True, True), task.id


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_values_agree(bfcl, ast_tasks, data):
    task = data.draw(st.sampled_from(ast_tasks[::7]))
    calls = gold(task, random.Random(data.draw(st.integers(0, 1000))))
    index = data.draw(st.integers(0, len(calls) - 1))
    params = sorted(calls[index][1]) + ["unexpected_parameter"]
    calls[index][1][data.draw(st.sampled_from(params))] = data.draw(json_values)
    ours, theirs = verdicts(bfcl, task, calls)
    if theirs is not None:
        assert ours == theirs
