"""BFCL scoring speed: our compiled checker vs bfcl-eval's own ``ast_checker``, same answers, same run.

For each AST category, the answers are, per task: the oracle's answer, the same with one value
changed, and the same with one parameter dropped. Both checkers get the decoded calls
(``[{name: arguments}]`` for bfcl-eval, ``[(name, arguments)]`` for ours); ours uses the answer
spec compiled at task load. The two are timed in alternating passes; the ratio is the median of
the per-pass ratios. The last columns add what the env does around the check: parsing
the action text, and a whole ``reset`` + ``step``. "same verdict" counts answers on which
both checkers agree (the timing compares the same work only if they do). A second table times
oracle episodes of BFCLMultiTurn-v1.

Run: ``python -m benchmarks.bench_bfcl [--tasks 60] [--repeat 41]``.
"""

from __future__ import annotations

import argparse
import copy
import json
from typing import Any

from benchmarks.common import fmt_seconds, median, stamp, table, time_calls
from rewardlab.agents import OracleAgent
from rewardlab.core.toolcalls import parse_tool_calls
from rewardlab.envs.bfcl import BFCLEnv
from rewardlab.envs.bfcl.constants import AST_CATEGORIES, PARSE_LIMITS
from rewardlab.envs.bfcl.multi_turn import BFCLMultiTurnEnv
from rewardlab.envs.bfcl.oracle import first_possible_answer
from rewardlab.evaluation import run_episode

MODEL_NAME = "gorilla-openfunctions-v2"  # a bfcl-eval model that keeps dots in function names, as we do


def answers_of(env: BFCLEnv, task_id: str) -> list[list[dict[str, Any]]]:
    """The oracle's calls, then one value changed, then one parameter dropped."""
    gold = [first_possible_answer(call) for call in env.answer_spec(env.tasks.get(task_id)).calls]
    changed, dropped = copy.deepcopy(gold), copy.deepcopy(gold)
    arguments = changed[0]["arguments"]
    if arguments:
        key = sorted(arguments)[0]
        arguments[key] = "a value nobody expects" if not isinstance(arguments[key], str) else 424242
        del dropped[0]["arguments"][key]
    return [gold, changed, dropped]


def per_answer(fn, count: int, repeat: int) -> float:
    return median(time_calls(fn, repeat=repeat, warmup=2)) / count


def side_by_side(ours, theirs, count: int, repeat: int) -> tuple[float, float, float]:
    """Per-answer medians of both and the median of per-round ratios, timed in alternation so
    that load from other processes hits both alike."""
    ours_times, theirs_times, ratios = [], [], []
    for _ in range(repeat):
        (mine,) = time_calls(ours, repeat=1, warmup=0)
        (other,) = time_calls(theirs, repeat=1, warmup=0)
        ours_times.append(mine / count)
        theirs_times.append(other / count)
        ratios.append(mine / other)
    return median(ours_times), median(theirs_times), median(ratios)


def build_cases(env: BFCLEnv, task_ids: list[str]) -> list[tuple]:
    """Per answer: task id, task data, compiled spec, our input, bfcl-eval's input, action text."""
    cases = []
    for task_id in task_ids:
        task = env.tasks.get(task_id)
        spec = env.answer_spec(task)
        for calls in answers_of(env, task_id):
            ours_input = [(c["name"], c["arguments"]) for c in calls]
            theirs_input = [{c["name"]: c["arguments"]} for c in calls]
            text = json.dumps(calls[0] if len(calls) == 1 else calls)
            cases.append((task_id, task.data, spec, ours_input, theirs_input, text))
    return cases


def checkers(cases: list[tuple], category: str):
    """Two callables checking every case: ours (compiled spec) and bfcl-eval's ``ast_checker``."""
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    def ours():
        for _, _, spec, calls, _, _ in cases:
            spec.check(calls)

    def theirs():
        for _, data, _, _, output, _ in cases:
            ast_checker(data["functions"], output, data["ground_truth"], Language.PYTHON, category, MODEL_NAME)

    return ours, theirs


