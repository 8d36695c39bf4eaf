"""The conformance suite every RewardLab env passes; run it on your own envs too.

PettingZoo ships ``api_test`` with the library; this is RewardLab's equivalent. One call checks
the contract of ``docs/design.md`` on a :class:`~rewardlab.core.TextEnv` and raises ``AssertionError``
with a message that names the failed check, the task and what was wrong:

- ``check_env``: Gymnasium's :func:`~gymnasium.utils.env_checker.check_env` on ``env.unwrapped``.
- ``determinism``: the same seed, task and actions (the oracle's, and seeded random actions from
  ``sample_action``) give the same observations, rewards, ``terminated``/``truncated`` and infos.
  Skipped for envs registered ``nondeterministic=True``.
- ``hostile action``: each of :data:`HOSTILE_ACTIONS` never raises, returns text within the
  observation space and a finite reward, and either sets ``info["action_error"]`` or ends the
  episode scored.
- ``ranges``: every ``reward_components`` value, ``score`` and ``progress`` is in [0, 1].
- ``decomposition``: at every episode end, with ``A`` the rubric's aggregate,
  ``score = A(components, weights)`` (for ``mean``: ``Σ_k weights[k] · components[k]``),
  ``Σ_k weights[k] = 1``, and ``reward = score`` when the output is usable, else the rubric's
  ``invalid_penalty``.
- ``oracle``: the env's oracle reaches ``is_success`` on every sampled task.

Example:
    >>> from rewardlab.envs.echo import EchoEnv
    >>> check_text_env(EchoEnv(), tasks=2)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

from rewardlab.agents.base import OracleAgent
from rewardlab.core.env import TextEnv
from rewardlab.core.info import FinalInfo
from rewardlab.core.rubric import aggregate
from rewardlab.errors import ConfigError

HOSTILE_ACTIONS: tuple[tuple[str, Any], ...] = (
    ("empty", ""),
    ("whitespace only", " \n\t "),
    ("100k characters", "x" * 100_000),
    ("NUL bytes", "\x00" * 8 + "answer\x00"),
    ("lone surrogates", "\ud800 answer \udfff"),
    ("invalid UTF-8 bytes", b"\xff\xfe\xc3("),
    ("None", None),
    ("an int", 42),
    ("a list", ["answer"]),
    ("a dict", {"name": "answer"}),
)
"""``(name, action)``: actions no env may take as a move; each must give an ``action_error`` or a score."""

UNIT_TOLERANCE = 1e-9
"""Slack allowed on the identities (sums of normalised weights, the aggregate) for float rounding."""


@dataclass
class Episode:
    """One played episode: the reset, then every ``(action, step result)``."""

    task_id: str
    reset: tuple[str, dict[str, Any]]
    steps: list[tuple[Any, tuple[str, float, bool, bool, dict[str, Any]]]] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return bool(self.steps) and (self.steps[-1][1][2] or self.steps[-1][1][3])

    @property
    def final_info(self) -> dict[str, Any]:
        return self.steps[-1][1][4]

    @property
    def final(self) -> FinalInfo:
        """The outcome: the typed record of :attr:`final_info`."""
        return FinalInfo.from_info(self.final_info)


def check_text_env(env: gym.Env, *, tasks: int | Sequence[str] = 3, seed: int = 0, max_steps: int = 200) -> None:
    """Run every check on ``env.unwrapped``, a TextEnv; raise ``AssertionError`` at the first failure.

    Arguments:
        env: A RewardLab env, made with ``gym.make`` or built directly. It is left open.
        tasks: How many tasks to sample (from both splits, with ``seed``), or the task ids to use.
            The oracle plays each; determinism and hostile actions use the first.
        seed: The seed of every reset and of the task sample.
        max_steps: Steps after which an oracle episode that has not ended fails the check.

    Raises:
        TypeError: ``env.unwrapped`` is not a :class:`~rewardlab.core.TextEnv`.
        ConfigError, UnknownTaskError: ``tasks`` is not a positive count or names an unknown task.
        AssertionError: a check failed; the message starts with the check's name.
    """
    base = env.unwrapped
    if not isinstance(base, TextEnv):
        raise TypeError(f"check_text_env needs a rewardlab.core.TextEnv, got {type(base).__name__}")
    task_ids = sample_task_ids(base, tasks, seed)
    check_gymnasium_api(base)
    oracle_episodes = [play_oracle(base, task_id, seed, max_steps) for task_id in task_ids]
    for episode in oracle_episodes:
        check_episode(base, episode)
        check_oracle_success(episode)
    if not (base.spec is not None and base.spec.nondeterministic):
        check_determinism(base, oracle_episodes[0], seed)
        random_actions = play_random(base, task_ids[0], seed, max_steps=8)
        check_episode(base, random_actions)
        check_determinism(base, random_actions, seed)
    check_hostile_actions(base, task_ids[0], seed)


def sample_task_ids(env: TextEnv, tasks: int | Sequence[str], seed: int) -> list[str]:
    """``tasks`` ids drawn without replacement from all of ``env.tasks`` (file order kept), or ``tasks`` itself."""
    if isinstance(tasks, int):
        ids = env.tasks.ids()
        if tasks < 1:
            raise ConfigError(f"tasks must be a count of at least 1 or a list of task ids, got {tasks}")
        chosen = set(np.random.default_rng(seed).choice(len(ids), size=min(tasks, len(ids)), replace=False))
        return [task_id for i, task_id in enumerate(ids) if i in chosen]
    ids = list(tasks)
    if not ids:
        raise ConfigError("tasks must be a count of at least 1 or a non-empty list of task ids, got []")
    for task_id in ids:
        env.tasks.get(task_id)  # raises UnknownTaskError with a suggestion
    return ids


def fail(check: str, message: str) -> NoReturn:
    """Raise the ``AssertionError`` of a failed check."""
    raise AssertionError(f"{check}: {message}")


# ---------------------------------------------------------------------- the checks
def check_gymnasium_api(env: TextEnv) -> None:
    """Gymnasium's ``check_env`` (spaces, reset and step types, seeded determinism of one step)."""
    try:
        check_env(env, skip_render_check=True)
    except AssertionError as exc:
        fail("check_env", str(exc))


