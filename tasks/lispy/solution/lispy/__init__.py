"""lispy: an interpreter for a small Scheme-like Lisp.

Quick start::

    >>> from lispy import run, Interpreter
    >>> run("(define (sq x) (* x x)) (map sq '(1 2 3))")
    '(1 4 9)\\n'
    >>> Interpreter().eval("(+ 1 2)")
    3

Layers (each builds on the ones above it):

1. :mod:`lispy.tokenizer`, :mod:`lispy.reader`, :mod:`lispy.printer` - text <-> data
2. :mod:`lispy.datatypes`, :mod:`lispy.environment`, :mod:`lispy.procedures` - data model
3. :mod:`lispy.evaluator` - special forms, calls, proper tail calls
4. :mod:`lispy.builtins` - primitive procedures; :mod:`lispy.globals` binds them
5. :mod:`lispy.quasiquote`, :mod:`lispy.macros`, :mod:`lispy.conditions`,
   :mod:`lispy.prelude`, :mod:`lispy.interpreter` - the higher-level language
"""

from lispy import conditions, macros, quasiquote  # noqa: F401  (register special forms)
from lispy.datatypes import NIL, UNASSIGNED, VOID, ErrorObject, Pair, Symbol, from_pylist, is_proper_list, to_pylist
from lispy.environment import Environment
from lispy.errors import (
    ArityError,
    EvalError,
    LispError,
    LispRaise,
    LispSyntaxError,
    LispTypeError,
    ParseError,
    UnboundVariable,
)
from lispy.evaluator import SPECIAL_FORMS, apply_procedure, evaluate
from lispy.globals import standard_env
from lispy.interpreter import Interpreter, is_complete, repl_session, run
from lispy.prelude import PRELUDE, load_prelude
from lispy.printer import escape_string, format_number, to_string
from lispy.procedures import Builtin, MacroBase, Procedure, parse_params
from lispy.reader import Reader, decode_string, parse_atom, parse_number, read, read_all
from lispy.tokenizer import Token, tokenize

__all__ = [
    "NIL",
    "UNASSIGNED",
    "VOID",
    "ErrorObject",
    "Pair",
    "Symbol",
    "from_pylist",
    "is_proper_list",
    "to_pylist",
    "Environment",
    "ArityError",
    "EvalError",
    "LispError",
    "LispRaise",
    "LispSyntaxError",
    "LispTypeError",
    "ParseError",
    "UnboundVariable",
    "SPECIAL_FORMS",
    "apply_procedure",
    "evaluate",
    "standard_env",
    "Interpreter",
    "is_complete",
    "repl_session",
    "run",
    "PRELUDE",
    "load_prelude",
    "escape_string",
    "format_number",
    "to_string",
    "Builtin",
    "MacroBase",
    "Procedure",
    "parse_params",
    "Reader",
    "decode_string",
    "parse_atom",
    "parse_number",
    "read",
    "read_all",
    "Token",
    "tokenize",
]
