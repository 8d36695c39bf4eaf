"""``rewardlab play ENV``: a person types actions and sees observations and the reward breakdown."""

from __future__ import annotations

import argparse
import sys

HELP = "Play an env by hand: type actions, see observations and the reward breakdown."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", help="env id, e.g. RewardLab/BPMN-v1")
    parser.add_argument("--task", default=None, help="task id (default: drawn from the split)")
    parser.add_argument("--split", default="train", choices=["train", "test"])
    parser.add_argument("--seed", type=int, default=0)


def read_action() -> str | None:
    """Read one action: lines until a line with a single '.', or EOF. None at EOF with no input."""
    print("--- your action (end with a line holding only '.', Ctrl-D to quit):", flush=True)
    lines = []
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
        print(f"task: {info['task_id']}\n\n{observation}")
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
