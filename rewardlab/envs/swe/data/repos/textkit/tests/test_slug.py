from textkit import slugify


def test_slugify_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_slugify_custom_separator():
    assert slugify("Release notes 2024", separator="_") == "release_notes_2024"


def test_slugify_max_length_strips_separator():
    assert slugify("one two three", max_length=8) == "one-two"
