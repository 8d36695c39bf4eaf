"""Reward design on episodes already played: rescore them under other weightings and see what changes.

An episode's final ``info["reward_components"]`` ``c`` is all a weighting needs. Each scheme is a
:class:`~rewardlab.wrappers.ReweightRubric` preset; its rubric recombines ``c`` as the wrapper does on
an episode's final step (:meth:`rewardlab.core.Rubric.combine`)::

    R_s(e) = rubric_s.combine(c_e)        when the env scored e usable
    R_s(e) = the env's invalid_penalty    when it did not (ReweightRubric keeps it too)

Episodes that an infrastructure fault ended (``infra_error``) are dropped and counted, never scored.

For the reference scheme ``a`` (equal weighting) and a scheme ``b`` over the same n episodes:

- Kendall's tau-b, ties allowed (:func:`kendall_tau_b`): ``τ_b = (P − Q) / sqrt((P + Q + T_a)(P + Q + T_b))``,
  with P concordant pairs, Q discordant pairs, T_a pairs tied under ``a`` only and T_b under ``b`` only
  (pairs tied under both count in neither). NaN when a scheme gives every episode the same reward, or n < 2.
- Flipped pairs (:func:`flipped_pairs`): pairs strictly ordered one way under ``a`` and strictly the other
  way under ``b``; that is Q. A tie on either side is no flip: ties lower τ_b without flipping anything.
- Agent ranking (:func:`ranking`): agents by mean rescored reward, best first, with means within 1e-9 tied.
  It *changes* when its groups of tied agents, in order, differ from the reference's.

The three schemes of an env (:func:`default_schemes`) follow one rule, with the components per env family
in :data:`DESIGN_CHOICES` (each with its reason):

- ``equal``: ``w_k = 1/K``.
- ``targeted:<primary>``: half of the weight on the env's *primary outcome* component, the one that says
  whether the task itself was done (the database state, the tests resolved, the page's success), the rest
  spread equally over the other components.
- ``gated:<validity>``: equal weights, and the reward is ``invalid_penalty`` unless the env's *validity*
  component, the one that says whether the output is usable at all (the env's own gate where it has one,
  else its format or validity check; MiniWoB, which has neither, gates on the page's own reward), reaches 1.

:func:`audits_within` runs ``rewardlab.audit`` on as many envs as a time budget allows, cheapest first, from
an estimate of each audit's time (:func:`audit_episode_count` episodes at the env's measured seconds per
episode); :func:`report_markdown` and :func:`report_json` write the section that ``rewardlab demo`` prints.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from rewardlab.audit import GENERIC, AuditReport
from rewardlab.core.rubric import Rubric
from rewardlab.errors import ConfigError, RewardLabError
from rewardlab.wrappers import ReweightRubric

REFERENCE = "equal"
"""The label of the scheme every other one is compared with."""

TIE_TOLERANCE = 1e-9
"""Agent means closer than this are tied in a ranking."""


@dataclass(frozen=True)
class DesignChoice:
    """The components an env family's targeted and gated schemes use, and why."""

    target: str
    gate: str
    why_target: str
    why_gate: str


_SWE = DesignChoice(
    "resolved",
    "applies",
    "every FAIL_TO_PASS and PASS_TO_PASS test passes: SWE-bench's verdict",
    "the patch applies, changes code and leaves the test patch applicable",
)
_SLIDES = DesignChoice(
    "content",
    "structure",
    "grounded evidence for each key point (the three format components are scaled by it)",
    "schema, title and closing slides, slide count: whether the deck is a valid deck",
)

DESIGN_CHOICES: dict[str, DesignChoice] = {
    "BFCL": DesignChoice(
        "values",
        "format",
        "the needed argument values among BFCL's possible answers: the answer itself",
        "bare JSON calls (times values): whether BFCL can read the output at all",
    ),
    "BFCLMultiTurn": DesignChoice(
        "turns",
        "format",
        "turns passing every BFCL check: BFCL's own multi-turn verdict",
        "the documented-format share of the actions (times the content)",
    ),
    "BPMN": DesignChoice(
        "semantic",
        "validity",
        "the model describes the asked process (syntactic and pragmatic are scaled by it)",
        "well-formed, XSD-valid BPMN: the env's own gate",
    ),
    "MiniWoB": DesignChoice(
        "success",
        "page_reward",
        "the page's full reward in the minimum of actions: the task's success",
        "no validity component: the page's own reward, which efficiency is built on",
    ),
    "SWE": _SWE,
    "SWERepo": _SWE,
    "Slides": _SLIDES,
    "SlidesAgent": _SLIDES,
    "ToolCall": DesignChoice(
        "state",
        "format",
        "the final database equals the expected one: what the task asks for",
        "actions in the documented format (scaled by task progress)",
    ),
    "Web": DesignChoice(
        "success",
        "validity",
        "every site in its goal state and an unhedged answer: the task's success",
        "progress times the share of valid actions",
    ),
}
"""Targeted and gated components per env family (the env id without namespace and version)."""


