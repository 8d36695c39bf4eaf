"""Every RewardLab env id, registered with Gymnasium on ``import rewardlab``.

Entry points are strings so that importing ``rewardlab`` stays cheap: an env's module (and
its optional dependencies) is imported only when the env is made. Any change to an env's
rewards or dynamics bumps its version.

The previous ids (:data:`RETIRED_IDS`, every lower version of each env) stay registered so that existing
scripts keep running, but they build the *current* env: the old rewards were open to the hacks
that v1 closes, and are not kept. Gymnasium warns on every ``make`` of such an id that it is out
of date; :func:`env_ids` lists only current ids.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

ENV_SPECS: dict[str, dict[str, Any]] = {
    "RewardLab/BPMN-v2": {"entry_point": "rewardlab.envs.bpmn.env:BPMNEnv"},
    "RewardLab/BFCL-v1": {"entry_point": "rewardlab.envs.bfcl.env:BFCLEnv"},
    "RewardLab/BFCLMultiTurn-v1": {"entry_point": "rewardlab.envs.bfcl.multi_turn:BFCLMultiTurnEnv"},
    "RewardLab/ToolCall-v3": {"entry_point": "rewardlab.envs.toolcall.env:ToolCallEnv"},
    "RewardLab/Slides-v2": {"entry_point": "rewardlab.envs.slides.env:SlidesEnv"},
    "RewardLab/SlidesAgent-v2": {"entry_point": "rewardlab.envs.slides.env:SlidesEnv", "kwargs": {"mode": "tools"}},
    "RewardLab/Web-v2": {"entry_point": "rewardlab.envs.web.env:WebEnv"},
    "RewardLab/MiniWoB-v1": {"entry_point": "rewardlab.envs.miniwob.env:MiniWoBEnv"},
    "RewardLab/SWE-v2": {"entry_point": "rewardlab.envs.swe.env:SWEEnv"},
    "RewardLab/SWERepo-v1": {"entry_point": "rewardlab.envs.swe.repo_env:SWERepoEnv"},
}


CLIENT_SPECS: dict[str, dict[str, Any]] = {
    "RewardLabClient/Remote-v0": {"entry_point": "rewardlab.serve.client:RemoteEnv"},
}
"""Ids that are not envs of their own: ``Remote-v0`` is a client of a served env (``url``, ``env_id``)."""


RETIRED_IDS: dict[str, str] = {
    f"{name}-v{old}": env_id
    for env_id in ENV_SPECS
    for name, _, version in [env_id.rpartition("-v")]
    for old in range(int(version))
}
"""``{old id: the current id it now builds}``."""


def register_envs() -> None:
    """Register every id in :data:`ENV_SPECS`, :data:`CLIENT_SPECS` and :data:`RETIRED_IDS` (idempotent)."""
    retired = ((old, ENV_SPECS[new]) for old, new in RETIRED_IDS.items())
    for env_id, kwargs in [*ENV_SPECS.items(), *CLIENT_SPECS.items(), *retired]:
        if env_id not in gym.registry:
            gym.register(id=env_id, **kwargs)


def env_ids() -> list[str]:
    """All RewardLab env ids, sorted."""
    return sorted(ENV_SPECS)
