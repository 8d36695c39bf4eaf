import dataclasses
import json

import pytest

from rewardlab.browser.backends.browser import find_chromium
from rewardlab.cli import main
from rewardlab.errors import ConfigError
from rewardlab.evaluation import EpisodeResult
from rewardlab.leaderboard import (
    load_run,
    make_entry,
    make_run,
    merge_runs,
    to_html,
    to_markdown,
    write_board,
    write_run,
)


def episode(task, seed, reward, components, success=False):
    return EpisodeResult(task, seed, reward, reward, success, components, steps=1)


def entries():
    good = [
        episode("t1", 0, 0.9, {"format": 1.0, "answer": 0.8}, True),
        episode("t2", 1, 0.7, {"format": 1.0, "answer": 0.4}),
    ]
    bad = [episode("t1", 0, 0.1, {"format": 0.2, "answer": 0.0}), episode("t2", 1, 0.3, {"format": 0.6, "answer": 0.0})]
    return [
        make_entry("RewardLab/A-v0", "random", None, "test", bad),
        make_entry("RewardLab/A-v0", "oracle", None, "test", good),
        make_entry("RewardLab/B-v0", "model", "SmolLM2-135M-Instruct", "test", good[:1]),
    ]


def test_entry_statistics():
    entry = entries()[1]
    assert entry["reward"]["mean"] == pytest.approx(0.8)
    assert entry["reward"]["ci95"] == pytest.approx(1.96 * 0.1414213 / 2**0.5, rel=1e-4)
    assert entry["success_rate"] == 0.5 and entry["seeds"] == [0, 1] and entry["task_ids"] == ["t1", "t2"]
    assert entry["components"]["answer"]["mean"] == pytest.approx(0.6)


def test_run_round_trip_is_stamped(tmp_path):
    run = make_run("r1", entries())
    path = write_run(run, tmp_path / "r1")
    loaded = load_run(tmp_path / "r1")
    assert path.name == "results.json" and loaded["entries"] == json.loads(json.dumps(run["entries"]))
    assert loaded["versions"]["gymnasium"] and "python" in loaded["versions"] and "created" in loaded


def test_merge_marks_runs_with_other_seeds_or_tasks():
    base = make_run("base", entries()[:2])
    same = make_run("same", entries()[1:2])
    other_entry = make_entry(
        "RewardLab/A-v0", "oracle", None, "test", [episode("t1", 5, 1.0, {"format": 1.0, "answer": 1.0})]
    )
    other = make_run("other", [other_entry])
    merged = merge_runs([base, same, other])
    flags = {(e["run"], e["agent"]): e["comparable"] for e in merged}
    assert flags == {
        ("base", "random"): True,
        ("base", "oracle"): True,
        ("same", "oracle"): True,
        ("other", "oracle"): False,
    }
    assert "**no**" in to_markdown(merged)


def test_markdown_sorted_by_reward():
    text = to_markdown(entries())
    section = text.split("### RewardLab/A-v0")[1].split("###")[0]
    assert section.index("oracle") < section.index("random")
    assert "| agent | reward | success rate | format | answer | episodes | comparable |" in section
    assert "0.800 ± " in section


