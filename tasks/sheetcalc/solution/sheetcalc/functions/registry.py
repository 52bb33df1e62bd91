"""The table of built-in functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import fn_conditional, fn_logic, fn_lookup, fn_math, fn_stats, fn_text


@dataclass(frozen=True)
class FunctionSpec:
    """A callable plus its accepted argument count (``max_args=None``: unlimited)."""

    func: Callable[..., object]
    min_args: int = 0
    max_args: int | None = None


#: Built-in functions by upper-case name.
FUNCTIONS: dict[str, FunctionSpec] = {
    "SUM": FunctionSpec(fn_math.fn_sum, 1, None),
    "PRODUCT": FunctionSpec(fn_math.fn_product, 1, None),
    "ROUND": FunctionSpec(fn_math.fn_round, 1, 2),
    "ABS": FunctionSpec(fn_math.fn_abs, 1, 1),
    "INT": FunctionSpec(fn_math.fn_int, 1, 1),
    "MOD": FunctionSpec(fn_math.fn_mod, 2, 2),
    "SQRT": FunctionSpec(fn_math.fn_sqrt, 1, 1),
    "POWER": FunctionSpec(fn_math.fn_power, 2, 2),
    "AVERAGE": FunctionSpec(fn_stats.fn_average, 1, None),
    "MIN": FunctionSpec(fn_stats.fn_min, 1, None),
    "MAX": FunctionSpec(fn_stats.fn_max, 1, None),
    "COUNT": FunctionSpec(fn_stats.fn_count, 1, None),
    "COUNTA": FunctionSpec(fn_stats.fn_counta, 1, None),
    "COUNTBLANK": FunctionSpec(fn_stats.fn_countblank, 1, 1),
    "IF": FunctionSpec(fn_logic.fn_if, 2, 3),
    "AND": FunctionSpec(fn_logic.fn_and, 1, None),
    "OR": FunctionSpec(fn_logic.fn_or, 1, None),
    "NOT": FunctionSpec(fn_logic.fn_not, 1, 1),
    "IFERROR": FunctionSpec(fn_logic.fn_iferror, 2, 2),
    "ISERROR": FunctionSpec(fn_logic.fn_iserror, 1, 1),
    "ISNUMBER": FunctionSpec(fn_logic.fn_isnumber, 1, 1),
    "ISTEXT": FunctionSpec(fn_logic.fn_istext, 1, 1),
    "ISBLANK": FunctionSpec(fn_logic.fn_isblank, 1, 1),
    "CONCAT": FunctionSpec(fn_text.fn_concat, 1, None),
    "LEN": FunctionSpec(fn_text.fn_len, 1, 1),
    "UPPER": FunctionSpec(fn_text.fn_upper, 1, 1),
    "LOWER": FunctionSpec(fn_text.fn_lower, 1, 1),
    "LEFT": FunctionSpec(fn_text.fn_left, 1, 2),
    "RIGHT": FunctionSpec(fn_text.fn_right, 1, 2),
    "MID": FunctionSpec(fn_text.fn_mid, 3, 3),
    "TRIM": FunctionSpec(fn_text.fn_trim, 1, 1),
    "VLOOKUP": FunctionSpec(fn_lookup.fn_vlookup, 3, 4),
    "INDEX": FunctionSpec(fn_lookup.fn_index, 2, 3),
    "MATCH": FunctionSpec(fn_lookup.fn_match, 2, 3),
    "SUMIF": FunctionSpec(fn_conditional.fn_sumif, 2, 3),
    "COUNTIF": FunctionSpec(fn_conditional.fn_countif, 2, 2),
    "AVERAGEIF": FunctionSpec(fn_conditional.fn_averageif, 2, 3),
}