def peer_rows(budget: float = 2.0) -> list[tuple[str, str, str, str]]:
    """Rows for the suite-wide table: per-answer check time, ours vs bfcl-eval, two categories."""
    env = BFCLEnv(categories=["simple_python", "parallel"])
    rows = []
    for category in ("simple_python", "parallel"):
        task_ids = [t for t in env.tasks.ids() if env.tasks.get(t).data["category"] == category][:20]
        cases = build_cases(env, task_ids)
        ours, theirs = checkers(cases, category)
        ours(), theirs()  # warm-up
        ours_s, theirs_s, ratio = side_by_side(ours, theirs, len(cases), repeat=max(5, int(budget * 5)))
        rows.append((f"BFCL check per answer ({category})", fmt_seconds(ours_s), fmt_seconds(theirs_s), f"{ratio:.2f}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=60, help="tasks per category")
    parser.add_argument("--repeat", type=int, default=41, help="timed passes over the answers")
    args = parser.parse_args()

    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    env = BFCLEnv(categories=list(AST_CATEGORIES))
    rows = []
    ours_total = theirs_total = 0.0
    for category in AST_CATEGORIES:
        task_ids = [t for t in env.tasks.ids() if env.tasks.get(t).data["category"] == category][: args.tasks]
        cases = build_cases(env, task_ids)
        n = len(cases)
        ours, theirs = checkers(cases, category)

        def parse_and_check(cases=cases):
            for _, _, spec, _, _, text in cases:
                parsed = parse_tool_calls(text, PARSE_LIMITS)
                spec.check([(c.name, c.arguments) for c in parsed.calls])

        def reset_and_step(cases=cases):
            for task_id, _, _, _, _, text in cases:
                env.reset(options={"task_id": task_id})
                env.step(text)

        agree = sum(
            spec.check(calls).valid
            == ast_checker(data["functions"], output, data["ground_truth"], Language.PYTHON, category, MODEL_NAME)[
                "valid"
            ]
            for _, data, spec, calls, output, _ in cases
        )
        ours(), theirs()  # warm-up
        ours_s, theirs_s, ratio = side_by_side(ours, theirs, n, args.repeat)
        ours_total += ours_s * n
        theirs_total += theirs_s * n
        rows.append(
            [
                category,
                n,
                f"{agree}/{n}",
                fmt_seconds(ours_s),
                fmt_seconds(theirs_s),
                f"{ratio:.2f}",
                fmt_seconds(per_answer(parse_and_check, n, max(3, args.repeat // 3))),
                fmt_seconds(per_answer(reset_and_step, n, max(3, args.repeat // 3))),
            ]
        )
    print(stamp(("rewardlab", "gymnasium", "bfcl-eval")))
    print()
    print(
        table(
            [
                "category",
                "answers",
                "same verdict",
                "ours: check",
                "bfcl-eval ast_checker",
                "ratio ours/theirs",
                "ours: parse + check",
                "ours: reset + step",
            ],
            rows,
        )
    )
    print()
    print(f"overall ratio ours/theirs (time-weighted): {ours_total / theirs_total:.2f}")
    print()
    print(multi_turn_table(args.tasks, max(3, args.repeat // 10)))


def multi_turn_table(tasks: int, repeat: int) -> str:
    """BFCLMultiTurn-v1: the oracle's episodes, per step (call steps execute on the simulated
    APIs; each text step runs BFCL's reference calls and state/response checks for the turn)."""
    env = BFCLMultiTurnEnv()
    oracle = OracleAgent(env)
    task_ids = env.tasks.ids()[:tasks]
    steps = sum(run_episode(env, oracle, task_id=task_id).steps for task_id in task_ids)

    def episodes():
        for task_id in task_ids:
            run_episode(env, oracle, task_id=task_id)

    per_episode = median(time_calls(episodes, repeat=repeat, warmup=1)) / len(task_ids)
    rows = [
        [
            len(task_ids),
            f"{steps / len(task_ids):.1f}",
            fmt_seconds(per_episode),
            fmt_seconds(per_episode * len(task_ids) / steps),
        ]
    ]
    return table(["BFCLMultiTurn-v1 oracle episodes", "steps per episode", "episode (incl. reset)", "per step"], rows)


if __name__ == "__main__":
    main()
