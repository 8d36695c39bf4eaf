"""Speed of RewardLab/BPMN-v2: scoring one model end to end, and reset + step with the oracle.

Run: ``python benchmarks/bench_envs.py [--repeat N]``. Prints the stamp, then a Markdown table of
median and 95th-percentile wall-clock times with the ratio to the target of issue 2:

- scoring one 50-node BPMN model end to end (parse, XSD, all metrics, semantic comparison with
  an already-analysed reference, as inside the env): median under 5 ms;
- ``reset`` + ``step`` of BPMN-v2 with the oracle: median under 10 ms (over every shipped task,
  cycling).

Wall-clock times depend on whatever else the machine is running (the load average is printed
with the table); the CPU-time columns (``time.process_time``) are what one call costs, the
minimum being the closest to an idle machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rewardlab  # noqa: E402,F401  (registers the env ids)
from benchmarks.common import fmt_seconds, median, percentile, stamp, table, time_calls  # noqa: E402
from rewardlab.agents import OracleAgent, RandomAgent  # noqa: E402
from rewardlab.envs.bpmn.build.specs import Activity, Choice, Parallel, ProcessSpec, Seq, to_bpmn  # noqa: E402
from rewardlab.envs.bpmn.model import extract_model  # noqa: E402
from rewardlab.envs.bpmn.parse import read_answer  # noqa: E402
from rewardlab.envs.bpmn.rubric import BPMNOutcome, bpmn_rubric  # noqa: E402


def fifty_node_model() -> str:
    """A 50-flow-node model with its diagram: four decision + parallel blocks, then eight tasks."""

    def block(i: int) -> Seq:
        decision = Choice(
            f"Item {i} complete?",
            (
                ("yes", Activity(f"Approve item {i}")),
                ("no", Seq(Activity(f"Fix item {i}"), Activity(f"Recheck item {i}"))),
            ),
        )
        return Seq(
            Activity(f"Check item {i}"), decision, Parallel((Activity(f"Pack item {i}"), Activity(f"Label item {i}")))
        )

    closing = [
        Activity(f"{verb} order")
        for verb in ("Invoice", "Ship", "Track", "Confirm", "Bill", "Close", "Rate", "Archive")
    ]
    body = Seq(*[block(i) for i in range(4)], *closing)
    xml = to_bpmn(ProcessSpec("Order check", "Order received", body, "Order closed"), "bench").decode()
    nodes = len(extract_model(read_answer(xml).root).nodes)
    if nodes != 50:
        raise RuntimeError(f"the benchmark model should have 50 flow nodes, it has {nodes}")
    return xml


def cpu_times(fn: Callable[[], object], *, repeat: int, warmup: int = 5) -> list[float]:
    """CPU seconds (``time.process_time``) of ``repeat`` calls: robust to other processes sharing the CPUs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300, help="timed calls per row")
    args = parser.parse_args()

    model = fifty_node_model()
    reference = model.replace("Pack item 1", "Pack the item 1")
    rubric = bpmn_rubric()
    rubric.score(BPMNOutcome(model, reference))
    score = lambda: rubric.score(BPMNOutcome(model, reference))  # noqa: E731
    score_times, score_cpu = time_calls(score, repeat=args.repeat), cpu_times(score, repeat=args.repeat)
    parse = lambda: read_answer(model)  # noqa: E731
    parse_times, parse_cpu = time_calls(parse, repeat=args.repeat), cpu_times(parse, repeat=args.repeat)

    env = gym.make("RewardLab/BPMN-v2")
    task_ids = env.unwrapped.tasks.ids()
    oracle, random_agent = OracleAgent(env), RandomAgent(env, seed=0)
    counter = iter(range(10**9))

    def episode_step(agent) -> None:
        task_id = task_ids[next(counter) % len(task_ids)]
        observation, info = env.reset(seed=0, options={"task_id": task_id})
        env.step(agent.act(observation, info))

    episodes = max(args.repeat, 2 * len(task_ids))
    oracle_times = time_calls(lambda: episode_step(oracle), repeat=episodes)
    oracle_cpu = cpu_times(lambda: episode_step(oracle), repeat=episodes)
    random_times = time_calls(lambda: episode_step(random_agent), repeat=args.repeat)
    random_cpu = cpu_times(lambda: episode_step(random_agent), repeat=args.repeat)
    env.close()

    rows = []
    for name, times, cpu, target in (
        ("score a 50-node model end to end", score_times, score_cpu, 5e-3),
        ("  of which parse + XSD", parse_times, parse_cpu, None),
        ("BPMN-v2 reset + step, oracle (all 62 tasks)", oracle_times, oracle_cpu, 10e-3),
        ("BPMN-v2 reset + step, random agent", random_times, random_cpu, None),
    ):
        rows.append(
            [
                name,
                fmt_seconds(median(times)),
                fmt_seconds(percentile(times, 95)),
                fmt_seconds(median(cpu)),
                fmt_seconds(min(cpu)),
                fmt_seconds(target) if target else "—",
                f"{median(times) / target:.2f}" if target else "—",
                f"{median(cpu) / target:.2f}" if target else "—",
            ]
        )
    print(stamp(("rewardlab", "gymnasium", "lxml", "networkx", "scipy")))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {args.repeat} calls per row\n")
    headers = ["benchmark", "median", "p95", "median CPU", "min CPU", "target", "median / target", "CPU / target"]
    print(table(headers, rows))


if __name__ == "__main__":
    main()
