"""rewardlab.leaderboard.reward_design: rescoring played episodes under ReweightRubric presets, Kendall tau-b,
flipped pairs, agent rankings, the audit within a budget, and the per-episode records the runner keeps."""

from __future__ import annotations

import itertools
import json
import math

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rewardlab
from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.audit import AuditReport, StrategyRow, audit_env
from rewardlab.envs.web.env import WebEnv
from rewardlab.errors import ConfigError, MissingDependencyError
from rewardlab.evaluation import EpisodeResult, evaluate, run_episode
from rewardlab.leaderboard import reward_design as design
from rewardlab.leaderboard.results import episode_record
from rewardlab.leaderboard.runner import FinalInfo, play_episodes, run_suite
from rewardlab.wrappers import ReweightRubric

TOOLCALL = "RewardLab/ToolCall-v3"
NAMES = ("format", "schema", "execution", "state", "answer", "efficiency")


def tau_b_by_definition(a, b) -> float:
    """(P - Q) / sqrt((P + Q + T_a)(P + Q + T_b)), counted pair by pair."""
    concordant = discordant = tied_a = tied_b = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        da, db = a[i] - a[j], b[i] - b[j]
        if da == 0 and db == 0:
            continue
        if da == 0:
            tied_a += 1
        elif db == 0:
            tied_b += 1
        elif da * db > 0:
            concordant += 1
        else:
            discordant += 1
    denominator = math.sqrt((concordant + discordant + tied_a) * (concordant + discordant + tied_b))
    return (concordant - discordant) / denominator if denominator else math.nan


paired = st.integers(2, 12).flatmap(
    lambda n: st.tuples(*(st.lists(st.integers(0, 3), min_size=n, max_size=n) for _ in range(2)))
)


@settings(deadline=None)  # the first example imports scipy
@given(paired)
def test_tau_b_is_its_definition_and_flips_are_the_discordant_pairs(pair):
    a, b = pair
    expected = tau_b_by_definition(a, b)
    tau = design.kendall_tau_b(a, b)
    assert (math.isnan(tau) and math.isnan(expected)) or tau == pytest.approx(expected)
    flips = design.flipped_pairs(a, b)
    assert len(flips) == sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in itertools.combinations(range(len(a)), 2))
    assert all(a[i] > a[j] and b[i] < b[j] for i, j in flips)
    assert len(design.flipped_pairs(b, a)) == len(flips) and design.flipped_pairs(a, a) == []


@settings(deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=10, unique=True))
def test_without_ties_tau_counts_the_flips(values):
    reversed_order = [-v for v in values]
    n = len(values)
    assert design.kendall_tau_b(values, values) == pytest.approx(1.0)
    assert design.kendall_tau_b(values, reversed_order) == pytest.approx(-1.0)
    assert len(design.flipped_pairs(values, reversed_order)) == n * (n - 1) // 2


def test_tau_is_nan_when_a_scheme_ties_everything_or_there_is_one_episode():
    assert math.isnan(design.kendall_tau_b([0.0, 0.0, 0.0], [0.1, 0.5, 0.9]))
    assert math.isnan(design.kendall_tau_b([1.0], [1.0]))
    with pytest.raises(ConfigError):
        design.kendall_tau_b([1.0, 2.0], [1.0])


def test_ranking_groups_ties_and_reads_best_first():
    groups = design.ranking({"random": 0.0, "oracle": 1.0, "model": 1e-12, "sft": 0.4})
    assert groups == [["oracle"], ["sft"], ["model", "random"]]
    assert design.ranking_text(groups) == "oracle > sft > model = random"


@pytest.fixture(scope="module")
def toolcall():
    env = gym.make(TOOLCALL)
    yield env
    env.close()


def components(**ones: float) -> dict[str, float]:
    return {name: ones.get(name, 0.0) for name in NAMES}


