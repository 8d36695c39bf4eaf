"""A RewardLab env as an OpenRLHF agent: this file is both the ``--train.agent_func_path`` and a CPU demo.

As OpenRLHF's agent file, it exposes ``AgentInstance`` and ``AgentExecutor`` for the env named by
``REWARDLAB_ENV_ID`` (default ``RewardLab/ToolCall-v3``), with ``REWARDLAB_ENV_KWARGS`` (JSON) and
the policy's tokenizer ``REWARDLAB_TOKENIZER``. Training on GPUs (not run here)::

    python examples/openrlhf_agent.py --env RewardLab/ToolCall-v3 --output results/openrlhf/train.jsonl --rows 0
    ray job submit --runtime-env-json='{"env_vars": {"REWARDLAB_ENV_ID": "RewardLab/ToolCall-v3",
                                                      "REWARDLAB_TOKENIZER": "Qwen/Qwen2.5-0.5B-Instruct"}}' \\
        -- python3 -m openrlhf.cli.train_ppo_ray --actor.model_name_or_path Qwen/Qwen2.5-0.5B-Instruct \\
        --data.prompt_dataset results/openrlhf/train.jsonl --data.input_key prompt --data.label_key label \\
        --data.apply_chat_template --train.agent_func_path examples/openrlhf_agent.py ...

Run as a script, it writes those rows (``--output``) and plays a few of them through OpenRLHF's own
``MultiTurnAgentExecutor.execute`` with a local Hugging Face model in place of the vLLM engine
(which needs GPUs): the sample dicts OpenRLHF turns into experiences (tokens, action ranges,
reward, scores and the ``extra_logs`` with one ``reward/<component>`` per component).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from types import SimpleNamespace

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.integrations.openrlhf import agent_classes, openrlhf_rows

AgentInstance, AgentExecutor = agent_classes(  # the tokenizer: REWARDLAB_TOKENIZER, read by each instance
    os.environ.get("REWARDLAB_ENV_ID", "RewardLab/ToolCall-v3"),
    json.loads(os.environ.get("REWARDLAB_ENV_KWARGS") or "{}"),
)


class LocalModelEngine:
    """OpenRLHF's engine contract (``generate(prompt_token_ids, sampling_params, multi_modal_data)``)
    answered by a local model, greedy, shaped like vLLM's output (EOS in ``token_ids``, not in ``text``)."""

    def __init__(self, model, tokenizer, max_new_tokens: int):
        self.model, self.tokenizer, self.max_new_tokens = model, tokenizer, max_new_tokens

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        import torch

        budget = min(self.max_new_tokens, sampling_params.max_tokens)
        with torch.no_grad():
            sequences = self.model.generate(torch.tensor([prompt_token_ids]), max_new_tokens=budget, do_sample=False)
        ids = sequences[0, len(prompt_token_ids) :].tolist()
        stopped = bool(ids) and ids[-1] == self.tokenizer.eos_token_id
        text = self.tokenizer.decode(ids[:-1] if stopped else ids)
        output = SimpleNamespace(token_ids=ids, text=text, finish_reason="stop" if stopped else "length", logprobs=None)
        return SimpleNamespace(outputs=[output])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="RewardLab/ToolCall-v3")
    parser.add_argument("--env-kwargs", type=json.loads, default={})
    parser.add_argument("--model", default="smollm2", help="'smollm2', an HF model id or a local folder")
    parser.add_argument("--rows", type=int, default=4, help="rows to play (0: only write the dataset)")
    parser.add_argument("--max-len", type=int, default=4096, help="OpenRLHF's --data.max_len")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--output", default=None, help="write every task's row to this JSONL file")
    args = parser.parse_args(argv)

    rows = openrlhf_rows(args.env, env_kwargs=args.env_kwargs)
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w") as file:
            file.writelines(json.dumps(row) + "\n" for row in rows)
    if args.rows == 0:
        return {"responses": []}

    from rewardlab.agents.models import load_model

    model, tokenizer = load_model(args.model, device="cpu")
    _, executor_class = agent_classes(args.env, args.env_kwargs, tokenizer=tokenizer)
    executor, engine = executor_class(), LocalModelEngine(model, tokenizer, args.max_new_tokens)

    async def play(row):
        params = SimpleNamespace(max_tokens=None, logprobs=None)
        return await executor.execute(row["prompt"], row["label"], params, args.max_len, tokenizer, engine)

    async def play_all():
        return await asyncio.gather(*(play(row) for row in rows[: args.rows]))

    responses = asyncio.run(play_all())
    keys = responses[0]["extra_logs"]
    print(json.dumps({key: sum(r["extra_logs"][key] for r in responses) / len(responses) for key in keys}, indent=2))
    return {"responses": responses}


if __name__ == "__main__":
    main()
