"""Fixtures shared by the browser-backed env tests (Web-v2 and MiniWoB-v1)."""

from __future__ import annotations

import os
import threading
import time

import psutil
import pytest

from rewardlab.browser.backends.browser import Chromium, find_chromium

CHROMIUM_PATH = find_chromium()
NEEDS_CHROMIUM = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM_PATH is None or not os.path.exists(CHROMIUM_PATH),
        reason="no Chromium binary found: apt-get install chromium, or set REWARDLAB_CHROMIUM to a Chromium executable",
    ),
]
"""``pytestmark`` of a module whose tests all drive Chromium."""


@pytest.fixture(scope="module")
def chromium():
    """One browser shared by every env of a test module."""
    shared = Chromium()
    yield shared
    shared.close()


def process_resources() -> tuple[int, int, int, int]:
    """This process's child processes, open file descriptors, inet connections and threads."""
    me = psutil.Process()
    return (
        len(me.children(recursive=True)),
        me.num_fds(),
        len(me.net_connections(kind="inet")),
        threading.active_count(),
    )


def assert_back_to(before: tuple[int, int, int, int], timeout: float) -> None:
    """Wait up to ``timeout`` seconds for every count of :func:`process_resources` to return to ``before`` or
    below: fewer is no leak (a thread or connection an earlier test left, such as a server's keep-alive handler,
    may end while this test runs)."""

    def back() -> bool:
        return all(now <= then for now, then in zip(process_resources(), before, strict=True))

    deadline = time.monotonic() + timeout
    while not back() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert back(), (before, process_resources())
