"""Moved to :mod:`rewardlab.browser.backends.browser` (the old import path of ``Chromium`` and ``find_chromium``)."""

from rewardlab.browser.backends.browser import Chromium, find_chromium

__all__ = ["Chromium", "find_chromium"]
