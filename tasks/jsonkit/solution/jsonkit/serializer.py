"""Turn Python values into JSON text.  Independent of the decoding side."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def encode_string(s: str, ensure_ascii: bool = True) -> str:
    """Return ``s`` as a JSON string literal, including the surrounding quotes.

    * ``"`` and ``\\`` are escaped as ``\\"`` and ``\\\\``;
    * newline, carriage return, tab, backspace and form feed use the short escapes
      ``\\n \\r \\t \\b \\f``;
    * every other character below U+0020 becomes ``\\u00XX`` (4 lower-case hex
      digits, e.g. ``"\\x01"`` -> ``\\u0001``);
    * ``/`` and U+007F are never escaped;
    * if ``ensure_ascii`` is true, every non-ASCII character is written as
      ``\\uxxxx`` with lower-case hex digits, and characters above U+FFFF as a
      UTF-16 surrogate pair (``"\U0001F600"`` -> ``\\ud83d\\ude00``); otherwise they
      are written as-is.

    Example: ``encode_string('a"b\\n')`` == ``'"a\\\\"b\\\\n"'``.
    """
    out = ['"']
    for ch in s:
        if ch in SHORT_ESCAPES:
            out.append(SHORT_ESCAPES[ch])
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        elif ensure_ascii and ord(ch) > 0x7F:
            code = ord(ch)
            if code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def format_number(value: int | float) -> str:
    """Return the JSON text of an ``int`` or ``float`` (``bool`` is not accepted).

    Integers (including ``int`` subclasses) are written in decimal as
    ``int.__repr__`` does; floats use the shortest representation that
    round-trips, i.e. ``float.__repr__`` (``1.0`` -> ``"1.0"``, ``1e100`` ->
    ``"1e+100"``, ``-0.0`` -> ``"-0.0"``).

    Raises ``ValueError("Out of range float values are not JSON compliant: <repr>")``
    for NaN and the infinities (JSON cannot represent them), and ``TypeError``
    for anything that is not an ``int`` or ``float``, or is a ``bool``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, int):
        return int.__repr__(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
    return float.__repr__(value)


def key_to_string(key: Any) -> str:
    """Convert a dict key to the string used as the JSON property name.

    ``str`` keys are returned unchanged; ``True``/``False`` become ``"true"`` and
    ``"false"``, ``None`` becomes ``"null"``, and ``int``/``float`` keys are
    formatted with :func:`format_number` (``1`` -> ``"1"``, ``2.5`` -> ``"2.5"``).

    Raises ``TypeError("keys must be str, int, float, bool or None, not <type name>")``
    for any other key (e.g. a tuple), and the ``ValueError`` of
    :func:`format_number` for NaN/infinite float keys.
    """
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, (int, float)):
        return format_number(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


class Encoder:
    """Configurable JSON encoder.

    Args:
        indent: ``None`` for single-line output; otherwise a non-negative ``int``
            (that many spaces per level) or a ``str`` (used as-is per level).
            With an indent every array element and object member goes on its
            own line, indented one level deeper than its container; the closing
            bracket goes on its own line at the container's level.  ``indent=0``
            still inserts newlines.  Empty containers are always ``[]`` / ``{}``.
        sort_keys: write object members sorted by their (string) key.
        ensure_ascii: passed to :func:`encode_string`.
        separators: ``(item_separator, key_separator)``; the default is
            ``(", ", ": ")`` without indent and ``(",", ": ")`` with one.
        default: called with any object that cannot be encoded otherwise; its
            result is encoded in its place.

    Raises ``ValueError`` for a negative ``indent``.
    """

    def __init__(
        self,
        *,
        indent: int | str | None = None,
        sort_keys: bool = False,
        ensure_ascii: bool = True,
        separators: tuple[str, str] | None = None,
        default: Callable[[Any], Any] | None = None,
    ):
        if isinstance(indent, int) and not isinstance(indent, bool):
            if indent < 0:
                raise ValueError("indent must be non-negative")
            indent = " " * indent
        self.indent: str | None = indent
        self.sort_keys = sort_keys
        self.ensure_ascii = ensure_ascii
        if separators is None:
            separators = (", ", ": ") if indent is None else (",", ": ")
        self.item_separator, self.key_separator = separators
        self.default = default
        self._markers: set[int] = set()

    def encode(self, obj: Any) -> str:
        """Return the JSON text of ``obj`` (see :meth:`encode_value`)."""
        self._markers = set()
        return self.encode_value(obj, 0)

    def _newline(self, level: int) -> str:
        return "\n" + self.indent * level

    def encode_value(self, obj: Any, level: int) -> str:
        """Return the JSON text of ``obj``, a value nested ``level`` containers deep.

        ``None``, ``True`` and ``False`` become ``null``, ``true`` and ``false``;
        ``int``/``float`` use :func:`format_number`; ``str`` uses
        :func:`encode_string`; ``list`` and ``tuple`` go to :meth:`encode_array`
        and ``dict`` to :meth:`encode_object` (both with the same ``level``).
        Anything else is passed to ``default`` and the result encoded instead.

        Raises ``TypeError("Object of type <type name> is not JSON serializable")``
        when there is no ``default`` for such an object, plus the errors of the
        helpers (``ValueError`` for NaN, circular references, ...).
        """
        if obj is None:
            return "null"
        if obj is True:
            return "true"
        if obj is False:
            return "false"
        if isinstance(obj, (int, float)):
            return format_number(obj)
        if isinstance(obj, str):
            return encode_string(obj, self.ensure_ascii)
        if isinstance(obj, (list, tuple)):
            return self.encode_array(obj, level)
        if isinstance(obj, dict):
            return self.encode_object(obj, level)
        if self.default is not None:
            return self.encode_value(self.default(obj), level)
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")

    def encode_array(self, items: list[Any] | tuple[Any, ...], level: int) -> str:
        """Return the JSON text of a list or tuple nested ``level`` containers deep.

        Elements are encoded with :meth:`encode_value` at ``level + 1`` and joined
        with the item separator; with an indent each element is preceded by a
        newline and ``indent * (level + 1)``, and the ``]`` by a newline and
        ``indent * level``.  An empty sequence is ``"[]"``.

        Raises ``ValueError("Circular reference detected")`` if ``items`` is
        (directly or indirectly) contained in itself.
        """
        if not items:
            return "[]"
        marker = id(items)
        if marker in self._markers:
            raise ValueError("Circular reference detected")
        self._markers.add(marker)
        parts = [self.encode_value(item, level + 1) for item in items]
        self._markers.discard(marker)
        if self.indent is None:
            return "[" + self.item_separator.join(parts) + "]"
        inner = self._newline(level + 1)
        return "[" + inner + (self.item_separator + inner).join(parts) + self._newline(level) + "]"

    def encode_object(self, mapping: dict[Any, Any], level: int) -> str:
        """Return the JSON text of a dict nested ``level`` containers deep.

        Keys are converted with :func:`key_to_string` and written with
        :func:`encode_string`, followed by the key separator and the value encoded
        with :meth:`encode_value` at ``level + 1``.  Members keep the dict's order,
        or are sorted by converted key when ``sort_keys`` is set.  Layout with an
        indent is as for :meth:`encode_array`; an empty dict is ``"{}"``.

        Raises ``ValueError("Circular reference detected")`` if the dict contains
        itself, and the ``TypeError`` of :func:`key_to_string` for bad keys.
        """
        if not mapping:
            return "{}"
        marker = id(mapping)
        if marker in self._markers:
            raise ValueError("Circular reference detected")
        self._markers.add(marker)
        members = [(key_to_string(k), v) for k, v in mapping.items()]
        if self.sort_keys:
            members.sort(key=lambda kv: kv[0])
        parts = [
            encode_string(k, self.ensure_ascii) + self.key_separator + self.encode_value(v, level + 1)
            for k, v in members
        ]
        self._markers.discard(marker)
        if self.indent is None:
            return "{" + self.item_separator.join(parts) + "}"
        inner = self._newline(level + 1)
        return "{" + inner + (self.item_separator + inner).join(parts) + self._newline(level) + "}"
