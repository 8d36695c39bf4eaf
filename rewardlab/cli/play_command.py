"""``rewardlab play ENV``: a person types actions and sees observations and the reward breakdown.

Before the first observation the screen shows what a model is given besides it: the system
prompt and, for envs with tools, each tool with its parameters (type, required or optional).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from rewardlab.cli.env_arguments import env_id

HELP = "Play an env by hand: type actions, see observations and the reward breakdown."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", type=env_id, help="env id, e.g. RewardLab/BPMN-v2")
    parser.add_argument("--task", default=None, help="task id (default: drawn from the split)")
    parser.add_argument("--split", default="train", choices=["train", "test"])
    parser.add_argument("--seed", type=int, default=0)


def parameter_type(schema: dict[str, Any]) -> str:
    """A JSON-schema type in words: ``string``, ``integer|null``, ``array of number``."""
    kind = schema.get("type", "any")
    text = "|".join(kind) if isinstance(kind, list) else str(kind)
    if text == "array" and isinstance(schema.get("items"), dict):
        text += f" of {parameter_type(schema['items'])}"
    return text


def describe_parameter(name: str, schema: dict[str, Any], required: bool) -> str:
    """``name (type, required|optional[, one of: ...][, default ...]): description``."""
    details = [parameter_type(schema), "required" if required else "optional"]
    if "enum" in schema:
        details.append("one of: " + ", ".join(json.dumps(value) for value in schema["enum"]))
    if "default" in schema:
        details.append(f"default {json.dumps(schema['default'])}")
    description = schema.get("description", "")
    return f"{name} ({', '.join(details)})" + (f": {description}" if description else "")


def describe_tools(tools: Sequence[dict[str, Any]]) -> str:
    """One block per tool (OpenAI function-calling schema, or the bare function object): its name and
    description, then one line per parameter."""
    blocks = []
    for tool in tools:
        function = tool.get("function", tool)
        parameters = function.get("parameters") or {}
        required = set(parameters.get("required", []))
        lines = [f"- {function['name']}" + (f": {function['description']}" if function.get("description") else "")]
        properties = parameters.get("properties", {})
        lines += [f"    {describe_parameter(n, schema, n in required)}" for n, schema in properties.items()]
        if not properties:
            lines.append("    (no parameters)")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def start_screen(observation: str, info: dict[str, Any]) -> str:
    """The task id, the system prompt, the tools (where the env has them), then the first observation."""
    sections = [f"task: {info['task_id']}"]
    if info.get("system_prompt"):
        sections.append(f"=== system prompt\n{info['system_prompt']}")
    if info.get("tools"):
        sections.append(f"=== tools ({len(info['tools'])})\n{describe_tools(info['tools'])}")
    sections.append(f"=== observation\n{observation}")
    return "\n\n".join(sections)


def read_action() -> str | None:
    """Read one action: lines until a line with a single '.', or EOF. None at EOF with no input."""
    print("--- your action (end with a line holding only '.', Ctrl-D to quit):", flush=True)
    lines: list[str] = []
    for line in sys.stdin:
        if line.rstrip("\n") == ".":
            return "\n".join(lines)
        lines.append(line.rstrip("\n"))
    return "\n".join(lines) if lines else None


def run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    import rewardlab  # noqa: F401

    env = gym.make(args.env)
    try:
        options = {"task_id": args.task} if args.task else {"split": args.split}
        observation, info = env.reset(seed=args.seed, options=options)
        print(start_screen(observation, info))
        while True:
            action = read_action()
            if action is None:
                return 0
            observation, reward, terminated, truncated, info = env.step(action)
            print(f"\n{observation}")
            if info.get("action_error"):
                print(f"action_error: {info['action_error']}")
            if info.get("milestones"):
                print(f"milestones: {', '.join(info['milestones'])}  progress={info['progress']:.2f}")
            if terminated or truncated:
                print(f"\nreward = {reward:.3f}  success = {info.get('is_success')}")
                for name, value in info.get("reward_components", {}).items():
                    print(f"  {name:<16} {value:.3f}  (weight {info['reward_weights'][name]:.3f})")
                return 0
    finally:
        env.close()
