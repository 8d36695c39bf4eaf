"""The info contract (rewardlab.core.info): logs of arbitrary infos, the typed final-info record, the schemas."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardlab.core.info import INFO_FIELDS, INFO_SCHEMAS, FinalInfo, episode_logs, is_infra_failure, rollout_logs
from rewardlab.envs.echo import EchoEnv

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
arbitrary_infos = st.dictionaries(st.sampled_from([*INFO_FIELDS, "messages", "extra"]) | st.text(max_size=6), values)

unit = st.floats(min_value=0.0, max_value=1.0)
names = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)
contract_infos = st.fixed_dictionaries(
    {
        "task_id": st.text(min_size=1, max_size=5),
        "split": st.sampled_from(["train", "test"]),
        "score": unit,
        "is_success": st.booleans(),
        "usable": st.booleans(),
        "reward_components": st.dictionaries(names, unit, max_size=4),
        "reward_weights": st.dictionaries(names, unit, max_size=4),
        "metrics": st.dictionaries(names, unit, max_size=4),
        "milestones": st.lists(st.text(min_size=1, max_size=5), max_size=3),
        "progress": unit,
        "action_error": st.none() | st.text(min_size=1, max_size=8),
        "infra_error": st.none() | st.text(min_size=1, max_size=8),
        "reward_version": st.none() | st.from_regex(r"rv-[0-9a-f]{12}", fullmatch=True),
    }
)


@settings(max_examples=300, deadline=None)
@given(arbitrary_infos)
def test_episode_logs_never_raise_and_emit_only_finite_floats(info):
    logs = episode_logs(info)
    assert all(type(value) is float and math.isfinite(value) for value in logs.values())
    prefixes = ("reward/", "weight/", "metric/")
    assert all(key.startswith(prefixes) or key in ("score", "is_success", "progress", "infra_error") for key in logs)
    assert ("infra_error" in logs) == is_infra_failure(info)


@settings(max_examples=300, deadline=None)
@given(arbitrary_infos)
def test_final_info_reads_any_info_and_round_trips(info):
    final = FinalInfo.from_info(info)
    assert FinalInfo.from_info(final.to_info()) == final
    assert all(math.isfinite(v) for v in [*final.reward_components.values(), *final.metrics.values()])
    assert final.is_success is (info.get("is_success") is True)


@settings(max_examples=200, deadline=None)
@given(contract_infos)
def test_a_contract_info_comes_back_whole_and_logs_every_field(info):
    assert FinalInfo.from_info(info).to_info() == info
    logs = episode_logs(info)
    assert {k: logs[f"reward/{k}"] for k in info["reward_components"]} == info["reward_components"]
    assert logs["is_success"] == float(info["is_success"]) and logs["score"] == info["score"]
    assert logs.get("infra_error") == (1.0 if info["infra_error"] else None)


def test_the_final_info_of_a_real_episode():
    env = EchoEnv()
    env.reset(seed=0, options={"task_id": "t0"})
    info = env.step("alpha")[4]
    final = FinalInfo.from_info(info)
    assert (final.task_id, final.is_success, final.usable, final.infra_error) == ("t0", True, True, None)
    assert final.reward_components == info["reward_components"] and final.score == info["score"]
    assert FinalInfo.from_info({"is_success": np.bool_(True)}).is_success
    assert not FinalInfo.from_info({"is_success": 1}).is_success  # the contract says boolean


def test_logs_leave_out_what_is_absent_or_not_a_finite_number():
    info = {"reward_components": {"a": 0.5, "b": math.nan, "c": "x", "d": True}, "score": math.inf, "progress": 10**400}
    assert episode_logs(info) == {"reward/a": 0.5, "reward/d": 1.0}
    assert episode_logs({"infra_error": "the sandbox died"}) == {"infra_error": 1.0}


def test_rollout_logs_have_the_same_keys_before_and_after_the_end():
    before = rollout_logs({"progress": 0.25}, False, ("exact", "length"))
    after = rollout_logs({"reward_components": {"exact": 1.0, "length": 0.5}, "score": 0.75}, True, ("exact", "length"))
    assert (
        set(before)
        == set(after)
        == {"reward/exact", "reward/length", "score", "is_success", "progress", "infra_error", "finished"}
    )
    assert before["progress"] == 0.25 and before["finished"] == 0.0
    assert after["reward/length"] == 0.5 and after["finished"] == 1.0


def test_every_contract_field_has_a_nullable_schema():
    assert tuple(INFO_SCHEMAS) == INFO_FIELDS
    for name, schema in INFO_SCHEMAS.items():
        assert "null" in schema["type"], name
    assert set(FinalInfo.__dataclass_fields__) <= set(INFO_FIELDS)
