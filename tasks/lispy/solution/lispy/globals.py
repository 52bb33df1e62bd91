"""The global environment: every builtin procedure under its Lisp name."""

from __future__ import annotations

import sys
from functools import partial
from typing import TextIO

from lispy.builtins import equality, higher, lists, numeric, strings
from lispy.conditions import (
    builtin_error,
    builtin_raise,
    error_object_irritants,
    error_object_message,
    is_error_object,
)
from lispy.datatypes import NIL, VOID, Pair, Symbol, is_proper_list
from lispy.environment import Environment
from lispy.evaluator import evaluate
from lispy.macros import gensym, macroexpand_1
from lispy.printer import to_string
from lispy.procedures import Builtin, MacroBase

N = numeric


def _is_procedure(x: object) -> bool:
    return callable(x) and not isinstance(x, MacroBase)


def _pred(test):
    return lambda x: bool(test(x))


#: (lisp name, python function, min args, max args or None)
BUILTINS: list[tuple[str, object, int, int | None]] = [
    # numbers
    ("+", N.num_add, 0, None),
    ("-", N.num_sub, 1, None),
    ("*", N.num_mul, 0, None),
    ("/", N.num_div, 1, None),
    ("=", partial(N.numeric_compare, "="), 1, None),
    ("<", partial(N.numeric_compare, "<"), 1, None),
    (">", partial(N.numeric_compare, ">"), 1, None),
    ("<=", partial(N.numeric_compare, "<="), 1, None),
    (">=", partial(N.numeric_compare, ">="), 1, None),
    ("quotient", N.quotient, 2, 2),
    ("remainder", N.remainder, 2, 2),
    ("modulo", N.modulo, 2, 2),
    ("max", N.num_max, 1, None),
    ("min", N.num_min, 1, None),
    ("abs", N.num_abs, 1, 1),
    ("expt", N.expt, 2, 2),
    ("sqrt", N.num_sqrt, 1, 1),
    ("round", N.num_round, 1, 1),
    ("floor", N.num_floor, 1, 1),
    ("ceiling", N.num_ceiling, 1, 1),
    ("truncate", N.num_truncate, 1, 1),
    ("gcd", N.num_gcd, 0, None),
    ("lcm", N.num_lcm, 0, None),
    ("exact->inexact", N.exact_to_inexact, 1, 1),
    ("inexact", N.exact_to_inexact, 1, 1),
    ("inexact->exact", N.inexact_to_exact, 1, 1),
    ("exact", N.inexact_to_exact, 1, 1),
    ("number->string", N.number_to_string, 1, 2),
    ("string->number", N.string_to_number, 1, 2),
    ("number?", _pred(N.is_number), 1, 1),
    ("integer?", _pred(N.is_integer_value), 1, 1),
    ("exact?", lambda x: isinstance(N.check_number("exact?", x), int), 1, 1),
    ("inexact?", lambda x: isinstance(N.check_number("inexact?", x), float), 1, 1),
    ("zero?", lambda x: N.check_number("zero?", x) == 0, 1, 1),
    ("positive?", lambda x: N.check_number("positive?", x) > 0, 1, 1),
    ("negative?", lambda x: N.check_number("negative?", x) < 0, 1, 1),
    ("odd?", lambda x: N.check_integer("odd?", x) % 2 == 1, 1, 1),
    ("even?", lambda x: N.check_integer("even?", x) % 2 == 0, 1, 1),
    # equivalence and types
    ("eq?", equality.is_eqv, 2, 2),
    ("eqv?", equality.is_eqv, 2, 2),
    ("equal?", equality.is_equal, 2, 2),
    ("not", lambda x: x is False, 1, 1),
    ("boolean?", _pred(lambda x: isinstance(x, bool)), 1, 1),
    ("symbol?", _pred(lambda x: isinstance(x, Symbol)), 1, 1),
    ("string?", _pred(lambda x: isinstance(x, str)), 1, 1),
    ("procedure?", _pred(_is_procedure), 1, 1),
    ("null?", lambda x: x is NIL, 1, 1),
    ("pair?", _pred(lambda x: isinstance(x, Pair)), 1, 1),
    ("list?", _pred(is_proper_list), 1, 1),
    # pairs and lists
    ("cons", lists.cons, 2, 2),
    ("car", lists.car, 1, 1),
    ("cdr", lists.cdr, 1, 1),
    ("set-car!", lists.set_car, 2, 2),
    ("set-cdr!", lists.set_cdr, 2, 2),
    ("list", lists.make_list, 0, None),
    ("length", lists.list_length, 1, 1),
    ("append", lists.list_append, 0, None),
    ("reverse", lists.list_reverse, 1, 1),
    ("list-tail", lists.list_tail, 2, 2),
    ("list-ref", lists.list_ref, 2, 2),
    ("memq", partial(lists.mem_search, "memq", equality.is_eqv), 2, 2),
    ("memv", partial(lists.mem_search, "memv", equality.is_eqv), 2, 2),
    ("member", partial(lists.mem_search, "member", equality.is_equal), 2, 2),
    ("assq", partial(lists.assoc_search, "assq", equality.is_eqv), 2, 2),
    ("assv", partial(lists.assoc_search, "assv", equality.is_eqv), 2, 2),
    ("assoc", partial(lists.assoc_search, "assoc", equality.is_equal), 2, 2),
    # strings and symbols
    ("string-length", strings.string_length, 1, 1),
    ("string-append", strings.string_append, 0, None),
    ("substring", strings.substring, 2, 3),
    ("string-upcase", strings.string_upcase, 1, 1),
    ("string-downcase", strings.string_downcase, 1, 1),
    ("string-split", strings.string_split, 1, 2),
    ("string-join", strings.string_join, 1, 2),
    ("string-contains", strings.string_contains, 2, 2),
    ("string=?", partial(strings.string_compare, "="), 1, None),
    ("string<?", partial(strings.string_compare, "<"), 1, None),
    ("string>?", partial(strings.string_compare, ">"), 1, None),
    ("string<=?", partial(strings.string_compare, "<="), 1, None),
    ("string>=?", partial(strings.string_compare, ">="), 1, None),
    ("string->symbol", strings.string_to_symbol, 1, 1),
    ("symbol->string", strings.symbol_to_string, 1, 1),
    ("format", strings.format_string, 1, None),
    # higher order
    ("apply", higher.builtin_apply, 1, None),
    ("map", higher.builtin_map, 2, None),
    ("for-each", higher.builtin_for_each, 2, None),
    ("filter", higher.builtin_filter, 2, 2),
    ("fold-left", higher.builtin_fold_left, 3, None),
    ("fold-right", higher.builtin_fold_right, 3, None),
    ("reduce", higher.builtin_reduce, 3, 3),
    ("sort", higher.builtin_sort, 2, 2),
    # errors and macros
    ("error", builtin_error, 1, None),
    ("raise", builtin_raise, 1, 1),
    ("error-object?", is_error_object, 1, 1),
    ("error-object-message", error_object_message, 1, 1),
    ("error-object-irritants", error_object_irritants, 1, 1),
    ("gensym", gensym, 0, 1),
]