def test_toolcall_schemes_are_the_reweight_presets(toolcall):
    equal, targeted, gated = design.env_schemes(toolcall, design.default_schemes(TOOLCALL))
    assert (targeted.preset, gated.preset) == ("targeted:state", "gated:format")
    assert targeted.rubric.normalized_weights == pytest.approx({n: 0.5 if n == "state" else 0.1 for n in NAMES})
    assert gated.rubric.gate_thresholds == {"format": 1.0}
    assert equal.reward(components(state=1.0)) == pytest.approx(1 / 6)
    assert targeted.reward(components(state=1.0)) == pytest.approx(0.5)
    assert gated.reward(components(state=1.0, format=0.99)) == 0.0
    assert gated.reward(components(state=1.0, format=1.0)) == pytest.approx(2 / 6)
    assert all(s.reward(components(**dict.fromkeys(NAMES, 1.0)), usable=False) == 0.0 for s in (equal, targeted))


@pytest.mark.parametrize("agent", [OracleAgent, lambda env: RandomAgent(env, seed=3)], ids=["oracle", "random"])
@pytest.mark.parametrize("preset", ["equal", "targeted:state", "gated:format"])
def test_rescoring_gives_what_the_wrapper_pays_on_the_same_episode(agent, preset):
    """An episode played under ReweightRubric, and the same episode played plainly and rescored."""
    wrapped = FinalInfo(ReweightRubric(gym.make(TOOLCALL), preset))
    plain = FinalInfo(gym.make(TOOLCALL))
    try:
        task_id = plain.unwrapped.tasks.ids("test")[1]
        paid = run_episode(wrapped, agent(wrapped), seed=0, task_id=task_id).reward
        run_episode(plain, agent(plain), seed=0, task_id=task_id)
        scheme = design.Scheme.of(plain, preset, preset)
        rescored = scheme.reward(plain.final["reward_components"], plain.final["usable"])
    finally:
        wrapped.close()
        plain.close()
    assert rescored == pytest.approx(paid) and wrapped.final["reweight"]["reward"] == pytest.approx(rescored)


def known_episodes() -> list[design.Episode]:
    """Equal: a 5/6, b 2/6, c 0, d (unusable) 0; targeted on state: b 0.6 above a 0.5; gated on format: as equal."""
    everything_but_state = components(**{n: 1.0 for n in NAMES if n != "state"})
    return [
        design.Episode("a", "t1", 0, everything_but_state),
        design.Episode("b", "t2", 1, components(state=1.0, format=1.0)),
        design.Episode("c", "t3", 2, components()),
        design.Episode("c", "t4", 3, dict.fromkeys(NAMES, 1.0), usable=False),
    ]


def test_design_env_on_known_episodes(toolcall):
    schemes = design.env_schemes(toolcall, design.default_schemes(TOOLCALL))
    result = design.design_env(TOOLCALL, known_episodes(), schemes, choice=design.design_choice(TOOLCALL))
    equal, targeted, gated = result.rows
    assert equal.rewards == pytest.approx([5 / 6, 2 / 6, 0.0, 0.0]) and equal.tau == pytest.approx(1.0)
    assert targeted.rewards == pytest.approx([0.5, 0.6, 0.0, 0.0])
    # pairs: (a, b) discordant; (a, c), (a, d), (b, c), (b, d) concordant; (c, d) tied under both
    assert targeted.tau == pytest.approx(3 / 5)
    assert targeted.flips == [("a t1 (seed 0)", "b t2 (seed 1)")]
    assert equal.ranking == [["a"], ["b"], ["c"]] and targeted.ranking == [["b"], ["a"], ["c"]]
    assert targeted.ranking_changed and not gated.ranking_changed and not equal.ranking_changed
    assert gated.rewards == pytest.approx(equal.rewards) and gated.flips == []
    assert targeted.agent_means == pytest.approx({"a": 0.5, "b": 0.6, "c": 0.0})
    text = result.format_markdown()
    assert "targeted on `state`" in text and "gated on `format` (at 1)" in text
    assert "| targeted | `targeted:state` | 0.600 | 1 | 0.500 | 0.600 | 0.000 | b > a > c | **yes** |" in text
    assert "Flipped under targeted (above under equal, below under targeted): a t1 (seed 0) over b t2 (seed 1)." in text


