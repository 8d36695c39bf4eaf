"""Moved to :mod:`rewardlab.browser.backends`; kept so that ``rewardlab.envs.web.backends.browser`` still imports."""
