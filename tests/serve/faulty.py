"""A test env for the server: Echo plus a crash, a slow step and a count of open envs."""

from __future__ import annotations

import threading
import time

import gymnasium as gym

from rewardlab.core.env import Turn
from rewardlab.envs.echo.env import EchoEnv

FAULTY_ID = "RewardLabTest/FaultyEcho-v0"
OPEN: set[int] = set()
"""ids of the FaultyEchoEnv instances made and not closed yet."""
LOCK = threading.Lock()


class FaultyEchoEnv(EchoEnv):
    """``crash`` raises (an infrastructure fault); ``sleep:<seconds>`` sleeps, then is a draft."""

    def __init__(self, **common):
        super().__init__(**common)
        with LOCK:
            OPEN.add(id(self))

    def _act(self, action: str) -> Turn:
        if action == "crash":
            raise RuntimeError("the sandbox engine died")
        if action.startswith("sleep:"):
            time.sleep(float(action.removeprefix("sleep:")))
            return Turn("noted")
        return super()._act(action)

    def close(self) -> None:
        with LOCK:
            OPEN.discard(id(self))
        super().close()


def register_faulty() -> str:
    if FAULTY_ID not in gym.registry:
        gym.register(id=FAULTY_ID, entry_point="tests.serve.faulty:FaultyEchoEnv")
    return FAULTY_ID