def test_every_registered_env_has_a_design_choice_and_unknown_ones_are_refused():
    assert {design.env_family(env_id) for env_id in rewardlab.env_ids()} == set(design.DESIGN_CHOICES)
    with pytest.raises(ConfigError, match="no reward-design choice"):
        design.default_schemes("Mine/Other-v0")


@pytest.mark.parametrize("env_id", ["RewardLab/BFCL-v1", "RewardLab/BPMN-v2", "RewardLab/BFCLMultiTurn-v1", TOOLCALL])
def test_the_chosen_components_are_the_envs(env_id):
    env = gym.make(env_id)
    try:
        schemes = design.env_schemes(env, design.default_schemes(env_id))
    finally:
        env.close()
    choice = design.design_choice(env_id)
    assert schemes[1].rubric.normalized_weights[choice.target] == pytest.approx(0.5)
    assert schemes[2].rubric.gate_thresholds == {choice.gate: 1.0}


def test_runner_keeps_every_episode_as_evaluate_plays_it():
    catalog = design.EnvCatalog(audit_tasks=2)
    entries = run_suite([TOOLCALL], ["random", "oracle"], episodes=3, seed=5, progress=False, on_env=catalog)
    random_entry = entries[0]
    expected = evaluate(TOOLCALL, lambda env: RandomAgent(env, seed=5), episodes=3, seed=5)
    assert [(r["task_id"], r["seed"], r["reward"], r["components"]) for r in random_entry["per_episode"]] == [
        (e.task_id, e.seed, e.reward, e.components) for e in expected
    ]
    assert all(r["usable"] and r["infra_error"] is None and r["seconds"] > 0 for r in random_entry["per_episode"])
    assert list(catalog.schemes) == [TOOLCALL] and [s.label for s in catalog.schemes[TOOLCALL]] == [
        "equal",
        "targeted",
        "gated",
    ]
    episodes, dropped = design.entry_episodes(entries, TOOLCALL)
    assert dropped == 0 and [e.agent for e in episodes] == ["random"] * 3 + ["oracle"] * 3
    result = design.design_env(TOOLCALL, episodes, catalog.schemes[TOOLCALL])
    assert result.rows[0].ranking[0] == ["oracle"] and result.rows[0].agent_means["oracle"] == pytest.approx(1.0)
    assert json.loads(json.dumps(entries))[1]["per_episode"][0]["components"] == dict.fromkeys(NAMES, 1.0)


class StopsTheServer:
    """Stops the Web env's page server before its first action: a real infrastructure fault."""

    def __init__(self, env: gym.Env):
        self.env = env

    def reset(self) -> None:
        """Nothing to forget."""

    def act(self, observation: str, info: dict) -> str:
        self.env.unwrapped.server.close()
        return "scroll(down)"


def test_an_infrastructure_fault_is_recorded_and_dropped_not_scored():
    entries = []
    for name, agent in (("stops", StopsTheServer), ("oracle", OracleAgent)):
        _, records = play_episodes(
            "RewardLab/Web-v2", agent, episodes=1, seed=0, split="test", env_kwargs=None, progress=iter
        )
        entries.append({"env": "RewardLab/Web-v2", "agent": name, "per_episode": records})
    faulted, solved = entries[0]["per_episode"][0], entries[1]["per_episode"][0]
    assert faulted["infra_error"] == WebEnv.server_stopped and faulted["usable"] is False
    assert solved["infra_error"] is None and solved["usable"] is True
    episodes, dropped = design.entry_episodes(entries, "RewardLab/Web-v2")
    assert dropped == 1 and [e.agent for e in episodes] == ["oracle"]


