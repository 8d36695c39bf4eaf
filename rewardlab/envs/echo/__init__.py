"""Echo: the template env. Copy this package to start a new RewardLab env.

Echo is deliberately trivial (repeat a word) so that every line of it is either the contract
every env shares or the place where a real env puts its domain. It is not a benchmark and is
not registered: the wrapper doctests and the tests use it as their toy env.

To start ``MyTask`` from it:

1. ``cp -r rewardlab/envs/echo rewardlab/envs/mytask`` and rename ``EchoEnv`` / ``Echo*``.
2. ``data/tasks.jsonl``: one task per line, ``{"id", "split": "train"|"test", "prompt", ...}``;
   every other key is privileged data for scoring and the oracle (:mod:`rewardlab.core.tasks`).
3. ``rubric.py``: one function per reward component, outcome -> value in [0, 1] (optionally with
   sub-metrics), listed in the env's ``Rubric`` as a :class:`~rewardlab.core.Criterion` with its
   ``formula``, default ``weight``, ``range`` and ``role`` (:data:`~rewardlab.core.ROLES`). A component
   counting valid actions is the shared
   :func:`~rewardlab.core.criteria.validity_criterion` (the core counts them).
4. ``env.py``: the constructor takes the env's own keyword arguments and forwards the common ones
   (``**common: Unpack[CommonArgs]``) to :class:`~rewardlab.core.TextEnv`. ``_start`` sets up a task,
   ``_act`` turns one action into a :class:`~rewardlab.core.Turn` (``done=True`` ends the episode,
   scoring ``_outcome()`` unless the turn carries its own ``outcome``), and ``_outcome`` gives the
   outcome to score, also when ``max_turns`` cuts the episode short (``_at_turn_budget`` can add a
   closing observation there). The class declares ``multi_turn``, ``user_turns`` and ``design_choice``
   (its targeted and gated components, with the reasons), and an env whose tasks offer tools overrides
   ``task_tools``: ``env.card()`` reads them (:class:`~rewardlab.core.EnvCard`).
5. The class docstring is the env's spec sheet: rewrite each of its sections
   (:data:`~rewardlab.core.specs.SPEC_SECTIONS`) and paste
   ``print(rewardlab.core.specs.component_table(rubric))`` under ``## Components``;
   ``tests/test_specs.py`` checks both, and the README row's components
   (:func:`~rewardlab.core.specs.component_summary`).
6. ``oracle.py``: an agent that reaches ``is_success`` on every task from the privileged data.
7. Register it: ``"RewardLab/MyTask-v0": {"entry_point": "rewardlab.envs.mytask.env:MyTaskEnv"}``
   in :data:`rewardlab.registration.ENV_SPECS`, and add its row to the README's Environments table
   (``tests/test_specs.py`` checks the row against the rubric): the only two lines outside the package.
   The tests that cover every registered env (registry, conformance, wrappers, serve, card, audit) then
   cover it.
8. ``rewardlab.testing.check_text_env(gym.make("RewardLab/MyTask-v0"))`` runs the conformance
   suite, and ``rewardlab audit RewardLab/MyTask-v0`` plays degenerate strategies against it. The audit
   test asks more than the generic battery gives: an ``audit_profile`` with strategies of the env's own
   (at least 12 strategy rows in all), and at least one equivalent and one defective rewrite (its
   ``rewrites.py``; see any shipped env's).
"""

from rewardlab.envs.echo.env import EchoEnv
from rewardlab.envs.echo.oracle import EchoOracle
from rewardlab.envs.echo.rubric import EchoOutcome, echo_rubric

__all__ = ["EchoEnv", "EchoOracle", "EchoOutcome", "echo_rubric"]
