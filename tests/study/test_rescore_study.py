"""``rewardlab study`` with ``mode = "rescore"``: the example spec run on a few recorded BPMN-v2 episodes, the
verdicts checked against the episodes' own rewards, and the spec's checks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rewardlab  # noqa: F401  (registers the env ids)
from benchmarks.record_episodes import record
from rewardlab.cli import main
from rewardlab.core.records import read_episodes
from rewardlab.errors import ConfigError
from rewardlab.study import RescoreStudySpec, load_spec, parse_spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "studies" / "bpmn_rescore.toml"
BPMN = "RewardLab/BPMN-v2"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """Two test tasks of BPMN-v2: the oracle, the random agent and every defect of the oracle's answer, recorded
    where the example spec reads them (relative to the working directory)."""
    workdir = tmp_path_factory.mktemp("bpmn_rescore")
    folder = workdir / "results" / "bpmn_rescore" / "episodes"
    for agent in ("oracle", "random", "defective"):
        assert record(BPMN, folder / f"{agent}.jsonl", agent, episodes=2) > 0
    return workdir


def test_the_example_spec_reports_which_compositions_keep_the_ranking_and_which_reward_defects(
    recorded, monkeypatch, capsys
):
    monkeypatch.chdir(recorded)
    assert main(["study", str(EXAMPLE), "--dry-run"]) == 0
    assert "3 episode file(s), 9 compositions, and a weight grid" in capsys.readouterr().out
    assert main(["study", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    output = recorded / "results" / "bpmn_rescore"
    summary = json.loads((output / "summary.json").read_text())
    assert (output / "summary.md").read_text() in out
    (group,) = summary["groups"]
    rows = {row["composition"]: row for row in group["compositions"]}
    assert len(rows) == 9 + 31 and group["reference"] == "equal"  # 31 weightings of 5 components in {0, 1}
    assert group["reference_ranking"][0] == ["oracle"] and group["reference_ranking"][-1] == ["random"]
    # validity alone pays a defective model (valid XML, one wrong flow) as much as the oracle's
    validity_only = rows["w=1,0,0,0,0"]
    assert validity_only["defects_rewarded"] and validity_only["defect_gap"] == pytest.approx(0.0)
    assert "w=1,0,0,0,0" in group["reward_defects"] and "equal" in group["preserve_ranking"]
    assert not rows["targeted:correctness"]["defects_rewarded"]
    # the verdicts are what the episodes' own rewards say
    episodes = [
        e for name in ("oracle", "random", "defective") for e in read_episodes(output / "episodes" / f"{name}.jsonl")
    ]
    oracle = [e["return"] for e in episodes if e["label"] == "oracle"]
    defective = [e["return"] for e in episodes if e["label"] == "defective"]
    assert rows["equal"]["honest_mean"] == pytest.approx(np.mean(oracle))  # equal is BPMN's own weighting
    assert rows["equal"]["defective_at_or_above_honest_mean"] == sum(r >= np.mean(oracle) for r in defective)
    assert group["defective_successes"] == 0
    assert summary["rescore"]["groups"][0]["episodes"] == len(episodes)


def test_the_rescore_spec_is_checked():
    spec = load_spec(EXAMPLE)
    assert isinstance(spec, RescoreStudySpec) and spec.grid is not None and spec.grid.levels == (0, 1)
    base = {"study": {"name": "r", "mode": "rescore"}, "rescore": {"episodes": ["a.jsonl"], "compositions": ["equal"]}}
    assert parse_spec(base).output == "results/r"
    with pytest.raises(ConfigError, match="mode must be one of.*Did you mean 'rescore'"):
        parse_spec({**base, "study": {"name": "r", "mode": "rescor"}})
    with pytest.raises(ConfigError, match="unknown key 'seeds' in \\[study\\]"):
        parse_spec({**base, "study": {"name": "r", "mode": "rescore", "seeds": [0]}})
    with pytest.raises(ConfigError, match="unknown key 'composition' in \\[rescore\\].*Did you mean 'compositions'"):
        parse_spec({**base, "rescore": {"episodes": ["a.jsonl"], "composition": ["equal"]}})
    with pytest.raises(ConfigError, match="episodes must be a non-empty list"):
        parse_spec({**base, "rescore": {"episodes": [], "compositions": ["equal"]}})
    with pytest.raises(ConfigError, match="honest and defective go together"):
        parse_spec({**base, "rescore": {**base["rescore"], "defective": ["d"]}})
    with pytest.raises(ConfigError, match="needs a preset or weights"):
        parse_spec({**base, "rescore": {"episodes": ["a.jsonl"], "compositions": [{"name": "x"}]}})
    with pytest.raises(ConfigError, match="needs compositions"):
        parse_spec({**base, "rescore": {"episodes": ["a.jsonl"]}})


def test_labels_that_the_records_do_not_have_are_refused(recorded, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(recorded)
    spec = tmp_path / "s.toml"
    spec.write_text(
        '[study]\nname = "s"\nmode = "rescore"\noutput = "' + str(tmp_path / "out") + '"\n'
        '[rescore]\nepisodes = ["results/bpmn_rescore/episodes/*.jsonl"]\n'
        'compositions = ["equal", {name = "semantic_x2", weights = {semantic = 2}}]\n'
        'honest = ["oracle"]\ndefective = ["defectve"]\n'
    )
    assert main(["study", str(spec)]) == 2
    assert "labels ['defectve'] of [rescore] honest/defective" in capsys.readouterr().out
    missing = tmp_path / "missing.toml"
    missing.write_text(spec.read_text().replace("results/bpmn_rescore/episodes/*.jsonl", "nowhere/*.jsonl"))
    assert main(["study", str(missing)]) == 2
    assert "no recorded episodes at" in capsys.readouterr().out
