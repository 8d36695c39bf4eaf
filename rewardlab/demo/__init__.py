"""``rewardlab demo``, the main job, in pieces that can be tested without playing it.

- :mod:`rewardlab.demo.budget`: the demo's time budget, split into phases (:class:`PhaseClock`), work run
  cheapest first while it fits (:func:`run_within <rewardlab.leaderboard.audit_budget.run_within>`), and
  where the language model is worth playing: the recorded episodes of the default model (:class:`ModelRecord`,
  ``data/model_record.json``) mark the envs where it is a foregone 0 (:func:`plan_model`).
- :mod:`rewardlab.demo.design`: the reward-design section, ``rewardlab rescore`` run on the leaderboard's
  episodes (:func:`~rewardlab.rescore.engine.rescore`, one call per env), and the audit's.
- :mod:`rewardlab.demo.learning`: the short learning run (SFT warm start on oracle demonstrations, then a
  few GRPO updates on BFCL's simple tasks, with the held-out reward before and after each).

The command itself is :mod:`rewardlab.cli.demo_command`.
"""

from rewardlab.demo.budget import (
    MODEL_RECORD_FILE,
    ModelPlan,
    ModelRecord,
    PhaseClock,
    RecordedEnv,
    plan_model,
)

__all__ = [
    "MODEL_RECORD_FILE",
    "ModelPlan",
    "ModelRecord",
    "PhaseClock",
    "RecordedEnv",
    "plan_model",
]
