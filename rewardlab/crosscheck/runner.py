"""Play an env's answers once and have each external grader judge them (``rewardlab crosscheck``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

from rewardlab.audit.runner import spread
from rewardlab.core.records import read_episodes
from rewardlab.crosscheck.answers import KINDS, Kind, answer_set
from rewardlab.crosscheck.grader import ExternalVerdict, Grader, graders_for
from rewardlab.crosscheck.report import CrosscheckReport, Graded, GraderReport
from rewardlab.errors import ConfigError, RewardLabError


def crosscheck_env(
    env_id: str,
    *,
    split: str = "test",
    episodes: int | None = None,
    tasks: Sequence[str] | None = None,
    seed: int = 0,
    kinds: Sequence[Kind] = ("oracle", "equivalent", "defective"),
    recorded: Sequence[str | Path] = (),
    env_kwargs: Mapping[str, Any] | None = None,
    graders: Sequence[Grader] | None = None,
) -> CrosscheckReport:
    """Grade one env's answers with its external graders and measure the agreement with ours.

    Args:
        env_id: A registered id with a grader in :data:`rewardlab.crosscheck.grader.GRADERS`.
        split: The split whose tasks are played.
        episodes: Only ``episodes`` tasks, evenly spread over the split (default: all).
        tasks: Exactly these task ids (of any split) instead of the split's.
        seed: The audit's base seed (the oracle's episode seeds and the rewrites' RNGs derive from it).
        kinds: Which answers to grade (``recorded`` is added when ``recorded`` files are given).
        recorded: JSONL files of recorded episodes (``rewardlab eval --record``); those of ``env_id``'s
            tasks are replayed and graded, whatever their split.
        env_kwargs: Passed to ``gym.make``.
        graders: The graders to use (default: those registered for the env; closed here either way).

    Raises:
        ConfigError: for an unknown kind or a split without tasks.
        MissingDependencyError: when a grader's tools are not installed.
    """
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ConfigError(f"unknown answer kinds {unknown}; choose from {list(KINDS)}")
    chosen = list(graders) if graders is not None else graders_for(env_id)
    env = gym.make(env_id, **dict(env_kwargs or {}))
    try:
        base = env.unwrapped
        known = set(base.tasks.ids())  # type: ignore[attr-defined]
        if tasks is not None:
            missing = [task_id for task_id in tasks if task_id not in known]
            if missing:
                raise ConfigError(f"{env_id} has no tasks {missing}")
            task_ids = list(tasks)
        else:
            task_ids = spread(base.tasks.ids(split), episodes)  # type: ignore[attr-defined]
        if not task_ids and not recorded:
            raise ConfigError(f"{env_id} has no {split!r} tasks to crosscheck")
        episodes_read = [
            (Path(path), line, episode)
            for path in recorded
            for line, episode in enumerate(read_episodes(path), start=1)
            if episode.get("task_id") in known
        ]
        if recorded and "recorded" not in kinds:
            kinds = [*kinds, "recorded"]
        reports = [GraderReport(env_id, g.name, g.description) for g in chosen]
        for answer in answer_set(env, task_ids, seed=seed, kinds=kinds, recorded=episodes_read):
            for grader, report in zip(chosen, reports, strict=True):
                verdict = _grade(grader, base, answer.task_id, answer.actions, answer.info)
                row = Graded(answer, verdict)
                if row.disagrees:
                    row.explanation = grader.explain(answer, verdict)
                report.rows.append(row)
        return CrosscheckReport(env_id, split, list(task_ids), reports)
    finally:
        env.close()
        for grader in chosen:
            grader.close()


def _grade(grader: Grader, env: Any, task_id: str, actions: list[str], info: dict[str, Any]) -> ExternalVerdict:
    """The grader's verdict. An answer it raises on gets no verdict (left out of κ and ρ) and says why,
    but a grader that cannot run at all (a :class:`~rewardlab.errors.RewardLabError`) stops the crosscheck."""
    try:
        return grader.grade(env, task_id, actions, info)
    except RewardLabError:
        raise
    except Exception as exc:  # one odd answer must not stop the measurement; the report counts these
        return ExternalVerdict(None, None, f"{grader.name} raised {type(exc).__name__}: {str(exc)[:200]}")
