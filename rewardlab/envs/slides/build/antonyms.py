"""Build ``data/antonyms.tsv``: WordNet 3.0's direct antonyms, read from the database files of Debian's
``wordnet-base`` (``/usr/share/wordnet``; ``apt-get install wordnet-base``).

WordNet's data files are read by :mod:`~rewardlab.envs.slides.build.wordnet`. A direct antonym is a pointer ``!``
(always between two words). Indirect antonyms (an adjective's similar-sense satellites against the opposite head)
are not taken: "huge" is not the opposite of every "small" sense.

The table keeps WordNet's words as the reader gives them, each pair once in alphabetical order with the parts of
speech it holds in. What the rubric reads of it is decided there (:mod:`rewardlab.envs.slides.opposites`).

    python -m rewardlab.envs.slides.build.antonyms [--wordnet /usr/share/wordnet] [--output PATH]
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rewardlab.envs.slides.build.wordnet import LICENCE, PARTS_OF_SPEECH, WORDNET_DIR, build_table, synsets

OUTPUT = Path(__file__).resolve().parent.parent / "data" / "antonyms.tsv"

HEADER = (
    "# WordNet 3.0's direct antonyms: word, antonym, the parts of speech the pair holds in (tab-separated).\n"
    "# Built by rewardlab/envs/slides/build/antonyms.py from Debian's wordnet-base (/usr/share/wordnet).\n"
    "#\n" + LICENCE
)


def direct_antonyms(wordnet: Path = WORDNET_DIR) -> dict[tuple[str, str], set[str]]:
    """``{(word, antonym): parts of speech}`` over every ``!`` pointer of the four data files, each pair once
    (alphabetical order), a word never paired with itself."""
    pairs: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pos in PARTS_OF_SPEECH:
        read = {offset: (words, pointers) for offset, words, pointers in synsets(wordnet / f"data.{pos}")}
        for words, pointers in read.values():
            for symbol, target, source_word, target_word in pointers:
                if symbol != "!":
                    continue
                a, b = words[source_word - 1], read[target][0][target_word - 1]
                if a != b:
                    pairs[(min(a, b), max(a, b))].add(pos)
    return pairs


def render(pairs: dict[tuple[str, str], set[str]]) -> str:
    """The TSV text: :data:`HEADER`, then a row a pair in order."""

    def row(pair: tuple[str, str], parts: set[str]) -> str:
        return "\t".join((*pair, ",".join(pos for pos in PARTS_OF_SPEECH if pos in parts)))

    return HEADER + "".join(row(pair, parts) + "\n" for pair, parts in sorted(pairs.items()))


def main(argv: list[str] | None = None) -> int:
    return build_table(argv, description=__doc__.split("\n\n")[0], output=OUTPUT, read=direct_antonyms, render=render)


if __name__ == "__main__":
    raise SystemExit(main())
