"""Turning Lisp values back into text.

``to_string(x)`` gives the *written* representation (what ``write`` and the
REPL show: strings in double quotes with escapes), ``to_string(x, write=False)``
the *displayed* one (what ``display`` shows: strings raw).  For data made only of
numbers, strings, booleans, symbols and lists, reading the written text back
gives an equal value.
"""

from __future__ import annotations

import math

from lispy.datatypes import NIL, VOID, ErrorObject, Pair, Symbol
from lispy.procedures import Builtin, MacroBase, Procedure

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def escape_string(s: str) -> str:
    """The written form of the string `s`: double-quoted, with escapes.

    Backslash → ``\\\\``, double quote → ``\\"``, newline → ``\\n``, tab →
    ``\\t``, carriage return → ``\\r``; any other character below U+0020, and
    U+007F, becomes a hex escape ``\\x<hex>;`` with lower-case hex digits and no
    leading zeros (``"\\x7;"``, ``"\\x1b;"``, ``"\\x7f;"``).  Everything else,
    including non-ASCII letters, is kept as is.  The result read back with
    :func:`lispy.reader.decode_string` gives `s` again.
    """
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):x};")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def format_number(n: int | float) -> str:
    """The written form of a Lisp number.

    Integers in decimal (``-42``).  Floats: ``+inf.0``, ``-inf.0`` and ``+nan.0``
    for the special values; a float with an integral value keeps a trailing
    ``.0`` (``2.0``, ``-0.0``); any other float uses Python's shortest round-trip
    ``repr`` (``0.1``, ``1e-07``, ``1e+22``, ``1.5e+300``).

    Raises TypeError if `n` is a bool or not an int/float.
    """
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        raise TypeError(f"not a number: {n!r}")
    if isinstance(n, int):
        return str(n)
    if math.isnan(n):
        return "+nan.0"
    if math.isinf(n):
        return "+inf.0" if n > 0 else "-inf.0"
    return repr(n)


def to_string(obj: object, write: bool = True) -> str:
    """The printed representation of the Lisp value `obj`.

    * ``True`` → ``#t``, ``False`` → ``#f``; numbers via :func:`format_number`;
    * strings: :func:`escape_string` when `write` is true, else the raw text;
    * symbols: their name; ``NIL`` → ``()``; ``VOID`` → ``#<void>``;
    * pairs: list notation, recursively, with `write` passed down:
      ``(1 2 3)``, ``(1 (2 "x") ())``; an improper tail is shown after `` . ``:
      ``(1 2 . 3)``.  ``(quote x)`` is printed as a plain list, not ``'x``;
    * :class:`~lispy.procedures.Procedure`: ``#<procedure NAME>``, or
      ``#<procedure>`` when anonymous (name None);
    * :class:`~lispy.procedures.Builtin`: ``#<builtin NAME>``;
    * any :class:`~lispy.procedures.MacroBase`: ``#<macro NAME>``;
    * :class:`~lispy.datatypes.ErrorObject`: ``#<error MESSAGE>`` with the
      message written as a string (``#<error "boom">``);
    * any other Python callable: ``#<builtin>``; anything else: ``#<repr>`` with
      the Python ``repr`` of the object.

    Long lists must not hit Python's recursion limit (walk the cdr chain
    iteratively); cyclic structures are not supported.
    """
    if obj is True:
        return "#t"
    if obj is False:
        return "#f"
    if isinstance(obj, (int, float)):
        return format_number(obj)
    if isinstance(obj, str):
        return escape_string(obj) if write else obj
    if isinstance(obj, Symbol):
        return obj.name
    if obj is NIL:
        return "()"
    if obj is VOID:
        return "#<void>"
    if isinstance(obj, Pair):
        parts = []
        while isinstance(obj, Pair):
            parts.append(to_string(obj.car, write))
            obj = obj.cdr
        if obj is not NIL:
            parts.append(".")
            parts.append(to_string(obj, write))
        return "(" + " ".join(parts) + ")"
    if isinstance(obj, Procedure):
        return f"#<procedure {obj.name}>" if obj.name else "#<procedure>"
    if isinstance(obj, Builtin):
        return f"#<builtin {obj.name}>"
    if isinstance(obj, MacroBase):
        return f"#<macro {obj.name}>"
    if isinstance(obj, ErrorObject):
        return f"#<error {escape_string(obj.message)}>"
    if callable(obj):
        return "#<builtin>"
    return f"#<{obj!r}>"