def env_family(env_id: str) -> str:
    """``"RewardLab/ToolCall-v3"`` -> ``"ToolCall"``: the id without its namespace and version.

    Example:
        >>> env_family("RewardLab/SWERepo-v1")
        'SWERepo'
    """
    return env_id.rpartition("/")[2].rpartition("-v")[0] or env_id


def design_choice(env_id: str) -> DesignChoice:
    """The env family's :class:`DesignChoice`; ConfigError for a family without one."""
    family = env_family(env_id)
    if family not in DESIGN_CHOICES:
        raise ConfigError(f"no reward-design choice for {env_id}; families with one: {sorted(DESIGN_CHOICES)}")
    return DESIGN_CHOICES[family]


def default_schemes(env_id: str) -> dict[str, str]:
    """``{label: ReweightRubric preset}``: equal, targeted on the primary outcome, gated on validity.

    Example:
        >>> default_schemes("RewardLab/ToolCall-v3")
        {'equal': 'equal', 'targeted': 'targeted:state', 'gated': 'gated:format'}
    """
    choice = design_choice(env_id)
    return {REFERENCE: "equal", "targeted": f"targeted:{choice.target}", "gated": f"gated:{choice.gate}"}


@dataclass(frozen=True)
class Scheme:
    """One weighting: the rubric of ``ReweightRubric(env, preset)`` and the env's invalid penalty.

    Attributes:
        label: What tables call it (``equal``, ``targeted``, ``gated``).
        preset: The ReweightRubric scheme (``targeted:state``).
        rubric: The wrapper's :attr:`~rewardlab.wrappers.ReweightRubric.rubric`: what recombines components.
        invalid_penalty: The env's ``invalid_penalty``, the reward of an episode it scored unusable.
    """

    label: str
    preset: str
    rubric: Rubric
    invalid_penalty: float

    @classmethod
    def of(cls, env: gym.Env, label: str, preset: str) -> Scheme:
        """The scheme ``preset`` on ``env`` (a RewardLab env, wrapped or not)."""
        wrapper = ReweightRubric(env, preset)
        return cls(label, preset, wrapper.rubric, wrapper.env_invalid_penalty)

    def reward(self, components: Mapping[str, float], usable: bool = True) -> float:
        """``R_s``: the rubric's combination of ``components``, or the env's invalid penalty when unusable."""
        return self.rubric.combine(components)[0] if usable else self.invalid_penalty


def env_schemes(env: gym.Env, presets: Mapping[str, str]) -> list[Scheme]:
    """A :class:`Scheme` per ``{label: preset}``, in order; the first is the reference."""
    return [Scheme.of(env, label, preset) for label, preset in presets.items()]


@dataclass(frozen=True)
class Episode:
    """A played episode, as rescoring needs it."""

    agent: str
    task_id: str
    seed: int | None
    components: Mapping[str, float]
    usable: bool = True

    @property
    def label(self) -> str:
        return f"{self.agent} {self.task_id} (seed {self.seed})"


def entry_episodes(entries: Iterable[Mapping[str, Any]], env_id: str) -> tuple[list[Episode], int]:
    """Every episode of ``env_id``'s leaderboard entries (their ``per_episode``), agent by agent, and how many
    were dropped because an infrastructure fault ended them."""
    episodes, dropped = [], 0
    for entry in entries:
        if entry["env"] != env_id:
            continue
        for record in entry["per_episode"]:
            if record.get("infra_error"):
                dropped += 1
                continue
            components = record["components"]
            usable = bool(record.get("usable", True))
            episodes.append(Episode(entry["agent"], record["task_id"], record["seed"], components, usable))
    return episodes, dropped


