"""Interpretation of what a user types into a cell (when it is not a formula)."""

from __future__ import annotations

from .values import ERROR_CODES, CellError, to_number


def parse_literal(text: str) -> object:
    """Turn non-formula cell input into a value.

    * ``""`` -> ``None`` (an empty cell);
    * a leading apostrophe forces text: ``"'123"`` -> ``"123"``,
      ``"'"`` -> ``""``;
    * text that :func:`~sheetcalc.values.to_number` accepts (surrounding
      whitespace ignored, sign, decimals, exponent, trailing ``%``) -> the
      number: ``"42" -> 42.0``, ``" -1.5 " -> -1.5``, ``"50%" -> 0.5``;
    * ``TRUE`` / ``FALSE`` in any case (whitespace ignored) -> the boolean;
    * an error code such as ``#N/A`` (any case) -> that
      :class:`~sheetcalc.values.CellError` (with the canonical code);
    * anything else -> the text unchanged (not stripped).
    """
    if text == "":
        return None
    if text.startswith("'"):
        return text[1:]
    stripped = text.strip()
    if stripped:
        n = to_number(stripped)
        if not isinstance(n, CellError):
            return n
    upper = stripped.upper()
    if upper == "TRUE":
        return True
    if upper == "FALSE":
        return False
    if upper in ERROR_CODES:
        return CellError(upper)
    return text
