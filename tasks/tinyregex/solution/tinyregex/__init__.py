"""tinyregex: a small regular-expression engine (Thompson NFA + Pike VM).

Pipeline::

    parser.parse  ->  compiler.compile_program  ->  vm.PikeVM  ->  api.Pattern / api.Match

Supported syntax: literals, ``.``, ``[a-z]``/``[^...]`` classes, ``\\d \\w \\s`` (and
``\\D \\W \\S``), ``\\b \\B``, anchors ``^ $``, groups ``(...)`` and ``(?:...)``,
alternation ``|`` and the quantifiers ``* + ? {m} {m,} {m,n}`` (greedy, or lazy
with a trailing ``?``).
"""

from tinyregex.api import Match, Pattern, compile, findall, fullmatch, match, search, sub
from tinyregex.errors import RegexError

__all__ = [
    "Match",
    "Pattern",
    "RegexError",
    "compile",
    "findall",
    "fullmatch",
    "match",
    "search",
    "sub",
]
