"""jsonkit: a small, strict JSON parser and serializer written from scratch.

The decoding side is layered::

    lexer.tokenize  ->  parser.Parser  ->  api.loads / api.load

and the encoding side (``serializer``) is independent of it::

    serializer.Encoder  ->  api.dumps / api.dump

Errors found while decoding are reported as :class:`ParseError`, which carries
the offending offset together with a 1-based line and column.
"""

from jsonkit.api import dump, dumps, load, loads
from jsonkit.errors import ParseError, line_col
from jsonkit.lexer import Token, TokenKind, scan_number, scan_string, tokenize
from jsonkit.parser import Parser
from jsonkit.serializer import Encoder, encode_string, format_number

__all__ = [
    "Encoder",
    "ParseError",
    "Parser",
    "Token",
    "TokenKind",
    "dump",
    "dumps",
    "encode_string",
    "format_number",
    "line_col",
    "load",
    "loads",
    "scan_number",
    "scan_string",
    "tokenize",
]