def test_html_is_self_contained():
    page = to_html(entries())
    assert "<script>" in page and "<svg" in page
    for external in ("http://", "https://", "src=", "<link"):
        assert external not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_write_board_makes_pngs(tmp_path):
    paths = write_board(entries(), tmp_path)
    pngs = sorted(p.name for p in paths["plots"].iterdir())
    assert pngs == ["RewardLab_A-v0.png", "RewardLab_B-v0.png"]
    assert (paths["plots"] / pngs[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_leaderboard_command_merges(tmp_path, capsys):
    write_run(make_run("one", entries()), tmp_path / "one")
    write_run(make_run("two", entries()[:1]), tmp_path / "two")
    assert main(["leaderboard", str(tmp_path / "one"), str(tmp_path / "two"), "--output", str(tmp_path / "board")]) == 0
    assert (tmp_path / "board" / "leaderboard.html").exists()
    assert "random [two]" in capsys.readouterr().out


def stamped(stamp, *results):
    return [dataclasses.replace(r, reward_version=stamp) for r in results]


def test_an_entry_and_its_episodes_record_the_reward_version():
    good = stamped("rv-aaaaaaaaaaaa", episode("t1", 0, 0.9, {"answer": 0.8}), episode("t2", 1, 0.7, {"answer": 0.4}))
    entry = make_entry("RewardLab/A-v0", "oracle", None, "test", good)
    assert entry["reward_version"] == "rv-aaaaaaaaaaaa"
    assert [e["reward_version"] for e in entry["per_episode"]] == ["rv-aaaaaaaaaaaa"] * 2
    assert make_entry("RewardLab/A-v0", "oracle", None, "test", [episode("t1", 0, 0.9, {})])["reward_version"] is None
    mixed = good[:1] + stamped("rv-bbbbbbbbbbbb", episode("t2", 1, 0.7, {"answer": 0.4}))
    with pytest.raises(ConfigError, match="rv-aaaaaaaaaaaa.*rv-bbbbbbbbbbbb"):
        make_entry("RewardLab/A-v0", "oracle", None, "test", mixed)


def test_an_evaluated_episode_carries_the_stamp_of_its_final_info():
    from rewardlab.agents import OracleAgent
    from rewardlab.envs.echo import EchoEnv
    from rewardlab.evaluation import run_episode

    env = EchoEnv()
    assert run_episode(env, OracleAgent(env), seed=0, task_id="t0").reward_version == env.reward_version


def stamped_run(name, env_stamps):
    """A hand-made results file: per ``(env, stamp)`` an oracle and a random entry (``stamp`` None: an old file)."""
    entries = []
    for env, stamp in env_stamps:
        for agent, reward in (("oracle", 0.9), ("random", 0.2)):
            entry = make_entry(env, agent, None, "test", [episode("t1", 0, reward, {"answer": reward})])
            entries.append({**entry, "reward_version": stamp})
    return make_run(name, entries)


def test_the_leaderboard_groups_by_stamp_and_warns_when_an_env_would_mix_them(tmp_path, capsys):
    old, new = "rv-aaaaaaaaaaaa", "rv-bbbbbbbbbbbb"
    write_run(stamped_run("before", [("RewardLab/A-v0", old), ("RewardLab/B-v0", old)]), tmp_path / "before")
    write_run(stamped_run("after", [("RewardLab/A-v0", new), ("RewardLab/B-v0", old)]), tmp_path / "after")
    board = tmp_path / "board"
    assert main(["leaderboard", str(tmp_path / "before"), str(tmp_path / "after"), "--output", str(board)]) == 0
    out, err = capsys.readouterr()
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "RewardLab/A-v0" in warnings[0] and old in warnings[0] and new in warnings[0]
    markdown = (board / "leaderboard.md").read_text()
    assert markdown in out
    assert markdown.startswith("**warning**: RewardLab/A-v0") and "RewardLab/B-v0:" not in markdown
    sections = {block.split("\n")[0]: block for block in markdown.split("### ")[1:]}
    assert set(sections) == {f"RewardLab/A-v0 ({old})", f"RewardLab/A-v0 ({new})", f"RewardLab/B-v0 ({old})"}
    assert sections[f"RewardLab/A-v0 ({old})"].count("[before]") == 2  # each stamp's table holds only its runs
    assert (
        sections[f"RewardLab/A-v0 ({new})"].count("[after]") == 2
        and "[before]" not in sections[f"RewardLab/A-v0 ({new})"]
    )
    assert (
        sections[f"RewardLab/B-v0 ({old})"].count("[before]")
        == sections[f"RewardLab/B-v0 ({old})"].count("[after]")
        == 2
    )
    assert "warning: RewardLab/A-v0" in (board / "leaderboard.html").read_text()
    pngs = sorted(p.name for p in (board / "plots").iterdir())
    assert pngs == [f"RewardLab_A-v0_{old}.png", f"RewardLab_A-v0_{new}.png", "RewardLab_B-v0.png"]


def test_one_stamp_per_env_gives_no_warning_and_old_files_without_one_are_told_apart(tmp_path, capsys):
    write_run(stamped_run("one", [("RewardLab/A-v0", "rv-aaaaaaaaaaaa")]), tmp_path / "one")
    write_run(stamped_run("two", [("RewardLab/A-v0", "rv-aaaaaaaaaaaa")]), tmp_path / "two")
    write_run(stamped_run("old", [("RewardLab/A-v0", None)]), tmp_path / "old")
    assert main(["leaderboard", str(tmp_path / "one"), str(tmp_path / "two"), "--output", str(tmp_path / "b1")]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err and "warning" not in out
    assert main(["leaderboard", str(tmp_path / "one"), str(tmp_path / "old"), "--output", str(tmp_path / "b2")]) == 0
    out, err = capsys.readouterr()
    assert "warning: RewardLab/A-v0" in err and "None" in err
    assert "### RewardLab/A-v0 (no reward_version)" in out and "### RewardLab/A-v0 (rv-aaaaaaaaaaaa)" in out


@pytest.mark.browser
def test_html_page_in_real_chromium(tmp_path):
    chromium_path = find_chromium()
    if not chromium_path:
        pytest.skip("no Chromium binary (install Debian's chromium or set REWARDLAB_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (extra: web)")
    paths = write_board(entries(), tmp_path)
    errors = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium_path,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        page = browser.new_page()
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(paths["html"].resolve().as_uri())
        table = page.locator("table.board").first
        first_cells = lambda: table.locator("tbody tr td:first-child").all_inner_texts()  # noqa: E731
        assert first_cells() == ["oracle", "random"]  # sorted by reward, best first
        table.locator("th", has_text="reward").first.click()
        assert first_cells() == ["random", "oracle"]  # ascending after one click
        table.locator("th", has_text="reward").first.click()
        assert first_cells() == ["oracle", "random"]
        bars = page.locator("svg.chart rect.bar")
        assert bars.count() >= 6
        widths = [bars.nth(i).bounding_box()["width"] for i in range(bars.count())]
        assert max(widths) > 100 and all(w >= 0 for w in widths)
        page.screenshot(path=str(tmp_path / "leaderboard.png"), full_page=True)
        browser.close()
    assert errors == []
    assert (tmp_path / "leaderboard.png").stat().st_size > 1000


def test_demo_without_model_covers_every_env(tmp_path, capsys):
    import rewardlab

    assert main(["demo", "--no-model", "--episodes", "1", "--audit-seconds", "5", "--results-dir", str(tmp_path)]) == 0
    run = load_run(tmp_path / "demo")
    envs = {(e["agent"], e["env"]) for e in run["entries"]}
    assert envs == {(agent, env_id) for agent in ("random", "oracle") for env_id in rewardlab.env_ids()}
    assert all(e["success_rate"] == 1.0 for e in run["entries"] if e["agent"] == "oracle")
    out = capsys.readouterr().out
    assert "leaderboard page:" in out and (tmp_path / "demo" / "leaderboard.html").exists()


def test_run_suite_records_the_model_budget(monkeypatch):
    from rewardlab.leaderboard import runner

    monkeypatch.setattr(runner, "agent_factory", lambda name, **kwargs: runner.RandomAgent)
    budget = runner.ModelBudget(episodes=1, max_turns=2, max_new_tokens=8)
    entries = runner.run_suite(["RewardLab/ToolCall-v3"], ["model"], episodes=5, model_budget=budget, progress=False)
    assert entries[0]["episodes"] == 1 and entries[0]["budget"] == {"max_turns": 2, "max_new_tokens": 8}
