"""The answers a crosscheck grades: the oracle's, its equivalent and defective rewrites, recorded episodes.

Every answer is played through the env with :func:`rewardlab.audit.episode.play_episode`, the same
way ``rewardlab audit`` plays it (the oracle and its rewrites on the oracle's episode seed, each
rewrite's RNG seeded per rewrite and task as the audit seeds it), so each answer carries our own
verdict (``is_success``, the episode return) next to the actions an external grader is given.
A recorded episode (a line of ``rewardlab eval --record``, :class:`~rewardlab.wrappers.RecordEpisodes`)
is replayed with its recorded seed and actions and scored anew.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, SupportsFloat

import gymnasium as gym

from rewardlab.audit.batteries import rewrite_strategy
from rewardlab.audit.episode import EpisodeRecord, oracle_seed, play_episode
from rewardlab.audit.rewrite import Rewrite
from rewardlab.audit.strategy import AuditProfile, EpisodeView, Strategy, profile_of

Kind = Literal["oracle", "equivalent", "defective", "recorded"]
"""Where an answer comes from: the oracle, a rewrite of its answer (by battery), a recorded episode."""

KINDS: tuple[Kind, ...] = ("oracle", "equivalent", "defective", "recorded")


@dataclass
class Answer:
    """One played answer and our verdict on it.

    Attributes:
        task_id: The task.
        kind: See :data:`Kind`.
        name: ``oracle``, the rewrite's name, or ``<file>:<line>`` of a recorded episode.
        actions: Every action sent, in order.
        reward: Our episode return.
        is_success: Our ``is_success`` at the end of the episode.
        info: The final step's ``info``.
        error: Set when the env raised while the answer was played.
    """

    task_id: str
    kind: Kind
    name: str
    actions: list[str]
    reward: float
    is_success: bool
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class _Recorder(gym.Wrapper[str, str, str, str]):
    """Keeps the actions sent since the last reset and the latest ``info``."""

    def __init__(self, env: gym.Env[str, str]):
        super().__init__(env)
        self.actions: list[str] = []
        self.info: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.actions, self.info = [], dict(info)
        return observation, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self.actions.append(action)
        result = self.env.step(action)
        self.info = dict(result[4])
        return result


def _answer(recorder: _Recorder, record: EpisodeRecord, kind: Kind, name: str) -> Answer:
    error = record.error or record.infra_error
    return Answer(
        record.task_id, kind, name, list(recorder.actions), record.reward, record.is_success, recorder.info, error
    )


def play_oracle(recorder: _Recorder, task_id: str, seed: int) -> Answer:
    """The oracle's answer to ``task_id``, on its audit episode seed."""
    oracle = recorder.unwrapped.make_oracle()  # type: ignore[attr-defined]

    def play(view: EpisodeView) -> Iterator[str]:
        reset = getattr(oracle, "reset", None)
        if reset is not None:
            reset()
        while True:
            yield oracle.act(view.observation, view.info)

    record = play_episode(recorder, Strategy("oracle", play), task_id, seed, AuditProfile(), {})
    if record is None:  # the oracle never raises NotApplicable
        raise RuntimeError(f"the oracle did not play {task_id}")
    return _answer(recorder, record, "oracle", "oracle")


def play_rewrite(
    recorder: _Recorder, profile: AuditProfile, rewrite: Rewrite, oracle: Answer, seed: int
) -> Answer | None:
    """``rewrite`` of the oracle's answer, replayed on the oracle's episode seed; ``None`` where it does not apply."""
    strat = rewrite_strategy(rewrite, oracle.actions, seed)
    episode_seed = oracle_seed(seed, oracle.task_id)
    record = play_episode(recorder, strat, oracle.task_id, seed, profile, {}, episode_seed=episode_seed)
    return None if record is None else _answer(recorder, record, rewrite.battery, rewrite.name)


def play_recorded(recorder: _Recorder, profile: AuditProfile, path: Path, line: int, episode: dict[str, Any]) -> Answer:
    """A recorded episode's actions replayed on its recorded seed and task, then its profile's finish action."""
    task_id = str(episode["task_id"])
    recorded = [str(action) for action in episode.get("actions", [])]

    def play(view: EpisodeView) -> Iterator[str]:
        yield from recorded

    seed = episode.get("seed")
    strat = Strategy("recorded", play)
    record = play_episode(recorder, strat, task_id, 0, profile, {}, episode_seed=seed if seed is not None else 0)
    if record is None:
        raise RuntimeError(f"recorded episode {path}:{line} could not be replayed")
    return _answer(recorder, record, "recorded", f"{path.name}:{line}")


def answer_set(
    env: gym.Env[str, str],
    task_ids: Sequence[str],
    *,
    seed: int = 0,
    kinds: Sequence[Kind] = ("oracle", "equivalent", "defective"),
    recorded: Sequence[tuple[Path, int, dict[str, Any]]] = (),
) -> Iterator[Answer]:
    """Every answer of ``kinds`` on ``task_ids``: the oracle's, then each rewrite the env's audit profile
    registers (the ones that apply), then the ``recorded`` episodes ``(file, line, record)``."""
    recorder = _Recorder(env)
    profile = profile_of(env)
    rewrites = [w for w in [*profile.equivalents, *profile.defects] if w.battery in kinds]
    if "oracle" in kinds or rewrites:
        for task_id in task_ids:
            oracle = play_oracle(recorder, task_id, seed)
            if "oracle" in kinds:
                yield oracle
            for rewrite in rewrites:
                answer = play_rewrite(recorder, profile, rewrite, oracle, seed)
                if answer is not None:
                    yield answer
    if "recorded" in kinds:
        for path, line, episode in recorded:
            yield play_recorded(recorder, profile, path, line, episode)
