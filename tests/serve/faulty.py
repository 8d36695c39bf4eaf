"""Test envs for the server: Echo plus a crash, a slow step, a count of open envs and an awaited step."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time

import gymnasium as gym

from rewardlab.core.env import Turn
from rewardlab.envs.echo.env import EchoEnv

FAULTY_ID = "RewardLabTest/ServeFaultyEcho-v0"
SLOW_ID = "RewardLabTest/ServeSlowEcho-v0"
ASYNC_ID = "RewardLabTest/ServeAsyncEcho-v0"
ASYNC_LIMITED_ID = "RewardLabTest/ServeAsyncEchoLimited-v0"
"""AsyncEchoEnv behind a TimeLimit of 3 steps: a wrapper whose step the server must not skip."""
STEP_THREADS: list[str] = []
"""The name of the thread each step of an AsyncEchoEnv ran on, in order."""
OPEN: set[int] = set()
"""Serial numbers of the test env instances made and not closed yet (never reused, unlike ``id``)."""
SERIALS = itertools.count()
LOCK = threading.Lock()


class FaultyEchoEnv(EchoEnv):
    """``crash`` raises (an infrastructure fault); ``sleep:<seconds>`` sleeps, then is a draft; ``linger:<seconds>``
    makes the env's close take that long (a container being removed).

    It inherits EchoEnv's ``cheap_calls``: the server runs its calls on the event loop while they are fast.
    """

    def __init__(self, **common):
        super().__init__(**common)
        self.serial = next(SERIALS)
        self.close_takes = 0.0
        with LOCK:
            OPEN.add(self.serial)

    def _act(self, action: str) -> Turn:
        if action == "crash":
            raise RuntimeError("the sandbox engine died")
        if action.startswith("sleep:"):
            time.sleep(float(action.removeprefix("sleep:")))
            return Turn("noted")
        if action.startswith("linger:"):
            self.close_takes = float(action.removeprefix("linger:"))
            return Turn("noted")
        return super()._act(action)

    def close(self) -> None:
        time.sleep(self.close_takes)
        with LOCK:
            OPEN.discard(self.serial)
        super().close()


class SlowEchoEnv(FaultyEchoEnv):
    """FaultyEchoEnv without ``cheap_calls``: every call runs on its session's thread."""

    cheap_calls = False


class AsyncEchoEnv(SlowEchoEnv):
    """SlowEchoEnv with ``step_async``, which the server awaits in place of ``step``: ``wait:<seconds>`` awaits
    that long (no thread sleeps), then is a draft; every step records its thread in :data:`STEP_THREADS`."""

    async def step_async(self, action: str):
        if action.startswith("wait:"):
            await asyncio.sleep(float(action.removeprefix("wait:")))
            action = "draft:waited"
        return self.step(action)

    def _act(self, action: str) -> Turn:
        STEP_THREADS.append(threading.current_thread().name)
        return super()._act(action)


def register_faulty() -> str:
    for env_id, name in ((FAULTY_ID, "FaultyEchoEnv"), (SLOW_ID, "SlowEchoEnv"), (ASYNC_ID, "AsyncEchoEnv")):
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=f"tests.serve.faulty:{name}")
    if ASYNC_LIMITED_ID not in gym.registry:
        gym.register(id=ASYNC_LIMITED_ID, entry_point="tests.serve.faulty:AsyncEchoEnv", max_episode_steps=3)
    return FAULTY_ID
