"""The bugs of the shipped SWE-v2 tasks, one :class:`Spec` each, in the repositories under ``data/repos``.

Each repository under ``data/repos/<name>`` is a small Python project at its buggy state, with a
passing test suite that does not cover its bugs. A spec names one bug: the user's issue text, the
gold fix (exact-string replacements) and the tests that reveal it.
:mod:`rewardlab.envs.swe.build.shipped_tasks` turns them into ``data/tasks.jsonl``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Spec:
    """One task: ``gold`` are ``(path, old, new)`` replacements; ``tests`` ``(path, code to append)``."""

    id: str
    repo: str
    split: str
    issue: str
    gold: tuple[tuple[str, str, str], ...]
    tests: tuple[tuple[str, str], ...]
    fail_to_pass: tuple[str, ...]


SPECS: tuple[Spec, ...] = (
    # ------------------------------------------------------------------ textkit
    Spec(
        "textkit-1",
        "textkit",
        "train",
        "slugify drops accented letters instead of keeping the base letter\n\n"
        "I generate URLs for recipe titles and `slugify('Crème Brûlée')` gives `'cr-me-br-l-e'`.\n"
        "The docstring says accented letters keep their base letter, so I expected `'creme-brulee'`.\n"
        "Same with `'Ångström'` -> `'ngstr-m'`. Version 0.3.1.",
        (
            ("textkit/slug.py", "import re\n", "import re\nimport unicodedata\n"),
            (
                "textkit/slug.py",
                "    text = text.lower()\n",
                '    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()\n',
            ),
        ),
        (
            (
                "tests/test_slug.py",
                "\n\ndef test_slugify_keeps_base_letters():\n"
                '    assert slugify("Crème Brûlée") == "creme-brulee"\n'
                '    assert slugify("Ångström units") == "angstrom-units"\n',
            ),
        ),
        ("tests/test_slug.py::test_slugify_keeps_base_letters",),
    ),
    Spec(
        "textkit-2",
        "textkit",
        "train",
        "truncate_words returns one word too few\n\n"
        "```python\n>>> truncate_words('one two three four five', 3)\n'one two...'\n```\n"
        "I asked for 3 words and got 2. When nothing needs to be cut it works fine.",
        (("textkit/words.py", "words[: count - 1]", "words[:count]"),),
        (
            (
                "tests/test_words.py",
                "\n\ndef test_truncate_words_keeps_count_words():\n"
                '    assert truncate_words("one two three four five", 3) == "one two three..."\n'
                '    assert truncate_words("a b c", 1, ellipsis=" [more]") == "a [more]"\n',
            ),
        ),
        ("tests/test_words.py::test_truncate_words_keeps_count_words",),
    ),
    Spec(
        "textkit-3",
        "textkit",
        "train",
        "wrap() emits an empty first line and overlong lines for long words\n\n"
        "`wrap('supercalifragilistic is long', 8)` returns `['', 'supercalifragilistic', 'is long']`.\n"
        "The docs say words longer than the width are split across lines, and there should never be\n"
        "an empty line. Expected `['supercal', 'ifragili', 'stic is', 'long']`.",
        (
            (
                "textkit/wrap.py",
                "        else:\n            lines.append(current)\n            current = word\n",
                "        else:\n            if current:\n                lines.append(current)\n"
                "            while len(word) > width:\n                lines.append(word[:width])\n"
                "                word = word[width:]\n            current = word\n",
            ),
        ),
        (
            (
                "tests/test_wrap.py",
                "\n\ndef test_wrap_splits_long_words():\n"
                '    assert wrap("supercalifragilistic is long", 8) == ["supercal", "ifragili", "stic is", "long"]\n'
                "\n\ndef test_wrap_never_emits_empty_lines():\n"
                '    assert "" not in wrap("abcdefghij klm", 3)\n',
            ),
        ),
        ("tests/test_wrap.py::test_wrap_splits_long_words", "tests/test_wrap.py::test_wrap_never_emits_empty_lines"),
    ),
    Spec(
        "textkit-4",
        "textkit",
        "test",
        "word_count ignores tabs and newlines\n\n"
        "Counting words of a file read from disk: `word_count('first line\\nsecond\\tline')` is 2, it\n"
        "should be 4. The docstring says tabs and newlines separate words too.",
        (("textkit/words.py", 'len([word for word in text.split(" ") if word])', "len(text.split())"),),
        (
            (
                "tests/test_words.py",
                "\n\ndef test_word_count_any_whitespace():\n"
                '    assert word_count("first line\\nsecond\\tline") == 4\n'
                '    assert word_count(" \\n\\t ") == 0\n',
            ),
        ),
        ("tests/test_words.py::test_word_count_any_whitespace",),
    ),
    # ------------------------------------------------------------------ invoicer
    Spec(
        "invoicer-1",
        "invoicer",
        "train",
        "New invoices charge 20% tax by default\n\n"
        "`Invoice()` without arguments adds 20% tax: an invoice with one $10 item totals $12.00.\n"
        "The class docstring says tax is opt-in, and our customers outside the EU were overcharged.\n"
        "Please make the default tax rate zero.",
        (("invoicer/invoice.py", 'tax_rate: Decimal = Decimal("0.20")', 'tax_rate: Decimal = Decimal("0")'),),
        (
            (
                "tests/test_invoice.py",
                "\n\ndef test_tax_is_opt_in():\n"
                "    invoice = Invoice()\n"
                '    invoice.add_line("Book", "10.00")\n'
                '    assert invoice.tax() == Decimal("0.00")\n'
                '    assert invoice.total() == Decimal("10.00")\n',
            ),
        ),
        ("tests/test_invoice.py::test_tax_is_opt_in",),
    ),
    Spec(
        "invoicer-2",
        "invoicer",
        "train",
        "add_line accepts zero and negative quantities\n\n"
        "A typo in our import script produced `invoice.add_line('Chair', '49.00', -2)` and the invoice\n"
        "silently showed a negative total. The docstring says quantity must be a positive integer;\n"
        "I'd expect a ValueError for 0, negative numbers and non-integers like 1.5.",
        (
            (
                "invoicer/invoice.py",
                '        """Add a line item; ``quantity`` must be a positive integer."""\n',
                '        """Add a line item; ``quantity`` must be a positive integer."""\n'
                "        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:\n"
                '            raise ValueError(f"quantity must be a positive integer, got {quantity!r}")\n',
            ),
        ),
        (
            (
                "tests/test_invoice.py",
                "\n\ndef test_add_line_rejects_bad_quantities():\n"
                "    import pytest\n\n"
                "    invoice = Invoice()\n"
                "    for quantity in (0, -2, 1.5):\n"
                "        with pytest.raises(ValueError):\n"
                '            invoice.add_line("Chair", "49.00", quantity)\n'
                "    assert invoice.lines == []\n",
            ),
        ),
        ("tests/test_invoice.py::test_add_line_rejects_bad_quantities",),
    ),
    Spec(
        "invoicer-3",
        "invoicer",
        "train",
        "Invoice.summary() crashes for currencies without a symbol (regression)\n\n"
        "Since the refactoring that split formatting into `invoicer/format.py`, printing an invoice in\n"
        "Swiss francs fails:\n\n```\n>>> inv = Invoice(currency='CHF', tax_rate=Decimal(0))\n"
        ">>> inv.add_line('Cheese', '12.50')\n>>> print(inv.summary())\nKeyError: 'CHF'\n```\n"
        "Before, unlisted currencies were shown with their code, e.g. `CHF 12.50`, with 2 decimals.",
        (
            ("invoicer/money.py", "    return MINOR_UNITS[currency]\n", "    return MINOR_UNITS.get(currency, 2)\n"),
            (
                "invoicer/format.py",
                "    symbol = CURRENCY_SYMBOLS[currency]\n",
                '    symbol = CURRENCY_SYMBOLS.get(currency, f"{currency} ")\n',
            ),
        ),
        (
            (
                "tests/test_invoice.py",
                "\n\ndef test_summary_in_unlisted_currency():\n"
                '    invoice = Invoice(currency="CHF", tax_rate=Decimal(0))\n'
                '    invoice.add_line("Cheese", "12.50")\n'
                '    assert invoice.summary() == "Cheese: CHF 12.50\\nTotal: CHF 12.50"\n'
                '    assert format_money(Decimal("1234.5"), "SEK") == "SEK 1,234.50"\n',
            ),
        ),
        ("tests/test_invoice.py::test_summary_in_unlisted_currency",),
    ),
    Spec(
        "invoicer-4",
        "invoicer",
        "test",
        "split_evenly loses cents\n\n"
        "Splitting a $10.00 bill three ways: `split_evenly(Decimal('10.00'), 3)` returns three times\n"
        "`3.33`, which sums to 9.99. The docs promise the parts always sum to the total, with the first\n"
        "parts getting the extra cent: `[3.34, 3.33, 3.33]`.",
        (
            (
                "invoicer/money.py",
                "    return [share] * parts\n",
                "    shares = [share] * parts\n"
                "    for index in range(int((total - share * parts) / unit)):\n"
                "        shares[index] += unit\n"
                "    return shares\n",
            ),
        ),
        (
            (
                "tests/test_money.py",
                "\n\ndef test_split_evenly_distributes_remainder():\n"
                '    parts = split_evenly(Decimal("10.00"), 3)\n'
                '    assert parts == [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]\n'
                '    assert sum(split_evenly(Decimal("100"), 7, "JPY")) == Decimal("100")\n',
            ),
        ),
        ("tests/test_money.py::test_split_evenly_distributes_remainder",),
    ),
    # ------------------------------------------------------------------ tabular
    Spec(
        "tabular-1",
        "tabular",
        "train",
        "Escaped quotes inside quoted fields are lost\n\n"
        'CSV written by Excel escapes quotes by doubling them: the line `1,"She said ""hi""",x` should\n'
        "give `['1', 'She said \"hi\"', 'x']`, but parse_line returns `['1', 'She said hi', 'x']`.",
        (
            (
                "tabular/reader.py",
                "            if char == '\"':\n                quoted = False\n",
                "            if char == '\"' and line[i + 1 : i + 2] == '\"':\n"
                "                current.append('\"')\n                i += 1\n"
                "            elif char == '\"':\n                quoted = False\n",
            ),
        ),
        (
            (
                "tests/test_reader.py",
                "\n\ndef test_parse_line_doubled_quotes():\n"
                '    assert parse_line(\'1,"She said ""hi""",x\') == ["1", \'She said "hi"\', "x"]\n'
                '    assert parse_line(\'""""\') == [\'"\']\n',
            ),
        ),
        ("tests/test_reader.py::test_parse_line_doubled_quotes",),
    ),
    Spec(
        "tabular-2",
        "tabular",
        "train",
        "mean() of an empty column raises ZeroDivisionError\n\n"
        "When a column has only blank cells, `mean(column(rows, 'price'))` crashes with\n"
        "`ZeroDivisionError: division by zero`. `median` returns None in that case and the docstring\n"
        "of `mean` says it should too.",
        (
            (
                "tabular/stats.py",
                '    """Arithmetic mean, or ``None`` for no values."""\n',
                '    """Arithmetic mean, or ``None`` for no values."""\n    if not values:\n        return None\n',
            ),
        ),
        (
            (
                "tests/test_stats.py",
                "\n\ndef test_mean_empty():\n    assert mean([]) is None\n"
                '    assert mean(column(read_rows("v\\n\\n"), "v")) is None\n',
            ),
        ),
        ("tests/test_stats.py::test_mean_empty",),
    ),
    Spec(
        "tabular-3",
        "tabular",
        "train",
        "First column name has a weird invisible character with files from Excel\n\n"
        "Reading a CSV exported from Excel ('CSV UTF-8'), `rows[0]['name']` raises KeyError; the key\n"
        "is actually `'\\ufeffname'`. The byte order mark should not end up in the header.",
        (
            (
                "tabular/reader.py",
                "    lines = [line for line in text.splitlines() if line.strip()]\n",
                '    lines = [line for line in text.removeprefix("\\ufeff").splitlines() if line.strip()]\n',
            ),
        ),
        (
            (
                "tests/test_reader.py",
                "\n\ndef test_read_rows_strips_byte_order_mark():\n"
                '    rows = read_rows("\\ufeffname,city\\nZoë,Zürich\\n")\n'
                '    assert rows == [{"name": "Zoë", "city": "Zürich"}]\n',
            ),
        ),
        ("tests/test_reader.py::test_read_rows_strips_byte_order_mark",),
    ),
    Spec(
        "tabular-4",
        "tabular",
        "test",
        "median() of an even number of values is wrong or crashes\n\n"
        "`median([1, 2, 3, 4])` returns 3.5 instead of 2.5, and `median([1, 2])` raises IndexError.\n"
        "Odd-length inputs are fine.",
        (("tabular/stats.py", "ordered[middle] + ordered[middle + 1]", "ordered[middle - 1] + ordered[middle]"),),
        (
            (
                "tests/test_stats.py",
                "\n\ndef test_median_even():\n"
                "    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5\n"
                "\n\ndef test_median_two_values():\n"
                "    assert median([1.0, 2.0]) == 1.5\n"
                "    assert median([10.0, -4.0]) == 3.0\n",
            ),
        ),
        ("tests/test_stats.py::test_median_even", "tests/test_stats.py::test_median_two_values"),
    ),
    # ------------------------------------------------------------------ datekit
    Spec(
        "datekit-1",
        "datekit",
        "train",
        "date_range excludes the end date\n\n"
        "`list(date_range(date(2024, 3, 1), date(2024, 3, 3)))` gives two dates, March 1 and 2. The\n"
        "docstring says both ends are inclusive; our weekly report misses the last day.",
        (("datekit/ranges.py", "while current < end:", "while current <= end:"),),
        (
            (
                "tests/test_ranges.py",
                "\n\ndef test_date_range_includes_end():\n"
                "    days = list(date_range(date(2024, 3, 1), date(2024, 3, 3)))\n"
                "    assert days == [date(2024, 3, 1), date(2024, 3, 2), date(2024, 3, 3)]\n"
                "    assert list(date_range(date(2024, 3, 1), date(2024, 3, 1))) == [date(2024, 3, 1)]\n",
            ),
        ),
        ("tests/test_ranges.py::test_date_range_includes_end",),
    ),
    Spec(
        "datekit-2",
        "datekit",
        "train",
        "1900 and 2100 treated as leap years\n\n"
        "`is_leap_year(1900)` is True and `days_in_month(2, 2100)` is 29. Those years are not leap\n"
        "years in the Gregorian calendar (century years must be divisible by 400). 2000 is fine.",
        (
            (
                "datekit/calendar.py",
                "    return year % 4 == 0\n",
                "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
            ),
        ),
        (
            (
                "tests/test_calendar.py",
                "\n\ndef test_century_leap_years():\n"
                "    assert not is_leap_year(1900) and not is_leap_year(2100) and not is_leap_year(1800)\n"
                "    assert is_leap_year(2000)\n"
                "    assert days_in_month(2, 2100) == 28\n",
            ),
        ),
        ("tests/test_calendar.py::test_century_leap_years",),
    ),
    Spec(
        "datekit-3",
        "datekit",
        "train",
        "parse_duration silently accepts garbage\n\n"
        "A config typo `timeout = '5x'` made `parse_duration('5x')` return 0 and our job never timed\n"
        "out. `'1h 30min'` gives 90 too, by accident. The docstring says ValueError for anything that\n"
        "is not `<number><d|h|m>` parts; please validate the whole string.",
        (
            (
                "datekit/durations.py",
                "    return sum(int(amount) * _UNITS[unit] for amount, unit in _PART.findall(text))\n",
                '    if not text or not re.fullmatch(r"(?:\\d+[dhm])+", text):\n'
                '        raise ValueError(f"not a duration: {text!r}")\n'
                "    return sum(int(amount) * _UNITS[unit] for amount, unit in _PART.findall(text))\n",
            ),
        ),
        (
            (
                "tests/test_durations.py",
                "\n\ndef test_parse_duration_rejects_garbage():\n"
                "    import pytest\n\n"
                '    for text in ("5x", "h", "-5m"):\n'
                "        with pytest.raises(ValueError):\n"
                "            parse_duration(text)\n"
                "\n\ndef test_parse_duration_rejects_partly_valid_text():\n"
                "    import pytest\n\n"
                '    for text in ("1h 30min", "2d and 3h", ""):\n'
                "        with pytest.raises(ValueError):\n"
                "            parse_duration(text)\n",
            ),
        ),
        (
            "tests/test_durations.py::test_parse_duration_rejects_garbage",
            "tests/test_durations.py::test_parse_duration_rejects_partly_valid_text",
        ),
    ),
    Spec(
        "datekit-4",
        "datekit",
        "test",
        "month_end broken after upgrading to 0.4\n\n"
        "After upgrading datekit from 0.3 to 0.4, `month_end(date(2024, 2, 10))` raises\n"
        "`ValueError: month must be in 1..12, got 2024`. It worked in 0.3 and should return\n"
        "2024-02-29.",
        (
            (
                "datekit/ranges.py",
                "days_in_month(day.year, day.month)",
                "days_in_month(day.month, day.year)",
            ),
        ),
        (
            (
                "tests/test_ranges.py",
                "\n\ndef test_month_end():\n"
                "    from datekit import month_end\n\n"
                "    assert month_end(date(2024, 2, 10)) == date(2024, 2, 29)\n"
                "    assert month_end(date(2023, 12, 31)) == date(2023, 12, 31)\n",
            ),
        ),
        ("tests/test_ranges.py::test_month_end",),
    ),
    # ------------------------------------------------------------------ envconf
    Spec(
        "envconf-1",
        "envconf",
        "train",
        "Quoted value followed by a comment keeps its quotes\n\n"
        '```\nGREETING="hello world" # shown on the home page\n```\n'
        "`parse()` returns `'\"hello world\" # shown on the home page'`... well, actually `'\"hello world\"'`\n"
        "with the quotes. The docs say a quoted value may be followed by a comment.",
        (
            (
                "envconf/parser.py",
                "def _unquote(value: str) -> str:\n",
                "def _unquote(value: str) -> str:\n"
                '    commented = re.fullmatch(r"(\\"[^\\"]*\\"|\'[^\']*\')\\s+#.*", value)\n'
                "    if commented:\n"
                "        value = commented.group(1)\n",
            ),
        ),
        (
            (
                "tests/test_parser.py",
                "\n\ndef test_quoted_value_with_comment():\n"
                "    text = 'GREETING=\"hello world\" # home page\\nNAME=\\'a # b\\'  # note'\n"
                '    assert parse(text) == {"GREETING": "hello world", "NAME": "a # b"}\n',
            ),
        ),
        ("tests/test_parser.py::test_quoted_value_with_comment",),
    ),
    Spec(
        "envconf-2",
        "envconf",
        "train",
        "Invalid variable names are accepted\n\n"
        "A line like `MY KEY=1` or `2FA=on` is parsed without complaint and produces a key that can\n"
        "never be used as an environment variable. According to the syntax in the docs, keys are\n"
        "letters, digits and underscores, not starting with a digit; I'd expect a ParseError naming\n"
        "the line.",
        (
            (
                "envconf/parser.py",
                '        key, _, value = line.partition("=")\n        result[key.strip()]',
                '        key, _, value = line.partition("=")\n'
                "        if not _KEY.fullmatch(key.strip()):\n"
                '            raise ParseError(f"line {number}: invalid key {key.strip()!r}")\n'
                "        result[key.strip()]",
            ),
        ),
        (
            (
                "tests/test_parser.py",
                "\n\ndef test_invalid_keys_are_errors():\n"
                '    for text in ("A=1\\nMY KEY=1", "A=1\\n2FA=on", "A=1\\n=value"):\n'
                '        with pytest.raises(ParseError, match="line 2"):\n'
                "            parse(text)\n",
            ),
        ),
        ("tests/test_parser.py::test_invalid_keys_are_errors",),
    ),
    Spec(
        "envconf-3",
        "envconf",
        "train",
        ".env file overrides variables that are already set\n\n"
        "With `PORT=9000` exported in the shell and `PORT=8080` in `.env`, `load_into(text, os.environ)`\n"
        "sets PORT to 8080. The docstring says the real environment wins by default.",
        (("envconf/loader.py", "override: bool = True", "override: bool = False"),),
        (
            (
                "tests/test_loader.py",
                "\n\ndef test_existing_variables_win_by_default():\n"
                '    environ = {"PORT": "9000"}\n'
                '    assert load_into("PORT=8080\\nHOST=x", environ) == ["HOST"]\n'
                '    assert environ == {"PORT": "9000", "HOST": "x"}\n',
            ),
        ),
        ("tests/test_loader.py::test_existing_variables_win_by_default",),
    ),
    Spec(
        "envconf-4",
        "envconf",
        "test",
        "Non-ASCII characters in double-quoted values come out garbled\n\n"
        "`parse('CITY=\"Zürich\"')` returns `{'CITY': 'ZÃ¼rich'}`. Single-quoted and unquoted values\n"
        "are fine. Escapes like `\\n` inside double quotes must keep working.",
        (
            (
                "envconf/parser.py",
                '        return value[1:-1].encode("utf-8").decode("unicode_escape")\n',
                '        escapes = {"n": "\\n", "t": "\\t", \'"\': \'"\', "\\\\": "\\\\"}\n'
                '        return re.sub(r"\\\\(.)", lambda m: escapes.get(m.group(1), m.group(0)), value[1:-1])\n',
            ),
        ),
        (
            (
                "tests/test_parser.py",
                "\n\ndef test_double_quoted_unicode():\n"
                '    assert parse(\'CITY="Zürich"\\nMSG="über\\\\n✓"\') == {"CITY": "Zürich", "MSG": "über\\n✓"}\n',
            ),
        ),
        ("tests/test_parser.py::test_double_quoted_unicode",),
    ),
    # ------------------------------------------------------------------ minirouter
    Spec(
        "minirouter-1",
        "minirouter",
        "train",
        "Trailing slash gives 404 with the default router\n\n"
        "`Router()` followed by `router.add('/users/<name>', user)`: `/users/ada/` raises NotFound.\n"
        "The Router docstring says strict_slashes=False is the default, so the trailing slash should\n"
        "be ignored unless I ask for strict matching.",
        (("minirouter/router.py", "strict_slashes: bool = True", "strict_slashes: bool = False"),),
        (
            (
                "tests/test_router.py",
                "\n\ndef test_trailing_slash_ignored_by_default():\n"
                '    assert make_router().match("/users/ada/") == (user, {"name": "ada"})\n'
                "    with pytest.raises(NotFound):\n"
                '        make_router(strict_slashes=True).match("/users/ada/")\n',
            ),
        ),
        ("tests/test_router.py::test_trailing_slash_ignored_by_default",),
    ),
    Spec(
        "minirouter-2",
        "minirouter",
        "train",
        "Registering two routes with the same name silently replaces the first\n\n"
        "We added `router.add('/a', view, name='home')` and later `router.add('/b', other, name='home')`\n"
        "by mistake; `/a` then returned 404 and `url_for('home')` pointed to `/b`. Route names must be\n"
        "unique according to the docs, so the second `add` should raise a ValueError.",
        (
            (
                "minirouter/router.py",
                "        self.routes[route.name] = route\n",
                "        if route.name in self.routes:\n"
                '            raise ValueError(f"a route named {route.name!r} already exists")\n'
                "        self.routes[route.name] = route\n",
            ),
        ),
        (
            (
                "tests/test_router.py",
                "\n\ndef test_duplicate_route_names_are_rejected():\n"
                "    router = make_router()\n"
                "    with pytest.raises(ValueError):\n"
                '        router.add("/people/<name>", user)\n'
                '    assert router.match("/users/ada") == (user, {"name": "ada"})\n',
            ),
        ),
        ("tests/test_router.py::test_duplicate_route_names_are_rejected",),
    ),
    Spec(
        "minirouter-3",
        "minirouter",
        "train",
        "url_for does not percent-encode spaces and non-ASCII characters\n\n"
        "`router.url_for('user', name='José María')` returns `/users/José María`, which our HTTP\n"
        "client rejects. `match` already decodes `%C3%A9`, so I expected `/users/Jos%C3%A9%20Mar%C3%ADa`\n"
        "and a round trip through `match` to give the name back. A `/` in the name must be encoded too.",
        (
            (
                "minirouter/converters.py",
                "    def to_url(self, value: str) -> str:\n        return value\n",
                '    def to_url(self, value: str) -> str:\n        return quote(value, safe="")\n',
            ),
        ),
        (
            (
                "tests/test_router.py",
                "\n\ndef test_url_for_percent_encodes():\n"
                "    router = make_router()\n"
                '    url = router.url_for("user", name="José María")\n'
                '    assert url == "/users/Jos%C3%A9%20Mar%C3%ADa"\n'
                '    assert router.match(url) == (user, {"name": "José María"})\n'
                "\n\ndef test_url_for_encodes_slashes_in_segments():\n"
                '    assert make_router().url_for("user", name="a/b") == "/users/a%2Fb"\n',
            ),
        ),
        (
            "tests/test_router.py::test_url_for_percent_encodes",
            "tests/test_router.py::test_url_for_encodes_slashes_in_segments",
        ),
    ),
    Spec(
        "minirouter-4",
        "minirouter",
        "test",
        "url_for raises TypeError for int parameters (regression)\n\n"
        "After the converters cleanup, building URLs for routes with integer parameters fails:\n\n"
        "```\n>>> router.add('/posts/<int:post_id>', post)\n>>> router.url_for('post', post_id=7)\n"
        "TypeError: expected str instance, int found\n```\nMatching `/posts/7` still works.",
        (
            (
                "minirouter/converters.py",
                "        return int(value)\n\n\nclass PathConverter",
                "        return str(int(value))\n\n\nclass PathConverter",
            ),
        ),
        (
            (
                "tests/test_router.py",
                "\n\ndef test_url_for_int_parameter():\n"
                "    router = Router()\n"
                '    router.add("/posts/<int:post_id>", user, name="post")\n'
                '    assert router.url_for("post", post_id=7) == "/posts/7"\n'
                '    assert router.url_for("post", post_id=1024) == "/posts/1024"\n'
                '    assert router.match("/posts/7") == (user, {"post_id": 7})\n',
            ),
        ),
        ("tests/test_router.py::test_url_for_int_parameter",),
    ),
)