def kendall_tau_b(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b of two rankings of the same items (formula: the module docstring); NaN when either is
    constant or there are fewer than two items."""
    from scipy.stats import kendalltau

    if len(a) != len(b):
        raise ConfigError(f"tau needs two rankings of the same items, got {len(a)} and {len(b)} values")
    if len(a) < 2:
        return math.nan
    return float(kendalltau(a, b).statistic)


def flipped_pairs(a: Sequence[float], b: Sequence[float]) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)`` with item i strictly above j under ``a`` and strictly below it under ``b``.

    Example:
        >>> flipped_pairs([3, 2, 1], [1, 2, 2])
        [(0, 1), (0, 2)]
    """
    found = []
    for i, j in itertools.combinations(range(len(a)), 2):
        if a[i] > a[j] and b[i] < b[j]:
            found.append((i, j))
        elif a[i] < a[j] and b[i] > b[j]:
            found.append((j, i))
    return found


def agent_means(episodes: Sequence[Episode], rewards: Sequence[float]) -> dict[str, float]:
    """Mean reward per agent, agents in order of first appearance."""
    by_agent: dict[str, list[float]] = {}
    for episode, reward in zip(episodes, rewards, strict=True):
        by_agent.setdefault(episode.agent, []).append(float(reward))
    return {agent: statistics.fmean(values) for agent, values in by_agent.items()}


def ranking(means: Mapping[str, float], tolerance: float = TIE_TOLERANCE) -> list[list[str]]:
    """Agents by mean, best first, as groups of tied agents (names sorted within a group).

    Example:
        >>> ranking({"random": 0.0, "oracle": 1.0, "model": 0.0})
        [['oracle'], ['model', 'random']]
    """
    groups: list[list[str]] = []
    previous = math.inf
    for agent, mean in sorted(means.items(), key=lambda item: -item[1]):
        if groups and previous - mean <= tolerance:
            groups[-1].append(agent)
        else:
            groups.append([agent])
        previous = mean
    return [sorted(group) for group in groups]


def ranking_text(groups: Sequence[Sequence[str]]) -> str:
    """``oracle > model = random``."""
    return " > ".join(" = ".join(group) for group in groups)


@dataclass
class SchemeRow:
    """One scheme's rescoring of an env's episodes, against the reference."""

    label: str
    preset: str
    weights: dict[str, float]
    gates: dict[str, float]
    rewards: list[float]
    tau: float
    flips: list[tuple[str, str]]
    agent_means: dict[str, float]
    ranking: list[list[str]]
    ranking_changed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "preset": self.preset,
            "weights": self.weights,
            "gates": self.gates,
            "rewards": self.rewards,
            "kendall_tau_b": None if math.isnan(self.tau) else self.tau,
            "flipped_pairs": len(self.flips),
            "flips": [list(pair) for pair in self.flips],
            "agent_means": self.agent_means,
            "ranking": self.ranking,
            "ranking_changed": self.ranking_changed,
        }


@dataclass
class EnvDesign:
    """Every scheme's rescoring of one env's episodes; ``rows[0]`` is the reference."""

    env_id: str
    episodes: list[Episode]
    dropped: int
    rows: list[SchemeRow]
    choice: DesignChoice | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "choice": None if self.choice is None else vars(self.choice),
            "episodes": [{"agent": e.agent, "task_id": e.task_id, "seed": e.seed} for e in self.episodes],
            "dropped_infra_error": self.dropped,
            "schemes": [row.to_json() for row in self.rows],
        }

    def format_markdown(self, max_flips: int = 3) -> str:
        """The env's heading, its scheme choice, and a table: τ, flips, mean per agent, ranking."""
        counts = ", ".join(f"{agent} {n}" for agent, n in _counts(self.episodes).items())
        lines = [f"### {self.env_id}", ""]
        if self.choice is not None:
            lines += [
                f"- targeted on `{self.choice.target}`: {self.choice.why_target}.",
                f"- gated on `{self.choice.gate}` (at 1): {self.choice.why_gate}.",
            ]
        lines += [
            f"- {len(self.episodes)} episodes ({counts}); dropped for an infrastructure fault: {self.dropped}.",
            "",
        ]
        agents = list(self.rows[0].agent_means)
        lines += [
            "| scheme | preset | Kendall τ vs equal | flipped pairs | "
            + " | ".join(agents)
            + " | agent ranking | ranking changed |",
            "|---|---|---:|---:|" + "---:|" * len(agents) + "---|---|",
        ]
        for index, row in enumerate(self.rows):
            means = " | ".join(f"{row.agent_means[agent]:.3f}" for agent in agents)
            changed = "—" if index == 0 else ("**yes**" if row.ranking_changed else "no")
            lines.append(
                f"| {row.label} | `{row.preset}` | {_tau_text(row.tau)} | {len(row.flips)} | {means} | "
                f"{ranking_text(row.ranking)} | {changed} |"
            )
        for row in self.rows[1:]:
            if row.flips:
                shown = "; ".join(f"{a} over {b}" for a, b in row.flips[:max_flips])
                more = f" (and {len(row.flips) - max_flips} more)" if len(row.flips) > max_flips else ""
                lines += ["", f"Flipped under {row.label} (above under equal, below under {row.label}): {shown}{more}."]
        return "\n".join(lines)


