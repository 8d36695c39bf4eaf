"""MilestoneReward: process credit for milestones newly reached, capped and optionally gated by the outcome."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from rewardlab.errors import ConfigError
from rewardlab.wrappers.stamp import RewardStamp


class MilestoneReward(RewardStamp, gym.Wrapper[str, str, str, str]):
    """Pay process credit for each milestone the first time it is reached, up to a budget.

    With ``m_t`` the milestones first reached at step ``t`` (``info["milestones"]``, each paid
    at most once per episode) and ``p(m)`` the credit of milestone ``m``::

        earned_t = min(budget, Σ_{s<=t} Σ_{m in m_s} p(m))       (the cap: no credit for repeating steps)
        c_t      = earned_t − earned_{t−1}
        r'_t     = r_t + c_t                                     without a gate

    With a gate, the credit is held back and paid on the final step ``T`` only if the outcome
    passes (gated reward accumulation)::

        r'_t = r_t                       for t < T
        r'_T = r_T + earned_T · [gate]   gate "success": info["is_success"]; gate x: info["score"] >= x

    So an episode's process credit is in ``[0, budget]`` and, gated, is 0 for failed outcomes:
    an agent cannot farm it without solving the task.
    ``info["milestone_reward"] = {"credit": paid this step, "earned": earned_t, "paid": paid so far}``,
    plus ``"gate_passed"`` on the final step of a gated episode. ``info["reward_version"]`` at every reset
    and step is this wrapper's stamp (:mod:`rewardlab.wrappers.stamp`: the env's, with the credits, budget
    and gate).

    Args:
        env: A RewardLab env (it reports ``info["milestones"]``).
        per_milestone: Credit per milestone, or ``{milestone: credit}`` (unlisted milestones pay 0).
        budget: Cap on an episode's total milestone credit; ``None`` for no cap.
        gate: ``None`` (pay at once), ``"success"``, or a score threshold in [0, 1].

    Attributes:
        paid_milestones: Milestones credited this episode. earned: credit earned this episode.
        paid: credit paid this episode.

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> env = MilestoneReward(EchoEnv(), per_milestone=0.2, budget=0.3)
        >>> _ = env.reset(seed=0, options={"task_id": "t0"})
        >>> env.step("draft:alpha")[1]
        0.2
        >>> round(env.step("alpha")[1], 6)   # outcome 1, plus the 0.1 left of the budget
        1.1

    Version History:
        v0: initial version.
    """

    def __init__(
        self,
        env: gym.Env[str, str],
        per_milestone: float | Mapping[str, float] = 0.1,
        *,
        budget: float | None = None,
        gate: str | float | None = None,
    ):
        super().__init__(env)
        values = per_milestone.values() if isinstance(per_milestone, Mapping) else [per_milestone]
        for value in values:
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ConfigError(f"per_milestone credits must be finite numbers >= 0, got {per_milestone!r}")
        if budget is not None and not (isinstance(budget, (int, float)) and math.isfinite(budget) and budget >= 0):
            raise ConfigError(f"budget must be None or a finite number >= 0, got {budget!r}")
        if gate is not None and gate != "success" and not (isinstance(gate, (int, float)) and 0 <= gate <= 1):
            raise ConfigError(f"gate must be None, 'success' or a score threshold in [0, 1], got {gate!r}")
        self.per_milestone = dict(per_milestone) if isinstance(per_milestone, Mapping) else float(per_milestone)
        self.budget = None if budget is None else float(budget)
        self.gate = gate
        self.paid_milestones: set[str] = set()
        self.earned = 0.0
        self.paid = 0.0
        self.stamp_reward({"per_milestone": self.per_milestone, "budget": self.budget, "gate": self.gate})

    def credit_of(self, milestone: str) -> float:
        """The credit of one milestone."""
        if isinstance(self.per_milestone, dict):
            return float(self.per_milestone.get(milestone, 0.0))
        return self.per_milestone

    def gate_passes(self, info: Mapping[str, Any]) -> bool:
        """Whether the final step's outcome opens the gate."""
        if isinstance(self.gate, (int, float)):
            return float(info.get("score", 0.0)) >= float(self.gate)
        return bool(info.get("is_success", False))  # the only other gate is "success"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        self.paid_milestones = set()
        self.earned = self.paid = 0.0
        return super().reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        for milestone in info.get("milestones", ()):
            if milestone not in self.paid_milestones:
                self.paid_milestones.add(milestone)
                self.earned += self.credit_of(milestone)
        if self.budget is not None:
            self.earned = min(self.earned, self.budget)
        record: dict[str, Any] = {}
        if self.gate is None:
            credit = self.earned - self.paid
        elif terminated or truncated:
            record["gate_passed"] = self.gate_passes(info)
            credit = self.earned if record["gate_passed"] else 0.0
        else:
            credit = 0.0
        self.paid += credit
        info["milestone_reward"] = {"credit": credit, "earned": self.earned, "paid": self.paid, **record}
        self.stamped(info)
        return observation, float(reward) + credit, terminated, truncated, info
