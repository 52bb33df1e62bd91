"""Numbers: arithmetic, comparison and conversion to and from strings.

lispy has two kinds of numbers: *exact* integers (Python ``int``) and *inexact*
reals (Python ``float``).  There are no rationals: dividing exact integers gives
an exact integer when the division is exact and a float otherwise.  Operations
on a mix of exact and inexact arguments give inexact results ("contagion").
Booleans are *not* numbers, although Python's ``bool`` is a subclass of ``int``.

Type errors raise :class:`~lispy.errors.LispTypeError` with the message
``"<lisp name>: expected number, got <written value>"`` (or ``expected
integer`` where only exact integers are allowed), e.g. ``+: expected number, got
"a"``.
"""

from __future__ import annotations

import math

from lispy.errors import EvalError, LispTypeError
from lispy.printer import format_number, to_string
from lispy.reader import parse_number

_DIGITS = "0123456789abcdef"


def is_number(x: object) -> bool:
    """True for Lisp numbers: ints and floats, but not booleans."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def is_integer_value(x: object) -> bool:
    """``integer?``: an exact int, or a finite float with an integral value."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return True
    return isinstance(x, float) and math.isfinite(x) and x.is_integer()


def check_number(who: str, x: object) -> int | float:
    """Return `x` if it is a Lisp number, else raise the module's LispTypeError."""
    if not is_number(x):
        raise LispTypeError(f"{who}: expected number, got {to_string(x)}")
    return x


