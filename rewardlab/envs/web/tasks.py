"""Web-v2 tasks: the shipped ``data/tasks.jsonl`` (built by :mod:`rewardlab.envs.web.build.tasks`).

Each task's ``data`` holds:

- ``site`` and ``start_url``: where the episode starts;
- ``success``: the hidden check, ``{"goal": [site, name, args]}`` (the :class:`~rewardlab.envs.web.sites.base.Goal`
  state every site must end in; without one, every site must end as it started) and/or
  ``{"answer": [accepted answers]}`` on the final ``answer("...")``;
- ``milestones``: ``[{"name", "url"}]`` (a regular expression searched in the path and query of
  a page reached by a click) or ``[{"name", "check"}]`` (a site predicate, or a goal's name:
  its target records reached), in their natural order;
- ``solution``: the oracle's plan, steps that name elements by role and name (never by id).

Every fourth task of each site is in the test split.
"""

from __future__ import annotations

from pathlib import Path

from rewardlab.core.tasks import TaskSet

DATA = Path(__file__).parent / "data" / "tasks.jsonl"


def load_tasks() -> TaskSet:
    """The shipped TaskSet (``data/tasks.jsonl``)."""
    return TaskSet.from_jsonl(DATA)
