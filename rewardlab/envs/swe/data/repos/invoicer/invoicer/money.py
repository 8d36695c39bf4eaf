"""Exact money arithmetic with Decimal."""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

#: Digits after the decimal point per ISO 4217 currency.
MINOR_UNITS = {"USD": 2, "EUR": 2, "GBP": 2, "JPY": 0}


def minor_units(currency: str) -> int:
    """Decimal places of ``currency``; currencies not listed use 2."""
    return MINOR_UNITS[currency]


def to_decimal(value: str | int | float | Decimal) -> Decimal:
    """Convert to Decimal without binary float artefacts (``0.1`` -> ``Decimal("0.1")``)."""
    if isinstance(value, float):
        value = repr(value)
    return Decimal(value)


def quantize(amount: Decimal, currency: str) -> Decimal:
    """Round ``amount`` half-up to the currency's minor unit."""
    unit = Decimal(1).scaleb(-minor_units(currency))
    return amount.quantize(unit, rounding=ROUND_HALF_UP)


def split_evenly(total: Decimal, parts: int, currency: str = "USD") -> list[Decimal]:
    """Split ``total`` into ``parts`` amounts that differ by at most one minor unit.

    The amounts always sum to ``total``; the first ones receive the extra units.
    """
    if parts < 1:
        raise ValueError(f"parts must be >= 1, got {parts}")
    unit = Decimal(1).scaleb(-minor_units(currency))
    share = (total / parts).quantize(unit, rounding=ROUND_DOWN)
    return [share] * parts
