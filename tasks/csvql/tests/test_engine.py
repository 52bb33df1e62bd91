import pytest

from csvql import CSVError, Database, QuerySyntaxError, QueryTypeError, UnknownColumnError, UnknownTableError

SALES = """region,product,units,price,returned
north,apple,10,0.5,false
south,apple,4,0.55,false
north,pear,7,0.8,true
east,"kiwi, gold",12,1.25,false
south,pear,,0.75,false
north,apple,3,0.5,true
"""


def db():
    d = Database()
    d.load_csv("sales", SALES)
    return d


class TestDatabaseQuery:
    def test_load_csv_registers_typed_table(self):
        d = Database()
        t = d.load_csv("sales", SALES)
        assert d.tables["sales"] is t
        assert t.types == ["str", "str", "int", "float", "bool"]

    def test_filter_order_limit(self):
        r = db().query("SELECT product, units FROM sales WHERE units > 3 AND region = 'north' ORDER BY units DESC LIMIT 5")
        assert r.rows == [("apple", 10), ("pear", 7)]

    def test_quoted_field_in_data(self):
        r = db().query("SELECT region FROM sales WHERE product = 'kiwi, gold'")
        assert r.rows == [("east",)]

    def test_group_by_report(self):
        r = db().query(
            "SELECT region, SUM(units) AS total, COUNT(*) AS n FROM sales GROUP BY region ORDER BY total DESC"
        )
        assert r.columns == ["region", "total", "n"]
        assert r.rows == [("north", 20, 3), ("east", 12, 1), ("south", 4, 2)]

    def test_bool_and_null_conditions(self):
        r = db().query("SELECT product FROM sales WHERE returned = TRUE OR units IS NULL")
        assert r.rows == [("pear",), ("pear",), ("apple",)]

    def test_not_and_parentheses(self):
        r = db().query("SELECT units FROM sales WHERE NOT (region = 'north' OR units IS NULL) ORDER BY units")
        assert r.rows == [(4,), (12,)]

    def test_to_csv(self):
        r = db().query("SELECT product, price FROM sales WHERE region = 'east'")
        assert r.to_csv() == 'product,price\n"kiwi, gold",1.25\n'

    def test_average_price_per_product(self):
        r = db().query("SELECT product, AVG(price) AS avg FROM sales GROUP BY product ORDER BY product")
        assert [row[0] for row in r.rows] == ["apple", "kiwi, gold", "pear"]
        assert r.rows[0][1] == pytest.approx(0.5166666, rel=1e-6)
        assert r.rows[2][1] == pytest.approx(0.775)

    def test_unknown_table(self):
        with pytest.raises(UnknownTableError) as info:
            db().query("SELECT a FROM Sales")
        assert info.value.table == "Sales"

    def test_errors_of_each_stage_propagate(self):
        d = db()
        with pytest.raises(QuerySyntaxError):
            d.query("SELECT FROM sales")
        with pytest.raises(UnknownColumnError):
            d.query("SELECT colour FROM sales")
        with pytest.raises(QueryTypeError):
            d.query("SELECT product FROM sales WHERE units = 'ten'")
        with pytest.raises(CSVError):
            d.load_csv("bad", 'a\n"open\n')

    def test_register_replaces(self):
        d = db()
        d.load_csv("sales", "x\n1\n")
        assert d.query("SELECT * FROM sales").rows == [(1,)]
