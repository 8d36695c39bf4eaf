from decimal import Decimal

from invoicer import quantize, split_evenly, to_decimal


def test_to_decimal_avoids_float_artefacts():
    assert to_decimal(0.1) == Decimal("0.1")


def test_quantize_rounds_half_up():
    assert quantize(Decimal("2.675"), "USD") == Decimal("2.68")
    assert quantize(Decimal("1234.5"), "JPY") == Decimal("1235")


def test_split_evenly_exact():
    assert split_evenly(Decimal("9.00"), 3) == [Decimal("3.00")] * 3
