"""One source of truth per reward component: its :class:`~rewardlab.core.Criterion`.

Every registered env's spec sheet (its class docstring, what ``help(env.unwrapped)`` shows) has the sections of
:data:`~rewardlab.core.specs.SPEC_SECTIONS` and the component table written from its rubric; the README's
Environments table and ``rewardlab list`` show the same components.
"""

from __future__ import annotations

import doctest
import pydoc
import re
from pathlib import Path

import rewardlab
from rewardlab.cli.list_command import env_row
from rewardlab.core.specs import SPEC_SECTIONS, component_summary, component_table, default_weights, spec_problems
from rewardlab.envs.echo import EchoEnv

ENV_IDS = rewardlab.env_ids()
README = Path(__file__).parents[1] / "README.md"


def readme_components() -> dict[str, str]:
    """``{env id: reward components cell}`` of the README's Environments table."""
    text = README.read_text()
    section = text.split("\n## Environments\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(RewardLab/[^`]+)` \|.*\| (.+?) \|$", section, re.MULTILINE)
    return dict(rows)


def test_the_spec_sheet_has_every_section_and_the_table_written_from_the_rubric(made):
    _, env = made
    base = env.unwrapped
    assert spec_problems(type(base).__doc__, base.rubric) == []


def test_help_shows_the_component_table(made):
    _, env = made
    shown = pydoc.render_doc(type(env.unwrapped), renderer=pydoc.plaintext)
    for line in component_table(env.unwrapped.rubric).splitlines():
        assert line in shown


def test_every_criterion_states_its_formula_and_range(made):
    _, env = made
    for criterion in env.unwrapped.rubric.criteria:
        assert criterion.formula and criterion.description, criterion.name
        assert criterion.range in ("[0, 1]", "{0, 1}"), criterion.name


def test_the_readme_lists_the_components_of_every_env(made):
    env_id, env = made
    assert readme_components().get(env_id) == component_summary(env.unwrapped.rubric)


def test_the_readme_has_a_row_for_every_registered_env_and_no_other():
    assert sorted(readme_components()) == ENV_IDS


def test_rewardlab_list_shows_the_rubric(made):
    env_id, env = made
    rubric = env.unwrapped.rubric
    row = env_row(env_id, env)
    assert row["summary"] == component_summary(rubric)
    assert row["components"] == list(env.unwrapped.reward_component_names)
    weights = default_weights(rubric)
    assert [(c["name"], c["formula"], c["default_weight"], c["range"]) for c in row["criteria"]] == [
        (c.name, c.formula, weights[c.name], c.range) for c in rubric.criteria
    ]


def test_the_template_env_is_a_spec_sheet_with_running_examples():
    env = EchoEnv()
    assert spec_problems(EchoEnv.__doc__, env.rubric) == []
    tests = doctest.DocTestFinder().find(EchoEnv, "EchoEnv", globs={"EchoEnv": EchoEnv})
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.tries > 0 and runner.failures == 0


def test_spec_problems_name_what_is_wrong():
    rubric = EchoEnv().rubric
    good = "\n\n".join(f"## {name}\n\ntext" for name in SPEC_SECTIONS).replace(
        "## Components\n\ntext", "## Components\n\n" + component_table(rubric)
    )
    assert spec_problems(good, rubric) == []
    swapped = good.replace("## Milestones", "## Episode start")
    assert "a spec sheet has" in spec_problems(swapped, rubric)[0]
    stale = good.replace("1/2", "1/3", 1)
    assert "does not hold the table" in spec_problems(stale, rubric)[0]
    assert "section 'Arguments' is empty" in spec_problems(good.replace("## Arguments\n\ntext", "## Arguments"), rubric)
