"""The error raised for malformed JSON documents, and position helpers."""

from __future__ import annotations


def line_col(doc: str, pos: int) -> tuple[int, int]:
    """Return the 1-based ``(line, column)`` of character offset ``pos`` in ``doc``.

    Only ``"\\n"`` starts a new line (a ``"\\r"`` is an ordinary character).  The
    column counts characters from the start of the line, the first being 1.
    ``pos`` may equal ``len(doc)`` (the position just past the last character,
    used for "unexpected end of input" errors).

    Examples: ``line_col("abc", 0) == (1, 1)``, ``line_col("ab\\ncd", 3) == (2, 1)``,
    ``line_col("ab\\ncd", 2) == (1, 3)`` (the newline itself is on line 1).

    Raises ``ValueError`` if ``pos`` is negative or greater than ``len(doc)``.
    """
    if pos < 0 or pos > len(doc):
        raise ValueError(f"position {pos} outside document of length {len(doc)}")
    line = doc.count("\n", 0, pos) + 1
    col = pos - doc.rfind("\n", 0, pos)
    return line, col


class ParseError(ValueError):
    """A JSON document could not be decoded.

    Attributes:
        msg: the bare error message, e.g. ``"Expecting value"``.
        doc: the document (a ``str``) being decoded.
        pos: the 0-based character offset where the error was detected.
        lineno, colno: the 1-based line and column of ``pos`` (see :func:`line_col`),
            computed on access.

    ``str(error)`` is ``"<msg>: line <lineno> column <colno> (char <pos>)"``.
    ``ParseError`` is a subclass of ``ValueError``.
    """

    def __init__(self, msg: str, doc: str, pos: int):
        super().__init__(msg, doc, pos)
        self.msg = msg
        self.doc = doc
        self.pos = pos

    @property
    def lineno(self) -> int:
        return line_col(self.doc, self.pos)[0]

    @property
    def colno(self) -> int:
        return line_col(self.doc, self.pos)[1]

    def __str__(self) -> str:
        line, col = line_col(self.doc, self.pos)
        return f"{self.msg}: line {line} column {col} (char {self.pos})"

    def __reduce__(self):
        return self.__class__, (self.msg, self.doc, self.pos)
