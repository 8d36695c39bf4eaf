"""The weightings that episodes already played are rescored under, and how each rescores an episode.

An episode's final ``info["reward_components"]`` ``c`` is all a weighting needs. Each scheme is a
:class:`~rewardlab.wrappers.ReweightRubric` preset; its rubric recombines ``c`` as the wrapper does on
an episode's final step (:meth:`rewardlab.core.Rubric.combine`)::

    R_s(e) = rubric_s.combine(c_e)        when the env scored e usable
    R_s(e) = the env's invalid_penalty    when it did not (ReweightRubric keeps it too)

The three schemes of an env (:func:`default_schemes`) follow one rule, with the components that the env
declares in its card (:attr:`~rewardlab.core.EnvCard.design`, a :class:`~rewardlab.core.DesignChoice` with
its reasons):

- ``equal``: ``w_k = 1/K``.
- ``targeted:<primary>``: half of the weight on the env's *primary outcome* component, the one that says
  whether the task itself was done (the database state, the tests resolved, the page's success), the rest
  spread equally over the other components.
- ``gated:<validity>``: equal weights, and the reward is ``invalid_penalty`` unless the env's *validity*
  component, the one that says whether the output is usable at all (the env's own gate where it has one,
  else its format or validity check; MiniWoB, which has neither, gates on the page's own reward), reaches 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import gymnasium as gym

from rewardlab.core.card import DesignChoice
from rewardlab.core.env import unwrapped_text_env
from rewardlab.core.rubric import Rubric
from rewardlab.errors import ConfigError
from rewardlab.wrappers import ReweightRubric

REFERENCE = "equal"
"""The label of the scheme every other one is compared with."""


def design_choice(env: gym.Env) -> DesignChoice:
    """The :class:`~rewardlab.core.DesignChoice` that ``env`` (a RewardLab env, wrapped or not) declares in its
    card; ConfigError for an env that declares none."""
    base = unwrapped_text_env(env)
    design = base.card().design
    if design is None:
        raise ConfigError(
            f"{type(base).__name__} declares no reward-design choice; give its class a design_choice "
            "(rewardlab.core.DesignChoice: the targeted and gated components, with the reasons)"
        )
    return design


def scheme_presets(choice: DesignChoice) -> dict[str, str]:
    """``{label: ReweightRubric preset}``: equal, targeted on the primary outcome, gated on validity.

    Example:
        >>> scheme_presets(DesignChoice("state", "format", "the task", "the format"))
        {'equal': 'equal', 'targeted': 'targeted:state', 'gated': 'gated:format'}
    """
    return {REFERENCE: "equal", "targeted": f"targeted:{choice.target}", "gated": f"gated:{choice.gate}"}


def default_schemes(env: gym.Env) -> dict[str, str]:
    """:func:`scheme_presets` of the env's :func:`design_choice`.

    Example:
        >>> from rewardlab.envs.echo import EchoEnv
        >>> default_schemes(EchoEnv())
        {'equal': 'equal', 'targeted': 'targeted:exact', 'gated': 'gated:length'}
    """
    return scheme_presets(design_choice(env))


@dataclass(frozen=True)
class Scheme:
    """One weighting: the rubric of ``ReweightRubric(env, preset)`` and the env's invalid penalty.

    Attributes:
        label: What tables call it (``equal``, ``targeted``, ``gated``).
        preset: The ReweightRubric scheme (``targeted:state``).
        rubric: The wrapper's :attr:`~rewardlab.wrappers.ReweightRubric.rubric`: what recombines components.
        invalid_penalty: The env's ``invalid_penalty``, the reward of an episode it scored unusable.
    """

    label: str
    preset: str
    rubric: Rubric
    invalid_penalty: float

    @classmethod
    def of(cls, env: gym.Env, label: str, preset: str) -> Scheme:
        """The scheme ``preset`` on ``env`` (a RewardLab env, wrapped or not)."""
        wrapper = ReweightRubric(env, preset)
        return cls(label, preset, wrapper.rubric, wrapper.env_invalid_penalty)

    def reward(self, components: Mapping[str, float], usable: bool = True) -> float:
        """``R_s``: the rubric's combination of ``components``, or the env's invalid penalty when unusable."""
        return self.rubric.combine(components)[0] if usable else self.invalid_penalty
