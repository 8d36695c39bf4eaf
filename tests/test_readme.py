"""The README's Python examples run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_the_two_setup_commands():
    text = README.read_text()
    assert "bash scripts/setup.sh &&" in text and "bash scripts/test.sh" in text
    ci = (README.parent / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci


@pytest.mark.parametrize("block", python_blocks(), ids=lambda b: b.splitlines()[0][:40])
def test_readme_python_examples_run(block, capsys):
    exec(compile(block, str(README), "exec"), {})
    assert capsys.readouterr().out
