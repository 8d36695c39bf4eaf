"""ProcessReward: a slot for any step scorer (a PRM, an LLM judge, a heuristic), normalised to the outcome's scale."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import gymnasium as gym

from rewardlab.core.chat import Conversation, Message
from rewardlab.errors import ConfigError
from rewardlab.wrappers.stamp import RewardStamp

Normalize = Literal["none", "range", "running"]
NORMALIZE_MODES: tuple[str, ...] = ("none", "range", "running")


class StepScorer(Protocol):
    """Scores one step: ``scorer(history, action, observation) -> float``.

    ``history`` holds the chat messages before the action (``{"role", "content"}`` dicts: the
    system prompt when there is one, then the observations as ``user`` and the earlier actions
    as ``assistant``, as :class:`~rewardlab.wrappers.ChatHistory` builds them); ``action`` is
    the agent's text and ``observation`` the env's answer to it.
    """

    def __call__(self, history: Sequence[dict[str, str]], action: str, observation: str) -> float: ...


class ProcessReward(RewardStamp, gym.Wrapper[str, str, str, str]):
    """Add a step scorer's judgement of every step, on the scale of the outcome reward.

    With ``s_t = scorer(history, action, observation)``, the normalised score ``ŝ_t`` is::

        "none":     ŝ_t = s_t
        "range":    ŝ_t = (clip(s_t, lo, hi) − lo) / (hi − lo)        in [0, 1], like the outcome reward
        "running":  ŝ_t = (s_t − μ_t) / (σ_t + 1e-8)                   μ_t, σ_t: mean and std of every
                                                                        score so far, this one included

    and the reward is::

        r'_t = r_t + weight · ŝ_t / T

    where ``T`` is ``horizon``, by default the env's turn budget ``max_turns`` (1 when it has
    none, as single-shot envs). With ``"range"`` an episode's process credit is thus in
    ``[0, weight]`` while the outcome reward is in [0, 1]: ``weight`` is the share of process
    credit, however many steps the episode takes. ``"running"`` suits unbounded scorers such
    as PRM logits; its statistics persist across episodes (public ``count``, ``mean``, ``m2``).
    ``info["process_reward"] = {"score": s_t, "normalized": ŝ_t, "bonus": weight·ŝ_t/T}``.
    ``info["reward_version"]`` at every reset and step is this wrapper's stamp (:mod:`rewardlab.wrappers.stamp`:
    the env's, with the scorer, ``weight``, ``normalize``, ``score_range`` and ``horizon``). A scorer that is a
    function counts by its code and closure values; one that is another object (a model behind ``__call__``)
    by its class only, and by its fields when it is a dataclass: name what the model is (its checkpoint) in
    such a scorer's dataclass fields so that two models never share a stamp.

    Args:
        env: Any text env.
        scorer: A :class:`StepScorer`.
        weight: The process credit's weight, finite and >= 0.
        normalize: ``"range"`` (default), ``"running"`` or ``"none"``.
        score_range: ``(lo, hi)`` of the scorer for ``"range"``; default (0, 1).
        horizon: ``T``; default the env's ``max_turns`` or 1.

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> def judge(history, action, observation):   # a 1-10 judge that likes short drafts
        ...     return 10 if len(action) < 10 else 1
        >>> env = ProcessReward(EchoEnv(), judge, weight=0.2, score_range=(1, 10), horizon=2)
        >>> _ = env.reset(seed=0, options={"task_id": "t0"})
        >>> env.step("draft:al")[1]   # 0.2 * 1.0 / 2
        0.1

    Version History:
        v0: initial version.
    """

    def __init__(
        self,
        env: gym.Env[str, str],
        scorer: StepScorer,
        *,
        weight: float = 0.1,
        normalize: Normalize = "range",
        score_range: tuple[float, float] = (0.0, 1.0),
        horizon: int | None = None,
    ):
        super().__init__(env)
        if not callable(scorer):
            raise ConfigError(f"scorer must be callable (history, action, observation) -> float, got {scorer!r}")
        if not (isinstance(weight, (int, float)) and math.isfinite(weight) and weight >= 0):
            raise ConfigError(f"weight must be a finite number >= 0, got {weight!r}")
        if normalize not in NORMALIZE_MODES:
            raise ConfigError(f"normalize must be one of {NORMALIZE_MODES}, got {normalize!r}")
        lo, hi = (float(v) for v in score_range)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ConfigError(f"score_range must be (lo, hi) with finite lo < hi, got {score_range!r}")
        if horizon is None:
            try:
                horizon = env.get_wrapper_attr("max_turns")
            except AttributeError:
                horizon = None
            horizon = horizon or 1
        if not (isinstance(horizon, int) and horizon >= 1):
            raise ConfigError(f"horizon must be a positive int, got {horizon!r}")
        self.scorer = scorer
        self.weight = float(weight)
        self.normalize: Normalize = normalize
        self.score_range = (lo, hi)
        self.horizon = horizon
        self.conversation = Conversation()
        self.count, self.mean, self.m2 = 0, 0.0, 0.0
        self.stamp_reward(
            {
                "scorer": scorer,
                "weight": self.weight,
                "normalize": normalize,
                "score_range": self.score_range,
                "horizon": horizon,
            }
        )

    @property
    def history(self) -> list[Message]:
        """The episode's chat so far (:class:`~rewardlab.core.chat.Conversation`'s messages)."""
        return self.conversation.messages

    def normalized(self, score: float) -> float:
        """``ŝ`` for one score (updates the running statistics in ``"running"`` mode)."""
        if self.normalize == "none":
            return score
        if self.normalize == "range":
            lo, hi = self.score_range
            return (min(hi, max(lo, score)) - lo) / (hi - lo)
        self.count += 1
        delta = score - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (score - self.mean)
        return (score - self.mean) / (math.sqrt(self.m2 / self.count) + 1e-8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.conversation.start(observation, info)
        return observation, self.stamped(info)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        text = action if isinstance(action, str) else str(action)
        score = float(self.scorer(tuple(self.history), text, observation))
        if not math.isfinite(score):
            raise ConfigError(f"the step scorer returned {score}; it must return a finite number")
        normalized = self.normalized(score)
        bonus = self.weight * normalized / self.horizon
        self.conversation.act(text)
        self.conversation.observe(observation)
        info["process_reward"] = {"score": score, "normalized": normalized, "bonus": bonus}
        self.stamped(info)
        return observation, float(reward) + bonus, terminated, truncated, info
