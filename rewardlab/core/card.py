"""EnvCard: what an env is, as the env itself declares it, read without playing an episode.

:meth:`TextEnv.card() <rewardlab.core.TextEnv.card>` builds an env's card from the instance (its arguments
applied) and never calls ``reset`` or ``step``. Everything that needs to know what an env is (``rewardlab
list``, the server's ``/metadata``, the TRL adapters, the leaderboard's reward-design section) reads the card
instead of keeping a table about envs or playing one to find out. Each fact comes from its owner:

- the components, their roles, formulas, default weights, ranges and gates: the env's
  :class:`~rewardlab.core.Rubric` (:func:`~rewardlab.core.specs.criterion_rows`);
- single- or multi-turn and whether the user speaks again: the env class's ``multi_turn`` and
  ``user_turns`` declarations; a turn budget of 1 makes any env single-turn::

      card.multi_turn = env.multi_turn and (max_turns is None or max_turns > 1)

- the tool sets: ``env.task_tools(task)`` of every task (what its reset ``info["tools"]`` holds), each
  distinct list once, in task order;
- the reward design, the components that the leaderboard's *targeted* and *gated* schemes use: the env
  class's ``design_choice`` (:class:`DesignChoice`), checked against the rubric when the env is made;
- whether an episode can be re-scored from its record (``rewardlab rescore``): the env class's ``replay``
  (:data:`ReplayFidelity`) and ``replay_tolerance``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from rewardlab.core.rubric import Rubric
from rewardlab.core.specs import criterion_rows
from rewardlab.core.tasks import SPLITS
from rewardlab.errors import ConfigError, did_you_mean

if TYPE_CHECKING:
    from rewardlab.core.env import TextEnv

__all__ = ["REPLAY_FIDELITIES", "DesignChoice", "EnvCard", "ReplayFidelity", "env_card"]

ReplayFidelity = Literal["exact", "approximate"]
"""How faithfully an episode replayed from its record (:func:`rewardlab.core.replay.replay`: the same seed, reset
options and actions on a fresh env) reproduces the recorded rewards:

- ``"exact"``: the outcome depends only on the seed, the reset options and the actions, so the replay gives the
  recorded reward and components bit for bit;
- ``"approximate"``: it can also depend on what the record does not hold (timing, state carried across
  episodes), so the replay agrees within the env's ``replay_tolerance`` on the reward and on every component,
  and a replay that does not is reported as drift.
