"""Invoices: line items, tax and totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from invoicer.format import format_money
from invoicer.money import quantize, to_decimal


@dataclass
class LineItem:
    description: str
    unit_price: Decimal
    quantity: int = 1

    @property
    def total(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclass
class Invoice:
    """An invoice in one currency. Tax is opt-in: ``tax_rate`` is a fraction (0.2 = 20 %)."""

    currency: str = "USD"
    tax_rate: Decimal = Decimal("0.20")
    lines: list[LineItem] = field(default_factory=list)

    def add_line(self, description: str, unit_price: str | int | float | Decimal, quantity: int = 1) -> LineItem:
        """Add a line item; ``quantity`` must be a positive integer."""
        item = LineItem(description, to_decimal(unit_price), quantity)
        self.lines.append(item)
        return item

    def subtotal(self) -> Decimal:
        return quantize(sum((line.total for line in self.lines), Decimal(0)), self.currency)

    def tax(self) -> Decimal:
        return quantize(self.subtotal() * self.tax_rate, self.currency)

    def total(self) -> Decimal:
        return self.subtotal() + self.tax()

    def summary(self) -> str:
        """One line per item, then the total."""
        rows = [f"{line.description}: {format_money(line.total, self.currency)}" for line in self.lines]
        rows.append(f"Total: {format_money(self.total(), self.currency)}")
        return "\n".join(rows)
