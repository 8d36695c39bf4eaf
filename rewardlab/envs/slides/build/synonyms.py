"""Build ``data/synonyms.tsv``: WordNet 3.0's synonym sets of verbs, adjectives and adverbs, read from the database
files of Debian's ``wordnet-base`` (``/usr/share/wordnet``; ``apt-get install wordnet-base``) by
:mod:`~rewardlab.envs.slides.build.wordnet`.

A synset is a set of words that share one sense ("rise", "go up", "climb": increase in value). A word is kept in a
synset only when that sense is among its :data:`TOP_SENSES` most frequent (WordNet's index ranks each word's
senses): "see" is in a synset with "meet" (come together), its eighth sense, so a bullet's "did not see" never
stands for a source's "met". The table keeps every synset of the three parts of speech that holds at least two
different words after that and after words of more than :data:`LONGEST_WORDS` words are left out, one row a set: its
words in alphabetical order joined by ``|``, then the parts of speech it holds in (a set that is a verb's and an
adjective's is one row). Nouns are left out: a statement is reversed through its predicate, and a noun's synsets are
most of WordNet (39,000 sets of 102,000 words against 14,000 sets of 38,000 for the other three). What the rubric
reads of it is decided there (:mod:`rewardlab.envs.slides.synonyms`).

    python -m rewardlab.envs.slides.build.synonyms [--wordnet /usr/share/wordnet] [--output PATH]
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rewardlab.envs.slides.build.wordnet import LICENCE, WORDNET_DIR, build_table, sense_ranks, synsets

OUTPUT = Path(__file__).resolve().parent.parent / "data" / "synonyms.tsv"
PARTS_OF_SPEECH = ("verb", "adj", "adv")
LONGEST_WORDS = 3
"""The most words a member of a set may have (as the rubric reads phrases: up to three words)."""
TOP_SENSES = 5
"""The senses of a word, most frequent first, in whose synsets it is kept."""

HEADER = (
    "# WordNet 3.0's synonym sets of verbs, adjectives and adverbs: words joined by |, the parts of speech\n"
    "# (tab-separated). Built by rewardlab/envs/slides/build/synonyms.py from Debian's wordnet-base.\n"
    "#\n" + LICENCE
)


def synonym_sets(wordnet: Path = WORDNET_DIR) -> dict[tuple[str, ...], set[str]]:
    """``{words: parts of speech}``: each synset of :data:`PARTS_OF_SPEECH` with at least two different members
    of at most :data:`LONGEST_WORDS` words whose sense it is among their :data:`TOP_SENSES`, its members sorted."""
    sets: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for pos in PARTS_OF_SPEECH:
        ranks = sense_ranks(wordnet / f"index.{pos}")
        for offset, words, _pointers in synsets(wordnet / f"data.{pos}"):
            kept = {w for w in words if len(w.split()) <= LONGEST_WORDS and ranks.get((w, offset), 0) <= TOP_SENSES}
            members = tuple(sorted(kept))
            if len(members) >= 2:
                sets[members].add(pos)
    return sets


def render(sets: dict[tuple[str, ...], set[str]]) -> str:
    """The TSV text: :data:`HEADER`, then a row a set in order."""

    def row(members: tuple[str, ...], parts: set[str]) -> str:
        return "|".join(members) + "\t" + ",".join(pos for pos in PARTS_OF_SPEECH if pos in parts)

    return HEADER + "".join(row(members, parts) + "\n" for members, parts in sorted(sets.items()))


def main(argv: list[str] | None = None) -> int:
    return build_table(argv, description=__doc__.split("\n\n")[0], output=OUTPUT, read=synonym_sets, render=render)


if __name__ == "__main__":
    raise SystemExit(main())
