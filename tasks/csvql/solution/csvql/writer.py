"""Writing values back out as CSV text."""

from __future__ import annotations


def format_value(value) -> str:
    """The text of one value: ``None`` -> ``""``, ``True``/``False`` -> ``"true"``/
    ``"false"``, ``int`` -> ``str(value)``, ``float`` -> ``repr(value)`` (so ``3.0``
    stays ``"3.0"``), ``str`` -> unchanged."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def format_csv(columns: list[str], rows: list[tuple], delimiter: str = ",") -> str:
    """Return CSV text with a header line (``columns``) followed by one line per row.

    Each value is turned into text with :func:`format_value`. A field is written
    in double quotes, with every ``"`` inside doubled, when its text contains the
    delimiter, a ``"``, ``\\n`` or ``\\r``, and also when the value is the empty
    *string* ``""`` (so that it can be told apart from ``None``, which is written
    as nothing). Fields are joined with ``delimiter``; every line, including the
    last, ends with ``\\n``. Column names are quoted by the same rules.

    Raises ``ValueError`` if a row does not have ``len(columns)`` values.
    """

    def field(value) -> str:
        text = format_value(value)
        if value == "" and isinstance(value, str) or any(c in text for c in (delimiter, '"', "\n", "\r")):
            return '"' + text.replace('"', '""') + '"'
        return text

    lines = [delimiter.join(field(c) for c in columns)]
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"row has {len(row)} values, expected {len(columns)}")
        lines.append(delimiter.join(field(v) for v in row))
    return "".join(line + "\n" for line in lines)
