import argparse
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardlab.cli import COMMAND_DEST, COMMANDS, build_parser, main
from rewardlab.cli.env_arguments import env_id
from rewardlab.cli.eval_command import format_table
from rewardlab.cli.play_command import describe_tools, read_action


def test_every_command_has_help():
    parser = build_parser()
    with pytest.raises(SystemExit) as excinfo:
        parser.parse_args(["--help"])
    assert excinfo.value.code == 0


def sub_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every parser below ``parser`` (sub-commands and their actions), keyed by its ``prog``."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found[child.prog] = child
                found.update(sub_parsers(child))
    return found


def test_no_option_of_any_sub_command_can_overwrite_the_dispatch():
    """``bench --run`` once overwrote the handler the dispatcher stored in ``args.run``."""
    parsers = sub_parsers(build_parser())
    assert {f"rewardlab {name}" for name in COMMANDS} <= set(parsers)
    clashes = [(prog, a.option_strings) for prog, p in parsers.items() for a in p._actions if a.dest == COMMAND_DEST]
    assert clashes == []


def test_bench_runs_with_its_run_option(tmp_path, capsys):
    argv = ["bench", "--suite", "RewardLab/BPMN-v2", "--agent", "oracle", "--episodes", "1"]
    assert main([*argv, "--run", "named", "--results-dir", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "named" / "results.json").read_text())
    assert results["run"] == "named" and results["entries"][0]["agent"] == "oracle"
    assert main([*argv, "--results-dir", str(tmp_path / "default")]) == 0  # --run left out: bench-<time>
    assert [p.name[:6] for p in (tmp_path / "default").iterdir()] == ["bench-"]
    assert "leaderboard page" in capsys.readouterr().out


def test_unknown_command_fails_cleanly(capsys):
    with pytest.raises(SystemExit) as excinfo:
        main(["nonsense"])
    assert excinfo.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_format_table():
    text = format_table(
        {
            "RewardLab/X-v0": {
                "reward": {"mean": 0.5, "ci95": 0.1},
                "success_rate": 0.25,
                "episodes": 4,
                "components": {"format": {"mean": 1.0, "ci95": 0.0}},
            }
        }
    )
    assert "RewardLab/X-v0  reward 0.500 ± 0.100  success 0.25  (4 episodes)" in text
    assert "format" in text and "1.000 ± 0.000" in text


def test_read_action_multiline(monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("line one\nline two\n.\nnext\n"))
    assert read_action() == "line one\nline two"


def test_describe_tools_names_every_parameter_with_its_type_and_whether_required():
    tools = [
        {
            "type": "function",
            "function": {
                "name": "book",
                "description": "Book a seat.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "seat": {"type": "string", "description": "Seat id.", "enum": ["1A", "1B"]},
                        "nights": {"type": ["integer", "null"], "default": 1},
                        "guests": {"type": "array", "items": {"type": "string"}, "description": "Names."},
                    },
                    "required": ["seat"],
                },
            },
        },
        {"name": "ping", "parameters": {"type": "object", "properties": {}}},  # the bare function form
    ]
    assert describe_tools(tools).splitlines() == [
        "- book: Book a seat.",
        '    seat (string, required, one of: "1A", "1B"): Seat id.',
        "    nights (integer|null, optional, default 1)",
        "    guests (array of string, optional): Names.",
        "- ping",
        "    (no parameters)",
    ]


def test_play_shows_the_system_prompt_and_the_tools_before_the_first_observation(monkeypatch, capsys):
    """ToolCall-v3 played by hand: one tool call typed on stdin, then end of input."""
    import io

    import gymnasium as gym

    import rewardlab  # noqa: F401

    env = gym.make("RewardLab/ToolCall-v3")
    observation, info = env.reset(seed=0, options={"split": "train"})
    env.close()
    tool = info["tools"][0]["function"]
    argument = tool["parameters"]["required"][0]
    call = json.dumps({"name": tool["name"], "arguments": {argument: "Grace"}})
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{call}\n.\n"))
    assert main(["play", "RewardLab/ToolCall-v3"]) == 0
    screen = capsys.readouterr().out
    before, after = screen.split(observation, 1)
    assert before.startswith(f"task: {info['task_id']}") and info["system_prompt"] in before
    assert f"=== tools ({len(info['tools'])})" in before
    for spec in info["tools"]:
        function = spec["function"]
        assert f"- {function['name']}: {function['description']}" in before
        for name, schema in function["parameters"]["properties"].items():
            required = "required" if name in function["parameters"]["required"] else "optional"
            assert f"    {name} ({schema['type']}, {required}" in before
    assert "--- your action" in after and after.count("--- your action") == 2  # the tool result, then EOF


