"""A RewardLab env as a NeMo-Gym resources server: this file is both the server's ``app.py`` and the tool that
writes its dataset rows and config (NeMo-Gym 0.7 needs Python >= 3.13.14: ``pip install nemo-gym==0.7.0``
beside RewardLab).

In a NeMo-Gym checkout::

    mkdir -p resources_servers/rewardlab/configs resources_servers/rewardlab/data
    cp examples/nemo_gym_server.py resources_servers/rewardlab/app.py
    python resources_servers/rewardlab/app.py --rows RewardLab/ToolCall-v3 \\
        --output resources_servers/rewardlab/data/train.jsonl \\
        --config resources_servers/rewardlab/configs/rewardlab.yaml

The rows (:func:`~rewardlab.integrations.nemo_gym.nemo_gym_rows`: the env's system prompt as the input, the task
id, split and reward stamp) name ``rewardlab_agent``, NeMo-Gym's ``gymnasium_agent`` configured by the written
YAML to play them on the ``rewardlab`` resources server (``env_id`` and ``env_kwargs`` in its config) with the
policy model ``policy_model``; NeMo-Gym asks each dataset's license (``--license``, default RewardLab's Apache
2.0: state your env's own where its task data comes from elsewhere). NeMo-Gym then starts this file with no
arguments, which serves the env (``RewardLabServer.run_webserver``). Each rollout's reward is the env's
return, its last step's info the episode's components (``reward/<component>``, ``is_success``, ``infra_error``)
with the task id and stamp; an infrastructure fault fails the rollout (HTTP 500) rather than scoring it 0.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import rewardlab  # noqa: F401  (registers the env ids)
from rewardlab.integrations.nemo_gym import RewardLabServer, nemo_gym_rows

SERVER = "rewardlab"
AGENT = "rewardlab_agent"


def nemo_gym_config(
    env_id: str, env_kwargs: dict[str, Any], dataset: str, license_name: str, max_steps: int
) -> dict[str, Any]:
    """NeMo-Gym's config for the resources server and the ``gymnasium_agent`` that plays ``dataset``'s rows."""
    return {
        SERVER: {
            "resources_servers": {
                SERVER: {
                    "entrypoint": "app.py",
                    "env_id": env_id,
                    "env_kwargs": env_kwargs,
                    "allowed_agents": ["gymnasium_agent"],
                    "domain": "agent",
                    "description": f"RewardLab {env_id}",
                    "verified": False,
                }
            }
        },
        AGENT: {
            "responses_api_agents": {
                "gymnasium_agent": {
                    "entrypoint": "app.py",
                    "resources_server": {"type": "resources_servers", "name": SERVER},
                    "model_server": {"type": "responses_api_models", "name": "policy_model"},
                    "max_steps": max_steps,
                    "datasets": [
                        {"name": "rewardlab", "type": "train", "jsonl_fpath": dataset, "license": license_name}
                    ],
                }
            }
        },
    }


def write_rows(args: argparse.Namespace) -> None:
    env_kwargs = json.loads(args.env_kwargs)
    rows = nemo_gym_rows(args.rows, args.split, env_kwargs=env_kwargs, agent_name=AGENT, limit=args.limit)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("".join(json.dumps(row) + "\n" for row in rows))
    print(f"{len(rows)} rows of {args.rows} ({args.split}) written to {output}")
    if args.config:
        import yaml  # NeMo-Gym's configs are YAML (PyYAML comes with it)

        config = nemo_gym_config(args.rows, env_kwargs, str(output), args.license, args.max_steps)
        Path(args.config).write_text(yaml.safe_dump(config, sort_keys=False))
        print(f"config written to {args.config}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", metavar="ENV_ID", help="write dataset rows of this env instead of serving")
    parser.add_argument("--split", default="train")
    parser.add_argument("--env-kwargs", default="{}", help="JSON, passed to gym.make")
    parser.add_argument("--limit", type=int, default=None, help="at most this many rows")
    parser.add_argument("--output", default="data/train.jsonl")
    parser.add_argument("--config", help="also write NeMo-Gym's YAML config here")
    parser.add_argument("--max-steps", type=int, default=16, help="the agent's turns per episode")
    parser.add_argument("--license", default="Apache 2.0", help="the dataset's license, as NeMo-Gym names it")
    args = parser.parse_args()
    if args.rows:
        write_rows(args)
    else:
        RewardLabServer.run_webserver()


if __name__ == "__main__":
    main()
