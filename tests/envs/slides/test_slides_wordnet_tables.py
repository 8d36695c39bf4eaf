"""The WordNet tables Slides ships (``data/antonyms.tsv``, ``data/synonyms.tsv``): each carries WordNet's licence
and is what its builder makes from Debian's ``wordnet-base`` where that is installed."""

from __future__ import annotations

from types import ModuleType

import pytest

from rewardlab.envs.slides.build import antonyms, synonyms
from rewardlab.envs.slides.build.wordnet import WORDNET_DIR

BUILDERS = {antonyms: antonyms.direct_antonyms, synonyms: synonyms.synonym_sets}


@pytest.mark.parametrize("builder", list(BUILDERS), ids=lambda module: module.__name__.rsplit(".", 1)[-1])
def test_the_shipped_table_carries_wordnets_licence_and_is_what_the_builder_makes(builder: ModuleType):
    text = builder.OUTPUT.read_text(encoding="utf-8")
    assert "WordNet Release 3.0" in text and "Copyright 2006 by Princeton University" in text
    if not (WORDNET_DIR / "data.adj").is_file():
        pytest.skip(f"no WordNet database at {WORDNET_DIR}: apt-get install wordnet-base")
    assert builder.render(BUILDERS[builder](WORDNET_DIR)) == text
