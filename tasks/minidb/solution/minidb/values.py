"""SQL values: storage coercion and ordering.

minidb stores Python values: ``int`` (INTEGER), ``float`` (REAL), ``str``
(TEXT), ``bool`` (BOOLEAN) and ``None`` (NULL). Note that ``bool`` is never
treated as a number, even though Python makes it a subclass of ``int``.
"""

from __future__ import annotations

from typing import Any

from minidb.errors import ConstraintError, TypeMismatchError

TYPES = ("INTEGER", "REAL", "TEXT", "BOOLEAN")


def is_number(value: Any) -> bool:
    """True for int and float values, False for bool (and everything else)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def value_key(value: Any) -> tuple:
    """A hashable key under which equal SQL values collide and unequal ones do not.

    Python considers ``True == 1``; SQL does not, so booleans get their own tag.
    Numbers share a tag so that ``1`` and ``1.0`` are the same key. NULL is a key
    of its own (used where NULLs are grouped together: GROUP BY, DISTINCT).
    """
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if is_number(value):
        return ("num", value)
    return ("str", value)


def coerce_value(value: Any, type_name: str, length: int | None = None) -> Any:
    """Convert ``value`` for storage in a column of type ``type_name``.

    None (NULL) is returned unchanged for every type. Otherwise:

    - 'INTEGER': an int is kept; a float with an integral value becomes an int
      (``3.0`` -> ``3``); a str holding an integer literal, surrounding
      whitespace allowed, is parsed (``' 42 '`` -> ``42``). Anything else fails,
      in particular ``2.5``, ``'abc'`` and booleans.
    - 'REAL': an int or float becomes a float; a str holding a number is
      parsed (``'2.5'`` -> ``2.5``). Booleans and other strings fail.
    - 'TEXT': a str is kept; an int or float becomes ``str(value)``
      (``7`` -> ``'7'``, ``2.5`` -> ``'2.5'``). Booleans fail. If ``length`` is
      given, a (converted) string longer than ``length`` characters fails with
      `ConstraintError`.
    - 'BOOLEAN': a bool is kept; the ints 0 and 1 become False and True; the
      strings 'true'/'false' (any case) become True/False. Anything else fails.

    Raises:
        TypeMismatchError: the value cannot be converted; the message names the
            type and the value, e.g. "expected INTEGER, got 'abc'".
        ConstraintError: a TEXT value longer than ``length``.
        ValueError: ``type_name`` is not one of `TYPES`.
    """
    if type_name not in TYPES:
        raise ValueError(f"unknown type {type_name!r}")
    if value is None:
        return None

    def fail() -> TypeMismatchError:
        return TypeMismatchError(f"expected {type_name}, got {value!r}")

    if type_name == "INTEGER":
        if isinstance(value, bool):
            raise fail()
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            if value.is_integer():
                return int(value)
            raise fail()
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                raise fail() from None
        raise fail()
    if type_name == "REAL":
        if is_number(value):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                raise fail() from None
        raise fail()
    if type_name == "TEXT":
        if isinstance(value, str):
            text = value
        elif is_number(value):
            text = str(value)
        else:
            raise fail()
        if length is not None and len(text) > length:
            raise ConstraintError(f"value too long for VARCHAR({length}): {text!r}")
        return text
    # BOOLEAN
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise fail()


def compare_values(left: Any, right: Any) -> int:
    """Compare two non-NULL SQL values: -1 if left < right, 0 if equal, 1 if greater.

    Numbers (int and float, not bool) compare numerically with each other
    (``1 == 1.0``); strings compare by code point (case-sensitive, so
    ``'B' < 'a'``); booleans compare with booleans only, ``False < True``.

    Raises:
        TypeMismatchError: the values are of incomparable kinds (a number and a
            string, a boolean and a number, ...), e.g. "cannot compare 1 with 'a'".
        ValueError: either value is None (NULL is handled by the callers).
    """
    if left is None or right is None:
        raise ValueError("compare_values() does not accept NULL")
    if is_number(left) and is_number(right):
        pass
    elif isinstance(left, bool) and isinstance(right, bool):
        pass
    elif isinstance(left, str) and isinstance(right, str):
        pass
    else:
        raise TypeMismatchError(f"cannot compare {left!r} with {right!r}")
    if left < right:
        return -1
    if left > right:
        return 1
    return 0