"""

REPLAY_FIDELITIES: tuple[ReplayFidelity, ...] = ("exact", "approximate")


@dataclass(frozen=True)
class DesignChoice:
    """The components an env's *targeted* and *gated* reward-design schemes use, and why.

    Attributes:
        target: The primary outcome component, the one that says whether the task itself was done (its
            role is ``outcome``): ``targeted`` puts half of the weight on it.
        gate: The component that says whether the output is usable at all (the env's own gate where it has
            one, else its format or validity check): ``gated`` pays the invalid penalty unless it is 1.
        why_target: Why ``target``, in one line.
        why_gate: Why ``gate``, in one line.

    Example:
        >>> from rewardlab.core.rubric import Criterion
        >>> rubric = Rubric([Criterion("ok", float, role="validity"), Criterion("right", float, role="outcome")])
        >>> DesignChoice("right", "ok", "the answer", "it parses").check(rubric)
        >>> DesignChoice("ok", "right", "the answer", "it parses").check(rubric)
        Traceback (most recent call last):
        ...
        rewardlab.errors.ConfigError: targeted 'ok' has role 'validity', not 'outcome'; outcomes: ['right']
    """

    target: str
    gate: str
    why_target: str
    why_gate: str

    def check(self, rubric: Rubric) -> None:
        """ConfigError unless ``target`` and ``gate`` are components of ``rubric`` and ``target`` is an outcome."""
        names = rubric.names
        for label, name in (("targeted", self.target), ("gated", self.gate)):
            if name not in names:
                raise ConfigError(
                    f"{label} {name!r} is not a component; components are {list(names)}." + did_you_mean(name, names)
                )
        roles = {c.name: c.role for c in rubric.criteria}
        if roles[self.target] != "outcome":
            outcomes = [name for name, role in roles.items() if role == "outcome"]
            role = roles[self.target]
            raise ConfigError(f"targeted {self.target!r} has role {role!r}, not 'outcome'; outcomes: {outcomes}")


@dataclass(frozen=True)
class EnvCard:
    """What an env is: :meth:`TextEnv.card() <rewardlab.core.TextEnv.card>`'s answer.

    Attributes:
        env_id: The id the env was made with (``gym.make``), else ``None``.
        components: Each component's row (:func:`~rewardlab.core.specs.criterion_rows`: ``name``, ``role``,
            ``formula``, ``default_weight``, ``range``, ``gate``, ``description``), in the rubric's order.
        weights: The normalised weights this env pays (its ``reward_weights`` applied).
        gates: ``{component: threshold}`` of this env's gates.
        aggregate: ``"mean"``, ``"geometric"`` or ``"min"``.
        invalid_penalty: The reward of an output the env cannot use.
        max_turns: The turn budget (``None``: no limit).
        multi_turn: An episode may take more than one action (formula: the module docstring); ``False``: the
            first action always ends it.
        user_turns: The user speaks again after the agent's reply (several user turns per episode).
        tool_sets: The distinct tool lists (OpenAI function schemas) that the tasks offer, in task order;
            empty for an env without tools.
        task_counts: ``{split: tasks}`` for every split.
        system_prompt: The env's system prompt.
        design: The components of the targeted and gated reward-design schemes, or ``None`` when the env
            declares none.
        reward_version: The stamp of everything that decides the env's rewards
            (:mod:`rewardlab.core.provenance`).
        replay: Whether a replay of a recorded episode gives back its rewards exactly (:data:`ReplayFidelity`),
            ``None`` when the env declares nothing.
        replay_tolerance: With ``replay = "approximate"``, the largest difference of the reward and of each
            component between a record and its replay that still counts as the same outcome; 0 otherwise.
    """

    env_id: str | None
    components: tuple[Mapping[str, Any], ...]
    weights: Mapping[str, float]
    gates: Mapping[str, float]
    aggregate: str
    invalid_penalty: float
    max_turns: int | None
    multi_turn: bool
    user_turns: bool
    tool_sets: tuple[tuple[Mapping[str, Any], ...], ...]
    task_counts: Mapping[str, int]
    system_prompt: str
    design: DesignChoice | None
    reward_version: str
    replay: ReplayFidelity | None = None
    replay_tolerance: float = 0.0

    @property
    def component_names(self) -> tuple[str, ...]:
        """The component names, in the rubric's order."""
        return tuple(str(row["name"]) for row in self.components)

    def to_dict(self, *, tool_sets: bool = True) -> dict[str, Any]:
        """The card as JSON-ready data, one key per attribute; ``tool_sets=False`` gives ``tool_set_count``
        instead of the tool sets themselves (BFCL's are ~2,000 lists, megabytes of JSON)."""
        return {
            "env_id": self.env_id,
            "components": [dict(row) for row in self.components],
            "weights": dict(self.weights),
            "gates": dict(self.gates),
            "aggregate": self.aggregate,
            "invalid_penalty": self.invalid_penalty,
            "max_turns": self.max_turns,
            "multi_turn": self.multi_turn,
            "user_turns": self.user_turns,
            **(
                {"tool_sets": [[dict(tool) for tool in tools] for tools in self.tool_sets]}
                if tool_sets
                else {"tool_set_count": len(self.tool_sets)}
            ),
            "task_counts": dict(self.task_counts),
            "system_prompt": self.system_prompt,
            "design": None if self.design is None else asdict(self.design),
            "reward_version": self.reward_version,
            "replay": self.replay,
            "replay_tolerance": self.replay_tolerance,
        }


def env_card(env: TextEnv) -> EnvCard:
    """The card of ``env``, from its rubric, tasks and declarations; no ``reset`` or ``step``."""
    rubric = env.rubric
    distinct: dict[str, tuple[Mapping[str, Any], ...]] = {}
    for task in env.tasks:
        tools = tuple(env.task_tools(task))
        distinct.setdefault(json.dumps(tools, sort_keys=True, default=str), tools)
    tool_sets = tuple(distinct.values()) if any(distinct.values()) else ()
    return EnvCard(
        env_id=env.spec.id if env.spec is not None else None,
        components=tuple(criterion_rows(rubric)),
        weights=dict(rubric.normalized_weights),
        gates=dict(rubric.gate_thresholds),
        aggregate=rubric.aggregate,
        invalid_penalty=float(rubric.invalid_penalty),
        max_turns=env.max_turns,
        multi_turn=env.multi_turn and (env.max_turns is None or env.max_turns > 1),
        user_turns=env.user_turns,
        tool_sets=tool_sets,
        task_counts={split: len(env.tasks.ids(split)) for split in SPLITS},
        system_prompt=env.system_prompt,
        design=env.design_choice,
        reward_version=env.reward_version,
        replay=env.replay,
        replay_tolerance=float(env.replay_tolerance),
    )
