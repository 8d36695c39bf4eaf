import pytest
from minirouter import NotFound, Router


def user(): ...


def files(): ...


def make_router(**kwargs):
    router = Router(**kwargs)
    router.add("/users/<name>", user)
    router.add("/files/<path:rest>", files)
    return router


def test_match_with_parameters():
    assert make_router().match("/users/ada") == (user, {"name": "ada"})
    assert make_router().match("/files/a/b.txt") == (files, {"rest": "a/b.txt"})


def test_not_found():
    with pytest.raises(NotFound):
        make_router().match("/nothing")


def test_trailing_slash_when_not_strict():
    assert make_router(strict_slashes=False).match("/users/ada/") == (user, {"name": "ada"})


def test_url_for_str_and_path():
    router = make_router()
    assert router.url_for("user", name="ada") == "/users/ada"
    assert router.url_for("files", rest="docs/read me.txt") == "/files/docs/read%20me.txt"
