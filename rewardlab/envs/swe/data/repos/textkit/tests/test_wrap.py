import pytest
from textkit import wrap


def test_wrap_packs_words():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_wrap_rejects_zero_width():
    with pytest.raises(ValueError):
        wrap("text", 0)
