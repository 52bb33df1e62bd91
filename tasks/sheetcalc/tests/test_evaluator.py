"""Layer 3: evaluating syntax trees (sheetcalc.evaluator).

These tests use a dictionary of cell values and a tiny custom function table,
so they do not depend on the built-in function library.
"""

import pytest

from sheetcalc.address import parse_cell
from sheetcalc.evaluator import Evaluator
from sheetcalc.functions import FunctionSpec
from sheetcalc.nodes import Range
from sheetcalc.parser import parse
from sheetcalc.values import CIRC, DIV0, NAME, VALUE, CellError, RangeValue


def make(cells=None, functions=None):
    values = {parse_cell(k).key: v for k, v in (cells or {}).items()}
    calls = []

    def resolver(row, col):
        calls.append((row, col))
        return values.get((row, col))

    ev = Evaluator(resolver, functions if functions is not None else TEST_FUNCS)
    ev.calls = calls
    return ev


def count_args(*args):
    return float(len(args))


def first(*args):
    return args[0]


def kinds(*args):
    return "".join(type(a).__name__[0] for a in args)


TEST_FUNCS = {
    "NARGS": FunctionSpec(count_args, 0, None),
    "FIRST": FunctionSpec(first, 1, 3),
    "KINDS": FunctionSpec(kinds, 0, None),
    "TWO": FunctionSpec(lambda a, b: "two", 2, 2),
}


def ev(formula, cells=None):
    return make(cells).evaluate(parse(formula))


def node(formula, cells=None):
    return make(cells).eval_node(parse(formula))


class TestEvalNode:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=1+2*3", 7.0),
            ("=(1+2)*3", 9.0),
            ("=-2^2", 4.0),
            ("=2^3^2", 64.0),
            ("=50%*10", 5.0),
            ('="a"&"b"&1', "ab1"),
            ("=1+1=2", True),
            ('="b">"A"', True),
            ("=2^-1", 0.5),
            ("=1/0", DIV0),
            ("=#N/A", CellError("#N/A")),
        ],
    )
    def test_formulas(self, formula, expected):
        assert node(formula) == expected

    def test_reference_reads_resolver(self):
        evaluator = make({"B2": 5.0})
        assert evaluator.eval_node(parse("=B2")) == 5.0
        assert evaluator.calls == [(1, 1)]

    def test_empty_reference_is_none(self):
        assert make().eval_node(parse("=C3")) is None

    def test_empty_reference_in_arithmetic(self):
        assert node("=A1+1") == 1.0

    def test_reference_arithmetic(self):
        assert node("=A1*B1", {"A1": 6.0, "B1": 7.0}) == 42.0

    def test_unary_plus_keeps_text(self):
        assert node('=+"abc"') == "abc"

    def test_unary_minus_on_text(self):
        assert node('=-"abc"') == VALUE

    def test_bare_name(self):
        assert node("=undefined_name") == NAME

    def test_error_cell_propagates(self):
        assert node("=A1*2", {"A1": CIRC}) == CIRC

    def test_multi_cell_range_as_operand(self):
        assert node("=A1:A2+1", {"A1": 1.0, "A2": 2.0}) == VALUE

    def test_single_cell_range_as_operand(self):
        assert node("=A1:A1+1", {"A1": 1.0}) == 2.0

    def test_not_a_node(self):
        with pytest.raises(TypeError):
            make().eval_node("1+2")


class TestEvaluate:
    def test_empty_result_becomes_zero(self):
        assert ev("=A1") == 0.0

    def test_text_result(self):
        assert ev("=A1", {"A1": "hi"}) == "hi"

    def test_empty_string_is_not_zero(self):
        assert ev("=A1", {"A1": ""}) == ""

    def test_single_cell_range_result(self):
        assert ev("=B2:B2", {"B2": 9.0}) == 9.0

    def test_multi_cell_range_result(self):
        assert ev("=A1:B2") == VALUE

    def test_none_inside_expression_is_not_zeroed(self):
        assert ev('=A1&"x"') == "x"


class TestEvalRange:
    def test_grid(self):
        evaluator = make({"A1": 1.0, "B1": "x", "A2": True})
        node = parse("=A1:B2")
        assert evaluator.eval_range(node) == RangeValue(((1.0, "x"), (True, None)))

    def test_reversed_corners(self):
        evaluator = make({"A1": 1.0, "B2": 4.0})
        assert evaluator.eval_range(parse("=B2:A1")) == RangeValue(((1.0, None), (None, 4.0)))

    def test_shape(self):
        value = make().eval_range(parse("=B2:D3"))
        assert (value.height, value.width) == (2, 3)

    def test_is_range_node(self):
        node = parse("=C1:C3")
        assert isinstance(node, Range)
        assert make({"C2": 2.0}).eval_range(node).rows == ((None,), (2.0,), (None,))


class TestEvalCall:
    def test_calls_function(self):
        assert ev("=NARGS(1,2,3)") == 3.0

    def test_no_arguments(self):
        assert ev("=NARGS()") == 0.0

    def test_case_insensitive(self):
        assert ev("=nargs(1)") == 1.0

    def test_unknown_function(self):
        assert ev("=NOPE(1)") == NAME

    def test_unknown_function_does_not_evaluate_arguments(self):
        evaluator = make()
        assert evaluator.evaluate(parse("=NOPE(A1)")) == NAME
        assert evaluator.calls == []

    def test_too_few_arguments(self):
        assert ev("=TWO(1)") == VALUE

    def test_too_many_arguments(self):
        assert ev("=FIRST(1,2,3,4)") == VALUE

    def test_range_argument_stays_range(self):
        assert ev("=KINDS(A1:A2, A1, B9, \"s\")", {"A1": 1.0}) == "RfNs"

    def test_errors_are_passed_not_propagated(self):
        assert ev("=NARGS(1/0, #N/A)") == 2.0

    def test_nested_calls(self):
        assert ev("=NARGS(NARGS(1,2), FIRST(5))") == 2.0

    def test_call_result_in_expression(self):
        assert ev("=NARGS(1,1)*10+FIRST(1)") == 21.0

    def test_range_returned_by_function_is_reduced(self):
        assert ev("=FIRST(A1:B1)", {"A1": 1.0}) == VALUE
        assert ev("=FIRST(A1:A1)", {"A1": 4.0}) == 4.0

    def test_direct_call(self):
        assert make().eval_call(parse("=TWO(1, 2)")) == "two"

    def test_default_library(self):
        evaluator = Evaluator(lambda r, c: None)
        assert "SUM" in evaluator.functions
