"""The wire protocol's parser, JSON conversion and observation round trip under arbitrary input (hypothesis)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.core.info import INFO_FIELDS
from rewardlab.serve.protocol import (
    ErrorCode,
    ProtocolError,
    dumps,
    jsonable,
    observation_frame,
    parse_message,
    read_observation,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.text() | st.binary())
def test_any_frame_parses_or_is_refused_with_a_code(raw):
    try:
        message = parse_message(raw)
    except ProtocolError as exc:
        assert isinstance(exc.code, ErrorCode)
    else:
        assert message.type in {"reset", "step", "state", "close"}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["reset", "step", "state", "close", "other"]), json_values)
def test_any_message_of_a_known_shape_parses_or_is_refused_with_a_code(kind, data):
    raw = json.dumps({"type": kind, "data": data})
    try:
        message = parse_message(raw)
    except ProtocolError as exc:
        assert exc.code in (ErrorCode.UNKNOWN_TYPE, ErrorCode.VALIDATION_ERROR, ErrorCode.INVALID_JSON)
    else:
        if message.type == "step":
            assert isinstance(message.data["action"], str)


@settings(max_examples=300, deadline=None)
@given(json_values | st.tuples(st.floats(), st.sets(st.integers(), max_size=3)))
def test_jsonable_gives_strict_json_and_keeps_finite_json_data(value):
    converted = jsonable(value)
    json.dumps(converted, allow_nan=False)
    if isinstance(value, float) and math.isfinite(value):
        assert converted == value


@settings(max_examples=200, deadline=None)
@given(st.text(), st.dictionaries(st.sampled_from([*INFO_FIELDS, "extra", "patch"]), json_values, max_size=6))
def test_an_observation_frame_always_serialises_and_names_the_fields_info_had(text, info):
    frame = json.loads(dumps(observation_frame(text, 0.5, True, False, info)))
    observation = frame["data"]["observation"]
    assert observation["text"] == text and frame["data"]["done"] is True
    assert set(observation["info_fields"]) == set(info) & set(INFO_FIELDS)
    assert set(observation["info"]) == set(info) - set(INFO_FIELDS)


@settings(max_examples=200, deadline=None)
@given(st.text(), st.dictionaries(st.sampled_from([*INFO_FIELDS, "extra", "patch"]), json_values, max_size=6))
def test_what_the_server_encodes_the_client_decodes(text, info):
    data = json.loads(dumps(observation_frame(text, 0.5, True, False, info)))["data"]
    assert read_observation(data) == (text, 0.5, True, False, json.loads(dumps(info)))


def test_without_info_fields_the_fields_that_are_not_none_are_the_info():
    observation = {"text": "t", "truncated": True, "score": 1.0, "tools": None, "info": {"x": 1}}
    data = {"observation": observation, "reward": None}
    assert read_observation(data) == ("t", None, False, True, {"x": 1, "score": 1.0})


def test_the_protocol_and_the_client_load_without_the_server():
    code = (
        "import sys, rewardlab.serve.protocol, rewardlab.serve.client; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
