"""GenerateVerifyRefine: a sequential generator–verifier–refiner team over any RewardLab env.

| | |
|---|---|
| API | PettingZoo AEC |
| Agents | ``generator``, ``verifier``, ``refiner`` (acting in that order, once each) |
| Spaces | text (:class:`~rewardlab.core.TextSpace`) for every agent |
| Underlying env | any RewardLab env id, made with ``max_turns=1`` so that one answer is scored |

## Description
The generator answers the task. The verifier sees the task and that answer and writes a critique
ending in a verdict line, ``VERDICT: PASS`` or ``VERDICT: FAIL`` (the last such line counts). The
refiner sees the task, the answer and the critique, and writes the final answer, which the
underlying env scores. Each answer is scored in the underlying env after the episode's reset,
replayed for the second answer (same options, same random state), so scores are deterministic
and the two answers are judged identically.

## Rewards
With ``R(a)`` the underlying env's reward for answer ``a``, ``g`` the generator's answer and
``f`` the refiner's final answer:

- ``credit="joint"`` (default): every agent receives ``R(f)``.
- ``credit="role"``:
  - generator: ``R(g)``;
  - verifier: ``1`` if its verdict is right about ``g`` (PASS iff ``g`` met the underlying
    ``is_success``), else ``0``; a missing verdict is wrong;
  - refiner: ``R(f) − R(g)``, its improvement over the generator (range [−1, 1] for rewards in [0, 1]).

All rewards are paid when the refiner acts. Per-agent infos follow the single-agent convention:
``reward_components`` holds the underlying components of the answer the agent wrote (the
verifier's are ``{"verdict": 0 or 1}``), with ``score`` and ``is_success``.

## Version History
* v0: initial release.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import gymnasium as gym
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from rewardlab.core import DEFAULT_MAX_TEXT_LENGTH, TextSpace, coerce_action, truncate
from rewardlab.errors import ConfigError
from rewardlab.multiagent.text import TextObservation

AGENTS = ("generator", "verifier", "refiner")
VERDICT = re.compile(r"VERDICT\s*:\s*(PASS|FAIL)\b", re.IGNORECASE)
Credit = Literal["joint", "role"]
MISSING_VERDICT = "no verdict line: end the critique with 'VERDICT: PASS' or 'VERDICT: FAIL'"
OUTCOME_KEYS = ("reward_components", "reward_weights", "metrics", "score", "is_success")


def parse_verdict(critique: str) -> bool | None:
    """True for PASS, False for FAIL, None when the critique has no verdict line (the last one counts)."""
    matches = VERDICT.findall(critique)
    return None if not matches else matches[-1].upper() == "PASS"


class GenerateVerifyRefine(AECEnv):
    """See the module docstring for the full spec."""

    metadata = {"name": "generate_verify_refine_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    # set by reset: the scorer's generator state and options at the episode's start, and whether the scorer
    # still stands in that start (the first answer is scored without replaying it)
    _start_state: Mapping[str, Any]
    _reset_options: dict[str, Any] | None
    _scorer_fresh: bool

    def __init__(
        self,
        env_id: str,
        *,
        credit: Credit = "joint",
        env_kwargs: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        if credit not in ("joint", "role"):
            raise ConfigError(f"credit must be 'joint' or 'role', got {credit!r}")
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.env_id = env_id
        self.credit = credit
        self.render_mode = render_mode
        # the underlying env, unwrapped: this env enforces the call order itself, so gym.make's checker
        # wrappers would only add overhead to every scoring
        self.scorer = gym.make(env_id, **{**(env_kwargs or {}), "max_turns": 1}).unwrapped
        self.possible_agents = list(AGENTS)
        # task, answer and critique are each cut to DEFAULT_MAX_TEXT_LENGTH, plus the role instructions
        self._observation_space = TextSpace(3 * DEFAULT_MAX_TEXT_LENGTH + 1000)
        self._action_space = TextSpace(DEFAULT_MAX_TEXT_LENGTH)
        self.agents: list[str] = []
        self.transcript: dict[str, str] = {}

    def observation_space(self, agent: str) -> TextSpace:
        return self._observation_space

    def action_space(self, agent: str) -> TextSpace:
        return self._action_space

    # ------------------------------------------------------------------ scoring
    def _score(self, answer: str) -> tuple[float, dict[str, Any]]:
        """Replay the task in the underlying env and return the final step's reward and info.

        The first answer is scored in the episode ``reset`` already started. Later ones replay that
        reset: the same options from the same random state. Restoring the generator's state is exact and
        much cheaper than seeding a new generator, which costs about as much as a BFCL step."""
        if not self._scorer_fresh:
            self.scorer.np_random.bit_generator.state = self._start_state
            self.scorer.reset(options=self._reset_options)
        self._scorer_fresh = False
        _, reward, _, _, info = self.scorer.step(answer)
        return float(reward), info

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.scorer.np_random, _ = seeding.np_random(seed)
        self._start_state = self.scorer.np_random.bit_generator.state
        select: dict[str, Any] = {k: options[k] for k in ("task_id", "split") if k in options} if options else {}
        self._reset_options = select or None
        prompt, info = self.scorer.reset(options=self._reset_options)
        self._scorer_fresh = True
        self.task_id = info["task_id"]
        self.task_prompt = prompt
        self.task_info = {k: info[k] for k in ("task_id", "system_prompt", "tools") if k in info}
        self.agents = list(AGENTS)
        self.transcript = {}
        self.generator_result: tuple[float, dict[str, Any]] | None = None
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {agent: {**self.task_info, "role": agent, "action_error": None} for agent in AGENTS}
        self.agent_selection = AGENTS[0]

    def observe(self, agent: str) -> TextObservation:
        cut = lambda text: truncate(text, DEFAULT_MAX_TEXT_LENGTH)  # noqa: E731
        parts = [f"Task:\n{cut(self.task_prompt)}"]
        if agent in ("verifier", "refiner") and "generator" in self.transcript:
            parts.append(f"Candidate answer:\n{cut(self.transcript['generator'])}")
        if agent == "refiner" and "verifier" in self.transcript:
            parts.append(f"Critique:\n{cut(self.transcript['verifier'])}")
        parts.append(ROLE_INSTRUCTIONS[agent])
        return TextObservation("\n\n".join(parts))

    def step(self, action: str | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        text, error = coerce_action(action)
        self.infos[agent]["action_error"] = error
        self.transcript[agent] = text
        # rewards stay 0 (as reset set them) until the refiner's step, the last before every agent is done,
        # so PettingZoo's _clear_rewards/_accumulate_rewards are only needed there (in _finish)
        if agent == "generator":
            self.generator_result = self._score(text)
            self.agent_selection = "verifier"
        elif agent == "verifier":
            verdict = parse_verdict(text)
            self.infos[agent]["verdict"] = verdict
            if verdict is None and error is None:
                self.infos[agent]["action_error"] = MISSING_VERDICT
            self.agent_selection = "refiner"
        else:
            self._finish(*self._score(text))

    def _finish(self, final_reward: float, final: dict[str, Any]) -> None:
        assert self.generator_result is not None, "the generator's step comes before the refiner's"
        generated_reward, generated = self.generator_result
        verdict = self.infos["verifier"].get("verdict")
        verdict_right = float(verdict is not None and verdict == bool(generated["is_success"]))
        if self.credit == "joint":
            self.rewards = dict.fromkeys(self.agents, final_reward)
        else:
            self.rewards = {
                "generator": generated_reward,
                "verifier": verdict_right,
                "refiner": final_reward - generated_reward,
            }
        for agent, reward in self.rewards.items():
            self._cumulative_rewards[agent] += reward
        for agent, info in (("generator", generated), ("refiner", final)):
            own = self.infos[agent]
            for key in OUTCOME_KEYS:
                own[key] = info[key]
        self.infos["verifier"].update(
            reward_components={"verdict": verdict_right},
            reward_weights={"verdict": 1.0},
            metrics={},
            score=verdict_right,
            is_success=bool(verdict_right),
        )
        self.terminations = dict.fromkeys(self.agents, True)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        lines = [f"[{self.env_id} task={getattr(self, 'task_id', None)}]"]
        lines += [f"--- {agent}:\n{self.transcript[agent]}" for agent in AGENTS if agent in self.transcript]
        return "\n".join(lines)

    def close(self) -> None:
        self.scorer.close()


ROLE_INSTRUCTIONS = {
    "generator": "You are the generator: answer the task.",
    "verifier": (
        "You are the verifier: critique the candidate answer, then end with one line "
        "'VERDICT: PASS' if it fully solves the task or 'VERDICT: FAIL' otherwise."
    ),
    "refiner": "You are the refiner: write the final answer to the task, fixing what the critique found.",
}
