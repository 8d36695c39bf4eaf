"""Build ``data/antonyms.tsv``: WordNet 3.0's direct antonyms, read from the database files of Debian's
``wordnet-base`` (``/usr/share/wordnet``; ``apt-get install wordnet-base``).

A WordNet data file (``data.adj``, ``data.verb``, ``data.noun``, ``data.adv``) holds one synset a line:
``offset lex_filenum ss_type w_cnt word lex_id ... p_cnt pointer ... | gloss``, ``w_cnt`` in hexadecimal and
each pointer ``symbol offset pos source/target``, where ``source/target`` is two hexadecimal bytes: the
numbers of the word in this synset and in the target synset the relation joins (``0000`` for a relation
between synsets). A direct antonym is a pointer ``!`` (always between two words). Indirect antonyms (an
adjective's similar-sense satellites against the opposite head) are not taken: "huge" is not the opposite of
every "small" sense.

The table keeps WordNet's words: lower case, ``_`` read as a space, an adjective's syntactic marker
(``(a)``, ``(p)``, ``(ip)``) dropped, each pair once in alphabetical order with the parts of speech it holds
in. What the rubric reads of it is decided there (:mod:`rewardlab.envs.slides.opposites`).

    python -m rewardlab.envs.slides.build.antonyms [--wordnet /usr/share/wordnet] [--output PATH]
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

WORDNET_DIR = Path("/usr/share/wordnet")
OUTPUT = Path(__file__).resolve().parent.parent / "data" / "antonyms.tsv"
PARTS_OF_SPEECH = ("adj", "verb", "noun", "adv")
_MARKER = re.compile(r"\((?:a|p|ip)\)$")

HEADER = """\
# WordNet 3.0's direct antonyms: word, antonym, the parts of speech the pair holds in (tab-separated).
# Built by rewardlab/envs/slides/build/antonyms.py from Debian's wordnet-base (/usr/share/wordnet).
#
# WordNet Release 3.0. This software and database is being provided to you, the LICENSEE, by Princeton
# University under the following license. By obtaining, using and/or copying this software and database, you
# agree that you have read, understood, and will comply with these terms and conditions.: Permission to use,
# copy, modify and distribute this software and database and its documentation for any purpose and without fee
# or royalty is hereby granted, provided that you agree to comply with the following copyright notice and
# statements, including the disclaimer, and that the same appear on ALL copies of the software, database and
# documentation, including modifications that you make for internal use or for distribution. WordNet 3.0
# Copyright 2006 by Princeton University. All rights reserved. THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS"
# AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT
# NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT- ABILITY OR FITNESS FOR
# ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE
# ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS. The name of Princeton University or
# Princeton may not be used in advertising or publicity pertaining to distribution of the software and/or
# database. Title to copyright in this software, database and any associated documentation shall at all times
# remain with Princeton University and LICENSEE agrees to preserve same.
"""


def _word(raw: str) -> str:
    return _MARKER.sub("", raw).replace("_", " ").lower()


def _synsets(path: Path) -> Iterator[tuple[str, list[str], list[tuple[str, str, int, int]]]]:
    """``(offset, words, pointers)`` per synset line; a pointer is ``(symbol, target offset, source word
    number, target word number)`` (word numbers from 1, 0 for the whole synset)."""
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line or line.startswith(" "):  # the licence at the head of each file
            continue
        fields = line.split(" | ", 1)[0].split()
        count = int(fields[3], 16)
        words = [_word(fields[4 + 2 * i]) for i in range(count)]
        at = 4 + 2 * count
        pointers = []
        for k in range(int(fields[at])):
            symbol, target, _pos, ends = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            pointers.append((symbol, target, int(ends[:2], 16), int(ends[2:], 16)))
        yield fields[0], words, pointers


def direct_antonyms(wordnet: Path = WORDNET_DIR) -> dict[tuple[str, str], set[str]]:
    """``{(word, antonym): parts of speech}`` over every ``!`` pointer of the four data files, each pair once
    (alphabetical order), a word never paired with itself."""
    pairs: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pos in PARTS_OF_SPEECH:
        synsets = {offset: (words, pointers) for offset, words, pointers in _synsets(wordnet / f"data.{pos}")}
        for words, pointers in synsets.values():
            for symbol, target, source_word, target_word in pointers:
                if symbol != "!":
                    continue
                a, b = words[source_word - 1], synsets[target][0][target_word - 1]
                if a != b:
                    pairs[(min(a, b), max(a, b))].add(pos)
    return pairs


def render(pairs: dict[tuple[str, str], set[str]]) -> str:
    """The TSV text: :data:`HEADER`, then a row a pair in order."""

    def row(pair: tuple[str, str], parts: set[str]) -> str:
        return "\t".join((*pair, ",".join(pos for pos in PARTS_OF_SPEECH if pos in parts)))

    return HEADER + "".join(row(pair, parts) + "\n" for pair, parts in sorted(pairs.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, default=WORDNET_DIR, help="WordNet's dict folder")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if not (args.wordnet / "data.adj").is_file():
        print(f"no WordNet database at {args.wordnet} (apt-get install wordnet-base)")
        return 2
    pairs = direct_antonyms(args.wordnet)
    args.output.write_text(render(pairs))
    print(f"{len(pairs)} pairs -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
