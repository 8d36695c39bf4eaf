import json

import pytest

from rewardlab.browser.backends.browser import find_chromium
from rewardlab.cli import main
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

    assert main(["demo", "--no-model", "--episodes", "1", "--results-dir", str(tmp_path)]) == 0
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
