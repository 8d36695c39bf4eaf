"""The browser capability the web envs share: pages of the env's own server read as text and acted on by id.

- :mod:`~rewardlab.browser.actions`: the text action language (``click(12)``, ``type(3, "red")`` ...) and its parser.
- :mod:`~rewardlab.browser.observation`: the page as a listing of :class:`~rewardlab.browser.observation.Node` lines.
- :mod:`~rewardlab.browser.backends`: page drivers (lxml over HTTP, Chromium through Playwright) and
  :class:`~rewardlab.browser.backends.InfrastructureError`.
- :mod:`~rewardlab.browser.session`: history, scrolling, the navigation policy and the checks of ids and roles.
- :mod:`~rewardlab.browser.server`: :class:`~rewardlab.browser.server.PageServer`, the env's own HTTP server (quiet).
- :mod:`~rewardlab.browser.env`: :class:`~rewardlab.browser.env.BrowserTextEnv`, the base of Web-v2 and MiniWoB-v1.
"""
