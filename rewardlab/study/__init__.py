"""Reward-design studies as one command: ``rewardlab study SPEC.toml``.

A study trains every reward configuration of a spec with every seed, evaluates each run on held-out
tasks under the same reference rubric, and reports per configuration the mean and 95% CI over seeds
and the paired differences against a baseline configuration.

- :mod:`rewardlab.study.spec`: the TOML spec, read into frozen dataclasses, every key checked.
- :mod:`rewardlab.study.envs`: a configuration's training env (rubric options and wrappers), registered.
- :mod:`rewardlab.study.evaluation`: the held-out evaluation on the reference env, and its variability.
- :mod:`rewardlab.study.layout`: the output folder's files (runs, done.json, the report's), read and written.
- :mod:`rewardlab.study.runner`: every (configuration, seed) run, locally or on Ray, resumable, trained by a
  trainer of :mod:`rewardlab.baselines.trainers`.
- :mod:`rewardlab.study.stats`: t intervals over seeds and paired bootstrap intervals.
- :mod:`rewardlab.study.report`: summary.json, summary.md, summary.html and plots.
- :mod:`rewardlab.study.rescore`: ``mode = "rescore"``, many reward compositions compared on recorded episodes
  of several agents or checkpoints, at no generation cost: which keep the ranking, which reward defects.

The spec reference and an example are in ``docs/studies.md``. Importing this package does not import torch.
"""

from rewardlab.study.layout import Run, plan
from rewardlab.study.report import summarize, write_report
from rewardlab.study.rescore import run_rescore_study
from rewardlab.study.runner import (
    StudyResult,
    current_reward_versions,
    reward_change,
    run_one,
    run_study,
    status,
    validate,
)
from rewardlab.study.spec import RescoreStudySpec, StudySpec, load_spec, parse_spec

__all__ = [
    "RescoreStudySpec",
    "Run",
    "StudyResult",
    "StudySpec",
    "current_reward_versions",
    "load_spec",
    "parse_spec",
    "plan",
    "reward_change",
    "run_one",
    "run_rescore_study",
    "run_study",
    "status",
    "summarize",
    "validate",
    "write_report",
]
