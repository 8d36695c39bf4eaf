"""The held-out evaluation of one run, always under the reference rubric.

The reference env is ``gym.make([env].id, **[env].kwargs)``: none of the configuration's rubric
options or wrappers, so every configuration of a study is scored by the same rubric and their
numbers compare. The first ``num_tasks`` tasks of ``split`` (all by default) are each played
``samples`` times (greedy when ``temperature = 0``) with
:func:`rewardlab.baselines.rollout.collect_episodes`, ``batch_size`` episodes at a time.

One record per episode (``eval.jsonl``): ``task_id``, ``sample``, ``reward`` (the episode's return
under the reference env), ``is_success``, ``components`` (every component of the reference rubric),
``logs`` (:func:`rewardlab.core.info.episode_logs` of the final info: ``reward/<c>``,
``weight/<c>``, ``metric/<m>``, ``score`` ...), ``output`` (the episode's actions joined by newlines),
``infra_error`` and ``reward_version`` (the stamp of the reference reward that scored it, from the final
info). An episode that an infrastructure fault ended is kept in the file but dropped from every mean
(``dropped`` counts them): it is never scored as a 0.

:func:`summarize_records` gives the run's means. With ``samples = k > 1`` it adds the output
variability across samples (the BPMN reward study's measure), over the tasks ``T`` with at least two
kept samples, with ``R_{t,1..n_t}`` the rewards and ``o_{t,1..n_t}`` the outputs of task ``t``::

    reward_std        = mean_t std(R_{t,1..n_t})                 (sample std, ddof = 1)
    distinct_fraction = mean_t |{o_{t,1}, ..., o_{t,n_t}}| / n_t  (1: every sample differs; 1/k: all the same)
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from rewardlab.core.info import episode_logs, is_infra_failure
from rewardlab.study.spec import StudySpec
from rewardlab.wrappers.chat import ChatHistory


class FinalInfo(gym.Wrapper[str, str, str, str]):
    """Keep the ``info`` of the step that ended the current episode in :attr:`final_info` (None until then)."""

    def __init__(self, env: gym.Env[str, str]):
        super().__init__(env)
        self.final_info: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        self.final_info = None
        return self.env.reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[str, Any, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            self.final_info = info
        return observation, reward, terminated, truncated, info


def reference_env(spec: StudySpec) -> FinalInfo:
    """The env every run is evaluated on: ``[env]`` alone, behind ChatHistory and :class:`FinalInfo`."""
    return FinalInfo(ChatHistory(gym.make(spec.env.id, **spec.env.kwargs)))


def evaluate_model(
    model: Any, tokenizer: Any, spec: StudySpec, *, seed: int, max_new_tokens: int, max_episode_tokens: int
) -> list[dict[str, Any]]:
    """Play the held-out tasks with ``model`` on the reference env and return one record per episode."""
    import torch

    from rewardlab.baselines.rollout import collect_episodes

    settings = spec.eval
    torch.manual_seed(seed)
    envs = [reference_env(spec)]
    try:
        base: Any = envs[0].unwrapped
        names = tuple(base.reward_component_names)
        task_ids = list(base.tasks.ids(settings.split))[: settings.num_tasks]
        plays = [(task_id, k) for task_id in task_ids for k in range(settings.samples)]
        envs += [reference_env(spec) for _ in range(min(settings.batch_size, len(plays)) - 1)]
        records: list[dict[str, Any]] = []
        model.eval()
        for start in range(0, len(plays), len(envs)):
            batch = plays[start : start + len(envs)]
            episodes = collect_episodes(
                envs,
                model,
                tokenizer,
                [task_id for task_id, _ in batch],
                max_new_tokens=max_new_tokens,
                temperature=settings.temperature,
                max_episode_tokens=max_episode_tokens,
                seed=seed * 1_000_003 + start,
            )
            for env, episode, (task_id, sample) in zip(envs[: len(batch)], episodes, batch, strict=True):
                records.append(_record(env.final_info or {}, episode, task_id, sample, names))
        return records
    finally:
        for env in envs:
            env.close()


def _record(info: dict[str, Any], episode: Any, task_id: str, sample: int, names: Sequence[str]) -> dict[str, Any]:
    logs = episode_logs(info)
    return {
        "task_id": task_id,
        "sample": sample,
        "reward": float(episode.reward),
        "is_success": bool(info.get("is_success", False)),
        "components": {name: logs.get(f"reward/{name}", math.nan) for name in names},
        "logs": logs,
        "output": "\n".join(episode.actions),
        "infra_error": is_infra_failure(info),
        "reward_version": info.get("reward_version"),
    }


def summarize_records(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A run's held-out metrics: ``{"episodes", "dropped", "metrics": {"reward", "success", "component/<c>" for
    every component of the reference rubric, and with several samples per task "variability/reward_std",
    "variability/distinct_fraction"}}`` (means over the kept episodes; NaN when none was kept)."""
    names = list(records[0]["components"]) if records else []
    kept = [r for r in records if not r["infra_error"]]

    def mean(values: Sequence[float]) -> float:
        return statistics.fmean(values) if values else math.nan

    metrics = {
        "reward": mean([r["reward"] for r in kept]),
        "success": mean([float(r["is_success"]) for r in kept]),
        **{f"component/{name}": mean([r["components"][name] for r in kept]) for name in names},
    }
    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in kept:
        by_task[r["task_id"]].append(r)
    if any(r["sample"] > 0 for r in records):
        groups = [rows for rows in by_task.values() if len(rows) >= 2]
        metrics["variability/reward_std"] = mean([statistics.stdev(r["reward"] for r in rows) for rows in groups])
        metrics["variability/distinct_fraction"] = mean(
            [len({r["output"] for r in rows}) / len(rows) for rows in groups]
        )
    return {"episodes": len(records), "dropped": len(records) - len(kept), "metrics": metrics}
