"""Every command the documentation shows runs as a user types it.

The commands are those of README.md and docs/ (the ``bash`` blocks and every inline
``rewardlab ...``) and every sub-command and action that ``rewardlab --help`` lists. Each test
below runs one or more of them through the real entry point, with the arguments a user would type
but the smallest budgets their options allow, in a fresh working directory (so that the default
``results/...`` paths land there), and checks the files they write. A command in the docs that no
test here runs is a bug: :func:`test_every_documented_command_is_run_here` fails on it.
``bash scripts/setup.sh`` and ``bash scripts/test.sh`` are not run here: CI runs them (``.ci/run``).
The docs also link nothing outside the repository, which is all a user's clone has.
"""

from __future__ import annotations

import argparse
import gzip
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import rewardlab
from rewardlab.cli import COMMANDS, build_parser, main
from tests.conftest import docker_or_skip

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md")))
ENTRY_POINT = Path(sys.executable).with_name("rewardlab")
"""The ``rewardlab`` script pip installed beside this interpreter (``.venv/bin/rewardlab``)."""

RUN_BY_CI = {
    "bash scripts/setup.sh": ("scripts/test.sh", "bash scripts/setup.sh"),
    "bash scripts/test.sh": (".ci/run", "bash scripts/test.sh"),
}
"""Documented commands this module does not run: each maps to (file, line in it) that CI runs."""

RUNS: dict[str, list[str]] = {}
"""Command (``"swe build"``, ``"list"``) -> the tests here that run it; filled by :func:`runs`."""

PNG = b"\x89PNG\r\n\x1a\n"


def runs(*commands: str) -> Callable:
    """Declare which ``rewardlab`` commands a test runs (checked by the coverage test)."""

    def register(test: Callable) -> Callable:
        for command in commands:
            RUNS.setdefault(command, []).append(test.__name__)
        return test

    return register


# ------------------------------------------------------------------ what the documentation shows
def bash_commands(text: str) -> list[str]:
    """Each command of the text's ``bash`` blocks: comments dropped, ``\\`` continuations joined,
    ``a && b`` split in two."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = re.sub(r"(^|\s)#.*", "", line)
            commands += [" ".join(part.split()) for part in line.split("&&") if part.strip()]
    return commands


def code_spans(text: str) -> list[str]:
    """The text's inline code spans and the commands of its bash blocks (other fenced blocks are code)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.findall(r"`([^`\n]+)`", prose) + bash_commands(text)


def action_names(parser: argparse.ArgumentParser) -> list[str]:
    """The names of a sub-command's actions (``swe fetch|build|...``); empty when it has none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def sub_commands() -> dict[str, list[str]]:
    """``rewardlab --help``'s sub-commands, each with its actions."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {name: action_names(parser) for name, parser in action.choices.items()}
    raise AssertionError("rewardlab has no sub-commands")


def documented_commands(text: str) -> set[str]:
    """Every ``rewardlab SUB [ACTION|ACTION...]`` in the text's code, as ``"SUB"`` or ``"SUB ACTION"``."""
    known = sub_commands()
    found = set()
    for span in code_spans(text):
        for sub, rest in re.findall(r"(?:^|[\s/])rewardlab ([a-z][a-z-]*)((?: \S+)?)", span):
            assert sub in known, f"the docs show `rewardlab {sub}`, which is not a sub-command: {span!r}"
            if not known[sub] or not rest.strip():
                found.add(sub)
                continue
            for action in rest.strip().split("|"):
                assert action in known[sub], f"the docs show `rewardlab {sub} {action}`, no such action: {span!r}"
                found.add(f"{sub} {action}")
    return found


def test_the_docs_are_parsed():
    readme = (ROOT / "README.md").read_text()
    assert {"list", "play", "demo", "swe build", "sandbox status", "train grpo"} <= documented_commands(readme)
    assert "bash scripts/test.sh" in bash_commands(readme)
    assert "rewardlab swe build --tasks-per-project 55 --candidates-per-project 200 --output " in " ".join(
        bash_commands(readme)
    )


