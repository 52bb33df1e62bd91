"""Money as an integer number of cents plus an ISO-4217-style currency code."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ledger.errors import CurrencyMismatchError, InvalidAmountError

_CURRENCY = re.compile(r"[A-Z]{3}")
_AMOUNT = re.compile(r"([+-]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?")


def format_cents(cents: int) -> str:
    """Format an amount of cents as decimal text with two decimals and a comma
    every three digits of the integer part.

    ``0`` -> ``"0.00"``, ``5`` -> ``"0.05"``, ``123456789`` -> ``"1,234,567.89"``,
    ``-150`` -> ``"-1.50"``. Negative amounts get a leading ``-``; there is never a
    ``+``. Raises ``TypeError`` if ``cents`` is not an ``int`` (``bool`` included).
    """
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"cents must be an int, got {cents!r}")
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(cents), 100)
    return f"{sign}{units:,}.{rest:02d}"


@dataclass(frozen=True)
class Money:
    """An immutable amount: ``cents`` (an ``int``, may be negative) of ``currency``
    (three upper-case letters such as ``"USD"``).

    Construction raises ``TypeError`` if ``cents`` is not an ``int`` (``bool`` is
    rejected) and ``ValueError`` if ``currency`` is not three upper-case ASCII
    letters. Amounts of different currencies never mix: arithmetic and ordering
    between them raise :class:`~ledger.errors.CurrencyMismatchError`.
    ``str(Money(123456, "USD"))`` is ``"1,234.56 USD"`` (see :func:`format_cents`).
    """

    cents: int
    currency: str

    def __post_init__(self) -> None:
        if isinstance(self.cents, bool) or not isinstance(self.cents, int):
            raise TypeError(f"cents must be an int, got {self.cents!r}")
        if not isinstance(self.currency, str) or not _CURRENCY.fullmatch(self.currency):
            raise ValueError(f"invalid currency code {self.currency!r}")

    @classmethod
    def zero(cls, currency: str) -> "Money":
        """Zero in ``currency``."""
        return cls(0, currency)

    @classmethod
    def parse(cls, text: str) -> "Money":
        """Parse text such as ``"12.34 USD"``, ``"-0.5 EUR"``, ``"7 GBP"`` or
        ``"1,234.56 USD"``.

        Format, after stripping surrounding whitespace: an optional ``+`` or ``-``,
        the integer part (plain digits, or digits grouped by commas in threes:
        ``1,234,567``), an optional ``.`` with one or two decimals (``.5`` means 50
        cents), then one or more whitespace characters and the currency code. Returns the exact
        number of cents (``"-0.5 EUR"`` -> ``Money(-50, "EUR")``).

        Raises :class:`~ledger.errors.InvalidAmountError` for anything else,
        including more than two decimals (``"1.005 USD"``: no silent rounding),
        badly grouped commas (``"12,34 USD"``), a missing or malformed currency
        (``"5 usd"``, ``"5"``) or a non-string argument.
        """
        if not isinstance(text, str):
            raise InvalidAmountError(f"not a money string: {text!r}")
        parts = text.strip().split()
        if len(parts) != 2 or not _CURRENCY.fullmatch(parts[1]):
            raise InvalidAmountError(f"not a money string: {text!r}")
        m = _AMOUNT.fullmatch(parts[0])
        if not m:
            raise InvalidAmountError(f"not a money amount: {parts[0]!r}")
        sign, integer, decimals = m.groups()
        cents = int(integer.replace(",", "")) * 100 + int((decimals or "0").ljust(2, "0"))
        return cls(-cents if sign == "-" else cents, parts[1])

    def __add__(self, other: "Money") -> "Money":
        """Sum of two amounts of the same currency.

        Raises :class:`~ledger.errors.CurrencyMismatchError` if the currencies
        differ. Adding anything that is not a ``Money`` returns ``NotImplemented``
        (so ``Money + 1`` raises ``TypeError``).
        """
        if not isinstance(other, Money):
            return NotImplemented
        if other.currency != self.currency:
            raise CurrencyMismatchError(f"cannot combine {self.currency} and {other.currency}")
        return Money(self.cents + other.cents, self.currency)

    def __neg__(self) -> "Money":
        """The same amount with the opposite sign."""
        return Money(-self.cents, self.currency)

    def __sub__(self, other: "Money") -> "Money":
        """Difference of two amounts: ``self + (-other)`` (same rules as ``+``)."""
        if not isinstance(other, Money):
            return NotImplemented
        return self + (-other)

    def _check(self, other: "Money") -> None:
        if not isinstance(other, Money):
            raise TypeError(f"cannot compare Money with {other!r}")
        if other.currency != self.currency:
            raise CurrencyMismatchError(f"cannot compare {self.currency} and {other.currency}")

    def __lt__(self, other: "Money") -> bool:
        """``self < other`` by cents; ``CurrencyMismatchError`` across currencies,
        ``TypeError`` for a non-``Money``."""
        self._check(other)
        return self.cents < other.cents

    def __le__(self, other: "Money") -> bool:
        """``self <= other`` by cents; ``CurrencyMismatchError`` across currencies,
        ``TypeError`` for a non-``Money``."""
        self._check(other)
        return self.cents <= other.cents

    def __gt__(self, other: "Money") -> bool:
        """``self > other`` by cents; ``CurrencyMismatchError`` across currencies,
        ``TypeError`` for a non-``Money``."""
        self._check(other)
        return self.cents > other.cents

    def __ge__(self, other: "Money") -> bool:
        """``self >= other`` by cents; ``CurrencyMismatchError`` across currencies,
        ``TypeError`` for a non-``Money``."""
        self._check(other)
        return self.cents >= other.cents

    def __str__(self) -> str:
        """``"<format_cents(cents)> <currency>"``, e.g. ``"1,234.56 USD"``."""
        return f"{format_cents(self.cents)} {self.currency}"

    @property
    def is_positive(self) -> bool:
        """True if the amount is greater than zero."""
        return self.cents > 0

    @property
    def is_negative(self) -> bool:
        """True if the amount is less than zero."""
        return self.cents < 0

    def allocate(self, weights: list[int]) -> list["Money"]:
        """Split this amount into ``len(weights)`` parts proportional to ``weights``
        without creating or losing a cent.

        Each part first gets ``floor(|cents| * w / total)`` cents, where ``total`` is
        the sum of the weights. The cents left over are then handed out one each
        to the parts with the largest fractional remainders
        (``|cents| * w % total``), ties going to the earlier part. For a negative
        amount the absolute value is allocated and every part negated.
        Example: ``Money(100, "USD").allocate([1, 1, 1])`` gives 34, 33 and 33 cents.

        Raises ``ValueError`` if ``weights`` is empty, contains a negative number
        or a non-``int``, or sums to zero.
        """
        if not weights:
            raise ValueError("weights must not be empty")
        for w in weights:
            if isinstance(w, bool) or not isinstance(w, int) or w < 0:
                raise ValueError(f"weights must be non-negative integers, got {w!r}")
        total = sum(weights)
        if total == 0:
            raise ValueError("weights must not sum to zero")
        amount = abs(self.cents)
        parts = [amount * w // total for w in weights]
        remainders = [amount * w % total for w in weights]
        left = amount - sum(parts)
        order = sorted(range(len(weights)), key=lambda k: (-remainders[k], k))
        for k in order[:left]:
            parts[k] += 1
        sign = -1 if self.cents < 0 else 1
        return [Money(sign * p, self.currency) for p in parts]
