"""exprcalc: a small arithmetic expression language.

Pipeline (each layer builds on the one before)::

    tokens.tokenize -> parser.Parser / parser.parse -> evaluator.Evaluator -> calculator.Calculator

``nodes.to_source`` turns a syntax tree back into text.
"""

from exprcalc.calculator import Calculator, calc
from exprcalc.errors import (
    ArityError,
    CalcError,
    DivisionByZeroError,
    DomainError,
    EvalError,
    ParseError,
    RecursionLimitError,
    UnknownNameError,
)
from exprcalc.evaluator import Evaluator, UserFunction, apply_binary
from exprcalc.functions import BUILTINS, CONSTANTS, call_builtin, check_arity
from exprcalc.nodes import Assign, BinOp, Call, FuncDef, Name, Number, UnaryOp, to_source
from exprcalc.parser import Parser, parse
from exprcalc.tokens import Token, TokenType, read_number, tokenize

__all__ = [
    "ArityError",
    "Assign",
    "BUILTINS",
    "BinOp",
    "CONSTANTS",
    "CalcError",
    "Calculator",
    "Call",
    "DivisionByZeroError",
    "DomainError",
    "EvalError",
    "Evaluator",
    "FuncDef",
    "Name",
    "Number",
    "ParseError",
    "Parser",
    "RecursionLimitError",
    "Token",
    "TokenType",
    "UnaryOp",
    "UnknownNameError",
    "UserFunction",
    "apply_binary",
    "calc",
    "call_builtin",
    "check_arity",
    "parse",
    "read_number",
    "to_source",
    "tokenize",
]