def check_integer(who: str, x: object) -> int:
    """Return `x` if it is an exact integer, else raise LispTypeError ``expected integer``."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise LispTypeError(f"{who}: expected integer, got {to_string(x)}")
    return x


def num_add(*args: object) -> int | float:
    """``(+ n ...)``: the sum of the arguments; ``(+)`` is 0.

    Exact if all arguments are exact.  LispTypeError (``+: expected number, got
    ...``) for a non-number argument.
    """
    total: int | float = 0
    for x in args:
        total += check_number("+", x)
    return total


def num_sub(first: object, *rest: object) -> int | float:
    """``(- n m ...)``: `first` minus every later argument, left to right.

    With one argument, its negation: ``(- 5)`` is -5.  LispTypeError (``-:
    expected number, ...``) for a non-number argument.
    """
    result = check_number("-", first)
    if not rest:
        return -result
    for x in rest:
        result -= check_number("-", x)
    return result


def num_mul(*args: object) -> int | float:
    """``(* n ...)``: the product of the arguments; ``(*)`` is 1.

    LispTypeError (``*: expected number, ...``) for a non-number argument.
    """
    product: int | float = 1
    for x in args:
        product *= check_number("*", x)
    return product


def num_div(first: object, *rest: object) -> int | float:
    """``(/ n m ...)``: `first` divided by every later argument, left to right.

    With one argument, its reciprocal ``(/ 1 n)``.  Each step: if both operands
    are exact and the division is exact the result is an exact int
    (``(/ 12 4)`` is 3), otherwise a float (``(/ 7 2)`` is 3.5, ``(/ 6.0 3)``
    is 2.0).  All arguments are type-checked first (LispTypeError ``/: expected
    number, ...``); dividing by zero (exact or inexact) raises
    :class:`~lispy.errors.EvalError` ``"/: division by zero"``.
    """
    check_number("/", first)
    for x in rest:
        check_number("/", x)
    if rest:
        result, divisors = first, rest
    else:
        result, divisors = 1, (first,)
    for d in divisors:
        if d == 0:
            raise EvalError("/: division by zero")
        if isinstance(result, int) and isinstance(d, int) and result % d == 0:
            result = result // d
        else:
            result = result / d
    return result


def quotient(a: object, b: object) -> int:
    """``(quotient a b)``: integer division truncating toward zero.

    ``(quotient 7 2)`` 3, ``(quotient -7 2)`` -3, ``(quotient 7 -2)`` -3.  Both
    arguments must be exact integers (LispTypeError ``quotient: expected
    integer, ...``); ``b = 0`` raises EvalError ``"quotient: division by zero"``.
    """
    check_integer("quotient", a)
    check_integer("quotient", b)
    if b == 0:
        raise EvalError("quotient: division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def remainder(a: object, b: object) -> int:
    """``(remainder a b)``: ``a - b * (quotient a b)``; its sign follows `a`.

    ``(remainder 7 2)`` 1, ``(remainder -7 2)`` -1, ``(remainder 7 -2)`` 1.
    Exact integers only (LispTypeError ``remainder: expected integer, ...``);
    ``b = 0`` raises EvalError ``"remainder: division by zero"``.
    """
    check_integer("remainder", a)
    check_integer("remainder", b)
    if b == 0:
        raise EvalError("remainder: division by zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def modulo(a: object, b: object) -> int:
    """``(modulo a b)``: remainder of floored division; its sign follows `b`.

    ``(modulo 7 2)`` 1, ``(modulo -7 2)`` 1, ``(modulo 7 -2)`` -1.  Exact
    integers only (LispTypeError ``modulo: expected integer, ...``); ``b = 0``
    raises EvalError ``"modulo: division by zero"``.
    """
    check_integer("modulo", a)
    check_integer("modulo", b)
    if b == 0:
        raise EvalError("modulo: division by zero")
    return a % b


_COMPARATORS = {
    "=": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
}


def numeric_compare(op: str, *args: object) -> bool:
    """The chained numeric comparison `op` (one of ``= < > <= >=``) over `args`.

    True when every adjacent pair satisfies `op` (``(< 1 2 3)`` #t, ``(< 1 3
    2)`` #f); a single argument gives #t.  Exact and inexact numbers compare by
    value (``(= 1 1.0)`` #t); any comparison with a NaN is false.  *All*
    arguments are type-checked before comparing: LispTypeError ``"<op>: expected
    number, got ..."``.  Raises ValueError for an unknown `op`.
    """
    if op not in _COMPARATORS:
        raise ValueError(f"unknown comparison {op!r}")
    for x in args:
        check_number(op, x)
    cmp = _COMPARATORS[op]
    return all(cmp(a, b) for a, b in zip(args, args[1:]))


def num_max(first: object, *rest: object) -> int | float:
    """``(max n ...)``: the largest argument.

    If any argument is inexact the result is a float (``(max 1 2.0)`` 2.0,
    ``(max 3 2.0)`` 3.0).  LispTypeError ``max: expected number, ...``.
    """
    args = [check_number("max", x) for x in (first, *rest)]
    result = max(args)
    return float(result) if any(isinstance(x, float) for x in args) else result


def num_min(first: object, *rest: object) -> int | float:
    """``(min n ...)``: the smallest argument; inexact contagion as for ``max``.
    LispTypeError ``min: expected number, ...``."""
    args = [check_number("min", x) for x in (first, *rest)]
    result = min(args)
    return float(result) if any(isinstance(x, float) for x in args) else result


def expt(base: object, power: object) -> int | float:
    """``(expt base power)``: `base` raised to `power`.

    * exact base and exact non-negative power → exact int (``(expt 2 100)`` is
      1267650600228229401496703205376); ``(expt 0 0)`` is 1;
    * exact base and negative exact power → float (``(expt 2 -1)`` 0.5);
    * otherwise a float (``(expt 4 0.5)`` 2.0, ``(expt 2.0 3)`` 8.0).

    Errors: LispTypeError ``expt: expected number, ...``; EvalError ``"expt:
    division by zero"`` for zero raised to a negative power; EvalError ``"expt:
    result is not a real number"`` for a negative base with a non-integral power.
    """
    check_number("expt", base)
    check_number("expt", power)
    if base == 0 and power < 0:
        raise EvalError("expt: division by zero")
    if isinstance(base, int) and isinstance(power, int):
        if power >= 0:
            return base**power
        return float(base) ** power
    if base < 0 and not float(power).is_integer():
        raise EvalError("expt: result is not a real number")
    return float(base) ** power


def num_sqrt(x: object) -> int | float:
    """``(sqrt x)``: the square root.

    Exact for exact perfect squares (``(sqrt 16)`` is 4, also for huge ints),
    otherwise a float (``(sqrt 2)`` 1.4142135623730951, ``(sqrt 16.0)`` 4.0).
    Errors: LispTypeError ``sqrt: expected number, ...``; EvalError ``"sqrt:
    negative argument"`` for x < 0.
    """
    check_number("sqrt", x)
    if x < 0:
        raise EvalError("sqrt: negative argument")
    if isinstance(x, int):
        r = math.isqrt(x)
        if r * r == x:
            return r
    return math.sqrt(x)


def num_round(x: object) -> int | float:
    """``(round x)``: the nearest integer, ties to even (``(round 2.5)`` 2.0,
    ``(round 3.5)`` 4.0, ``(round -2.5)`` -2.0).

    Exact arguments are returned unchanged; inexact ones give a float that keeps
    the sign of `x` (``(round -0.4)`` is -0.0); infinities and NaN are returned
    unchanged.  LispTypeError ``round: expected number, ...``.
    """
    check_number("round", x)
    if isinstance(x, int) or not math.isfinite(x):
        return x
    return math.copysign(float(round(x)), x)


def _float_to_int_op(who: str, fn):
    def op(x: object) -> int | float:
        check_number(who, x)
        if isinstance(x, int) or not math.isfinite(x):
            return x
        return float(fn(x))

    op.__name__ = op.__qualname__ = f"num_{who}"
    op.__doc__ = f"``({who} x)``: exact integers unchanged; floats rounded with {who}, as a float."
    return op


num_floor = _float_to_int_op("floor", math.floor)
num_ceiling = _float_to_int_op("ceiling", math.ceil)
num_truncate = _float_to_int_op("truncate", math.trunc)


def num_abs(x: object) -> int | float:
    """``(abs x)``: absolute value, same exactness."""
    return abs(check_number("abs", x))


def exact_to_inexact(x: object) -> float:
    """``(exact->inexact x)`` / ``(inexact x)``: `x` as a float."""
    return float(check_number("exact->inexact", x))


def inexact_to_exact(x: object) -> int:
    """``(inexact->exact x)`` / ``(exact x)``: an integral float as an int.

    EvalError ``"inexact->exact: no exact representation"`` for non-integral or
    non-finite floats (lispy has no rationals).
    """
    check_number("inexact->exact", x)
    if isinstance(x, int):
        return x
    if not math.isfinite(x) or not x.is_integer():
        raise EvalError("inexact->exact: no exact representation")
    return int(x)


def num_gcd(*args: object) -> int:
    """``(gcd n ...)``: greatest common divisor (non-negative); ``(gcd)`` is 0."""
    return math.gcd(*(check_integer("gcd", x) for x in args)) if args else 0


def num_lcm(*args: object) -> int:
    """``(lcm n ...)``: least common multiple (non-negative); ``(lcm)`` is 1."""
    return abs(math.lcm(*(check_integer("lcm", x) for x in args))) if args else 1


def number_to_string(n: object, radix: object = 10) -> str:
    """``(number->string n [radix])``: the written form of `n`.

    In radix 10 this is :func:`~lispy.printer.format_number` (``"42"``,
    ``"2.5"``, ``"+inf.0"``).  Radix 2, 8 or 16 is only allowed for exact
    integers: digits in that radix, lower-case, with a leading ``-`` for negative
    numbers (``(number->string 255 16)`` → ``"ff"``, ``(number->string -5 2)``
    → ``"-101"``).

    Errors: LispTypeError ``number->string: expected number, ...``; EvalError
    ``"number->string: bad radix"`` if `radix` is not 2, 8, 10 or 16, or if it
    is not 10 and `n` is a float.
    """
    check_number("number->string", n)
    if isinstance(radix, bool) or radix not in (2, 8, 10, 16):
        raise EvalError("number->string: bad radix")
    if radix == 10:
        return format_number(n)
    if isinstance(n, float):
        raise EvalError("number->string: bad radix")
    if n == 0:
        return "0"
    digits = []
    m = abs(n)
    while m:
        m, d = divmod(m, radix)
        digits.append(_DIGITS[d])
    return ("-" if n < 0 else "") + "".join(reversed(digits))


def string_to_number(s: object, radix: object = 10) -> int | float | bool:
    """``(string->number s [radix])``: the number written in `s`, or ``#f``.

    Accepts exactly what :func:`~lispy.reader.parse_number` accepts (radix
    prefixes included); returns False (``#f``) when `s` is not a number.
    Errors: LispTypeError ``"string->number: expected string, got ..."`` if `s`
    is not a string; EvalError ``"string->number: bad radix"`` for a radix other
    than 2, 8, 10, 16.
    """
    if not isinstance(s, str):
        raise LispTypeError(f"string->number: expected string, got {to_string(s)}")
    if isinstance(radix, bool) or radix not in (2, 8, 10, 16):
        raise EvalError("string->number: bad radix")
    value = parse_number(s, radix)
    return False if value is None else value
