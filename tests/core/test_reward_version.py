"""``reward_version`` of every registered env: stable (two fresh instances, a fresh interpreter) and sensitive
to everything that can change a reward (a weight, a gate, the invalid penalty, the aggregate, a task, a
criterion's formula, a constructor argument), and computed once, not at every step."""

from __future__ import annotations

import dataclasses
import functools
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

import rewardlab
from rewardlab.core import TextEnv
from rewardlab.core.tasks import TaskSet
from tests.wrappers.helpers import make_or_skip

ENV_IDS = rewardlab.env_ids()

CHEAP_KWARGS: dict[str, dict[str, Any]] = {"RewardLab/BFCL-v1": {"categories": ["simple_python"]}}
"""Arguments that make an env quicker to build (fewer tasks to digest); the SWE envs use the default local
sandbox, which starts nothing until a reset."""

REWARD_ARGUMENT: dict[str, dict[str, Any]] = {
    "RewardLab/BFCL-v1": {"underscore_names": True},
    "RewardLab/BPMN-v2": {"max_attempts": 2},
    "RewardLab/MiniWoB-v1": {"observation_budget": 3000},
    "RewardLab/SWE-v2": {"max_file_bytes": 4096},
    "RewardLab/SWERepo-v1": {"max_file_bytes": 4096},
    "RewardLab/Slides-v2": {"mode": "tools"},
    "RewardLab/SlidesAgent-v2": {"mode": "deck"},
    "RewardLab/ToolCall-v3": {"max_action_chars": 1000},
    "RewardLab/Web-v2": {"observation_budget": 3000},
}
"""Per env with arguments of its own, one (not a default value) that changes its rewards or what its episodes
show: what an action may be called, how many attempts an episode has, how much of a file or page an action may
read, the mode. BFCLMultiTurn takes none of its own. ``max_turns`` is a budget, not part of the stamp
(:attr:`~rewardlab.core.TextEnv.unstamped_arguments`)."""

TAKES_TASKS = frozenset({"RewardLab/SWE-v2", "RewardLab/SWERepo-v1"})
"""Envs whose constructor takes ``tasks=``; for the others the test replaces ``env.tasks`` before the stamp
is first read."""


def make(env_id: str, **kwargs: Any) -> gym.Env:
    return make_or_skip(env_id, **{**CHEAP_KWARGS.get(env_id, {}), **kwargs})


def base(env: gym.Env) -> TextEnv:
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, TextEnv)
    return unwrapped


def stamp_of(env_id: str, **kwargs: Any) -> str:
    env = make(env_id, **kwargs)
    try:
        return base(env).reward_version
    finally:
        env.close()


@pytest.fixture(scope="module")
def reference() -> Iterator[dict[str, str]]:
    """Each env's stamp under :data:`CHEAP_KWARGS`, computed once per module (filled on first use)."""
    yield {}


def reference_stamp(reference: dict[str, str], env_id: str) -> str:
    if env_id not in reference:
        reference[env_id] = stamp_of(env_id)
    return reference[env_id]