def check_episode(env: TextEnv, episode: Episode) -> None:
    """``ranges`` on every step, and ``ranges`` then ``decomposition`` on the step that ended the episode."""
    for number, (_, (_, reward, terminated, truncated, info)) in enumerate(episode.steps, 1):
        where = f"task {episode.task_id!r}, step {number}"
        check_unit_interval("progress", info.get("progress"), where)
        if terminated or truncated:
            check_scored_step(env, reward, info, where)


def check_scored_step(env: TextEnv, reward: float, info: Mapping[str, Any], where: str) -> None:
    """The ranges and the decomposition identity of a step that ended an episode."""
    missing = [k for k in ("reward_components", "reward_weights", "score", "usable", "is_success") if k not in info]
    if missing:
        fail("decomposition", f"{where} ended the episode but info lacks {missing}")
    components, weights = info["reward_components"], info["reward_weights"]
    for name, value in components.items():
        check_unit_interval(f"component {name!r}", value, where)
    check_unit_interval("score", info["score"], where)
    names = list(env.reward_component_names)
    if list(components) != names or sorted(weights) != sorted(names):
        fail(
            "decomposition",
            f"{where}: components {list(components)} and weights {sorted(weights)} must both be "
            f"reward_component_names {names}",
        )
    if len(names) != env.reward_space.shape[0]:
        fail("decomposition", f"reward_space has shape {env.reward_space.shape} for {len(names)} components")
    if not math.isclose(sum(weights.values()), 1.0, abs_tol=UNIT_TOLERANCE):
        fail("decomposition", f"{where}: reward_weights sum to {sum(weights.values())}, not 1: {weights}")
    expected_score = aggregate(components, weights, env.rubric.aggregate)
    if not math.isclose(info["score"], expected_score, abs_tol=UNIT_TOLERANCE):
        fail(
            "decomposition",
            f"{where}: score {info['score']} is not the {env.rubric.aggregate} of components {components} "
            f"with weights {weights} ({expected_score})",
        )
    expected_reward = expected_score if info["usable"] else env.rubric.invalid_penalty
    if not math.isclose(reward, expected_reward, abs_tol=UNIT_TOLERANCE):
        kind = "the score" if info["usable"] else "invalid_penalty (the output is unusable)"
        fail("decomposition", f"{where}: reward {reward} is not {kind}, {expected_reward}")


def check_unit_interval(what: str, value: Any, where: str) -> None:
    """``value`` is a finite number in [0, 1]."""
    if not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= 1.0:
        fail("ranges", f"{where}: {what} is {value!r}, outside [0, 1]")


def check_oracle_success(episode: Episode) -> None:
    """The oracle's episode ended with ``is_success``."""
    final = episode.final
    if final.infra_error:
        fail("oracle", f"task {episode.task_id!r} hit an infrastructure fault: {final.infra_error}")
    if not final.is_success:
        fail(
            "oracle",
            f"the oracle did not reach is_success on task {episode.task_id!r}: "
            f"components {final.reward_components}, last action_error {final.action_error!r}",
        )


