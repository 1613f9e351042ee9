"""Amounts as integer minor units (cents) with ISO 4217 exponents; conversion, splitting and display."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

# ISO 4217 minor-unit exponents for the currencies we bill in.
MINOR_UNITS = {"EUR": 2, "USD": 2, "GBP": 2, "CHF": 2, "SEK": 2, "JPY": 0, "KWD": 3}
SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"}


@dataclass(frozen=True, order=True)
class Money:
    """An amount in minor units (e.g. cents) of one currency."""

    minor: int
    currency: str

    def __add__(self, other: Money) -> Money:
        _same_currency(self, other)
        return Money(self.minor + other.minor, self.currency)

    def __sub__(self, other: Money) -> Money:
        _same_currency(self, other)
        return Money(self.minor - other.minor, self.currency)

    def scaled(self, factor: Decimal) -> Money:
        """Multiply by ``factor`` and round to a whole minor unit, half to even."""
        product = (Decimal(self.minor) * factor).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
        return Money(int(product), self.currency)


def _same_currency(a: Money, b: Money) -> None:
    if a.currency != b.currency:
        raise ValueError(f"currency mismatch: {a.currency} vs {b.currency}")


def to_major(money: Money) -> Decimal:
    return Decimal(money.minor).scaleb(-MINOR_UNITS.get(money.currency, 2))


def to_minor(amount: Decimal | str, currency: str) -> int:
    """Major units -> integer minor units. Ties go to the even neighbour (1.005 EUR -> 100, 1.015 EUR -> 102)."""
    exponent = MINOR_UNITS.get(currency, 2)
    quantum = Decimal(1).scaleb(-exponent)
    rounded = Decimal(amount).quantize(quantum, rounding=ROUND_HALF_EVEN)
    return int(rounded.scaleb(exponent))


def convert(money: Money, rate: Decimal, target: str) -> Money:
    """Exchange with ``rate`` (target units per source unit); rounds once, at the end."""
    return Money(to_minor(to_major(money) * rate, target), target)


def format_amount(money: Money) -> str:
    """Display string for e-mails and PDFs: '€1,250.00', 'CHF 99.00', '¥1,200'."""
    exponent = MINOR_UNITS.get(money.currency, 2)
    text = f"{to_major(money):,.{exponent}f}"
    symbol = SYMBOLS.get(money.currency)
    return f"{symbol}{text}" if symbol else f"{money.currency} {text}"


def allocate(money: Money, weights: list[int]) -> list[Money]:
    """Split by integer weights without losing a cent; leftover minor units go to the first parts."""
    total = sum(weights)
    if total <= 0:
        raise ValueError("weights must sum to a positive number")
    shares = [money.minor * weight // total for weight in weights]
    for index in range(money.minor - sum(shares)):
        shares[index % len(shares)] += 1
    return [Money(share, money.currency) for share in shares]
