"""How much a reweighting reorders episodes and agents: Kendall's tau-b, flipped pairs and agent rankings.

For the rewards ``a`` (the reference scheme) and ``b`` (another scheme) of the same n episodes:

- Kendall's tau-b, ties allowed (:func:`kendall_tau_b`): ``τ_b = (P − Q) / sqrt((P + Q + T_a)(P + Q + T_b))``,
  with P concordant pairs, Q discordant pairs, T_a pairs tied under ``a`` only and T_b under ``b`` only
  (pairs tied under both count in neither). NaN when a scheme gives every episode the same reward, or n < 2.
- Flipped pairs (:func:`flipped_pairs`): pairs strictly ordered one way under ``a`` and strictly the other
  way under ``b``; that is Q. A tie on either side is no flip: ties lower τ_b without flipping anything.
- Agent ranking (:func:`ranking`): agents by mean reward, best first, with means within
  :data:`TIE_TOLERANCE` tied. It *changes* when its groups of tied agents, in order, differ from the reference's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

from rewardlab.errors import ConfigError

TIE_TOLERANCE = 1e-9
"""Agent means closer than this are tied in a ranking."""


def kendall_tau_b(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b of two rankings of the same items (formula: the module docstring); NaN when either is
    constant or there are fewer than two items."""
    from scipy.stats import kendalltau

    if len(a) != len(b):
        raise ConfigError(f"tau needs two rankings of the same items, got {len(a)} and {len(b)} values")
    if len(a) < 2:
        return math.nan
    return float(kendalltau(a, b).statistic)


def flipped_pairs(a: Sequence[float], b: Sequence[float]) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)`` with item i strictly above j under ``a`` and strictly below it under ``b``.

    Example:
        >>> flipped_pairs([3, 2, 1], [1, 2, 2])
        [(0, 1), (0, 2)]
    """
    found = []
    for i, j in itertools.combinations(range(len(a)), 2):
        if a[i] > a[j] and b[i] < b[j]:
            found.append((i, j))
        elif a[i] < a[j] and b[i] > b[j]:
            found.append((j, i))
    return found


def ranking(means: Mapping[str, float], tolerance: float = TIE_TOLERANCE) -> list[list[str]]:
    """Agents by mean, best first, as groups of tied agents (names sorted within a group).

    Example:
        >>> ranking({"random": 0.0, "oracle": 1.0, "model": 0.0})
        [['oracle'], ['model', 'random']]
    """
    groups: list[list[str]] = []
    previous = math.inf
    for agent, mean in sorted(means.items(), key=lambda item: -item[1]):
        if groups and previous - mean <= tolerance:
            groups[-1].append(agent)
        else:
            groups.append([agent])
        previous = mean
    return [sorted(group) for group in groups]


def ranking_text(groups: Sequence[Sequence[str]]) -> str:
    """``oracle > model = random``."""
    return " > ".join(" = ".join(group) for group in groups)