def test_episode_record_reads_the_final_info():
    result = EpisodeResult("t1", 4, 0.0, 0.5, False, {"format": 0.5}, steps=2)
    record = episode_record(result, {"usable": False, "infra_error": "sandbox died"}, 1.5)
    assert record == {
        "task_id": "t1",
        "seed": 4,
        "reward": 0.0,
        "score": 0.5,
        "is_success": False,
        "usable": False,
        "infra_error": "sandbox died",
        "components": {"format": 0.5},
        "seconds": 1.5,
    }
    assert episode_record(result)["usable"] is True and episode_record(result)["seconds"] is None


def test_audit_episode_count_is_what_the_audit_plays(toolcall):
    report = audit_env(TOOLCALL, episodes=2)
    # every strategy and the oracle on the audited tasks, plus the oracle on one constant task of the train split
    assert design.audit_episode_count(toolcall, 2) == (len(report.rows) + 1) * len(report.task_ids) + 1


def report(env_id: str) -> AuditReport:
    oracle = StrategyRow("oracle", "the env's oracle", 1.0, 2, 0, 0.0, [], [])
    empty = StrategyRow("empty", "the empty answer", 0.0, 0, 0, 1.0, [], [])
    return AuditReport(env_id, "test", ["t1", "t2"], oracle, [empty], {}, 0.25)


class Clock:
    """A clock that the audits below advance by their durations."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_audits_run_cheapest_first_within_the_budget():
    clock = Clock()
    durations = {"A": 1.5, "B": 0.5, "C": 9.0, "D": 1.0, "E": 0.1}

    def audit(env_id: str) -> AuditReport:
        clock.now += durations[env_id]
        if env_id == "E":
            raise MissingDependencyError("E needs playwright")
        return report(env_id)

    estimates = {"A": 2.0, "B": 0.5, "C": 9.0, "D": 1.0, "E": 0.1, "F": math.nan}
    run = design.audits_within(estimates, 3.5, audit, tasks=2, clock=clock)
    # E (0.1 s spent, then raised), B (0.5), D (1.0): 1.6 s spent, 1.9 s left: A's estimate 2.0 does not fit
    assert list(run.reports) == ["B", "D"] and run.seconds == pytest.approx(1.5)
    assert list(run.skipped) == ["A", "C", "E", "F"] and "E needs playwright" in run.skipped["E"]
    assert run.skipped["A"] == "estimated 2.0 s, 1.9 s of the budget left"


def test_the_report_in_markdown_and_json(toolcall):
    schemes = design.env_schemes(toolcall, design.default_schemes(TOOLCALL))
    result = design.design_env(TOOLCALL, known_episodes(), schemes, choice=design.design_choice(TOOLCALL))
    audits = design.AuditRun(3.0, 2, reports={TOOLCALL: (report(TOOLCALL), 0.4)}, skipped={"X-v0": "too slow"})
    text = design.report_markdown([result], audits)
    assert text.startswith("## Reward design: the same episodes under equal, targeted and gated weighting")
    assert "- targeted: the agent ranking changes on 1 of 1 envs (RewardLab/ToolCall-v3); 1 episode pairs flip." in text
    assert f"| {TOOLCALL} | 0.600 | 1 | **yes** | 1.000 | 0 | no |" in text
    assert "## Audit: each degenerate strategy against the oracle" in text and report(TOOLCALL).format_table() in text
    assert "Audited in 0.40 s." in text and "- X-v0: too slow" in text and "No strategy flagged." in text
    document = json.loads(json.dumps(design.report_json([result], audits), allow_nan=False))
    targeted = document["envs"][0]["schemes"][1]
    assert targeted["kendall_tau_b"] == pytest.approx(0.6) and targeted["ranking_changed"] is True
    assert document["audit"]["reports"][0]["seconds"] == 0.4 and document["audit"]["skipped"] == {"X-v0": "too slow"}
