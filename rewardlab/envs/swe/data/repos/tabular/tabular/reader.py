"""Reading delimited text."""

from __future__ import annotations


def parse_line(line: str, delimiter: str = ",") -> list[str]:
    """Split one line into fields.

    Fields may be quoted with ``"``; inside quotes the delimiter is literal and ``""`` stands
    for one quote character (RFC 4180).
    """
    fields: list[str] = []
    current: list[str] = []
    quoted = False
    i = 0
    while i < len(line):
        char = line[i]
        if quoted:
            if char == '"':
                quoted = False
            else:
                current.append(char)
        elif char == '"':
            quoted = True
        elif char == delimiter:
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    fields.append("".join(current))
    return fields


def read_rows(text: str, delimiter: str = ",") -> list[dict[str, str]]:
    """Rows of ``text`` as dicts keyed by the header line; blank lines are skipped.

    Text exported by spreadsheet programs may start with a UTF-8 byte order mark.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    header = parse_line(lines[0], delimiter)
    return [dict(zip(header, parse_line(line, delimiter), strict=False)) for line in lines[1:]]
