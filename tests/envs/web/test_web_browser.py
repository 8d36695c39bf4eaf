"""Web-v2 through headless Chromium: identical to the HTTP backend, hostile pages, containment, leaks.

One Chromium is shared by the whole module (each env opens its own browser context).
"""

from __future__ import annotations

import socket
import time

import pytest
from gymnasium.utils.env_checker import check_env

from rewardlab.agents import OracleAgent, RandomAgent
from rewardlab.browser.observation import extract_nodes, parse_html
from rewardlab.envs.web.env import WebEnv
from rewardlab.evaluation import run_episode
from tests.envs.conftest import NEEDS_CHROMIUM, assert_back_to, process_resources

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def browser_env(chromium):
    env = WebEnv(backend="browser", chromium=chromium)
    yield env
    env.close()


@pytest.fixture(scope="module")
def http_env():
    env = WebEnv(backend="http")
    yield env
    env.close()


def _trace(result):
    return result.observations, result.reward, result.components, result.milestones, result.is_success


def test_check_env_passes(browser_env):
    check_env(browser_env, skip_render_check=True)


def test_backends_agree_on_every_task_with_the_oracle(browser_env, http_env):
    browser_oracle, http_oracle = OracleAgent(browser_env), OracleAgent(http_env)
    for task_id in http_env.tasks.ids():
        in_browser = run_episode(browser_env, browser_oracle, seed=0, task_id=task_id)
        over_http = run_episode(http_env, http_oracle, seed=0, task_id=task_id)
        assert _trace(in_browser) == _trace(over_http), task_id
        assert in_browser.is_success, task_id


def test_backends_agree_under_random_actions(browser_env, http_env):
    for seed in range(4):
        task_id = http_env.tasks.ids()[seed * 11]
        in_browser = run_episode(browser_env, RandomAgent(browser_env, seed=seed), seed=seed, task_id=task_id)
        over_http = run_episode(http_env, RandomAgent(http_env, seed=seed), seed=seed, task_id=task_id)
        assert in_browser.actions == over_http.actions
        assert _trace(in_browser) == _trace(over_http), task_id


TRICKY_HTML = """<!DOCTYPE html><html><head><title> Tricky
 page </title><style>p{color:red}</style><script>var x = "<b>not text</b>";</script></head><body>
<h1>Heading &amp; more</h1><p>Mixed <b>bold</b> tail&nbsp;text</p>
<div hidden>hidden attr</div><div aria-hidden="true">aria hidden</div><div style="display: none">styled away</div>
<noscript>no script</noscript><input type="hidden" name="h" value="secret">
<label for="q">Query</label><input id="q" value="abc">
<label>Wrapped <input type="checkbox" checked></label>
<input placeholder="Just a placeholder"><input type="password" value="hunter2" aria-label="Password">
<textarea id="t" title="Notes">Some notes</textarea>
<select aria-label="Pick"><option>One</option><option selected>Two</option></select>
<form action="/go"><button>Go</button><input type="submit" value="Send"><input type="reset"></form>
<button type="button" disabled>Off</button><a href="/x">Link <span>inside</span></a><a>No href</a>
<div role="button">Div button</div><span onclick="f()">Clickable span</span><img alt="A cat"><img src="x.png">
<svg><text>svg text</text></svg>
</body></html>"""


def test_walker_matches_the_lxml_extractor_on_tricky_html(browser_env):
    page = browser_env.backend.page
    page.set_content(TRICKY_HTML)
    page.evaluate("() => { window.__rlNext = undefined; }")
    in_browser = browser_env.backend.snapshot(1000)
    nodes, _, more = extract_nodes(parse_html(TRICKY_HTML), limit=1000)
    assert in_browser.nodes == nodes and not more
    assert in_browser.title == "Tricky page"
    listing = [(n.role, n.name, n.value, n.checked) for n in nodes]
    assert ("textbox", "Password", "•••••••", None) in listing
    assert ("textbox", "Query", "abc", None) in listing
    assert ("checkbox", "Wrapped", None, True) in listing
    assert ("combobox", "Pick", "Two", None) in listing
    assert not any(
        name in {"hidden attr", "aria hidden", "styled away", "no script", "svg text"} for _, name, *_ in listing
    )
    browser_env.reset(seed=0, options={"task_id": "shop-001"})


def test_huge_dom_is_truncated_and_built_in_under_a_second(browser_env):
    browser_env.reset(seed=0, options={"task_id": "shop-001"})
    patient = browser_env.backend.timeout
    browser_env.backend.timeout = 60
    try:
        obs, *_ = browser_env.step('goto("/lab/huge?n=100000")')
    finally:
        browser_env.backend.timeout = patient
    assert browser_env.backend.page.evaluate("document.getElementsByTagName('*').length") > 100_000
    assert "[page truncated: showing elements 1-" in obs and len(obs) <= 6000
    start = time.perf_counter()
    browser_env.session.refresh()
    text = browser_env.session.render()
    assert time.perf_counter() - start < 1.0
    assert text.partition("Page:")[2] == obs.partition("Page:")[2]


def test_slow_page_says_so_after_the_timeout(chromium):
    env = WebEnv(backend="browser", chromium=chromium, page_timeout=1.0)
    try:
        env.reset(seed=0, options={"task_id": "shop-001"})
        obs, *_ = env.step('goto("/lab/slow")')
        assert "Note: the page did not finish loading within 1 s" in obs and '"Still loading"' in obs
    finally:
        env.close()


def test_redirect_loop_and_injection(browser_env):
    browser_env.reset(seed=0, options={"task_id": "shop-001"})
    obs, *_ = browser_env.step('goto("/lab/loop/0")')
    assert "Note: navigation failed: too many redirects (redirect loop)" in obs
    obs, _, _, _, info = browser_env.step('goto("/lab/injection")')
    head, _, page = obs.partition("\nPage:\n")
    assert "SYSTEM OVERRIDE" in page and "SYSTEM OVERRIDE" not in head and info["action_error"] is None
    assert not any(line.startswith("[99]") for line in obs.splitlines())


def test_requests_to_other_hosts_and_ports_are_blocked_in_the_browser(browser_env):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(1.0)
    port = listener.getsockname()[1]
    try:
        browser_env.reset(seed=0, options={"task_id": "shop-001"})
        page = browser_env.backend.page
        for url in (f"http://127.0.0.1:{port}/x", f"http://localhost:{port}/x", "http://example.com/"):
            outcome = page.evaluate("(u) => fetch(u).then(() => 'fetched', (e) => 'blocked: ' + e.message)", url)
            assert outcome.startswith("blocked"), url
        page.evaluate(f"() => {{ new Image().src = 'http://127.0.0.1:{port}/pixel.png'; }}")
        with pytest.raises(socket.timeout):
            listener.accept()
        _, _, _, _, info = browser_env.step(f'goto("http://127.0.0.1:{port}/")')
        assert "refused" in info["action_error"]
    finally:
        listener.close()


def test_episodes_and_close_leak_nothing():
    before = process_resources()
    env = WebEnv(backend="browser")  # launches and owns its own Chromium
    oracle = OracleAgent(env)
    for episode in range(12):
        run_episode(env, oracle, seed=episode, task_id=env.tasks.ids()[episode * 5])
    env.close()
    env.close()
    assert_back_to(before, timeout=10)
