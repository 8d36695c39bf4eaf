"""The rescore engine: recorded episodes re-scored under compositions, or replayed under other env arguments.

Records (:func:`~rewardlab.core.records.read_episodes`) are grouped by the ``reward_version`` that scored them:
rewards of two versions are not comparable, so :func:`rescore` refuses records of several versions unless
``allow_mixed``, and then reports each version's records apart (a :class:`VersionGroup` each). Records that an
infrastructure fault ended (``infra_error``) are dropped and counted, never scored; so are records without
components (an env that reports none).

Two ways to re-score a group:

- **compositions** (the default): each episode's recorded components are recombined under every
  :class:`~rewardlab.rescore.compositions.Composition`; no env step runs (the env is only made, once per group,
  for its rubric);
- **replay** (``env_kwargs``): every record is replayed (:func:`rewardlab.core.replay.replay`) on the env made
  with the record's id and arguments updated by ``env_kwargs`` (``{}``: the current code and data as they are),
  and compared with the recording: the rows ``recorded`` and ``replayed``, then the compositions over the
  replayed components. Replays that do not end, or end on an infrastructure fault, are dropped and counted;
  under an unchanged ``reward_version`` a replay that differs from its record beyond the env's declared
  tolerance counts as *drift*.

Per composition (a :class:`Row`), over the group's n episodes with rewards ``R`` and successes ``S``:

    reward, success, each component:  mean ± 1.96 · s / √n      (s: sample std; 0 when n = 1)

the same per label (the RecordEpisodes ``label``, or any record key given as ``group_by``), the labels ranked by
mean reward (:func:`~rewardlab.leaderboard.ranking.ranking`, ties within 1e-9), and against the first row, the
reference: Kendall's τ_b of the episodes' rewards and the number of episode pairs that flip (strictly ordered
one way under the reference and the other way here, counted in O(n log n): :func:`discordant_pairs`), and
τ_b of the labels' means with the label pairs that flip (:mod:`rewardlab.leaderboard.ranking`).
"""

from __future__ import annotations

import glob
import json
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import orjson

from rewardlab.core.replay import compare, replay, tolerance_of
from rewardlab.core.rubric import aggregate
from rewardlab.errors import ConfigError
from rewardlab.leaderboard.ranking import flipped_pairs, kendall_tau_b, ranking
from rewardlab.rescore.compositions import (
    RECORDED,
    REPLAYED,
    BuiltComposition,
    Composition,
    build,
)

UNLABELLED = "(unlabelled)"
"""The label of records whose ``group_by`` key is missing or null."""
DRIFT_EXAMPLES = 5
"""Drifted replays shown by name, per group."""

MakeEnv = Callable[..., gym.Env[Any, Any]]


# ------------------------------------------------------------------------------------------------ statistics
def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """``(mean, 1.96 · s / √n)``: :func:`rewardlab.evaluation.mean_ci95`'s normal-approximation interval, with
    numpy (NaNs when empty, half-width 0 for one value)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = float(np.mean(values))
    return mean, (0.0 if n < 2 else float(1.96 * np.std(values, ddof=1) / math.sqrt(n)))


def _tie_pairs(*columns: np.ndarray) -> int:
    """Pairs of items equal in every column: the runs of equal rows once sorted."""
    n = len(columns[0])
    order = np.lexsort(columns[::-1])
    change = np.zeros(n - 1, dtype=bool)
    for column in columns:
        ordered = column[order]
        change |= ordered[1:] != ordered[:-1]
    runs = np.diff(np.concatenate(([0], np.flatnonzero(change) + 1, [n])))
    return int(np.sum(runs * (runs - 1) // 2))


def _tau(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`~rewardlab.leaderboard.ranking.kendall_tau_b` of two arrays (scipy reads them as they are)."""
    return kendall_tau_b(cast(Sequence[float], a), cast(Sequence[float], b))


