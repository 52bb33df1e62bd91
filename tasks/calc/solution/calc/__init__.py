"""A tiny calculator library."""

from calc.core import evaluate_rpn, tokenize
from calc.numbers import gcd, mean

__all__ = ["evaluate_rpn", "gcd", "mean", "tokenize"]
