"""Per-step overhead of the multi-agent envs over the single-agent envs they wrap.

GenerateVerifyRefine: one team episode (generator, verifier, refiner) scores two answers, so its
cost is compared with two ``reset`` + ``step`` pairs of the underlying env on the same answers.
ToolDialogue: one assistant turn against the same tool call sent straight to ToolCall-v3.
Overhead = median over interleaved rounds of (ours / underlying) − 1; the target is under 10%.
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym

import rewardlab
from benchmarks.common import fmt_seconds, median, stamp, table, time_calls
from rewardlab.agents import OracleAgent
from rewardlab.multiagent import GenerateVerifyRefine, ToolDialogue

SINGLE_SHOT_ENVS = ("RewardLab/BFCL-v1", "RewardLab/ToolCall-v3", "RewardLab/BPMN-v2", "RewardLab/Slides-v2")


def gvr_row(env_id: str, repeat: int) -> list[str]:
    team = GenerateVerifyRefine(env_id)
    underlying = gym.make(env_id, max_turns=1)
    task_id = underlying.unwrapped.tasks.ids("test")[0]
    observation, info = underlying.reset(seed=0, options={"task_id": task_id})
    answer = OracleAgent(underlying).act(observation, info)

    def team_episode():
        team.reset(seed=0, options={"task_id": task_id})
        team.step(answer)
        team.step("VERDICT: PASS")
        team.step(answer)

    def two_scorings():
        for _ in range(2):
            underlying.reset(seed=0, options={"task_id": task_id})
            underlying.step(answer)

    ours, base, ratio = interleaved(team_episode, two_scorings, repeat)
    team.close()
    underlying.close()
    return [f"GenerateVerifyRefine({env_id})", fmt_seconds(ours), fmt_seconds(base), f"{(ratio - 1) * 100:+.1f}%"]


def interleaved(ours_fn, base_fn, repeat: int, calls: int = 5) -> tuple[float, float, float]:
    """Medians of both and the median of per-round ratios; rounds alternate between the two, so
    load from other processes hits both alike."""
    ours, base, ratios = [], [], []
    for _ in range(repeat):
        mine = median(time_calls(ours_fn, repeat=calls, warmup=1))
        theirs = median(time_calls(base_fn, repeat=calls, warmup=1))
        ours.append(mine)
        base.append(theirs)
        ratios.append(mine / theirs)
    return median(ours), median(base), median(ratios)


def dialogue_row(repeat: int, turns: int = 50) -> list[str]:
    """Median time of one assistant tool call through ToolDialogue vs straight into ToolCall-v3."""
    call = json.dumps({"name": "get_order", "arguments": {"order_id": "O1001"}})
    dialogue = ToolDialogue(max_turns=turns + 1)
    direct = gym.make("RewardLab/ToolCall-v3", max_turns=turns + 1)
    ours, base = [], []
    for _ in range(max(1, repeat // 10)):
        dialogue.reset(seed=0, options={"task_id": "hw-retail-001"})
        direct.reset(seed=0, options={"task_id": "hw-retail-001"})
        for _ in range(turns):
            start = time.perf_counter()
            dialogue.step(call)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            direct.step(call)
            base.append(time.perf_counter() - start)
    dialogue.close()
    direct.close()
    ours_m, base_m = median(ours), median(base)
    return [
        "ToolDialogue assistant tool call",
        fmt_seconds(ours_m),
        fmt_seconds(base_m),
        f"{(ours_m / base_m - 1) * 100:+.1f}%",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args(argv)
    print(stamp(("rewardlab", "gymnasium", "pettingzoo")))
    rows = [gvr_row(env_id, args.repeat) for env_id in SINGLE_SHOT_ENVS if env_id in rewardlab.env_ids()]
    if "RewardLab/ToolCall-v3" in rewardlab.env_ids():
        rows.append(dialogue_row(args.repeat))
    print(table(["multi-agent env", "ours (median)", "underlying (median)", "overhead"], rows))


if __name__ == "__main__":
    main()
