"""Evaluate a RewardLab env through verifiers (v1) against an OpenAI-compatible endpoint.

    .venv-np2/bin/python examples/verifiers_eval.py --base-url http://127.0.0.1:8000/v1 \\
        --model Qwen/Qwen2.5-7B-Instruct --env-id RewardLab/ToolCall-v3 --num-tasks 8

verifiers' own eval loop (what ``vf-eval`` runs) plays each task turn by turn with its ``null`` chat
harness (:mod:`rewardlab.integrations.verifiers`); the traces go to ``<output-dir>/<run>/traces.jsonl``
and the summary printed at the end gives the mean reward and each component's mean score over the
rollouts that did not fail (a rollout an infrastructure fault ended fails and is counted apart).
The API key is read from ``$OPENAI_API_KEY`` (``--api-key-var``); local servers ignore it. Needs
``.venv-np2`` (``bash scripts/setup-numpy2.sh``): verifiers 0.4 and the ``uv`` its harness runs with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from statistics import fmean
from typing import Any


async def evaluate(
    base_url: str,
    model: str,
    env_id: str = "RewardLab/ToolCall-v3",
    num_tasks: int | None = 8,
    *,
    split: str = "test",
    env_kwargs: dict[str, Any] | None = None,
    api_key_var: str = "OPENAI_API_KEY",
    rollouts: int = 1,
    output_dir: str = "results/verifiers_eval",
) -> dict[str, Any]:
    """Run verifiers' eval loop on ``env_id``'s tasks of ``split`` and return the summary."""
    from verifiers.v1.cli.eval.runner import run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig

    from rewardlab.integrations.verifiers import ADJUSTMENT, env_config

    config = EvalConfig(
        env=env_config(env_id, split, num_tasks, **(env_kwargs or {})),
        model=model,
        client={"base_url": base_url, "api_key_var": api_key_var},
        num_rollouts=rollouts,
        push=False,
        rich=None,
        output_dir=Path(output_dir),
    )
    traces = [trace for episode in await run_eval(config) for trace in episode.traces]
    scored = [trace for trace in traces if trace.ok]
    names = [name for name in (scored[0].rewards if scored else {}) if name != ADJUSTMENT]
    return {
        "env_id": env_id,
        "model": model,
        "rollouts": len(traces),
        "failed": len(traces) - len(scored),
        "infra_errors": sum(trace.metrics.get("infra_error") == 1.0 for trace in traces),
        "reward": fmean(trace.reward for trace in scored) if scored else None,
        "success_rate": fmean(trace.metrics["is_success"] for trace in scored) if scored else None,
        "components": {name: fmean(trace.rewards[name].score for trace in scored) for name in names},
        "traces": str(Path(output_dir) / str(config.run.dir) / "traces.jsonl"),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True, help="the API root, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", required=True, help="the model name the server serves")
    parser.add_argument("--env-id", default="RewardLab/ToolCall-v3")
    parser.add_argument("--num-tasks", type=int, default=8, help="the split's first N tasks")
    parser.add_argument("--split", default="test")
    parser.add_argument("--env-kwargs", type=json.loads, default={}, help='JSON, e.g. \'{"categories": ["simple"]}\'')
    parser.add_argument("--api-key-var", default="OPENAI_API_KEY")
    parser.add_argument("--rollouts", type=int, default=1, help="rollouts per task")
    parser.add_argument("--output-dir", default="results/verifiers_eval")
    args = parser.parse_args(argv)
    # verifiers' chat harness runs as a uv script: find the uv installed beside this interpreter
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    summary = asyncio.run(
        evaluate(
            args.base_url,
            args.model,
            args.env_id,
            args.num_tasks,
            split=args.split,
            env_kwargs=args.env_kwargs,
            api_key_var=args.api_key_var,
            rollouts=args.rollouts,
            output_dir=args.output_dir,
        )
    )
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
