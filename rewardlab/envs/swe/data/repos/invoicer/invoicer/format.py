"""Human-readable money."""

from __future__ import annotations

from decimal import Decimal

from invoicer.money import minor_units

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def format_money(amount: Decimal, currency: str) -> str:
    """``$1,234.50``: symbol (or the code and a space), thousands separators, minor units."""
    symbol = CURRENCY_SYMBOLS[currency]
    sign = "-" if amount < 0 else ""
    return f"{sign}{symbol}{abs(amount):,.{minor_units(currency)}f}"