@pytest.fixture(scope="module")
def fresh_interpreter_stamps() -> dict[str, str | None]:
    """Every env's stamp computed in a new Python process (None where the env cannot be made there)."""
    code = (
        "import json, gymnasium as gym, rewardlab\n"
        f"cheap = {CHEAP_KWARGS!r}\n"
        "stamps = {}\n"
        "for env_id in rewardlab.env_ids():\n"
        "    try:\n"
        "        env = gym.make(env_id, **cheap.get(env_id, {}))\n"
        "    except Exception:\n"
        "        stamps[env_id] = None\n"
        "        continue\n"
        "    stamps[env_id] = env.unwrapped.reward_version\n"
        "    env.close()\n"
        "print(json.dumps(stamps))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------ stability
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_two_fresh_instances_and_a_fresh_interpreter_agree(env_id, reference, fresh_interpreter_stamps):
    stamp = reference_stamp(reference, env_id)
    assert stamp.startswith("rv-") and len(stamp) == 15
    assert stamp_of(env_id) == stamp
    if fresh_interpreter_stamps[env_id] is None:
        pytest.skip(f"{env_id} could not be made in the fresh interpreter")
    assert fresh_interpreter_stamps[env_id] == stamp


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_copy_of_the_rubric_keeps_the_stamp(env_id, reference):
    env = make(env_id)
    try:
        text_env = base(env)
        text_env.rubric = dataclasses.replace(text_env.rubric)  # equal, not the same object: computed again
        assert text_env.reward_version == reference_stamp(reference, env_id)
    finally:
        env.close()


# ------------------------------------------------------------------------------ sensitivity
@functools.cache
def rubric_options(env_id: str) -> dict[str, dict[str, Any]]:
    """One constructor change per rubric option, each to a value the env's rubric does not already have."""
    env = make(env_id)
    try:
        rubric = base(env).rubric
    finally:
        env.close()
    first, last = rubric.criteria[0], rubric.criteria[-1]
    ungated = next(c.name for c in reversed(rubric.criteria) if c.name not in rubric.gate_thresholds)
    aggregate = "min" if rubric.aggregate != "min" else "mean"
    return {
        "weight": {"reward_weights": {first.name: 2 * first.weight + 1, last.name: last.weight}},
        "gate": {"gates": {**rubric.gate_thresholds, ungated: 0.5}},
        "invalid_penalty": {"invalid_penalty": float(rubric.invalid_penalty) - 1.0},
        "aggregate": {"aggregate": aggregate},
    }


@pytest.mark.parametrize("option", ["weight", "gate", "invalid_penalty", "aggregate"])
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_rubric_option_changes_the_stamp(env_id, option, reference):
    changed = rubric_options(env_id)[option]
    assert stamp_of(env_id, **changed) != reference_stamp(reference, env_id)


@pytest.mark.parametrize("env_id", sorted(REWARD_ARGUMENT))
def test_a_constructor_argument_that_changes_rewards_changes_the_stamp(env_id, reference):
    assert stamp_of(env_id, **REWARD_ARGUMENT[env_id]) != reference_stamp(reference, env_id)


def changed_tasks(tasks: TaskSet) -> TaskSet:
    """``tasks`` with the first task's prompt changed."""
    first, *rest = list(tasks)
    return TaskSet([dataclasses.replace(first, prompt=first.prompt + " (changed)"), *rest])


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_changed_task_changes_the_stamp(env_id, reference):
    if env_id in TAKES_TASKS:
        env = make(env_id)
        tasks = base(env).tasks
        env.close()
        assert stamp_of(env_id, tasks=tasks) == stamp_of(env_id, tasks=TaskSet(list(tasks)))  # content, not object
        assert stamp_of(env_id, tasks=changed_tasks(tasks)) != stamp_of(env_id, tasks=tasks)
        return
    env = make(env_id)
    try:
        text_env = base(env)
        text_env.tasks = changed_tasks(text_env.tasks)  # before the stamp is first read
        assert text_env.reward_version != reference_stamp(reference, env_id)
    finally:
        env.close()


def zero(outcome: object) -> float:
    return 0.0


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_changed_criterion_formula_changes_the_stamp(env_id):
    env = make(env_id)
    try:
        text_env = base(env)
        before = text_env.reward_version
        criteria = list(text_env.rubric.criteria)
        criteria[-1] = dataclasses.replace(criteria[-1], fn=zero)
        text_env.rubric = dataclasses.replace(text_env.rubric, criteria=tuple(criteria))
        assert text_env.reward_version != before
    finally:
        env.close()


# ------------------------------------------------------------------------------ cost
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_stamp_is_computed_once_not_at_every_step(env_id, monkeypatch):
    """100 steps (non-text actions: no env work beyond the action error) read the stamp into every info and
    compute it once. The time of a read is in ``benchmarks/bench_reward_version.py``."""
    env = make(env_id)
    if base(env).max_turns is not None:  # no turn budget within the 100 steps (its outcome could be costly)
        env.close()
        env = make(env_id, max_turns=1000)
    text_env = base(env)
    calls = []
    original = text_env.reward_parts
    monkeypatch.setattr(text_env, "reward_parts", lambda: calls.append(1) or original())
    try:
        _, info = env.reset(seed=0)
        stamps = {info["reward_version"]}
        for episode in range(1, 101):
            *_, terminated, truncated, info = env.step(None)
            stamps.add(info["reward_version"])
            if terminated or truncated:
                _, info = env.reset(seed=episode)
                stamps.add(info["reward_version"])
    finally:
        env.close()
    assert len(calls) == 1 and stamps == {text_env.reward_version}


def test_a_turn_budget_is_no_part_of_the_stamp(reference):
    env_id = "RewardLab/ToolCall-v3"
    assert stamp_of(env_id, max_turns=3) == reference_stamp(reference, env_id)
