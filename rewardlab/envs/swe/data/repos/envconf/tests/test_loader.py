from envconf import load_into, to_bool, to_list


def test_load_into_sets_new_keys():
    environ = {}
    assert load_into("A=1\nB=2", environ) == ["A", "B"]
    assert environ == {"A": "1", "B": "2"}


def test_load_into_override_explicit():
    environ = {"A": "old"}
    load_into("A=new", environ, override=True)
    assert environ["A"] == "new"


def test_types():
    assert to_bool(" Yes ") is True and to_bool("off") is False
    assert to_list("a, b,c") == ["a", "b", "c"]