def check_determinism(env: TextEnv, episode: Episode, seed: int) -> None:
    """Replaying ``episode``'s actions after the same seeded reset gives the same data at every step."""
    replay = replay_actions(env, episode.task_id, seed, [action for action, _ in episode.steps])
    label = f"task {episode.task_id!r}, seed {seed}"
    difference = first_difference(episode.reset, replay.reset)
    if difference is not None:
        fail("determinism", f"{label}: reset differs at {difference}")
    for number, ((_, first), (_, second)) in enumerate(zip(episode.steps, replay.steps, strict=True), 1):
        difference = first_difference(first, second, ("observation", "reward", "terminated", "truncated", "info"))
        if difference is not None:
            fail("determinism", f"{label}: step {number} differs at {difference}")


def check_hostile_actions(env: TextEnv, task_id: str, seed: int) -> None:
    """Each hostile action, sent as the first action of an episode, is handled as the contract says."""
    for name, action in HOSTILE_ACTIONS:
        env.reset(seed=seed, options={"task_id": task_id})
        where = f"task {task_id!r}, action {name}"
        try:
            observation, reward, terminated, truncated, info = env.step(action)
        except Exception as exc:
            fail("hostile action", f"{where} raised {type(exc).__name__}: {exc}")
        if not isinstance(observation, str) or not env.observation_space.contains(observation):
            fail("hostile action", f"{where} gave an observation outside the observation space: {observation!r:.80}")
        if not isinstance(reward, numbers.Real) or not math.isfinite(reward):
            fail("hostile action", f"{where} gave the reward {reward!r}")
        error = info.get("action_error")
        ended = terminated or truncated
        if not (isinstance(error, str) and error) and not (ended and "score" in info):
            fail(
                "hostile action",
                f"{where} gave neither info['action_error'] (got {error!r}) nor a scored episode end "
                f"(terminated={terminated}, truncated={truncated}); observation: {observation!r:.80}",
            )
        check_unit_interval("progress", info.get("progress"), where)
        if ended:
            check_scored_step(env, reward, info, where)


# ---------------------------------------------------------------------- playing episodes
def play_oracle(env: TextEnv, task_id: str, seed: int, max_steps: int) -> Episode:
    """The oracle's episode on ``task_id``; fails ``oracle`` if it has not ended after ``max_steps``."""
    oracle = OracleAgent(env)
    episode = Episode(task_id, env.reset(seed=seed, options={"task_id": task_id}))
    oracle.reset()
    observation, info = episode.reset
    while not episode.ended:
        if len(episode.steps) >= max_steps:
            fail("oracle", f"the oracle's episode on task {task_id!r} did not end within {max_steps} steps")
        action = oracle.act(observation, info)
        episode.steps.append((action, env.step(action)))
        observation, info = episode.steps[-1][1][0], episode.steps[-1][1][4]
    return episode


def play_random(env: TextEnv, task_id: str, seed: int, max_steps: int) -> Episode:
    """Up to ``max_steps`` actions of ``env.sample_action`` drawn with a generator seeded by ``seed``."""
    rng = np.random.default_rng(seed)
    episode = Episode(task_id, env.reset(seed=seed, options={"task_id": task_id}))
    while not episode.ended and len(episode.steps) < max_steps:
        action = env.sample_action(rng)
        episode.steps.append((action, env.step(action)))
    return episode


def replay_actions(env: TextEnv, task_id: str, seed: int, actions: Sequence[Any]) -> Episode:
    """The episode that ``actions`` give after ``reset(seed=seed, options={"task_id": task_id})``."""
    episode = Episode(task_id, env.reset(seed=seed, options={"task_id": task_id}))
    for action in actions:
        episode.steps.append((action, env.step(action)))
    return episode


def first_difference(first: Any, second: Any, labels: Sequence[str] = ("observation", "info")) -> str | None:
    """Where two step results (tuples labelled by ``labels``) first differ, or ``None`` when they are equal."""
    for label, a, b in zip(labels, first, second, strict=True):
        path = _difference(a, b, label)
        if path is not None:
            return path
    return None


def _difference(a: Any, b: Any, path: str) -> str | None:
    """The path of the first difference between two values (NaN equals NaN), with both values."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        children = [(a[k], b[k], f"{path}[{k!r}]") for k in a]
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b) and len(a) == len(b):
        children = [(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True))]
    elif isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        same = a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return None if same else f"{path}: arrays differ"
    elif isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return None
    else:
        return None if type(a) is type(b) and a == b else f"{path}: {a!r:.80} != {b!r:.80}"
    for x, y, child_path in children:
        difference = _difference(x, y, child_path)
        if difference is not None:
            return difference
    return None
