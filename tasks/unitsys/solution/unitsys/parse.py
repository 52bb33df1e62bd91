"""Parsing unit expressions (``"kg*m/s^2"``) and quantities (``"9.81 m/s^2"``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from unitsys.errors import UnitParseError
from unitsys.registry import UnitRegistry, get_registry
from unitsys.unit import ONE, Unit

if TYPE_CHECKING:
    from unitsys.quantity import Quantity


@dataclass(frozen=True)
class Token:
    """A token of a unit expression.

    `kind` is ``"name"`` (a unit symbol), ``"int"`` (an integer, `value` keeps
    its sign, e.g. ``"-2"``) or ``"op"`` (one of ``* / ^ ( )``). `pos` is the
    0-based index of the token's first character in the text.
    """

    kind: str
    value: str
    pos: int


_DIGITS = "0123456789"


def _is_name_char(c: str) -> bool:
    return c.isalpha() or c in "_\u00b0"


def tokenize_unit(text: str) -> list[Token]:
    """Split a unit expression into tokens.

    * Names: maximal runs of letters, ``"_"`` and ``"°"``.
    * Integers: runs of ASCII digits, with a sign when a ``"-"`` or ``"+"`` is
      directly followed by a digit (``"s^-2"`` gives ``^`` then ``-2``).
    * Operators: ``*``, ``/``, ``^``, ``(``, ``)``; ``"**"`` is read as ``"^"``
      and ``"·"`` (middle dot) as ``"*"``. The token's value is the normalised
      operator.
    * Whitespace separates tokens and is otherwise ignored.

    Raises:
        UnitParseError: for any other character (including ``"."`` and a sign not
            followed by a digit), naming the character and its position.

    >>> [t.value for t in tokenize_unit("kg*m/s^-2")]
    ['kg', '*', 'm', '/', 's', '^', '-2']
    """
    tokens = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif _is_name_char(c):
            j = i
            while j < len(text) and _is_name_char(text[j]):
                j += 1
            tokens.append(Token("name", text[i:j], i))
            i = j
        elif c in _DIGITS or (c in "+-" and i + 1 < len(text) and text[i + 1] in _DIGITS):
            j = i + 1
            while j < len(text) and text[j] in _DIGITS:
                j += 1
            tokens.append(Token("int", text[i:j], i))
            i = j
        elif text.startswith("**", i):
            tokens.append(Token("op", "^", i))
            i += 2
        elif c in "*/^()":
            tokens.append(Token("op", c, i))
            i += 1
        elif c == "\u00b7":
            tokens.append(Token("op", "*", i))
            i += 1
        else:
            raise UnitParseError(f"unexpected character {c!r} at position {i}")
    return tokens


def parse_unit(text: str, registry: UnitRegistry | None = None) -> Unit:
    """Parse a unit expression into a `Unit`, looking symbols up in `registry`.

    Grammar (``*`` and ``/`` are left-associative, ``^`` binds tighter)::

        expr   := power (("*" | "/") power)*
        power  := atom ("^" INT)?
        atom   := NAME | "1" | "(" expr ")"

    Names are resolved with ``registry.lookup`` (the default registry,
    `get_registry()`, when `registry` is None) and combined with the `Unit`
    operators, so ``"J/kg/K"`` is ``J / kg / K`` and ``"1/s"`` is ``ONE / s``.
    The integer ``1`` is the dimensionless unit `ONE`; other integers are only
    allowed as exponents. A single name is returned as looked up (this is how
    offset units such as ``"degC"`` are written).

    Raises:
        UnitParseError: for an empty expression, a syntax error (missing operand,
            unbalanced parenthesis, trailing tokens, a number other than 1 as an
            atom, ``^`` not followed by an integer) or a bad character.
        UndefinedUnitError: for an unknown symbol.
        OffsetUnitError: when an offset unit is combined with others.
    """
    reg = registry if registry is not None else get_registry()
    tokens = tokenize_unit(text)
    if not tokens:
        raise UnitParseError("empty unit expression")
    pos = 0

    def peek() -> Token | None:
        return tokens[pos] if pos < len(tokens) else None

    def expect_op(value: str) -> None:
        nonlocal pos
        tok = peek()
        if tok is None or tok.kind != "op" or tok.value != value:
            where = f"at position {tok.pos}" if tok else "at end of expression"
            raise UnitParseError(f"expected {value!r} {where} in {text!r}")
        pos += 1

    def atom() -> Unit:
        nonlocal pos
        tok = peek()
        if tok is None:
            raise UnitParseError(f"unit expected at end of {text!r}")
        if tok.kind == "name":
            pos += 1
            return reg.lookup(tok.value)
        if tok.kind == "int" and tok.value == "1":
            pos += 1
            return ONE
        if tok.kind == "op" and tok.value == "(":
            pos += 1
            inner = expr()
            expect_op(")")
            return inner
        raise UnitParseError(f"unexpected {tok.value!r} at position {tok.pos} in {text!r}")

    def power() -> Unit:
        nonlocal pos
        base = atom()
        tok = peek()
        if tok is not None and tok.kind == "op" and tok.value == "^":
            pos += 1
            exp = peek()
            if exp is None or exp.kind != "int":
                raise UnitParseError(f"integer exponent expected after '^' in {text!r}")
            pos += 1
            return base ** int(exp.value)
        return base

    def expr() -> Unit:
        nonlocal pos
        result = power()
        while (tok := peek()) is not None and tok.kind == "op" and tok.value in "*/":
            pos += 1
            rhs = power()
            result = result * rhs if tok.value == "*" else result / rhs
        return result

    unit = expr()
    if pos != len(tokens):
        tok = tokens[pos]
        raise UnitParseError(f"unexpected {tok.value!r} at position {tok.pos} in {text!r}")
    return unit


_NUMBER = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)")


def parse_quantity(text: str, registry: UnitRegistry | None = None) -> Quantity:
    """Parse a quantity such as ``"9.81 m/s^2"`` or ``"-40 degF"``.

    The text is a decimal number (optional sign, optional fraction, optional
    exponent such as ``1.5e3``), optionally followed by a unit expression parsed
    by `parse_unit` (whitespace between them is optional). The value is a
    ``float``. Without a unit expression the quantity is dimensionless (unit
    `ONE`).

    Raises:
        UnitParseError: if the text does not start with a number, or the unit
            expression is malformed.
        UndefinedUnitError: for an unknown unit symbol.
    """
    from unitsys.quantity import Quantity

    m = _NUMBER.match(text)
    if m is None:
        raise UnitParseError(f"quantity must start with a number: {text!r}")
    rest = text[m.end():].strip()
    unit = parse_unit(rest, registry) if rest else ONE
    return Quantity(float(m[1]), unit)
