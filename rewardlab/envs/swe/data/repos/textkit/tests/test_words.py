import pytest
from textkit import truncate_words, word_count


def test_truncate_words_short_text_unchanged():
    assert truncate_words("just three words", 5) == "just three words"


def test_truncate_words_rejects_negative():
    with pytest.raises(ValueError):
        truncate_words("a b", -1)


def test_word_count_spaces():
    assert word_count("the quick  brown fox") == 4