def standard_env(out: TextIO | None = None) -> Environment:
    """A fresh global environment holding every builtin of :data:`BUILTINS`.

    Also binds the output procedures ``display``, ``write`` (one argument each,
    writing ``to_string(x, write=False)`` / ``to_string(x)``) and ``newline``
    (no argument, writes ``"\\n"``), all returning VOID and writing to `out`
    (``sys.stdout`` at call time when `out` is None); ``eval`` (evaluate a datum
    in this global environment) and ``macroexpand-1`` (expand a quoted form once,
    see :func:`lispy.macros.macroexpand_1`).
    """
    env = Environment()
    for name, fn, lo, hi in BUILTINS:
        env.define(Symbol(name), Builtin(name, fn, lo, hi))

    def emit(text: str) -> object:
        (out if out is not None else sys.stdout).write(text)
        return VOID

    extra = [
        ("display", lambda x: emit(to_string(x, write=False)), 1, 1),
        ("write", lambda x: emit(to_string(x)), 1, 1),
        ("newline", lambda: emit("\n"), 0, 0),
        ("eval", lambda expr: evaluate(expr, env), 1, 1),
        ("macroexpand-1", lambda form: macroexpand_1(form, env), 1, 1),
    ]
    for name, fn, lo, hi in extra:
        env.define(Symbol(name), Builtin(name, fn, lo, hi))
    return env
