"""SWE-v2 bad input: escapes, binary and huge content, malformed and endless commands.

Each gives an error observation and ``info["action_error"]``; the episode goes on; nothing
outside the working copy changes.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewardlab.envs.swe import SWEEnv
from rewardlab.sandbox import Limits, SandboxedExecution

QUICK = SandboxedExecution(backend="local", timeout=3, limits=Limits(cpu_seconds=2, max_processes=32))


@pytest.fixture(scope="module")
def env():
    environment = SWEEnv(sandbox=QUICK)
    yield environment
    environment.close()


@pytest.fixture
def fresh(env):
    env.reset(options={"task_id": "textkit-1"})
    return env


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rejected(env, action: str, match: str) -> str:
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["action_error"], action
    assert match in obs, obs
    assert not terminated and reward == 0.0
    return obs


@pytest.mark.parametrize(
    ("action", "match"),
    [
        ("edit ../../etc/passwd 1:1\nroot::0:0::/:/bin/sh", "'..' is not allowed"),
        ("view ../../../../etc/shadow", "'..' is not allowed"),
        ("create /etc/rewardlab-pwned\nx", "absolute paths are not allowed"),
        ("replace /etc/passwd\nroot\n=======\nevil", "absolute paths are not allowed"),
        ("list /", "absolute paths are not allowed"),
        ("search root ../..", "'..' is not allowed"),
    ],
)
def test_paths_outside_the_repository_are_refused(fresh, action, match):
    passwd = _digest(Path("/etc/passwd"))
    _rejected(fresh, action, match)
    assert _digest(Path("/etc/passwd")) == passwd
    assert not Path("/etc/rewardlab-pwned").exists()


def test_symlinks_pointing_out_are_refused(fresh, tmp_path):
    secret = tmp_path / "host_secret.txt"
    secret.write_text("host data\n")
    before = _digest(secret)
    root = fresh.workspace.root
    os.symlink(secret, root / "leak.txt")
    os.symlink(tmp_path, root / "outside")
    _rejected(fresh, "view leak.txt", "resolves outside the repository")
    _rejected(fresh, "edit leak.txt 1:1\npwned", "resolves outside the repository")
    _rejected(fresh, "replace leak.txt\nhost\n=======\npwned", "resolves outside the repository")
    _rejected(fresh, "create outside/new.txt\npwned", "resolves outside the repository")
    _rejected(fresh, "create leak.txt\npwned", "resolves outside the repository")
    _rejected(fresh, "view outside/host_secret.txt", "resolves outside the repository")
    obs = fresh.step("search host")[0]
    assert "host data" not in obs
    assert _digest(secret) == before and not (tmp_path / "new.txt").exists()


def test_symlink_created_by_agent_code_is_refused(fresh):
    obs = fresh.step("python\nimport os\nos.symlink('/etc', 'etc_link')\nprint('linked')")[0]
    assert "linked" in obs
    passwd = _digest(Path("/etc/passwd"))
    _rejected(fresh, "edit etc_link/passwd 1:1\nx", "resolves outside the repository")
    _rejected(fresh, "view etc_link/passwd", "resolves outside the repository")
    assert _digest(Path("/etc/passwd")) == passwd


def test_binary_content_is_refused(fresh):
    original = fresh.workspace.read("textkit/slug.py")
    _rejected(fresh, "create data.bin\n\x00\x01\x02binary", "binary control characters")
    _rejected(fresh, "edit textkit/slug.py 1:1\n\x00\x7f", "binary control characters")
    assert fresh.workspace.read("textkit/slug.py") == original
    fresh.step("python\nopen('blob.bin', 'wb').write(bytes(range(256)))")
    _rejected(fresh, "view blob.bin", "binary file")


def test_ten_megabyte_edits_are_refused(fresh):
    original = fresh.workspace.read("textkit/slug.py")
    huge = "x = 1\n" * (10 * 1024 * 1024 // 6)
    _rejected(fresh, "create big.py\n" + huge, "exceeds the 1048576-byte file limit")
    _rejected(fresh, "edit textkit/slug.py 1:1\n" + huge, "exceeds the 1048576-byte file limit")
    _rejected(fresh, "replace textkit/slug.py\nimport re\n=======\n" + huge, "exceeds the 1048576-byte file limit")
    assert fresh.workspace.read("textkit/slug.py") == original
    assert not (fresh.workspace.root / "big.py").exists()


@pytest.mark.parametrize(
    ("action", "match"),
    [
        ("frobnicate the code", "unknown command 'frobnicate'"),
        ("view", "'view' takes PATH"),
        ("edit textkit/slug.py x:y\nbody", "line range must look like"),
        ("edit textkit/slug.py 5:2\nbody", "range end 2 is before start 5"),
        ("edit textkit/slug.py 900:900\nbody", "past the end"),
        ('search "unterminated', "check the quotes"),
        ("replace textkit/slug.py\nno separator here", "exactly one line '======='"),
        ("replace textkit/slug.py\nnot in the file\n=======\nnew", "occurs 0 times"),
        ("replace textkit/slug.py\n    \n=======\nnew", "occurs"),
        ("test --basetemp=/tmp/evil", "'test' takes test files or ids"),
        ("python", "needs a script"),
        ("submit now", "no arguments"),
        ("view textkit", "is a directory"),
        ("x" * 1_000_000, "the command line is 1000000 characters long"),
        ("view no/such/file.py", "no such file"),
    ],
)
def test_malformed_commands_get_clear_errors(fresh, action, match):
    _rejected(fresh, action, match)


def test_commands_that_never_end_are_stopped(fresh):
    obs, _, terminated, _, info = fresh.step("python\nwhile True:\n    pass")
    assert not terminated
    assert "[stopped: " in obs and info["action_error"].startswith("the command did not finish")
    obs, _, _, _, info = fresh.step("python\nimport time\ntime.sleep(1000)")
    assert "[stopped: timeout after 3 s]" in obs and info["action_error"]
    fresh.step("create tests/test_hang.py\ndef test_hang():\n    while True:\n        pass\n")
    obs, _, _, _, info = fresh.step("test tests/test_hang.py")
    assert "[stopped: " in obs and info["action_error"]
    obs = fresh.step("list")[0]
    assert "textkit/slug.py" in obs


def test_agent_code_cannot_touch_the_host(fresh, tmp_path):
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("keep")
    code = f"""python
import os
for target in [{str(sentinel)!r}, "/etc/passwd", "/tmp/rewardlab-escape"]:
    try:
        open(target, "a").write("pwned")
        print("wrote", target)
    except OSError as exc:
        print("blocked", target)
print(sorted(k for k in os.environ if "SECRET" in k or "TOKEN" in k))
"""
    escape = Path("/tmp/rewardlab-escape")
    escape.unlink(missing_ok=True)
    obs = fresh.step(code)[0]
    assert sentinel.read_text() == "keep" and not escape.exists()  # the sandbox's /tmp is its own
    if fresh.sandbox.isolation == "bwrap":
        assert f"blocked {sentinel}" in obs and "blocked /etc/passwd" in obs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200).filter(lambda t: t.strip().split(maxsplit=1)[:1] not in (["test"], ["python"])))
def test_any_text_is_handled(fresh, text):
    obs, reward, terminated, truncated, info = fresh.step(text)
    assert isinstance(obs, str)
    if not terminated and not truncated:
        assert reward == 0.0
    else:
        fresh.reset(options={"task_id": "textkit-1"})