def _counts(episodes: Iterable[Episode]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for episode in episodes:
        counts[episode.agent] = counts.get(episode.agent, 0) + 1
    return counts


def _tau_text(tau: float) -> str:
    return "n/a (all tied)" if math.isnan(tau) else f"{tau:.3f}"


def design_env(
    env_id: str,
    episodes: Sequence[Episode],
    schemes: Sequence[Scheme],
    *,
    dropped: int = 0,
    choice: DesignChoice | None = None,
) -> EnvDesign:
    """Rescore ``episodes`` under every scheme and compare each with ``schemes[0]`` (τ, flips, agent ranking)."""
    if not schemes:
        raise ConfigError("design_env needs at least the reference scheme")
    if not episodes:
        raise ConfigError(f"{env_id}: no episodes to rescore")
    labels = [episode.label for episode in episodes]
    rows: list[SchemeRow] = []
    reference: np.ndarray | None = None
    for scheme in schemes:
        rewards = np.array([scheme.reward(e.components, e.usable) for e in episodes])
        if reference is None:
            reference = rewards
        means = agent_means(episodes, rewards)
        groups = ranking(means)
        rows.append(
            SchemeRow(
                label=scheme.label,
                preset=scheme.preset,
                weights=dict(scheme.rubric.normalized_weights),
                gates=dict(scheme.rubric.gate_thresholds),
                rewards=[float(r) for r in rewards],
                tau=kendall_tau_b(reference, rewards),
                flips=[(labels[i], labels[j]) for i, j in flipped_pairs(reference, rewards)],
                agent_means=means,
                ranking=groups,
                ranking_changed=bool(rows) and groups != rows[0].ranking,
            )
        )
    return EnvDesign(env_id, list(episodes), dropped, rows, choice)


def audit_episode_count(env: gym.Env, tasks: int, split: str = "test") -> int:
    """The episodes ``audit_env(..., episodes=tasks)`` plays: the oracle on the tasks and on one constant task
    of the other split, and every strategy of the battery (the generic ones the env keeps, and its own) on the
    tasks."""
    base = env.unwrapped
    profile = base.audit_profile()
    strategies = sum(s.name not in profile.skip_generic for s in GENERIC) + len(profile.strategies)
    played = min(tasks, len(base.tasks.ids(split)))
    return (strategies + 1) * played + 1


def seconds_per_episode(
    entries: Iterable[Mapping[str, Any]], env_id: str, agents: Sequence[str] = ("random", "oracle")
) -> float:
    """The mean wall time of ``env_id``'s episodes by ``agents`` (their ``per_episode`` ``seconds``; NaN when
    none was measured): the cost of an audit episode, which plays no model."""
    seconds = [
        record["seconds"]
        for entry in entries
        if entry["env"] == env_id and entry["agent"] in agents
        for record in entry["per_episode"]
        if record.get("seconds") is not None
    ]
    return statistics.fmean(seconds) if seconds else math.nan


class EnvCatalog:
    """What the section needs from each env a run makes, taken once per env id so that no env is made again:
    its schemes (:func:`default_schemes`) and its audit's size (:func:`audit_episode_count`). Pass it as
    :func:`~rewardlab.leaderboard.runner.run_suite`'s ``on_env``.

    Attributes:
        schemes: ``{env_id: [Scheme, ...]}``. audit_episodes: ``{env_id: episodes}``.
    """

    def __init__(self, audit_tasks: int):
        self.audit_tasks = audit_tasks
        self.schemes: dict[str, list[Scheme]] = {}
        self.audit_episodes: dict[str, int] = {}

    def __call__(self, env_id: str, env: gym.Env) -> None:
        if env_id not in self.schemes:
            self.schemes[env_id] = env_schemes(env, default_schemes(env_id))
            self.audit_episodes[env_id] = audit_episode_count(env, self.audit_tasks)


@dataclass
class AuditRun:
    """Audits run within a time budget: each report with its seconds, and the envs skipped with why."""

    budget_s: float
    tasks: int
    reports: dict[str, tuple[AuditReport, float]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return sum(seconds for _, seconds in self.reports.values())


def audits_within(
    estimates: Mapping[str, float],
    budget_s: float,
    audit: Callable[[str], AuditReport],
    *,
    tasks: int,
    clock: Callable[[], float] = time.monotonic,
) -> AuditRun:
    """Run ``audit(env_id)`` on the envs of ``estimates`` (``{env_id: estimated seconds}``), cheapest first,
    while the estimate fits in what is left of ``budget_s`` (the time actually spent is what is subtracted);
    an env that does not fit, or whose audit raises a RewardLabError (a missing dependency), is skipped with
    the reason. Reports and skips are listed in the order of ``estimates``."""
    run = AuditRun(budget_s, tasks)
    left = budget_s
    for env_id, estimate in sorted(estimates.items(), key=lambda item: item[1]):
        if not estimate <= left:  # NaN (nothing measured) does not fit either
            run.skipped[env_id] = f"estimated {estimate:.1f} s, {max(left, 0.0):.1f} s of the budget left"
            continue
        start = clock()
        try:
            report = audit(env_id)
        except RewardLabError as exc:
            run.skipped[env_id] = f"{type(exc).__name__}: {exc}"
            left -= clock() - start
            continue
        seconds = clock() - start
        run.reports[env_id] = (report, seconds)
        left -= seconds
    order = list(estimates)
    run.reports = dict(sorted(run.reports.items(), key=lambda item: order.index(item[0])))
    run.skipped = dict(sorted(run.skipped.items(), key=lambda item: order.index(item[0])))
    return run


def report_markdown(designs: Sequence[EnvDesign], audits: AuditRun | None = None) -> str:
    """The section: what the schemes are, an overview across envs, each env's table, then the audit's."""
    others = [row.label for row in designs[0].rows[1:]] if designs else []
    changed = {
        label: [d.env_id for d in designs for r in d.rows if r.label == label and r.ranking_changed] for label in others
    }
    flips = {label: sum(len(r.flips) for d in designs for r in d.rows if r.label == label) for label in others}
    lines = [
        "## Reward design: the same episodes under equal, targeted and gated weighting",
        "",
        "The episodes of the leaderboard, rescored from their reward components with"
        " `rewardlab.wrappers.ReweightRubric` presets: `equal` (every component 1/K), `targeted` (half of the"
        " weight on the env's primary outcome component) and `gated` (equal weights, and the env's invalid"
        " penalty unless its validity component is 1). Kendall τ is tau-b of the episodes' rewards against"
        " equal weighting; a flipped pair is two episodes whose order swaps.",
        "",
    ]
    for label in others:
        envs = ", ".join(changed[label]) or "none"
        lines.append(
            f"- {label}: the agent ranking changes on {len(changed[label])} of {len(designs)} envs ({envs});"
            f" {flips[label]} episode pairs flip."
        )
    lines += ["", "| env | " + " | ".join(f"τ {o} | flips {o} | ranking changed ({o})" for o in others) + " |"]
    lines.append("|---|" + "---:|---:|---|" * len(others))
    for design in designs:
        cells = []
        for row in design.rows[1:]:
            cells += [_tau_text(row.tau), str(len(row.flips)), "**yes**" if row.ranking_changed else "no"]
        lines.append(f"| {design.env_id} | " + " | ".join(cells) + " |")
    for design in designs:
        lines += ["", design.format_markdown()]
    if audits is not None:
        lines += ["", *_audit_markdown(audits)]
    return "\n".join(lines) + "\n"


def _audit_markdown(audits: AuditRun) -> list[str]:
    lines = [
        "## Audit: each degenerate strategy against the oracle",
        "",
        f"`rewardlab.audit` on {audits.tasks} test tasks per strategy, cheapest env first, within a budget of"
        f" {audits.budget_s:.1f} s ({audits.seconds:.1f} s spent). `rewardlab audit ENV` runs the full audit.",
    ]
    flagged = [f"{env_id} {name}" for env_id, (report, _) in audits.reports.items() for name in report.flagged_names]
    lines.append(f"Flagged: {', '.join(flagged)}." if flagged else "No strategy flagged.")
    for report, seconds in audits.reports.values():
        lines += ["", report.format_table(), "", f"Audited in {seconds:.2f} s."]
    if audits.skipped:
        lines += ["", "Not audited here:", ""]
        lines += [f"- {env_id}: {reason}" for env_id, reason in audits.skipped.items()]
    return lines


def report_json(designs: Sequence[EnvDesign], audits: AuditRun | None = None) -> dict[str, Any]:
    """The section as data: every env's schemes and, when run, the audits (each report with its seconds)."""
    document: dict[str, Any] = {"reference": REFERENCE, "envs": [design.to_json() for design in designs]}
    if audits is not None:
        document["audit"] = {
            "tasks": audits.tasks,
            "budget_s": audits.budget_s,
            "seconds": audits.seconds,
            "reports": [{**report.to_json(), "seconds": seconds} for report, seconds in audits.reports.values()],
            "skipped": audits.skipped,
        }
    return document
