from decimal import Decimal

from invoicer import Invoice, format_money


def test_totals_with_tax():
    invoice = Invoice(tax_rate=Decimal("0.10"))
    invoice.add_line("Widget", "19.99", 2)
    assert invoice.subtotal() == Decimal("39.98")
    assert invoice.tax() == Decimal("4.00")
    assert invoice.total() == Decimal("43.98")


def test_summary_in_euros():
    invoice = Invoice(currency="EUR", tax_rate=Decimal(0))
    invoice.add_line("Coffee", "3.50", 4)
    assert invoice.summary() == "Coffee: €14.00\nTotal: €14.00"


def test_format_money_negative_and_thousands():
    assert format_money(Decimal("-1234.5"), "USD") == "-$1,234.50"
