"""invoicer: invoices with exact decimal money."""

from invoicer.format import format_money
from invoicer.invoice import Invoice, LineItem
from invoicer.money import quantize, split_evenly, to_decimal

__all__ = ["Invoice", "LineItem", "format_money", "quantize", "split_evenly", "to_decimal"]
