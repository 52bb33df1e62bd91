"""Layer 2: formatting syntax trees back to text (sheetcalc.formatter)."""

import pytest

from sheetcalc.address import CellRef
from sheetcalc.formatter import format_formula
from sheetcalc.nodes import Binary, Number, Percent, Ref, Text, Unary
from sheetcalc.parser import parse


class TestFormatFormula:
    @pytest.mark.parametrize(
        "source, expected",
        [
            ("=1 + 2", "1+2"),
            ("=1e20", "1E+20"),
            ('="say ""hi"""', '"say ""hi"""'),
            ("=true", "TRUE"),
            ("=#n/a", "#N/A"),
            ("=$a$1 + b$2", "$A$1+B$2"),
            ("=sum( a1:b2 , 3 )", "SUM(A1:B2,3)"),
            ("=(1+2)*3", "(1+2)*3"),
            ("=1+(2*3)", "1+2*3"),
            ("=1-(2-3)", "1-(2-3)"),
            ("=2^(3^2)", "2^(3^2)"),
            ("=(2^3)^2", "2^3^2"),
            ("=-2^2", "-2^2"),
            ("=-(2^2)", "-(2^2)"),
            ("=(1+2)%", "(1+2)%"),
            ("=-(5%)", "-(5%)"),
            ("=(1&2)+3", "(1&2)+3"),
            ("=1<(2<3)", "1<(2<3)"),
            ("=((A1))", "A1"),
        ],
    )
    def test_canonical_text(self, source, expected):
        assert format_formula(parse(source)) == expected

    @pytest.mark.parametrize(
        "source",
        [
            "=IF(AND(A1>0,B1<>\"x\"),A1*(B1+C1)^2,-1)",
            "=1-(2-(3-4))",
            "=--A1%",
            "=SUM(A1:A10)/COUNT(A1:A10)>=50%",
            "=(1<2)=(3<4)",
        ],
    )
    def test_round_trip_preserves_tree(self, source):
        tree = parse(source)
        assert parse(format_formula(tree)) == tree

    def test_hand_built_tree(self):
        tree = Binary("*", Binary("+", Ref(CellRef(0, 0)), Number(1.0)), Percent(Unary("-", Text("x"))))
        assert format_formula(tree) == '(A1+1)*-"x"%'

    def test_not_a_node(self):
        with pytest.raises(TypeError):
            format_formula(42)
