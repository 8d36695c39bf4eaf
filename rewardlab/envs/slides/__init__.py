"""Slides: write a slide deck from a brief, rendered to a real .pptx and scored in five components.

``RewardLab/Slides-v2`` answers with the whole deck as JSON in one step; ``RewardLab/SlidesAgent-v2``
(``mode="tools"``) builds it with tools over several turns. See :class:`SlidesEnv` for the spec sheet.
"""

from rewardlab.envs.slides.env import SlidesEnv
from rewardlab.envs.slides.schema import DECK_JSON_SCHEMA, Deck, Slide, parse_deck

__all__ = ["DECK_JSON_SCHEMA", "Deck", "SlidesEnv", "Slide", "parse_deck"]
