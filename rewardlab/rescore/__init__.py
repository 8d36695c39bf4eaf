"""Re-score recorded episodes without the agent: ``rewardlab rescore episodes.jsonl``.

Episodes recorded with :class:`~rewardlab.wrappers.RecordEpisodes` hold their components, the stamp of the reward
that scored them (``reward_version``), and their seed, reset options and actions. From them:

- :mod:`rewardlab.rescore.compositions`: the compositions an episode is re-scored under (ReweightRubric presets,
  weightings, weight grids), each with the stamp ReweightRubric would report;
- :mod:`rewardlab.rescore.engine`: the records grouped by ``reward_version``, re-scored under every
  composition (no env step) or replayed under other env arguments
  (:func:`rewardlab.core.replay.replay`), with the statistics: mean reward and success with 95% CIs, each
  component, the ranking of the labels (agents, checkpoints), Kendall's τ_b and the flipped pairs;
- :mod:`rewardlab.rescore.report`: the Markdown tables ``rewardlab rescore`` prints.

The ``rescore`` mode of ``rewardlab study`` (:mod:`rewardlab.study.rescore`) runs the engine over many
compositions and reports which keep the reference ranking and which reward defective episodes.
"""

from rewardlab.rescore.compositions import RECORDED, REPLAYED, Composition, build, parse_compositions, weight_grid
from rewardlab.rescore.engine import (
    RescoreReport,
    Row,
    VersionGroup,
    discordant_pairs,
    expand,
    load_records,
    rescore,
)
from rewardlab.rescore.report import render

__all__ = [
    "RECORDED",
    "REPLAYED",
    "Composition",
    "RescoreReport",
    "Row",
    "VersionGroup",
    "build",
    "discordant_pairs",
    "expand",
    "load_records",
    "parse_compositions",
    "render",
    "rescore",
    "weight_grid",
]