def test_every_documented_command_is_run_here():
    """README, docs/ and ``rewardlab --help``: each command is run by a test here, or by CI."""
    documented = {"--help"} | set().union(*(documented_commands(path.read_text()) for path in DOCS))
    documented |= {f"{sub} {action}" if action else sub for sub, a in sub_commands().items() for action in a or [""]}
    run_here = set(RUNS) | {command.split()[0] for command in RUNS}
    assert sorted(documented - run_here) == []
    for command, tests in RUNS.items():  # a test that claims a command names its words
        for name in tests:
            source = inspect.getsource(globals()[name])
            assert all(f'"{word}"' in source for word in command.split()), (command, name)


def test_other_documented_commands_are_run_by_ci():
    others = {c for path in DOCS for c in bash_commands(path.read_text()) if not is_rewardlab(c)}
    assert others <= set(RUN_BY_CI), f"documented commands that neither this module nor CI runs: {others}"
    for where, line in RUN_BY_CI.values():
        assert line in (ROOT / where).read_text(), f"{where} no longer runs {line!r}"


def is_rewardlab(command: str) -> bool:
    return shlex.split(command)[0].split("/")[-1] == "rewardlab"


def test_documented_command_lines_parse():
    """Every ``rewardlab`` line of a bash block is accepted by the parser (flags spelled as they exist)."""
    lines = [c for path in DOCS for c in bash_commands(path.read_text()) if is_rewardlab(c)]
    assert len(lines) >= 8
    for line in lines:
        build_parser().parse_args(shlex.split(line)[1:])