def discordant_pairs(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> int:
    """The number of pairs strictly ordered one way under ``a`` and strictly the other way under ``b`` (the
    length of :func:`~rewardlab.leaderboard.ranking.flipped_pairs`), in O(n log n): with n0 = n(n−1)/2 pairs,
    T_a, T_b the pairs tied under ``a``, under ``b`` and T_ab under both, P − Q from Kendall's τ_b::

        P + Q = n0 − T_a − T_b + T_ab,   P − Q = τ_b · √((n0 − T_a)(n0 − T_b)),   Q = ((P + Q) − (P − Q)) / 2

    Example:
        >>> discordant_pairs([3, 2, 1], [1, 2, 2]), len(flipped_pairs([3, 2, 1], [1, 2, 2]))
        (2, 2)
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n = len(x)
    if n < 2:
        return 0
    n0 = n * (n - 1) // 2
    tied_a, tied_b, tied_both = _tie_pairs(x), _tie_pairs(y), _tie_pairs(x, y)
    untied = n0 - tied_a - tied_b + tied_both
    if tied_a == n0 or tied_b == n0:
        return 0
    tau = _tau(x, y)
    difference = tau * math.sqrt((n0 - tied_a) * (n0 - tied_b))
    return int(round((untied - difference) / 2))


# ------------------------------------------------------------------------------------------------ records
def expand(patterns: Sequence[str | Path], *, base: Path | None = None) -> list[Path]:
    """The files of ``patterns`` (paths or globs, relative to ``base`` when given), each once, in order;
    ConfigError for a pattern that matches nothing."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        text = str(Path(base, pattern) if base is not None else pattern)
        matches = sorted(glob.glob(text, recursive=True)) if glob.has_magic(text) else [text]
        files = [Path(m) for m in matches if Path(m).is_file()]
        if not files:
            raise ConfigError(f"no recorded episodes at {text!r}: give JSONL files written by RecordEpisodes")
        found.update(dict.fromkeys(files))
    return list(found)


def load_records(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Every record of every file, in order, as :func:`~rewardlab.core.records.read_episodes` reads them (a
    partial last line is skipped); parsed with :func:`loads_record` (orjson: 4-5x faster than :mod:`json` on
    records that carry long observations)."""
    records: list[dict[str, Any]] = []
    for path in paths:
        try:
            with open(path, "rb") as file:
                records.extend(loads_record(line) for line in file if line.endswith(b"\n") and line.strip())
        except OSError as exc:
            raise ConfigError(f"cannot read recorded episodes from {str(path)!r}: {exc}") from exc
        except ValueError as exc:
            raise ConfigError(f"{path} holds a line that is not JSON: {exc}") from exc
    return records


def loads_record(line: bytes) -> Any:
    """``orjson.loads``, or :func:`json.loads` for what orjson refuses: NaN and infinities, which ``json.dumps``
    writes."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


def versions(records: Sequence[Mapping[str, Any]]) -> dict[str | None, list[Mapping[str, Any]]]:
    """``{reward_version: records}``, versions in order of first appearance."""
    grouped: dict[str | None, list[Mapping[str, Any]]] = {}
    for record in records:
        grouped.setdefault(record.get("reward_version"), []).append(record)
    return grouped


def mixed_versions_message(grouped: Mapping[str | None, Sequence[Mapping[str, Any]]]) -> str:
    """The refusal of records of several reward versions, listing each stamp with its count and env ids."""
    parts = []
    for stamp, records in grouped.items():
        ids = sorted({str(r.get("env_id")) for r in records})
        parts.append(f"{stamp} ({len(records)} episodes, {', '.join(ids)})")
    return (
        f"the records hold {len(grouped)} reward versions: {'; '.join(parts)}. Rewards scored under different "
        "versions are not comparable: rescore each version's records apart, or pass --allow-mixed "
        "(allow_mixed=True) to report each version apart"
    )


def label_of(record: Mapping[str, Any], key: str) -> str:
    """The value of ``key`` in ``record`` (dotted for nested keys: ``env_kwargs.max_attempts``), as text;
    :data:`UNLABELLED` when it is missing or null."""
    value: Any = record
    for part in key.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return UNLABELLED if value is None else str(value)


def recorded_reward(record: Mapping[str, Any]) -> float:
    """The sum of the record's step rewards; ConfigError for a vector reward (VectorReward records)."""
    rewards = record.get("rewards") or []
    if any(isinstance(r, (list, tuple)) for r in rewards):
        raise ConfigError(
            "the records hold vector rewards (VectorReward), which have no scalar recorded reward: "
            "leave 'recorded' out of the compositions"
        )
    return float(sum(rewards))


# ------------------------------------------------------------------------------------------------ results
@dataclass
class Row:
    """One composition's re-scoring of a group's episodes, against the group's first row (the reference).

    Attributes:
        label: The composition's label. settings: Its settings in one line. reward_version: Its stamp.
        weights, aggregate, gates: Its rubric's (empty for ``recorded`` and ``replayed``).
        rewards: Each episode's reward (not in the JSON).
        reward, success: Mean and 95% CI half-width over the episodes.
        components: ``{component: (mean, half-width)}`` of the components this row scores.
        by_label: ``{label: {"episodes": n, "reward": (mean, hw), "success": (mean, hw)}}``.
        ranking: The labels by mean reward, best first, in groups of ties.
        tau: Kendall's τ_b of the episodes' rewards against the reference (NaN when either is constant).
        flipped_pairs: Episode pairs whose order flips against the reference.
        label_tau: τ_b of the labels' mean rewards against the reference's.
        flipped_labels: Label pairs ``(above under the reference, above here)`` whose order flips.
        ranking_changed: Whether the ranking's groups differ from the reference's.
    """

    label: str
    settings: str
    reward_version: str
    weights: dict[str, float]
    aggregate: str | None
    gates: dict[str, float]
    rewards: np.ndarray = field(repr=False)
    reward: tuple[float, float]
    success: tuple[float, float]
    components: dict[str, tuple[float, float]]
    by_label: dict[str, dict[str, Any]]
    ranking: list[list[str]]
    tau: float = 1.0
    flipped_pairs: int = 0
    label_tau: float = 1.0
    flipped_labels: list[tuple[str, str]] = field(default_factory=list)
    ranking_changed: bool = False

    def label_means(self) -> dict[str, float]:
        """``{label: mean reward}``."""
        return {label: stats["reward"][0] for label, stats in self.by_label.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "composition": self.label,
            "settings": self.settings,
            "reward_version": self.reward_version,
            "weights": self.weights,
            "aggregate": self.aggregate,
            "gates": self.gates,
            "reward": _pair(self.reward),
            "success": _pair(self.success),
            "components": {name: _pair(stat) for name, stat in self.components.items()},
            "by_label": {
                label: {"episodes": s["episodes"], "reward": _pair(s["reward"]), "success": _pair(s["success"])}
                for label, s in self.by_label.items()
            },
            "ranking": self.ranking,
            "kendall_tau_b": _number(self.tau),
            "flipped_pairs": self.flipped_pairs,
            "label_kendall_tau_b": _number(self.label_tau),
            "flipped_labels": [list(pair) for pair in self.flipped_labels],
            "ranking_changed": self.ranking_changed,
        }


@dataclass
class VersionGroup:
    """The records of one ``reward_version`` and their re-scoring.

    Attributes:
        reward_version: The stamp the records were scored under.
        env_id, env_kwargs: The env the records come from (the first record's).
        current_reward_version: The stamp of that env made now (another one: the code, data or graders changed
            since the recording; the compositions still recombine the recorded components).
        replay, replay_tolerance: What the env declares (:data:`~rewardlab.core.card.ReplayFidelity`).
        records: How many records had this stamp. episodes: How many were scored.
        labels: The labels, in order of first appearance.
        dropped_infra_error, dropped_unscored: Records dropped (infrastructure fault; no components).
        replay_env_kwargs: The arguments of the replay env (replay mode), else None.
        replay_dropped: Replays dropped (they did not end, or ended on an infrastructure fault).
        drifted: Replays under an unchanged stamp that differ from their records beyond the tolerance.
        drift_examples: The first of them, with what differs.
        rows: One per composition; ``rows[0]`` is the reference.
    """

    reward_version: str | None
    env_id: str | None
    env_kwargs: dict[str, Any]
    current_reward_version: str | None
    replay: str | None
    replay_tolerance: float
    records: int
    episodes: int
    labels: list[str]
    dropped_infra_error: int = 0
    dropped_unscored: int = 0
    replay_env_kwargs: dict[str, Any] | None = None
    replay_dropped: int = 0
    drifted: int = 0
    drift_examples: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    members: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    """``{label: the indices of its episodes}`` in the rows' ``rewards`` (not in the JSON)."""

    def row(self, label: str) -> Row:
        """The row of composition ``label``."""
        for row in self.rows:
            if row.label == label:
                return row
        labels = [row.label for row in self.rows]
        raise ConfigError(f"no composition {label!r}; the rows are {labels}")

    def to_json(self) -> dict[str, Any]:
        return {
            "reward_version": self.reward_version,
            "env_id": self.env_id,
            "env_kwargs": self.env_kwargs,
            "current_reward_version": self.current_reward_version,
            "replay": self.replay,
            "replay_tolerance": self.replay_tolerance,
            "records": self.records,
            "episodes": self.episodes,
            "labels": self.labels,
            "dropped_infra_error": self.dropped_infra_error,
            "dropped_unscored": self.dropped_unscored,
            "replay_env_kwargs": self.replay_env_kwargs,
            "replay_dropped": self.replay_dropped,
            "drifted": self.drifted,
            "drift_examples": self.drift_examples,
            "compositions": [row.to_json() for row in self.rows],
        }


@dataclass
class RescoreReport:
    """What :func:`rescore` found: one :class:`VersionGroup` per ``reward_version``."""

    groups: list[VersionGroup]
    group_by: str = "label"
    allow_mixed: bool = False

    @property
    def mixed(self) -> bool:
        return len(self.groups) > 1

    def to_json(self) -> dict[str, Any]:
        return {
            "group_by": self.group_by,
            "mixed": self.mixed,
            "groups": [group.to_json() for group in self.groups],
        }


def _pair(stat: tuple[float, float]) -> dict[str, float | None]:
    return {"mean": _number(stat[0]), "ci95": _number(stat[1])}


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


# ------------------------------------------------------------------------------------------------ rescoring
@dataclass
class _Episodes:
    """A group's scored episodes as arrays: the labels' members, successes, usability and the components as a
    matrix (one row per episode, one column per component name of the first record)."""

    records: list[Mapping[str, Any]]
    labels: list[str]
    members: dict[str, np.ndarray]
    success: np.ndarray
    usable: np.ndarray
    names: list[str]
    matrix: np.ndarray
    component_stats: dict[str, tuple[float, float]]

    @classmethod
    def of(cls, records: list[Mapping[str, Any]], group_by: str) -> _Episodes:
        keys = [label_of(r, group_by) for r in records]
        labels = list(dict.fromkeys(keys))
        position = {label: i for i, label in enumerate(labels)}
        index = np.fromiter((position[key] for key in keys), dtype=int, count=len(keys))
        members = {label: np.flatnonzero(index == i) for i, label in enumerate(labels)}
        names = list(records[0]["components"]) if records else []
        row = operator.itemgetter(*names) if names else (lambda components: ())
        try:
            matrix = np.array([row(r["components"]) for r in records], dtype=float)
        except KeyError as exc:
            raise ConfigError(
                f"the records of one reward version name different components ({exc} is missing)"
            ) from None
        matrix = matrix.reshape(len(records), len(names))
        stats = {name: mean_ci(matrix[:, k]) for k, name in enumerate(names)}
        success = np.array([bool(r.get("is_success")) for r in records], dtype=float)
        usable = np.array([r.get("usable") is not False for r in records], dtype=bool)
        return cls(records, labels, members, success, usable, names, matrix, stats)

    def column(self, name: str) -> np.ndarray:
        """The values of component ``name``; ConfigError when the records do not have it."""
        if name not in self.names:
            raise ConfigError(f"the records have no component {name!r}; they have {self.names}")
        return self.matrix[:, self.names.index(name)]


def _row(built: BuiltComposition, rewards: np.ndarray, episodes: _Episodes, reference: Row | None) -> Row:
    by_label: dict[str, dict[str, Any]] = {
        label: {
            "episodes": int(len(where)),
            "reward": mean_ci(rewards[where]),
            "success": mean_ci(episodes.success[where]),
        }
        for label, where in episodes.members.items()
    }
    means = {label: stats["reward"][0] for label, stats in by_label.items()}
    row = Row(
        label=built.composition.label,
        settings=built.composition.describe(),
        reward_version=built.reward_version,
        weights=built.weights,
        aggregate=built.aggregate,
        gates=built.gates,
        rewards=rewards,
        reward=mean_ci(rewards),
        success=mean_ci(episodes.success),
        components=episodes.component_stats,
        by_label=by_label,
        ranking=ranking(means),
    )
    if reference is not None:
        row.tau = _tau(reference.rewards, rewards)
        row.flipped_pairs = discordant_pairs(reference.rewards, rewards)
        before, now = reference.label_means(), means
        labels = list(before)
        a, b = [before[x] for x in labels], [now[x] for x in labels]
        row.label_tau = kendall_tau_b(a, b)
        row.flipped_labels = [(labels[i], labels[j]) for i, j in flipped_pairs(a, b)]
        row.ranking_changed = row.ranking != reference.ranking
    return row


def _score(built: BuiltComposition, episodes: _Episodes) -> np.ndarray:
    """Each episode's reward under a recombining composition: :meth:`Scheme.reward
    <rewardlab.leaderboard.schemes.Scheme.reward>` of every episode, computed a column at a time in the same
    order of floating-point operations as :func:`rewardlab.core.rubric.aggregate` (so bit for bit the same):
    the mean as ``((0 + c_1 w_1) + c_2 w_2) + …``, the min over the columns of weight > 0; the geometric mean, whose
    ``log`` and ``exp`` numpy may round differently from :mod:`math`, episode by episode."""
    assert built.scheme is not None
    rubric, env_penalty = built.scheme.rubric, built.scheme.invalid_penalty
    active = [(episodes.column(name), w) for name, w in rubric.normalized_weights.items() if w > 0]
    if rubric.aggregate == "mean":
        rewards = np.zeros(len(episodes.records))
        for column, weight in active:
            rewards = rewards + column * weight
    elif rubric.aggregate == "min":
        rewards = np.min(np.stack([column for column, _ in active], axis=1), axis=1)
    else:  # each distinct row of components once
        distinct, inverse = np.unique(episodes.matrix, axis=0, return_inverse=True)
        weights, names = rubric.normalized_weights, episodes.names
        values = [aggregate(dict(zip(names, row, strict=True)), weights, "geometric") for row in distinct.tolist()]
        rewards = np.array(values, dtype=float)[inverse.reshape(-1)]
    failed = np.zeros(len(episodes.records), dtype=bool)
    for name, threshold in rubric.gate_thresholds.items():
        failed |= episodes.column(name) < threshold
    rewards = np.where(failed, float(rubric.invalid_penalty), rewards)
    return np.where(episodes.usable, rewards, float(env_penalty))


def default_compositions(env: gym.Env[Any, Any], *, scalar: bool = True) -> list[Composition]:
    """``recorded`` (when the rewards are scalars), then the env's three reward-design schemes (equal,
    targeted on its primary outcome, gated on its validity component:
    :func:`~rewardlab.leaderboard.schemes.default_schemes`), or ``equal`` alone for an env that declares no
    design choice."""
    from rewardlab.leaderboard.schemes import default_schemes

    first = [Composition(RECORDED)] if scalar else []
    if getattr(env.unwrapped, "design_choice", None) is None:
        return [*first, Composition("equal", "equal")]
    return [*first, *(Composition(preset, preset) for preset in default_schemes(env).values())]


def rescore(
    records: Sequence[Mapping[str, Any]],
    compositions: Sequence[Composition] | None = None,
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    group_by: str = "label",
    allow_mixed: bool = False,
    make_env: MakeEnv | None = None,
) -> RescoreReport:
    """Re-score ``records`` under ``compositions`` (default: :func:`default_compositions`), or replay them with
    ``env_kwargs`` (module docstring); ``make_env(env_id, **kwargs)`` makes the envs (default ``gym.make``).

    Raises ConfigError for records of several reward versions without ``allow_mixed``, for records whose env was
    not made with ``gym.make`` (no ``env_id``: their rubric cannot be rebuilt) and for a composition the env
    cannot take.
    """
    if not records:
        raise ConfigError("no recorded episodes to rescore")
    grouped = versions(records)
    if len(grouped) > 1 and not allow_mixed:
        raise ConfigError(mixed_versions_message(grouped))
    maker: MakeEnv = make_env or gym.make
    groups = [
        _rescore_version(stamp, list(members), compositions, env_kwargs, group_by, maker)
        for stamp, members in grouped.items()
    ]
    return RescoreReport(groups, group_by, allow_mixed)


def _rescore_version(
    stamp: str | None,
    records: list[Mapping[str, Any]],
    compositions: Sequence[Composition] | None,
    env_kwargs: Mapping[str, Any] | None,
    group_by: str,
    make_env: MakeEnv,
) -> VersionGroup:
    infra = [r for r in records if r.get("infra_error")]
    kept = [r for r in records if not r.get("infra_error") and r.get("components")]
    unscored = len(records) - len(infra) - len(kept)
    first = kept[0] if kept else records[0]
    env_id = first.get("env_id")
    if env_id is None:
        raise ConfigError(
            f"the records of {stamp} name no env id (their env was not made with gym.make), so their rubric "
            "cannot be rebuilt: record episodes of an env made with gym.make"
        )
    env_ids = sorted({str(r.get("env_id")) for r in records})
    if len(env_ids) > 1:
        raise ConfigError(f"the records of {stamp} come from several envs ({', '.join(env_ids)}); rescore each apart")
    kwargs = dict(first.get("env_kwargs") or {})
    replay_kwargs = None if env_kwargs is None else {**kwargs, **env_kwargs}
    env = make_env(env_id, **(kwargs if replay_kwargs is None else replay_kwargs))
    try:
        base = env.unwrapped
        group = VersionGroup(
            reward_version=stamp,
            env_id=env_id,
            env_kwargs=kwargs,
            current_reward_version=getattr(base, "reward_version", None),
            replay=getattr(base, "replay", None),
            replay_tolerance=tolerance_of(env),
            records=len(records),
            episodes=0,
            labels=[],
            dropped_infra_error=len(infra),
            dropped_unscored=unscored,
            replay_env_kwargs=replay_kwargs,
        )
        if not kept:
            return group
        if replay_kwargs is None:
            sources = {RECORDED: (_Episodes.of(kept, group_by), str(stamp))}
            chosen = list(compositions) if compositions is not None else default_compositions(env, scalar=_scalar(kept))
        else:
            originals, replayed = _replay_all(group, kept, env)
            if not originals:
                return group
            sources = {
                RECORDED: (_Episodes.of(originals, group_by), str(stamp)),
                REPLAYED: (_Episodes.of(replayed, group_by), str(group.current_reward_version)),
            }
            chosen = [Composition(RECORDED), Composition(REPLAYED), *(compositions or [])]
        episodes, source_stamp = sources[REPLAYED] if REPLAYED in sources else sources[RECORDED]
        group.episodes, group.labels, group.members = len(episodes.records), episodes.labels, episodes.members
        reference: Row | None = None
        for composition in chosen:
            if composition.label in (RECORDED, REPLAYED) and composition.pseudo:
                if composition.label not in sources:
                    raise ConfigError(f"{REPLAYED!r} is a row of replays: give env_kwargs (--env-kwargs) to replay")
                data, version = sources[composition.label]
                built = build(composition, env, version)
                rewards = np.array([recorded_reward(r) for r in data.records], dtype=float)
            else:
                data = episodes
                built = build(composition, env, source_stamp)
                rewards = _score(built, data)
            row = _row(built, rewards, data, reference)
            group.rows.append(row)
            reference = reference or row
        return group
    finally:
        env.close()


def _scalar(records: Sequence[Mapping[str, Any]]) -> bool:
    return not any(isinstance(r, (list, tuple)) for record in records for r in (record.get("rewards") or ()))


def _replay_all(
    group: VersionGroup, records: list[Mapping[str, Any]], env: gym.Env[Any, Any]
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """Replay every record; ``(the records kept, their replays)``: replays that did not end or ended on an
    infrastructure fault are dropped (``replay_dropped``); under an unchanged stamp, drift is counted."""
    originals: list[Mapping[str, Any]] = []
    replayed: list[Mapping[str, Any]] = []
    for record in records:
        again = replay(record, env)
        if not again.ended or again.infra_error or not again.components:
            group.replay_dropped += 1
            continue
        if again.reward_version == record.get("reward_version"):
            problems = compare(record, again, group.replay_tolerance)
            if problems:
                group.drifted += 1
                if len(group.drift_examples) < DRIFT_EXAMPLES:
                    group.drift_examples.append(f"{record.get('task_id')} (seed {record.get('seed')}): {problems[0]}")
        originals.append(record)
        replayed.append(again.as_record(record))
    return originals, replayed
