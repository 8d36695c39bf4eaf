"""rewardlab.demo.design: the leaderboard's episodes as rescore records, one rescore per env, and the section in
Markdown and JSON."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

from rewardlab.agents import OracleAgent
from rewardlab.demo.design import HEADING, entry_records, rescore_entries, section_json, section_markdown
from rewardlab.envs.web.env import WebEnv
from rewardlab.leaderboard.audit_budget import AuditRun
from rewardlab.leaderboard.runner import play_episodes, run_suite
from rewardlab.leaderboard.schemes import design_choice
from rewardlab.rescore.report import render
from tests.leaderboard.episodes import NAMES, TOOLCALL, components, report

STAMP = "rv-0123456789ab"


def episode(task_id: str, seed: int, reward: float, values: dict[str, float], **info: Any) -> dict[str, Any]:
    """A ``per_episode`` record as the leaderboard runner writes it."""
    return {
        "task_id": task_id,
        "seed": seed,
        "reward": reward,
        "score": reward,
        "is_success": reward == 1.0,
        "usable": info.get("usable", True),
        "infra_error": info.get("infra_error"),
        "reward_version": info.get("reward_version", STAMP),
        "components": values,
        "seconds": 0.1,
    }


def entry(agent: str, *episodes: dict[str, Any], env: str = TOOLCALL, **extra: Any) -> dict[str, Any]:
    return {"agent": agent, "model": None, "env": env, "per_episode": list(episodes), **extra}


def known_entries(stamps: tuple[str, str] = (STAMP, STAMP)) -> list[dict[str, Any]]:
    """Four ToolCall episodes rescored by hand (weights: equal 1/6 each; targeted 0.5 on state, 0.1 on the others;
    gated on format, whose failure pays ToolCall's invalid penalty 0, as does an unusable episode):

    ====  =================  ========  =====  ===========  =====
    agent components         recorded  equal  targeted     gated
    ====  =================  ========  =====  ===========  =====
    a     all but state      5/6       5/6    0.5          5/6
    b     state and format   2/6       2/6    0.6          2/6
    c     none               0         0      0            0
    c     all, unusable      0         0      0            0
    ====  =================  ========  =====  ===========  =====

    The recorded rewards are equal weighting's. Under targeted, the pair (a, b) flips and the agent ranking turns
    from a > b > c to b > a > c; ``first`` stamps agent a's episode, ``second`` the others."""
    first, second = stamps
    everything_but_state = components(**{n: 1.0 for n in NAMES if n != "state"})
    return [
        entry("a", episode("t1", 0, 5 / 6, everything_but_state, reward_version=first)),
        entry("b", episode("t2", 1, 2 / 6, components(state=1.0, format=1.0), reward_version=second)),
        entry(
            "c",
            episode("t3", 2, 0.0, components(), reward_version=second),
            episode("t4", 3, 0.0, dict.fromkeys(NAMES, 1.0), usable=False, reward_version=second),
        ),
    ]


@pytest.fixture(scope="module")
def choice():
    env = gym.make(TOOLCALL)
    try:
        return design_choice(env)
    finally:
        env.close()


def test_records_carry_the_env_the_agent_the_stamp_and_the_components():
    model = entry("model", episode("t9", 7, 0.25, components(format=1.0)), budget={"max_turns": 2})
    other = entry("oracle", episode("x", 0, 1.0, {"exact": 1.0}), env="RewardLab/BFCL-v1")
    records = entry_records([*known_entries(), other, model], TOOLCALL)
    assert [(r["label"], r["task_id"], r["seed"]) for r in records] == [
        ("a", "t1", 0),
        ("b", "t2", 1),
        ("c", "t3", 2),
        ("c", "t4", 3),
        ("model", "t9", 7),
    ]
    assert all(r["env_id"] == TOOLCALL and r["reward_version"] == STAMP for r in records)
    assert records[0]["components"] == components(**{n: 1.0 for n in NAMES if n != "state"})
    assert records[1]["rewards"] == [2 / 6] and records[3]["usable"] is False and records[3]["infra_error"] is None
    assert records[0]["env_kwargs"] == {} and records[-1]["env_kwargs"] == {"max_turns": 2}
    assert records[-1]["is_success"] is False and records[-1]["rewards"] == [0.25]


def test_the_hand_worked_episodes_rescore_as_computed():
    (group,) = rescore_entries(known_entries())[TOOLCALL].groups
    recorded, equal, targeted, gated = group.rows
    assert [row.label for row in group.rows] == ["recorded", "equal", "targeted:state", "gated:format"]
    assert list(recorded.rewards) == pytest.approx([5 / 6, 2 / 6, 0.0, 0.0])
    assert list(equal.rewards) == pytest.approx([5 / 6, 2 / 6, 0.0, 0.0]) and equal.tau == pytest.approx(1.0)
    assert list(targeted.rewards) == pytest.approx([0.5, 0.6, 0.0, 0.0])
    assert list(gated.rewards) == pytest.approx(list(equal.rewards)) and gated.flipped_pairs == 0
    # pairs: (a, b) discordant; (a, c), (a, d), (b, c), (b, d) concordant; (c, d) tied under both
    assert targeted.tau == pytest.approx(3 / 5) and targeted.flipped_pairs == 1
    assert targeted.flipped_labels == [("a", "b")] and targeted.label_means() == pytest.approx(
        {"a": 0.5, "b": 0.6, "c": 0.0}
    )
    assert recorded.ranking == [["a"], ["b"], ["c"]] and targeted.ranking == [["b"], ["a"], ["c"]]
    assert targeted.ranking_changed and not gated.ranking_changed and not equal.ranking_changed


def test_an_infra_error_episode_is_dropped_and_counted_never_scored():
    entries = known_entries()
    entries[2]["per_episode"].append(
        episode("t5", 4, 0.0, dict.fromkeys(NAMES, 1.0), usable=False, infra_error="sandbox died")
    )
    report = rescore_entries(entries)[TOOLCALL]
    (group,) = report.groups
    assert (group.records, group.episodes, group.dropped_infra_error) == (5, 4, 1)
    assert list(group.row("targeted:state").rewards) == pytest.approx([0.5, 0.6, 0.0, 0.0])
    assert "5 records, 4 scored, 1 dropped (infra_error)" in section_markdown({TOOLCALL: report})


class StopsTheServer:
    """Stops the Web env's page server before its first action: a real infrastructure fault."""

    def __init__(self, env: gym.Env):
        self.env = env

    def reset(self) -> None:
        """Nothing to forget."""

    def act(self, observation: str, info: dict) -> str:
        self.env.unwrapped.server.close()
        return "scroll(down)"


def test_a_real_infrastructure_fault_is_recorded_then_dropped():
    entries = []
    for name, agent in (("stops", StopsTheServer), ("oracle", OracleAgent)):
        _, records = play_episodes(
            "RewardLab/Web-v2", agent, episodes=1, seed=0, split="test", env_kwargs=None, progress=iter
        )
        entries.append(entry(name, *records, env="RewardLab/Web-v2"))
    faulted, solved = entries[0]["per_episode"][0], entries[1]["per_episode"][0]
    assert faulted["infra_error"] == WebEnv.server_stopped and faulted["usable"] is False
    assert solved["infra_error"] is None and solved["usable"] is True
    (group,) = rescore_entries(entries)["RewardLab/Web-v2"].groups
    assert group.dropped_infra_error == 1 and group.episodes == 1 and group.labels == ["oracle"]


def test_a_leaderboard_runs_episodes_rescore_from_what_the_env_paid():
    entries = run_suite([TOOLCALL], ["random", "oracle"], episodes=2, seed=5, progress=False)
    (group,) = rescore_entries(entries)[TOOLCALL].groups
    recorded = group.row("recorded")
    assert list(recorded.rewards) == [r["reward"] for e in entries for r in e["per_episode"]]
    assert recorded.ranking[0] == ["oracle"] and recorded.label_means()["oracle"] == pytest.approx(1.0)
    assert group.reward_version == entries[0]["reward_version"] == group.current_reward_version


def test_the_section_in_markdown_and_json(choice):
    reports = rescore_entries(known_entries())
    audits = AuditRun(3.0, done={TOOLCALL: (report(TOOLCALL), 0.4)}, skipped={"X-v0": "too slow"}, tasks=2)
    text = section_markdown(reports, {TOOLCALL: choice}, audits)
    assert text.startswith(HEADING) and "`rewardlab rescore` run on the leaderboard's episodes" in text
    assert "- targeted: the agent ranking changes on 1 of 1 envs (RewardLab/ToolCall-v3); 1 episode pairs flip." in text
    assert "- equal: the agent ranking changes on 0 of 1 envs (none); 0 episode pairs flip." in text
    (line,) = [line for line in text.splitlines() if line.startswith(f"| {TOOLCALL} ")]
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells == [TOOLCALL, "a > b > c", "1.000", "0", "no", "0.600", "1", "**yes**", "1.000", "0", "no"]
    assert f"### {TOOLCALL}\n" in text and f"- targeted on `state`: {choice.why_target}." in text
    assert f"- gated on `format` (at 1): {choice.why_gate}." in text
    rendered = render(reports[TOOLCALL])
    assert f"#### {STAMP}: {TOOLCALL}\n" in text and rendered.partition("\n")[2] in text
    assert "## Audit: each degenerate strategy against the oracle" in text and report(TOOLCALL).format_table() in text
    assert "Audited in 0.40 s." in text and "- X-v0: too slow" in text and "No strategy flagged." in text
    document = json.loads(json.dumps(section_json(reports, {TOOLCALL: choice}, audits), allow_nan=False))
    assert document["reference"] == "recorded"
    assert document["overview"][1] == {
        "composition": "targeted",
        "envs": 1,
        "ranking_changed": [TOOLCALL],
        "flipped_pairs": 1,
    }
    (env,) = document["envs"]
    assert env["env_id"] == TOOLCALL and env["choice"]["target"] == "state" and env["choice"]["gate"] == "format"
    targeted = env["groups"][0]["compositions"][2]
    assert targeted["kendall_tau_b"] == pytest.approx(0.6) and targeted["ranking_changed"] is True
    assert targeted["flipped_labels"] == [["a", "b"]]
    assert document["audit"]["reports"][0]["seconds"] == 0.4 and document["audit"]["skipped"] == {"X-v0": "too slow"}


def test_entries_of_two_reward_versions_are_listed_apart_not_mixed():
    report = rescore_entries(known_entries(("rv-000000000001", "rv-000000000002")))[TOOLCALL]
    assert report.mixed and [(g.reward_version, g.labels) for g in report.groups] == [
        ("rv-000000000001", ["a"]),
        ("rv-000000000002", ["b", "c"]),
    ]
    text = section_markdown({TOOLCALL: report})
    assert "2 reward versions (--allow-mixed): each is reported apart." in text
    assert f"#### rv-000000000001: {TOOLCALL}\n" in text and f"#### rv-000000000002: {TOOLCALL}\n" in text
    assert f"| {TOOLCALL} (rv-000000000002) " in text and f"| {TOOLCALL} (rv-000000000001) " in text
    document = json.loads(json.dumps(section_json({TOOLCALL: report}), allow_nan=False))
    assert [g["reward_version"] for g in document["envs"][0]["groups"]] == ["rv-000000000001", "rv-000000000002"]
