"""TextEnv: the contract every RewardLab environment shares.

An episode: ``reset`` picks a task and returns its prompt; each ``step`` takes the agent's text
and returns an observation. When the episode ends, the env's :class:`~rewardlab.core.Rubric`
scores the outcome and ``info`` carries the decomposition. The core keeps the bookkeeping every
env shares: the common constructor arguments (:class:`CommonArgs`), steps, actions and valid
actions, milestones and progress, the turn budget and the scoring. Subclasses implement three hooks:

- ``_start(task) -> (observation, info)``: set up the task.
- ``_act(action) -> Turn``: apply one action (already coerced to ``str``).
- ``_outcome() -> (outcome, usable)``: the outcome to score when a turn ends the episode without
  one of its own, when the turn budget (``max_turns``) cuts the episode short, or on an
  infrastructure fault.

The turn budget is an env argument rather than a registered ``max_episode_steps``: the env
must score the outcome on the last step, and Gymnasium's ``TimeLimit`` wrapper hides its limit
from the env. At the budget the step returns ``truncated=True`` together with the scored outcome
(``_at_turn_budget`` completes that step's turn).

Subclasses may also override ``_reject``, ``_at_turn_budget``, ``_is_success``,
``milestone_names``, ``task_tools``, ``sample_action``, ``make_oracle`` and ``audit_profile`` (the
env's own degenerate strategies, see :mod:`rewardlab.audit`).

An env declares what it is on its class: ``multi_turn``, ``user_turns`` and ``design_choice``
(a :class:`~rewardlab.core.card.DesignChoice`, checked against the rubric when the env is made);
:meth:`TextEnv.card` reads them, with the rubric, the tasks and ``task_tools``, into an
:class:`~rewardlab.core.card.EnvCard` without playing.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rewardlab.core import provenance
from rewardlab.core.card import REPLAY_FIDELITIES, DesignChoice, EnvCard, ReplayFidelity, env_card
from rewardlab.core.rubric import Aggregate, Rubric, RubricResult
from rewardlab.core.spaces import DEFAULT_MAX_TEXT_LENGTH, TextSpace
from rewardlab.core.tasks import Task, TaskSet
from rewardlab.core.text import coerce_action, truncate
from rewardlab.errors import ConfigError, ResetNeeded, did_you_mean

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # gymnasium depends on typing_extensions
    from typing_extensions import Unpack

__all__ = ["COMMON_ARGS", "CommonArgs", "TextEnv", "Turn", "Unpack", "unwrapped_text_env"]


class CommonArgs(TypedDict, total=False):
    """The keyword arguments every RewardLab env takes besides its own; each may be left out.

    An env's constructor states only its own arguments and forwards these to
    :class:`TextEnv` as ``**common: Unpack[CommonArgs]``, so that type checkers, ``help`` and
    ``inspect.signature`` read them here. A name that is neither the env's nor one of these
    raises ``TypeError``, with the closest valid name.

    Attributes:
        reward_weights: ``{component: weight}``; a missing component keeps its default weight
            (:attr:`~rewardlab.core.Criterion.weight`). Default ``None``: every default weight.
        aggregate: ``"mean"``, ``"geometric"`` or ``"min"``. Default ``None``: the rubric's own (``"mean"``).
        gates: Components that zero the others when below their threshold (a list means threshold 1).
            Default ``None``: the rubric's own gates.
        invalid_penalty: The reward when the output is unusable. Default ``None``: the rubric's own (0).
        max_turns: Steps before the episode is truncated and scored. Default ``None``: the env's
            ``default_max_turns``.
        render_mode: ``None`` (default) or ``"ansi"``.
    """

    reward_weights: Mapping[str, float] | None
    aggregate: Aggregate | None
    gates: Sequence[str] | Mapping[str, float] | None
    invalid_penalty: float | None
    max_turns: int | None
    render_mode: str | None


COMMON_ARGS: tuple[str, ...] = tuple(CommonArgs.__annotations__)
"""The names of :class:`CommonArgs`, in declaration order."""


@dataclass(slots=True)
class Turn:
    """What a subclass's ``_act`` returns for one action.

    Attributes:
        observation: Text shown to the agent next.
        done: The episode ends now and ``outcome`` is scored.
        outcome: What the rubric's criteria receive when ``done``. Left ``None``, the env's
            ``_outcome()`` is scored, read after the step's action counts are updated.
        usable: False when the output cannot be used at all (the reward is ``invalid_penalty``).
        action_error: A short message when the action was malformed or invalid.
        milestones: Milestones reached so far or now; the env reports only the new ones.
        progress: The env's own potential in [0, 1]; defaults to the fraction of milestones reached.
        info: Extra, env-specific info keys.
        infra_error: Set when an infrastructure fault (a sandbox, browser or server failure, not the
            agent's doing) ends the episode: :meth:`TextEnv.infra_failure` builds such a turn.
    """

    observation: str
    done: bool = False
    outcome: Any = None
    usable: bool = True
    action_error: str | None = None
    milestones: Iterable[str] = ()
    progress: float | None = None
    info: dict[str, Any] = field(default_factory=dict)
    infra_error: str | None = None


class TextEnv(gym.Env[str, str]):
    """Base class of every RewardLab env: text in, text out, decomposed outcome reward.

    Besides ``tasks`` and ``rubric`` (the subclass's), the constructor takes the arguments common to
    every env, :class:`CommonArgs` (``reward_weights``, ``aggregate``, ``gates``, ``invalid_penalty``,
    ``max_turns``, ``render_mode``), all keyword-only.

    Each step whose action is text (a non-text action is refused before ``_act`` sees it) counts in
    :attr:`actions_taken` while ``_act`` runs, and in :attr:`valid_actions` when its turn comes back
    with neither ``action_error`` nor ``infra_error``; both restart at 0 on every reset. The shared
    ``validity`` component (:mod:`rewardlab.core.criteria`) is ``valid_actions / actions_taken``.

    The final step's ``info`` adds ``reward_components``, ``reward_weights``, ``metrics``, ``score``,
    ``usable`` (False when the reward is ``invalid_penalty``: a gate failed or the output was unusable)
    and ``is_success``. An episode that an infrastructure fault ended (a sandbox or browser failure,
    not the agent's doing) also carries ``infra_error`` with the reason and counts as unusable, so
    that a trainer can drop it instead of learning from a false 0.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}
    system_prompt: str = ""
    """The system prompt of every episode (``info["system_prompt"]``). Every env declares it on its class; one whose
    prompt depends on its arguments sets it in ``__init__``."""
    max_observation_length: ClassVar[int] = DEFAULT_MAX_TEXT_LENGTH
    default_max_turns: ClassVar[int | None] = None
    cheap_calls: ClassVar[bool] = False
    """True when every call is pure-Python work of well under a millisecond, safe on any thread:
    ``rewardlab serve`` may then run it on its event loop instead of the session's thread."""
    multi_turn: bool = True
    """Whether an episode may take more than one action; ``False`` when the first action always ends it. Every
    env declares it on its class; one whose turns depend on its arguments sets it in ``__init__``."""
    user_turns: bool = False
    """Whether the user speaks again after the agent's reply (several user turns per episode)."""
    design_choice: ClassVar[DesignChoice | None] = None
    """The components of the leaderboard's targeted and gated reward-design schemes, with the reasons."""
    replay: ClassVar[ReplayFidelity | None] = None
    """Whether an episode re-scored from its record (:func:`rewardlab.core.replay.replay`: the recorded seed, reset
    options and actions on a fresh env) gives back the recorded rewards: ``"exact"`` when the outcome depends only
    on those, ``"approximate"`` when it can also depend on what the record does not hold (timing, state carried
    across episodes); see :data:`~rewardlab.core.card.ReplayFidelity`. Every env declares it, with the reason,
    in its spec sheet's *Episode end* section."""
    replay_tolerance: ClassVar[float] = 0.0
    """With ``replay = "approximate"``: the largest |recorded − replayed| difference of the reward and of each
    component that still counts as the same outcome (documented with the reason by the env); 0 for exact envs."""
    recorded_info_keys: ClassVar[tuple[str, ...]] = ()
    """Final-info keys that :class:`~rewardlab.wrappers.RecordEpisodes` records under ``info`` besides the outcome:
    the env's re-scoring state (SWE's ``patch``); a replay checks that it reproduces them."""
    reward_packages: ClassVar[tuple[str, ...]] = ()
    """Packages whose code computes the outcome besides :mod:`rewardlab.core` and the env class's own (and its
    bases'): part of ``reward_version`` (:meth:`reward_parts`)."""
    unstamped_arguments: ClassVar[frozenset[str]] = frozenset({"render_mode", "max_turns"})
    """Constructor arguments left out of ``reward_version``: ``render_mode`` cannot change a reward, and
    ``max_turns`` is a budget, not a scoring rule: it decides where an episode is cut, and the cut episode's
    outcome is scored by the same rubric. Each record keeps it (``env_kwargs``, and ``truncated``), so a replay
    reproduces the cut, and the leaderboard reports a model's turn budget with its entry."""

    _arguments: dict[str, Any]
    _stamp: tuple[Rubric, str] | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> TextEnv:
        """Keep the constructor's keyword arguments (``reward_version`` includes them); Python passes
        ``__new__`` the same arguments as ``__init__``."""
        env = super().__new__(cls)
        env._arguments = dict(kwargs)
        return env

    def __init__(self, *, tasks: TaskSet, rubric: Rubric, **common: Unpack[CommonArgs]):
        self._refuse_unknown_arguments(common)
        render_mode = common.get("render_mode")
        max_turns = common.get("max_turns")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}"
                + did_you_mean(str(render_mode), self.metadata["render_modes"])
            )
        self.render_mode = render_mode
        self.max_turns = self.default_max_turns if max_turns is None else max_turns
        if self.max_turns is not None and (not isinstance(self.max_turns, int) or self.max_turns < 1):
            raise ConfigError(f"max_turns must be a positive int or None, got {self.max_turns!r}")
        self.tasks = tasks
        self.rubric = rubric.configure(
            weights=common.get("reward_weights"),
            aggregate=common.get("aggregate"),
            gates=common.get("gates"),
            invalid_penalty=common.get("invalid_penalty"),
        )
        if self.design_choice is not None:
            self.design_choice.check(self.rubric)
        if self.replay is not None and self.replay not in REPLAY_FIDELITIES:
            raise ConfigError(f"{type(self).__name__}.replay must be one of {REPLAY_FIDELITIES}, got {self.replay!r}")
        self.reward_component_names: tuple[str, ...] = self.rubric.names
        self.reward_space = spaces.Box(0.0, 1.0, (len(self.reward_component_names),), dtype=np.float32)
        self.observation_space = TextSpace(self.max_observation_length)
        self.action_space = TextSpace(DEFAULT_MAX_TEXT_LENGTH)
        self.task: Task | None = None
        self.milestones_reached: list[str] = []
        self._milestone_names: frozenset[str] = frozenset()
        self._milestone_count = self._milestone_hits = 0
        self._milestone_progress = 0.0
        self.last_observation = ""
        self.elapsed_steps = 0
        self.actions_taken = 0
        """Text actions this episode, the one ``_act`` is handling included."""
        self.valid_actions = 0
        """Actions this episode whose turn had neither ``action_error`` nor ``infra_error``."""
        self._episode_over = True

    def _refuse_unknown_arguments(self, common: Mapping[str, Any]) -> None:
        """Raise ``TypeError``, as Python does, for a keyword that is neither the env's nor in :class:`CommonArgs`."""
        unknown = [name for name in common if name not in COMMON_ARGS]
        if not unknown:
            return
        parameters = list(inspect.signature(type(self).__init__).parameters.values())[1:]
        own = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
        allowed = [*own, *COMMON_ARGS]
        raise TypeError(
            f"{type(self).__name__}() got an unexpected keyword argument {unknown[0]!r}; it takes {allowed}."
            + did_you_mean(unknown[0], allowed)
        )

    # ------------------------------------------------------------------ hooks
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def _act(self, action: str) -> Turn:
        raise NotImplementedError

    @property
    def current_task(self) -> Task:
        """:attr:`task`, the task ``reset`` started, for the hooks and oracles that run inside an episode;
        ResetNeeded before the first ``reset``."""
        if self.task is None:
            raise ResetNeeded("call reset() first: no task has been started")
        return self.task

    def _outcome(self) -> tuple[Any, bool]:
        """The outcome to score when the step limit ends the episode: ``(outcome, usable)``."""
        raise NotImplementedError(f"{type(self).__name__} must implement _outcome() to be time-limited")

    def _at_turn_budget(self, turn: Turn) -> Turn:
        """The step's turn when it reaches ``max_turns`` without ending the episode, completed with the outcome
        to score (the step returns ``truncated=True``). By default that is ``_outcome()``; an env that shows a
        closing observation at the budget (Slides' tools mode: the verdict on the deck) overrides this."""
        turn.outcome, turn.usable = self._outcome()
        return turn

    def _is_success(self, outcome: Any, result: RubricResult) -> bool:
        """The strict task criterion; by default every component is 1."""
        return result.usable and all(v >= 1.0 for v in result.components.values())

    def milestone_names(self) -> tuple[str, ...]:
        """Milestones of the current task, in their natural order; read once per episode, after
        ``_start`` (so they must not change during an episode)."""
        return ()

    def task_tools(self, task: Task) -> list[dict[str, Any]]:
        """The tools ``task`` offers (OpenAI function schemas, its reset ``info["tools"]``), read from the
        task's data without a reset; none by default."""
        return []

    def reward_parts(self) -> dict[str, Any]:
        """What decides this env's rewards, as :func:`~rewardlab.core.provenance.stamp` reads it: the env class
        and its constructor arguments, the rubric as configured, the code of :mod:`rewardlab.core`, of the
        packages of the env class and its bases and of ``reward_packages``, the tasks, and
        :meth:`grader_versions`."""
        classes = [cls for cls in type(self).__mro__ if issubclass(cls, TextEnv) and cls is not TextEnv]
        packages = {cls.__module__.rpartition(".")[0] or cls.__module__ for cls in classes}
        arguments = {k: v for k, v in getattr(self, "_arguments", {}).items() if k not in self.unstamped_arguments}
        return {
            "env": provenance.qualified_name(type(self)),
            "arguments": provenance.plain(arguments),
            "rubric": provenance.rubric_identity(self.rubric),
            "code": provenance.code_digest(["rewardlab.core", *packages, *self.reward_packages]),
            "tasks": provenance.tasks_digest(self.tasks),
            "graders": self.grader_versions(),
        }

    def grader_versions(self) -> dict[str, str | None]:
        """The versions of the external graders, models and images this env's rewards depend on (none by
        default; e.g. the sandbox image tag, the sentence model's distribution version)."""
        return {}

    @property
    def reward_version(self) -> str:
        """``rv-`` and 12 hex digits: :func:`~rewardlab.core.provenance.stamp` of :meth:`reward_parts`, computed
        once per rubric (a new one when ``rubric`` is replaced) and reported in every step's ``info``."""
        cached = self._stamp
        if cached is None or cached[0] is not self.rubric:
            cached = (self.rubric, provenance.stamp(self.reward_parts()))
            self._stamp = cached
        return cached[1]

    def card(self) -> EnvCard:
        """What this env is (:class:`~rewardlab.core.card.EnvCard`), read from its rubric, tasks and
        declarations; never resets or steps."""
        return env_card(self)

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random action for the random agent; envs override with well-formed random actions."""
        return self.action_space.sample()

    def make_oracle(self) -> Any:
        """An agent with ``act(observation, info)`` that reaches ``is_success`` on every task."""
        raise NotImplementedError(f"{type(self).__name__} has no oracle")

    def audit_profile(self) -> Any:
        """The env's :class:`~rewardlab.audit.AuditProfile`: its own degenerate strategies for
        ``rewardlab audit``, its finishing action and accepted successes; ``None`` (the default) when it has
        none of its own (:func:`rewardlab.audit.strategy.profile_of` reads it)."""
        return None

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode. ``options``: ``task_id`` selects a task, ``split`` the split to draw from."""
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"task_id", "split"}
        if unknown:
            raise ConfigError(f"unknown reset options {sorted(unknown)}; allowed: task_id, split")
        if options.get("task_id") is not None:
            self.task = self.tasks.get(options["task_id"])
        else:
            self.task = self.tasks.sample(self.np_random, options.get("split", "train"))
        self.milestones_reached = []
        self.elapsed_steps = self.actions_taken = self.valid_actions = 0
        self._episode_over = False
        observation, extra = self._start(self.task)
        names = self.milestone_names()  # constant for the episode: read once
        self._milestone_names, self._milestone_count, self._milestone_hits = frozenset(names), len(names), 0
        self._milestone_progress = 0.0
        self.last_observation = truncate(observation, self.max_observation_length)
        info: dict[str, Any] = {"task_id": self.task.id, "split": self.task.split, "system_prompt": self.system_prompt}
        info.update(extra)
        info.update(milestones=[], progress=0.0, action_error=None, reward_version=self.reward_version)
        return self.last_observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._episode_over or self.task is None:
            raise ResetNeeded("call reset() before step(), and again after an episode ends")
        self.elapsed_steps += 1
        # ASCII text is already what coerce_action would return; the common case skips the call
        text, error = (action, None) if isinstance(action, str) and action.isascii() else coerce_action(action)
        if error is None:
            self.actions_taken += 1
            turn = self._act(text)
            if turn.action_error is None and turn.infra_error is None:
                self.valid_actions += 1
        else:
            turn = self._reject(error)
        truncated = not turn.done and self.max_turns is not None and self.elapsed_steps >= self.max_turns
        if truncated:
            turn = self._at_turn_budget(turn)
        elif turn.done and turn.outcome is None:
            turn.outcome, usable = self._outcome()
            turn.usable = turn.usable and usable
        info: dict[str, Any] = {
            "task_id": self.task.id,
            **turn.info,
            "milestones": self._record_milestones(turn.milestones),
            "progress": self._progress(turn.progress),
            "action_error": turn.action_error,
            "reward_version": self.reward_version,
        }
        reward = self._score(turn, info) if turn.done or truncated else 0.0
        observation = turn.observation
        if len(observation) > self.max_observation_length:  # the common case skips the call
            observation = truncate(observation, self.max_observation_length)
        self.last_observation = observation
        return observation, reward, bool(turn.done), truncated, info

    def _score(self, turn: Turn, info: dict[str, Any]) -> float:
        """End the episode: score the turn's outcome with the rubric, add the decomposition to ``info`` and
        return the reward."""
        self._episode_over = True
        result = self.rubric.score(turn.outcome, usable=turn.usable)
        info.update(
            reward_components=result.components,
            reward_weights=result.weights,
            metrics=result.metrics,
            score=result.score,
            usable=result.usable,
            is_success=turn.infra_error is None and bool(self._is_success(turn.outcome, result)),
        )
        if turn.infra_error is not None:
            info["infra_error"] = turn.infra_error
        return float(result.reward)

    def infra_failure(self, message: str) -> Turn:
        """The turn that ends an episode on an infrastructure fault: the current outcome is scored as
        unusable (the reward is ``invalid_penalty``), ``is_success`` is False and ``info["infra_error"]``
        says why, so a trainer drops the episode instead of learning from a false 0."""
        outcome, _ = self._outcome()
        return Turn(
            observation=f"infra_error: {message}", done=True, outcome=outcome, usable=False, infra_error=message
        )

    def _reject(self, error: str) -> Turn:
        """The turn for an action that is not text at all; single-shot envs override to end scored."""
        return Turn(observation=f"action_error: {error}", action_error=error)

    def _record_milestones(self, reached: Iterable[str]) -> list[str]:
        """The milestones of ``reached`` not reached before, in order, once each; they join ``milestones_reached``."""
        new: list[str] = []
        for name in reached:
            if name not in new and name not in self.milestones_reached:
                new.append(name)
                if name in self._milestone_names:  # progress = share of milestone_names() reached
                    self._milestone_hits += 1
                    self._milestone_progress = self._milestone_hits / self._milestone_count
        self.milestones_reached.extend(new)
        return new

    def _progress(self, progress: float | None) -> float:
        """The turn's own progress clipped to [0, 1], else the share of :meth:`milestone_names` reached."""
        if progress is not None:
            return float(min(1.0, max(0.0, progress)))
        return self._milestone_progress

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        task = self.task.id if self.task else "(no task)"
        return f"[{type(self).__name__} task={task} step={self.elapsed_steps}]\n{self.last_observation}"

    def close(self) -> None:
        """Free processes, browsers, containers and temp dirs. Safe to call twice."""
        super().close()


def unwrapped_text_env(env: gym.Env[Any, Any]) -> TextEnv:
    """``env.unwrapped``, typed as the :class:`TextEnv` every RewardLab id makes, for callers that read its
    public API (``tasks``, ``card()``, ``make_oracle()``...). A static cast, not a check: an env that only
    duck-types that API (a test double, a proxy) passes through unchanged."""
    return cast(TextEnv, env.unwrapped)
