"""SWE-v2 command parser and unified-diff module: exact parses, round trips, fuzzing."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.envs.swe.commands import Command, CommandError, parse_command
from rewardlab.envs.swe.patch import PatchError, apply_patch, changed_files, check_path, make_patch, parse_patch


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("view a/b.py", Command("view", ("a/b.py",))),
        ("view a.py 3:9", Command("view", ("a.py",), start=3, end=9)),
        ("view a.py 7", Command("view", ("a.py",), start=7, end=None)),
        ('search "def f(" src', Command("search", ("def f(", "src"))),
        ("list", Command("list")),
        ("edit a.py 2:4\nx = 1\ny = 2\n", Command("edit", ("a.py",), body="x = 1\ny = 2\n", start=2, end=4)),
        ("edit a.py 5:4\nnew", Command("edit", ("a.py",), body="new", start=5, end=4)),
        ("replace a.py\nold\n=======\nnew\nmore", Command("replace", ("a.py", "old", "new\nmore"))),
        ("create pkg/new.py\nprint(1)\n", Command("create", ("pkg/new.py",), body="print(1)\n")),
        ("test", Command("test")),
        (
            "test tests/test_a.py::test_x[1-2] tests/test_b.py",
            Command("test", ("tests/test_a.py::test_x[1-2]", "tests/test_b.py")),
        ),
        ("python\nprint('hi')", Command("python", body="print('hi')")),
        ("SUBMIT", Command("submit")),
        ("\n\nsubmit", Command("submit")),
        ("view a.py\r\n", Command("view", ("a.py",))),
    ],
)
def test_parse_known_commands(action, expected):
    assert parse_command(action) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_parser_never_raises_anything_but_command_error(text):
    try:
        command = parse_command(text)
    except CommandError as exc:
        assert str(exc)
    else:
        assert command.name in ("view", "search", "list", "edit", "replace", "create", "test", "python", "submit")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["view", "edit", "search", "test", "replace", "create"]), st.text(max_size=80))
def test_parser_with_command_words_and_noise(name, rest):
    try:
        command = parse_command(f"{name} {rest}")
    except CommandError as exc:
        assert str(exc)
    else:
        assert command.name == name


LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "def f():\n", "    return 1\n", "\n", "x = 'é'\n"]), max_size=25)


@st.composite
def trees(draw):
    names = draw(st.lists(st.sampled_from(["a.py", "pkg/b.py", "c.txt", "d/e/f.py"]), unique=True, max_size=4))
    tree = {}
    for name in names:
        text = "".join(draw(LINES))
        if draw(st.booleans()) and text:
            text = text.rstrip("\n")  # no newline at end of file
        tree[name] = text
    return tree


@settings(max_examples=200, deadline=None)
@given(trees(), trees())
def test_make_then_apply_round_trips(before, after):
    patch = make_patch(before, after)
    assert apply_patch(before, patch) == after
    assert (patch == "") == (before == after)
    assert set(changed_files(patch)) == {p for p in set(before) | set(after) if before.get(p) != after.get(p)}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_patches_are_accepted_by_git_apply(tmp_path):
    before = {"m.py": "a\nb\nc\nd\ne\nf\ng\nh\ni\n", "gone.txt": "bye\n", "tail.txt": "x\ny"}
    after = {"m.py": "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\n", "new/file.py": "print(1)\n", "tail.txt": "x\nz"}
    for name, text in before.items():
        (tmp_path / name).write_text(text)
    patch = make_patch(before, after)
    subprocess.run(["git", "apply", "-"], input=patch, text=True, cwd=tmp_path, check=True)
    assert {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()} == set(after)
    for name, text in after.items():
        assert (tmp_path / name).read_text() == text


def test_apply_with_offset_and_failures():
    base = {"f.py": "".join(f"line{i}\n" for i in range(1, 21))}
    patch = make_patch(base, {"f.py": base["f.py"].replace("line10\n", "LINE10\n")})
    shifted = {"f.py": "new0\nnew1\n" + base["f.py"]}
    assert "LINE10\n" in apply_patch(shifted, patch)["f.py"]
    with pytest.raises(PatchError, match="does not apply"):
        apply_patch({"f.py": base["f.py"].replace("line9\n", "changed\n")}, patch)
    with pytest.raises(PatchError, match="no such file"):
        apply_patch({}, patch)
    with pytest.raises(PatchError, match="no file headers"):
        parse_patch("this is not a diff\n")
    with pytest.raises(PatchError, match="malformed hunk header"):
        parse_patch("--- a/x\n+++ b/x\n@@ nonsense @@\n")
    with pytest.raises(PatchError, match="does not match its header counts"):
        parse_patch("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n")


@pytest.mark.parametrize("path", ["../x", "/etc/passwd", "a/../../b", "", "a\\b"])
def test_patch_paths_must_stay_inside(path):
    with pytest.raises(PatchError, match="not a relative path inside"):
        check_path(path)
    with pytest.raises(PatchError):
        apply_patch({}, f"--- a/{path}\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n" if path else "--- \n+++ \n")
