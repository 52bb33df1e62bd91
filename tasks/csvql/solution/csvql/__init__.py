"""csvql: query CSV data with a small SQL-like language.

Layers, from the bottom up::

    reader (parse_csv, read_table) + coltypes    CSV text -> typed Table
    tokenizer -> parser                          query text -> Select tree
    planner                                      Select + Table -> Plan
    evaluator, aggregates -> executor            Plan -> Result
    writer                                       Result -> CSV text
    engine.Database                              all of the above

>>> from csvql import Database
>>> db = Database()
>>> _ = db.load_csv("t", "a,b\\n1,x\\n2,y\\n3,x\\n")
>>> db.query("SELECT b, SUM(a) AS total FROM t GROUP BY b ORDER BY total DESC").rows
[('x', 4), ('y', 2)]
"""

from csvql.aggregates import aggregate
from csvql.coltypes import coerce, infer_column, infer_type, unify_types
from csvql.engine import Database
from csvql.errors import (
    CSVError,
    CsvqlError,
    QueryError,
    QuerySyntaxError,
    QueryTypeError,
    UnknownColumnError,
    UnknownTableError,
)
from csvql.evaluator import evaluate
from csvql.executor import Result, execute, filter_rows, group_rows, sort_rows
from csvql.parser import Parser, parse
from csvql.planner import Plan, plan
from csvql.reader import parse_csv, read_table
from csvql.table import Table
from csvql.tokenizer import Token, tokenize
from csvql.writer import format_csv, format_value

__all__ = [
    "CSVError",
    "CsvqlError",
    "Database",
    "Parser",
    "Plan",
    "QueryError",
    "QuerySyntaxError",
    "QueryTypeError",
    "Result",
    "Table",
    "Token",
    "UnknownColumnError",
    "UnknownTableError",
    "aggregate",
    "coerce",
    "evaluate",
    "execute",
    "filter_rows",
    "format_csv",
    "format_value",
    "group_rows",
    "infer_column",
    "infer_type",
    "parse",
    "parse_csv",
    "plan",
    "read_table",
    "sort_rows",
    "tokenize",
    "unify_types",
]