def test_play_without_tools_shows_the_system_prompt(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "RewardLab/BPMN-v2", "--split", "test"]) == 0
    screen = capsys.readouterr().out
    assert "=== system prompt\nYou are an expert business process modeller." in screen
    assert "=== tools" not in screen and "=== observation\nModel the following process" in screen


def test_list_and_eval_on_registered_envs(tmp_path, capsys):
    import rewardlab

    env_id = "RewardLab/BPMN-v2"
    if env_id not in rewardlab.env_ids():
        pytest.skip("BPMN-v2 not registered")
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    assert env_id in listing and "validity" in listing
    out = tmp_path / "eval.json"
    assert main(["eval", env_id, "--agent", "oracle", "--episodes", "2", "--output", str(out)]) == 0
    results = json.loads(out.read_text())
    assert results[env_id]["success_rate"] == 1.0
    assert results[env_id]["components"]["validity"]["mean"] == 1.0


def test_python_dash_m_rewardlab_is_the_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "rewardlab", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "usage: rewardlab" in done.stdout


def test_an_env_id_without_its_namespace_names_the_registered_one():
    args = build_parser().parse_args(["play", "Slides-v2"])
    assert args.env == "RewardLab/Slides-v2"
    assert build_parser().parse_args(["audit", "all", "BPMN-v2"]).env == ["all", "RewardLab/BPMN-v2"]


@pytest.mark.parametrize(
    ("argv", "suggested"),
    [
        (["play", "Slides-v3"], "RewardLab/Slides-v2"),
        (["eval", "RewardLab/BPMN"], "RewardLab/BPMN-v2"),
        (["audit", "RewardLab/Slides-v2", "slides"], "RewardLab/Slides-v2"),
        (["crosscheck", "BFCL"], "RewardLab/BFCL-v1"),
        (["serve", "Nope-v0"], None),
        (["bench", "--suite", "ToolCal-v3"], "RewardLab/ToolCall-v3"),
    ],
)
def test_an_unknown_env_id_is_a_usage_error_that_names_the_closest_before_any_env_is_made(argv, suggested, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "unknown env id" in err and "`rewardlab list` shows them" in err and "Traceback" not in err
    assert (f"Did you mean {suggested!r}?" in err) if suggested else "Did you mean" not in err


@given(st.text(max_size=40))
def test_any_text_given_as_an_env_id_is_a_registered_id_or_a_usage_error(value):
    import gymnasium as gym

    try:
        resolved = env_id(value)
    except argparse.ArgumentTypeError as error:
        assert "unknown env id" in str(error) or "module:Env-v0" in str(error)
    else:
        assert resolved in gym.registry or resolved.partition(":")[0]


def test_an_env_registered_with_gymnasium_by_a_user_is_accepted_and_serve_takes_only_rewardlabs(capsys):
    import gymnasium as gym

    gym.register("UserTest/Mine-v0", entry_point="rewardlab.envs.echo:EchoEnv")
    try:
        assert build_parser().parse_args(["eval", "UserTest/Mine-v0"]).env == ["UserTest/Mine-v0"]
        assert build_parser().parse_args(["play", "Mine-v0"]).env == "UserTest/Mine-v0"
        assert build_parser().parse_args(["play", "rewardlab.envs.echo:Echo-v9"]).env == "rewardlab.envs.echo:Echo-v9"
        for unimportable in ("no_such_module:Env-v0", ":Env-v0", "a b:c"):
            with pytest.raises(argparse.ArgumentTypeError, match="module:Env-v0"):
                env_id(unimportable)
        with pytest.raises(SystemExit):
            main(["serve", "UserTest/Mine-v0"])
        assert "unknown env id 'UserTest/Mine-v0'" in capsys.readouterr().err
    finally:
        del gym.registry["UserTest/Mine-v0"]