def link_targets(text: str) -> list[str]:
    """The targets of the text's Markdown links (inline and reference-style) and HTML href/src."""
    inline = re.findall(r"\]\(\s*<?([^)\s>]+)", text)
    reference = re.findall(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$", text, flags=re.M)
    html = re.findall(r"""(?:href|src)=["']([^"']+)["']""", text)
    return inline + reference + html


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_link_nothing_outside_the_repository(path):
    """A user's clone has only the repository: every local link resolves to a file in it."""
    outside, missing = [], []
    for target in link_targets(path.read_text()):
        if re.match(r"^[a-z][a-z+.-]*:|^#", target):  # a URL (https:, mailto:) or an anchor on the page
            continue
        resolved = (path.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(ROOT):
            outside.append(target)
        elif not resolved.exists():
            missing.append(target)
    assert outside == [] and missing == [], f"links outside the repository {outside}, to missing files {missing}"


def test_the_link_check_sees_links():
    text = "[a](docs/design.md) [b](<../x.md>) <a href='../y.html'>c</a>\n[ref]: ../z.md\n"
    assert link_targets(text) == ["docs/design.md", "../x.md", "../z.md", "../y.html"]
    assert "docs/design.md" in link_targets((ROOT / "README.md").read_text())


# ------------------------------------------------------------------------------ running them
@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A fresh working directory, as a user's shell would have."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    return tmp_path


def shell(*argv: str, cwd: Path, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``rewardlab ARGV...`` as a separate process, the way a user runs it."""
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    return subprocess.run(
        [str(ENTRY_POINT), *argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )


def read_json(path: Path):
    return json.loads(path.read_text())


def assert_board(directory: Path, env_ids: list[str]) -> dict:
    """A run directory as bench/demo write it: results.json, leaderboard.md/.html, one PNG per env."""
    run = read_json(directory / "results.json")
    assert {entry["env"] for entry in run["entries"]} == set(env_ids)
    assert "| agent | reward | success rate |" in (directory / "leaderboard.md").read_text()
    page = (directory / "leaderboard.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "<table" in page
    plots = sorted((directory / "plots").iterdir())
    assert [p.name for p in plots] == sorted(env.replace("/", "_") + ".png" for env in env_ids)
    assert all(p.read_bytes()[:8] == PNG for p in plots)
    return run


@runs("--help")
def test_help_lists_every_command_and_each_one_has_help(tmp_path):
    result = shell("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert all(re.search(rf"^\s+{name}\b", result.stdout, flags=re.M) for name in COMMANDS), result.stdout
    for sub, actions in sub_commands().items():
        for argv in [[sub], *([sub, action] for action in actions)]:
            with pytest.raises(SystemExit) as exit_info:
                build_parser().parse_args([*argv, "--help"])
            assert exit_info.value.code == 0, argv


@pytest.mark.slow
@runs("list")
def test_list(workdir, capsys):
    table = shell("list", cwd=workdir)
    assert table.returncode == 0, table.stderr
    assert all(env_id in table.stdout for env_id in rewardlab.env_ids())
    assert main(["list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [row["id"] for row in listing] == rewardlab.env_ids()
    assert all(row["components"] and row["tasks"] > 0 for row in listing)


@runs("play")
def test_play_an_answer_typed_on_stdin(tmp_path):
    """BPMN-v2's oracle answer typed in: the observation, then the reward and its breakdown."""
    import gymnasium as gym

    from rewardlab.agents import OracleAgent

    env = gym.make("RewardLab/BPMN-v2")
    observation, info = env.reset(seed=0, options={"split": "test"})
    answer = OracleAgent(env).act(observation, info)
    env.close()
    result = shell("play", "RewardLab/BPMN-v2", "--task", info["task_id"], cwd=tmp_path, stdin=f"{answer}\n.\n")
    assert result.returncode == 0, result.stderr
    assert f"task: {info['task_id']}" in result.stdout and observation in result.stdout
    assert re.search(r"^reward = \d\.\d{3}  success = True$", result.stdout, flags=re.M)
    assert re.search(r"^  validity\s+1\.000  \(weight \d\.\d{3}\)$", result.stdout, flags=re.M)


@runs("eval")
def test_eval_two_envs_and_record_the_episodes(workdir):
    env_ids = ["RewardLab/ToolCall-v3", "RewardLab/BFCL-v1"]
    argv = ["eval", *env_ids, "--agent", "random", "--episodes", "2", "--seed", "3"]
    assert main([*argv, "--record", "results/episodes.jsonl"]) == 0
    results = read_json(workdir / "results" / "eval.json")
    assert set(results) == set(env_ids) and all(results[e]["episodes"] == 2 for e in env_ids)
    assert {results[e]["agent"] for e in env_ids} == {"random"} and results[env_ids[0]]["seed"] == 3
    episodes = [json.loads(line) for line in (workdir / "results" / "episodes.jsonl").read_text().splitlines()]
    assert len(episodes) == 4
    assert main(["eval", "RewardLab/BPMN-v2", "--agent", "oracle", "--episodes", "1", "--output", "oracle.json"]) == 0
    assert read_json(workdir / "oracle.json")["RewardLab/BPMN-v2"]["success_rate"] == 1.0


@runs("eval", "rescore")
def test_rescore_recorded_episodes_as_the_readme_shows(workdir, capsys):
    """The README's re-scoring: oracle and random BFCL-v1 episodes recorded by eval (labelled with the agent),
    then rescored under five compositions, and replayed under new weights."""
    for agent in ("oracle", "random"):
        argv = ["eval", "RewardLab/BFCL-v1", "--agent", agent, "--episodes", "3"]
        assert main([*argv, "--record", f"results/bfcl/{agent}.jsonl"]) == 0
    capsys.readouterr()
    compositions = "recorded,equal,targeted:values,gated:format,geometric"
    argv = ["rescore", "results/bfcl/*.jsonl", "--composition", compositions, "--json", "results/bfcl/rescore.json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\| targeted:values +\| rv-[0-9a-f]{12} \| \d\.\d{3} ± \d\.\d{3} \|", out, flags=re.M), out
    assert re.search(r"^\| oracle +\| 3 +\| 1\.00 ± 0\.00 \| 1\.000 ± 0\.000 \|", out, flags=re.M), out
    (group,) = read_json(workdir / "results" / "bfcl" / "rescore.json")["groups"]
    assert [row["composition"] for row in group["compositions"]] == compositions.split(",")
    assert group["episodes"] == 6 and all(row["ranking"][0] == ["oracle"] for row in group["compositions"])
    replay = ["rescore", "results/bfcl/oracle.jsonl", "results/bfcl/random.jsonl", "--env-kwargs"]
    assert main([*replay, '{"reward_weights": {"values": 3}}']) == 0
    assert "replayed with env_kwargs {'reward_weights': {'values': 3}}" in capsys.readouterr().out
    assert main(["rescore", "results/bfcl/oracle.jsonl", "--composition", "equal,targeted:valus"]) == 2
    assert "unknown reward component 'valus'" in capsys.readouterr().out


@pytest.mark.slow
@runs("eval", "swe export-predictions")
def test_eval_swe_repo_with_record_then_export_predictions(workdir):
    """The README's SWE-bench export: record oracle episodes, then write predictions from them."""
    argv = ["eval", "RewardLab/SWERepo-v1", "--agent", "oracle", "--episodes", "2"]
    assert main([*argv, "--record", "results/swe/episodes.jsonl"]) == 0
    assert read_json(workdir / "results" / "eval.json")["RewardLab/SWERepo-v1"]["success_rate"] == 1.0
    export = ["swe", "export-predictions", "results/swe/episodes.jsonl", "--model", "oracle"]
    assert main([*export, "--output", "results/swe/predictions.jsonl"]) == 0
    recorded = {json.loads(line)["task_id"] for line in (workdir / "results/swe/episodes.jsonl").open()}
    rows = [json.loads(line) for line in (workdir / "results/swe/predictions.jsonl").open()]
    assert {row["instance_id"] for row in rows} == recorded  # one prediction per task
    assert all(row["model_name_or_path"] == "oracle" and row["model_patch"] for row in rows)


@runs("crosscheck")
def test_crosscheck_reports_agreement_with_an_independent_grader(workdir, capsys):
    assert main(["crosscheck", "RewardLab/BFCL-v1", "--episodes", "2", "--json", "results/crosscheck.json"]) == 0
    assert (workdir / "results" / "crosscheck.json").is_file()
    assert "κ" in capsys.readouterr().out


@runs("audit")
def test_audit_as_the_readme_shows(workdir, capsys):
    audit = ["audit", "RewardLab/ToolCall-v3", "--split", "test", "--episodes", "2", "--json", "results/audit.json"]
    assert main(audit) == 0
    (report,) = read_json(workdir / "results" / "audit.json")
    assert report["env_id"] == "RewardLab/ToolCall-v3" and len(report["task_ids"]) == 2 and report["rows"]
    assert report["flagged"] == []
    reweighted = [
        "audit",
        "RewardLab/BPMN-v2",
        "--episodes",
        "2",
        "--env-kwargs",
        '{"reward_weights": {"semantic": 2}}',
    ]
    assert main(reweighted) == 0
    assert capsys.readouterr().out.rstrip().endswith("nothing flagged")


@pytest.mark.docker
@runs("sandbox build-image", "sandbox build-root", "sandbox status")
def test_sandbox_build_image_and_root_then_status(workdir, capsys):
    docker_or_skip()
    from rewardlab.sandbox.rootfs import built_root

    assert main(["sandbox", "build-image"]) == 0
    assert main(["sandbox", "build-root"]) == 0
    assert main(["sandbox", "status"]) == 0
    out = capsys.readouterr().out
    assert "engine: answers; image rewardlab/sandbox:" in out and f"root: {built_root()}" in out


@runs("sandbox gc")
def test_sandbox_gc_removes_what_a_killed_owner_left_and_nothing_else(workdir, capsys, monkeypatch, tmp_path):
    import subprocess
    import sys
    import tempfile

    docker_or_skip()
    code = "import os; from rewardlab.leases import owned_tempdir; owned_tempdir('rewardlab-gc-'); os._exit(0)"
    subprocess.run([sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp_path)}, check=True)
    kept = tmp_path / "rewardlab-someone-elses"
    kept.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["sandbox", "gc"]) == 0
    assert "1 temporary dir(s)" in capsys.readouterr().out
    assert not list(tmp_path.glob("rewardlab-gc-*")) and kept.is_dir()


@runs("swe fetch")
def test_swe_fetch_verifies_the_cached_sdists(workdir, capsys):
    from rewardlab.envs.swe.sources import PROJECTS

    assert main(["swe", "fetch"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(PROJECTS) and all(line.endswith("(sha256 verified)") for line in lines)


@pytest.mark.slow
@runs("swe build")
def test_swe_build_one_small_project(workdir):
    from rewardlab.envs.swe.repo_env import load_repo_tasks

    budget = ["--tasks-per-project", "1", "--candidates-per-project", "4", "--no-cross-check"]
    assert main(["swe", "build", "munch", *budget, "--output", "results/swe/repo_tasks.jsonl.gz"]) == 0
    with gzip.open(workdir / "results/swe/repo_tasks.jsonl.gz", "rt") as lines:
        (task,) = [json.loads(line) for line in lines]
    assert task["repo"] == "munch" and task["split"] == "test" and task["FAIL_TO_PASS"] and task["patch"]
    tasks = load_repo_tasks(workdir / "results/swe/repo_tasks.jsonl.gz")  # what SWERepo-v1 loads
    assert tasks.ids("test") == [task["instance_id"]]


@pytest.mark.slow
@runs("bench", "leaderboard")
def test_bench_two_runs_then_merge_them(workdir, capsys, tiny_model_dir):
    """Two bench runs (the model is the tiny one; BFCL-v1 is single-shot: one action of 256 tokens),
    then one board from both: the run with another seed is marked not comparable."""
    env_ids = ["RewardLab/BFCL-v1", "RewardLab/ToolCall-v3"]
    agents = ["--agent", "random", "oracle", "model", "--model", str(tiny_model_dir)]
    assert main(["bench", "--suite", env_ids[0], *agents, "--episodes", "1", "--run", "seed0"]) == 0
    assert (
        main(["bench", "--suite", *env_ids, "--agent", "oracle", "--episodes", "2", "--seed", "1", "--run", "seed1"])
        == 0
    )
    run = assert_board(workdir / "results" / "seed0", env_ids[:1])
    assert_board(workdir / "results" / "seed1", env_ids)
    assert {entry["agent"] for entry in run["entries"]} == {"random", "oracle", "model"}
    capsys.readouterr()
    assert main(["leaderboard", "results/seed0", "results/seed1"]) == 0
    assert "marked not comparable" in capsys.readouterr().out
    merged = workdir / "results" / "leaderboard"
    assert "**no**" in (merged / "leaderboard.md").read_text() and (merged / "leaderboard.html").is_file()


@pytest.mark.slow
@runs("demo")
def test_demo_with_the_smallest_budget(workdir, tiny_model_dir, capsys):
    """The main job at the smallest budget: one episode per agent and env, one turn of one token for the
    model, and the tiny model (SmolLM2's prompt prefills alone take minutes on 2 CPU cores; its loading
    is tested in tests/agents/test_models.py); the audit on one task per strategy, within 10 s; no time limit, so that
    what runs does not depend on the machine's speed. The shipped record describes SmolLM2, not the tiny
    model, which therefore plays every env. After the leaderboard it prints the reward-design section: every
    env's episodes rescored (``rewardlab rescore``) under equal, targeted and gated weighting, and the audit of
    every env that fits its budget (the others listed as not audited); then the learning run: one SFT step and
    one GRPO update, evaluated on two held-out tasks before, between and after."""
    budget = ["--episodes", "1", "--model-episodes", "1", "--model-turns", "1", "--model-tokens", "1"]
    learning = ["--learn-sft-steps", "1", "--learn-updates", "1", "--learn-tasks", "2"]
    audit = ["--audit-tasks", "1", "--audit-seconds", "10"]
    arguments = ["--budget-minutes", "0", *budget, *learning, *audit, "--model", str(tiny_model_dir)]
    assert main(["demo", *arguments]) == 0
    directory = workdir / "results" / "demo"
    run = assert_board(directory, rewardlab.env_ids())
    agents = {(entry["agent"], entry["env"]) for entry in run["entries"]}
    assert agents == {(agent, env) for agent in ("random", "oracle", "model") for env in rewardlab.env_ids()}
    assert all(len(entry["per_episode"]) == 1 and entry["per_episode"][0]["components"] for entry in run["entries"])
    out = capsys.readouterr().out
    section = (directory / "reward_design.md").read_text()
    assert out.index("leaderboard page:") < out.index(section.splitlines()[0]) and section.strip() in out
    design = read_json(directory / "reward_design.json")
    assert [env["env_id"] for env in design["envs"]] == rewardlab.env_ids()
    for env in design["envs"]:
        (group,) = env["groups"]  # the model's turn cap is no reward setting: one reward_version per env
        labels = [composition["composition"] for composition in group["compositions"]]
        assert labels[:2] == ["recorded", "equal"] and labels[2].startswith("targeted:"), env["env_id"]
        assert labels[3].startswith("gated:") and set(group["labels"]) == {"random", "oracle", "model"}
        assert f"### {env['env_id']}\n" in section
    audit = design["audit"]
    audited = [report["env_id"] for report in audit["reports"]]
    assert audited and sorted(audited + list(audit["skipped"])) == rewardlab.env_ids()
    assert all(len(report["task_ids"]) == 1 for report in audit["reports"])
    assert "## Audit: each degenerate strategy against the oracle" in section
    assert all(f"- {env_id}: " in section for env_id in audit["skipped"])
    assert all(f"{i}. {title}: " in out for i, title in enumerate(["Leaderboard", "Reward design", "Audit"], 1))
    assert "played on 10 envs" in out and "no time limit" in out
    learned = read_json(directory / "learning.json")
    labels = [evaluation["label"] for evaluation in learned["evaluations"]]
    assert labels == ["untrained", "after SFT (1 step)", "after GRPO (1 update)"]
    assert len(learned["task_ids"]) == 2 and (directory / "learning.md").read_text().strip() in out


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A tiny random Llama with SmolLM2's tokenizer, saved as a folder (``--model PATH``)."""
    from tests.agents.tiny import save_tiny_model

    return save_tiny_model(tmp_path_factory.mktemp("tiny-model"))


@runs("train grpo")
def test_train_grpo_one_update(workdir, tiny_model_dir):
    budget = ["--steps", "1", "--tasks-per-step", "1", "--group-size", "2", "--max-new-tokens", "1"]
    assert main(["train", "grpo", "--env", "RewardLab/BFCL-v1", "--model", str(tiny_model_dir), *budget]) == 0
    assert_training_output(workdir / "results" / "grpo")


@runs("train ppo")
def test_train_ppo_one_update(workdir, tiny_model_dir):
    budget = ["--steps", "1", "--episodes-per-step", "1", "--num-minibatches", "1", "--epochs", "1"]
    argv = ["train", "ppo", "--env", "RewardLab/BFCL-v1", "--model", str(tiny_model_dir), *budget]
    assert main([*argv, "--max-new-tokens", "1"]) == 0
    assert_training_output(workdir / "results" / "ppo")


@runs("train trl")
def test_train_trl_one_step(workdir, tiny_model_dir):
    pytest.importorskip("trl")
    budget = ["--steps", "1", "--tasks-per-step", "1", "--group-size", "2", "--max-new-tokens", "1"]
    assert main(["train", "trl", "--env", "RewardLab/BFCL-v1", "--model", str(tiny_model_dir), *budget]) == 0
    assert_training_output(workdir / "results" / "trl_grpo")


def assert_training_output(directory: Path) -> None:
    """One metrics row (JSONL and CSV), the training curve and the final model."""
    (row,) = [json.loads(line) for line in (directory / "metrics.jsonl").read_text().splitlines()]
    assert row["step"] == 1 and 0.0 <= row["rewards/mean"] <= 1.0
    assert (directory / "metrics.csv").read_text().splitlines()[0].startswith("step")
    assert (directory / "training_curve.png").read_bytes()[:8] == PNG
    assert (directory / "final" / "config.json").is_file()


@runs("serve")
def test_serve_answers_a_remote_episode_and_stops_on_ctrl_c(workdir):
    import signal

    from rewardlab.serve.client import RemoteEnv

    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    argv = [str(ENTRY_POINT), "serve", "RewardLab/ToolCall-v3", "--port", "0", "--max-sessions", "2"]
    server = subprocess.Popen(argv, cwd=workdir, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        assert server.stderr is not None
        for line in server.stderr:  # uvicorn names the port it bound
            if match := re.search(r"running on http://127\.0\.0\.1:(\d+)", line, flags=re.I):
                break
        else:
            raise AssertionError("rewardlab serve did not start")
        env = RemoteEnv(f"ws://127.0.0.1:{match.group(1)}", "RewardLab/ToolCall-v3", max_turns=2)
        observation, info = env.reset(seed=0)
        assert observation and info["tools"]
        *_, terminated, truncated, info = env.step("I cannot help.")
        assert (terminated or truncated) and set(info["reward_components"]) >= {"format", "answer"}
        env.close()
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0


@runs("study")
def test_study_two_configs_two_seeds_then_resume(workdir, tiny_model_dir, capsys):
    """docs/studies.md at the smallest budget: two configurations, two seeds, one update of one token each with
    the tiny model on BFCL-v1's simple_python tasks; the dry run lists the runs, a rerun skips the finished ones."""
    spec = workdir / "tiny.toml"
    spec.write_text(
        '[study]\nname = "tiny"\nseeds = [0, 1]\nbaseline = "equal"\n'
        '[env]\nid = "RewardLab/BFCL-v1"\nkwargs = { categories = ["simple_python"] }\n'
        '[[config]]\nname = "equal"\npreset = "equal"\n'
        '[[config]]\nname = "targeted"\npreset = "targeted:values"\n'
        f'[trainer]\nkind = "grpo"\nmodel = "{tiny_model_dir}"\nsteps = 1\ntasks_per_step = 1\ngroup_size = 2\n'
        "max_new_tokens = 1\n[eval]\nnum_tasks = 1\n"
    )
    assert main(["study", str(spec), "--dry-run"]) == 0
    assert capsys.readouterr().out.count(" todo") == 4
    assert main(["study", str(spec), "--runner", "local"]) == 0
    output = workdir / "results" / "tiny"
    summary = (output / "summary.md").read_text()
    assert "| equal (baseline) | 2 |" in summary and "| targeted − equal | 2 |" in summary
    assert (output / "summary.html").read_text().lstrip().lower().startswith("<!doctype html")
    assert (output / "plots" / "RewardLab_BFCL-v1.png").read_bytes()[:8] == PNG
    assert sorted(p.name for p in (output / "runs").iterdir()) == ["equal", "targeted"]
    capsys.readouterr()
    assert main(["study", str(spec), "--output", str(output)]) == 0
    assert "ran 0 runs, 4 were finished already" in capsys.readouterr().out
