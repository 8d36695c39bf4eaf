"""Read WordNet 3.0's database files, as Debian's ``wordnet-base`` installs them (``/usr/share/wordnet``;
``apt-get install wordnet-base``), for the tables Slides ships (:mod:`~rewardlab.envs.slides.build.antonyms`,
:mod:`~rewardlab.envs.slides.build.synonyms`).

A data file (``data.adj``, ``data.verb``, ``data.noun``, ``data.adv``) holds one synset a line, and an index file
(``index.adj``, …) one word a line with its senses in order of frequency (:func:`sense_ranks`). A data line is
``offset lex_filenum ss_type w_cnt word lex_id ... p_cnt pointer ... | gloss``, ``w_cnt`` in hexadecimal and
each pointer ``symbol offset pos source/target``, where ``source/target`` is two hexadecimal bytes: the
numbers of the word in this synset and in the target synset the relation joins (``0000`` for a relation
between synsets). Words are read as the tables keep them: lower case, ``_`` read as a space, an adjective's
syntactic marker (``(a)``, ``(p)``, ``(ip)``) dropped.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator, Sized
from pathlib import Path

__all__ = ["LICENCE", "PARTS_OF_SPEECH", "WORDNET_DIR", "Pointer", "build_table", "sense_ranks", "synsets", "word"]

WORDNET_DIR = Path("/usr/share/wordnet")
PARTS_OF_SPEECH = ("adj", "verb", "noun", "adv")
_MARKER = re.compile(r"\((?:a|p|ip)\)$")
Pointer = tuple[str, str, int, int]
"""``(symbol, target offset, source word number, target word number)``: word numbers from 1, 0 for the whole
synset."""

LICENCE = """\
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
"""WordNet's licence, as comment lines: every table built from WordNet carries it."""


def word(raw: str) -> str:
    """A data file's word as the tables keep it (``"go_up"`` -> ``"go up"``, ``"big(a)"`` -> ``"big"``)."""
    return _MARKER.sub("", raw).replace("_", " ").lower()


def synsets(path: Path) -> Iterator[tuple[str, list[str], list[Pointer]]]:
    """``(offset, words, pointers)`` per synset line of the data file at ``path``."""
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line or line.startswith(" "):  # the licence at the head of each file
            continue
        fields = line.split(" | ", 1)[0].split()
        count = int(fields[3], 16)
        words = [word(fields[4 + 2 * i]) for i in range(count)]
        at = 4 + 2 * count
        pointers = []
        for k in range(int(fields[at])):
            symbol, target, _pos, ends = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            pointers.append((symbol, target, int(ends[:2], 16), int(ends[2:], 16)))
        yield fields[0], words, pointers


def sense_ranks(path: Path) -> dict[tuple[str, str], int]:
    """``{(word, synset offset): rank}`` from an index file (``index.verb``, …): the rank of each of a word's senses,
    1 for its most frequent (an index line ends with the word's synset offsets in that order:
    ``lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...``)."""
    ranks: dict[tuple[str, str], int] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line or line.startswith(" "):  # the licence
            continue
        fields = line.split()
        count = int(fields[2])
        for rank, offset in enumerate(fields[len(fields) - count :], 1):
            ranks[(word(fields[0]), offset)] = rank
    return ranks


def build_table(
    argv: list[str] | None, *, description: str, output: Path, read: Callable[[Path], Sized], render: Callable[..., str]
) -> int:
    """A table builder's command line (``--wordnet DIR``, ``--output PATH``): ``render(read(wordnet))`` written to
    the output; exit 2 when no WordNet database is there."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--wordnet", type=Path, default=WORDNET_DIR, help="WordNet's dict folder")
    parser.add_argument("--output", type=Path, default=output)
    args = parser.parse_args(argv)
    if not (args.wordnet / "data.adj").is_file():
        print(f"no WordNet database at {args.wordnet} (apt-get install wordnet-base)")
        return 2
    table = read(args.wordnet)
    args.output.write_text(render(table))
    print(f"{len(table)} rows -> {args.output}")
    return 0
