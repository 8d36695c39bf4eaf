"""Fixtures shared by the browser-backed env tests (Web-v0 and MiniWoB-v0)."""

from __future__ import annotations

import os

import pytest

from rewardlab.envs.web.backends.browser import Chromium, find_chromium

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
