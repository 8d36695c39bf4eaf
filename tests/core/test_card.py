"""TextEnv.card(): what every registered env declares about itself, checked against what playing it shows.

The oracles are what the card replaces: the single-turn verdict that ``check_single_turn`` got by playing an
empty action, and the tool sets and user turns that the TRL adapter got by resetting every task.
"""

from __future__ import annotations

import json

import pytest

import rewardlab
from rewardlab.core import ROLES, DesignChoice, EnvCard, TextEnv
from rewardlab.core.specs import criterion_rows
from rewardlab.envs.echo import EchoEnv
from rewardlab.errors import ConfigError

ENV_IDS = rewardlab.env_ids()


def refuse(*args, **kwargs):
    raise AssertionError("card() played the env")


def card_without_playing(env: TextEnv, monkeypatch: pytest.MonkeyPatch) -> EnvCard:
    for name in ("reset", "step", "_start", "_act", "_outcome"):
        monkeypatch.setattr(env, name, refuse)
    card = env.card()
    monkeypatch.undo()
    return card


def test_the_card_names_the_envs_own_components_roles_and_design(made, monkeypatch):
    env_id, env = made
    base = env.unwrapped
    card = card_without_playing(base, monkeypatch)
    assert card.env_id == env_id
    assert card.component_names == base.reward_component_names
    assert list(card.components) == criterion_rows(base.rubric)
    assert all(row["role"] in ROLES for row in card.components)
    roles = {row["name"]: row["role"] for row in card.components}
    assert card.design is not None, f"{env_id} declares no design_choice"
    assert card.design.gate in roles and roles[card.design.target] == "outcome"
    assert card.task_counts == {"train": len(base.tasks.ids("train")), "test": len(base.tasks.ids("test"))}
    assert (card.max_turns, card.system_prompt, card.aggregate) == (base.max_turns, base.system_prompt, "mean")
    assert json.loads(json.dumps(card.to_dict())) == card.to_dict()


def test_the_card_says_multi_turn_exactly_when_playing_does(made):
    """``check_single_turn``'s verdict by playing: single-turn when the empty action ends an episode of the first
    train task and no turn budget above 1 is set; several user turns when the reset ``info`` reports a ``turn``."""
    _, env = made
    _, info = env.reset(options={"task_id": env.unwrapped.tasks.ids("train")[0]})
    terminated, truncated = env.step("")[2:4]
    budget = env.unwrapped.max_turns
    played_multi_turn = not (terminated or truncated) or (budget is not None and budget > 1)
    card = env.unwrapped.card()
    assert card.multi_turn == played_multi_turn
    assert card.user_turns == ("turn" in info)


def test_the_tool_sets_are_what_resetting_every_task_gives(made):
    """The first task is reset; when it offers tools every task is, and each distinct list counts once."""
    _, env = made
    base = env.unwrapped
    card = base.card()
    tasks = list(base.tasks)
    if not env.reset(options={"task_id": tasks[0].id})[1].get("tools"):
        assert card.tool_sets == ()
        return
    distinct: dict[str, list] = {}
    for task in tasks:
        tools = env.reset(options={"task_id": task.id})[1]["tools"]
        assert base.task_tools(task) == tools, task.id
        distinct.setdefault(json.dumps(tools, sort_keys=True), tools)
    assert [list(tools) for tools in card.tool_sets] == list(distinct.values())


def test_the_template_env_has_a_card_without_an_id():
    card = EchoEnv().card()
    assert card.env_id is None and card.multi_turn and not card.user_turns and card.tool_sets == ()
    assert card.design == EchoEnv.design_choice and card.to_dict()["design"]["target"] == "exact"


def test_a_turn_budget_of_one_makes_any_env_single_turn():
    assert not EchoEnv(max_turns=1).card().multi_turn and EchoEnv(max_turns=2).card().multi_turn


def test_the_card_shows_the_envs_arguments():
    card = EchoEnv(reward_weights={"exact": 3}, gates=["exact"], invalid_penalty=-1).card()
    assert card.weights == {"exact": 0.75, "length": 0.25} and card.gates == {"exact": 1.0}
    assert card.invalid_penalty == -1.0 and [row["gate"] for row in card.components] == [1.0, None]


@pytest.mark.parametrize(
    ("choice", "match"),
    [
        (DesignChoice("exakt", "length", "", ""), "targeted 'exakt' is not a component.*Did you mean 'exact'"),
        (DesignChoice("exact", "size", "", ""), "gated 'size' is not a component"),
        (DesignChoice("length", "exact", "", ""), "targeted 'length' has role 'partial', not 'outcome'"),
    ],
)
def test_a_design_choice_that_does_not_fit_the_rubric_is_refused_when_the_env_is_made(choice, match):
    class Mistaken(EchoEnv):
        design_choice = choice

    with pytest.raises(ConfigError, match=match):
        Mistaken()
