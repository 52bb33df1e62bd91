"""The value model: what a cell (or a formula) can evaluate to.

A value is one of

* ``None`` -- an empty cell;
* ``float`` -- a number (integers are stored as floats; ``int`` is accepted
  everywhere a number is);
* ``str`` -- text;
* ``bool`` -- ``TRUE`` / ``FALSE`` (checked *before* numbers, since ``bool``
  is a subclass of ``int`` in Python);
* :class:`CellError` -- an error such as ``#DIV/0!``.

Ranges evaluate to a :class:`RangeValue`, a rectangular grid of values that
only functions can consume.

The coercion functions below never raise for spreadsheet-level problems:
they return a :class:`CellError` instead, and an error given as input is
returned unchanged (errors propagate).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class CellError:
    """A spreadsheet error value, identified by its code (e.g. ``"#REF!"``)."""

    code: str

    def __str__(self) -> str:
        return self.code


DIV0 = CellError("#DIV/0!")
REF = CellError("#REF!")
NAME = CellError("#NAME?")
VALUE = CellError("#VALUE!")
NA = CellError("#N/A")
NUM = CellError("#NUM!")
CIRC = CellError("#CIRC!")
NULL = CellError("#NULL!")

#: Every error code the engine knows, as written in formulas.
ERROR_CODES = ("#DIV/0!", "#REF!", "#NAME?", "#VALUE!", "#N/A", "#NUM!", "#CIRC!", "#NULL!")


@dataclass(frozen=True)
class RangeValue:
    """The evaluated contents of a range: a tuple of rows, each a tuple of values."""

    rows: tuple[tuple[object, ...], ...]

    @property
    def height(self) -> int:
        """Number of rows."""
        return len(self.rows)

    @property
    def width(self) -> int:
        """Number of columns (0 for an empty grid)."""
        return len(self.rows[0]) if self.rows else 0

    def values(self) -> Iterator[object]:
        """Yield every value in row-major order."""
        for row in self.rows:
            yield from row


Value = Union[None, bool, float, str, CellError]

_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?%?")


def is_number(value: object) -> bool:
    """True for ``int``/``float`` values that are not ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_scalar(value: object) -> object:
    """Reduce a :class:`RangeValue` to a single value.

    A 1x1 range gives its only value; any other range gives ``#VALUE!``.
    Non-range values are returned unchanged.
    """
    if isinstance(value, RangeValue):
        if value.height == 1 and value.width == 1:
            return value.rows[0][0]
        return VALUE
    return value


def format_number(x: float) -> str:
    """Format a number the way a cell displays it.

    * zero (including ``-0.0``) is ``"0"``;
    * integral values with ``abs(x) < 1e15`` have no decimal point:
      ``3.0 -> "3"``, ``-42.0 -> "-42"``;
    * everything else uses 15 significant digits (``format(x, ".15g")``), so
      ``0.1 + 0.2 -> "0.3"`` and ``1/3 -> "0.333333333333333"``; an exponent
      is written upper-case with a sign and at least two digits:
      ``1e20 -> "1E+20"``, ``1.5e-7 -> "1.5E-07"``.
    """
    if x == 0:
        return "0"
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    s = format(x, ".15g")
    if "e" in s:
        mantissa, exp = s.split("e")
        sign = exp[0]
        digits = exp[1:].lstrip("0").zfill(2)
        return f"{mantissa}E{sign}{digits}"
    return s


def to_number(value: object) -> float | CellError:
    """Coerce a value to a number (``float``).

    * ``None`` (empty) -> ``0.0``; ``TRUE`` -> ``1.0``; ``FALSE`` -> ``0.0``;
    * numbers -> ``float(value)``;
    * text: surrounding whitespace is ignored; a decimal literal with optional
      sign, fraction and exponent (``"3"``, ``"-2.5"``, ``".5"``, ``"1e3"``)
      gives its value, and a trailing ``%`` divides by 100 (``"50%" -> 0.5``).
      Anything else (including ``""``, ``"inf"``, ``"nan"``, ``"1_000"``, or a
      literal that overflows to infinity) gives ``#VALUE!``;
    * a :class:`CellError` is returned unchanged;
    * any other object (e.g. a :class:`RangeValue`) gives ``#VALUE!``.
    """
    if isinstance(value, CellError):
        return value
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        s = value.strip()
        if _NUMBER_RE.fullmatch(s):
            pct = s.endswith("%")
            n = float(s[:-1] if pct else s)
            if pct:
                n /= 100
            if math.isfinite(n):
                return n
        return VALUE
    return VALUE


def to_text(value: object) -> str | CellError:
    """Coerce a value to text.

    ``None -> ""``, ``TRUE -> "TRUE"``, ``FALSE -> "FALSE"``, numbers via
    :func:`format_number` (``3.0 -> "3"``), text unchanged.  A
    :class:`CellError` is returned unchanged; any other object gives
    ``#VALUE!``.
    """
    if isinstance(value, CellError):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, str):
        return value
    return VALUE


def to_bool(value: object) -> bool | CellError:
    """Coerce a value to a boolean.

    ``None -> False``; booleans unchanged; numbers are ``True`` when non-zero;
    text ``"TRUE"`` / ``"FALSE"`` (any case, surrounding whitespace ignored)
    gives the boolean, any other text gives ``#VALUE!``.  A
    :class:`CellError` is returned unchanged; any other object gives
    ``#VALUE!``.
    """
    if isinstance(value, CellError):
        return value
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        s = value.strip().upper()
        if s == "TRUE":
            return True
        if s == "FALSE":
            return False
        return VALUE
    return VALUE


def _rank(value: object) -> int:
    if isinstance(value, bool):
        return 2
    if isinstance(value, str):
        return 1
    return 0


def _blank_like(other: object) -> object:
    if isinstance(other, bool):
        return False
    if isinstance(other, str):
        return ""
    return 0.0


def compare_values(a: object, b: object) -> int:
    """Three-way comparison of two non-error values: -1, 0 or 1.

    Ordering rules (those of the ``<``, ``=`` ... operators):

    * values of different types order as numbers < text < booleans, so
      ``compare_values(1e9, "a") == -1`` and ``compare_values("z", FALSE) == -1``;
    * numbers compare numerically; booleans as ``FALSE < TRUE``;
    * text compares case-insensitively (``"abc"`` equals ``"ABC"``);
    * ``None`` (empty) behaves like the "zero" of the other operand's type:
      ``0`` against a number, ``""`` against text, ``FALSE`` against a
      boolean; two empties are equal.

    Raises ``TypeError`` if either argument is a :class:`CellError` or a
    :class:`RangeValue` (callers must handle errors first).
    """
    for v in (a, b):
        if isinstance(v, (CellError, RangeValue)):
            raise TypeError(f"cannot compare {v!r}")
    if a is None and b is None:
        return 0
    if a is None:
        a = _blank_like(b)
    if b is None:
        b = _blank_like(a)
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        return -1 if ra < rb else 1
    if ra == 1:
        a, b = a.casefold(), b.casefold()  # type: ignore[union-attr]
    return (a > b) - (a < b)  # type: ignore[operator]
