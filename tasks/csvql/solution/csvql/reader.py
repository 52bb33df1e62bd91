"""Reading CSV text: a hand-written parser and the conversion into a :class:`Table`.

The dialect is the common one (close to RFC 4180):

- records end at ``\\n``, ``\\r\\n`` or a lone ``\\r``;
- fields are separated by a one-character delimiter (``,`` by default);
- a field that *starts* with the quote character (``"`` by default) is quoted:
  it ends at the next lone quote character, may contain delimiters and line
  breaks, and a doubled quote character inside it stands for one quote;
- a quote character inside an unquoted field is an ordinary character;
- whitespace is significant and kept.
"""

from __future__ import annotations

from csvql.coltypes import coerce, infer_column
from csvql.errors import CSVError
from csvql.table import Table


def parse_csv(text: str, delimiter: str = ",", quote: str = '"') -> list[list[str]]:
    """Split CSV ``text`` into records, each a list of field strings.

    Rules beyond the module docstring:

    - the empty string gives ``[]``; a final line break does not start a new record;
    - a completely empty line (no characters at all between two line breaks,
      outside quotes) is skipped, it is not a record;
    - a line holding only delimiters gives empty fields: ``","`` -> ``[["", ""]]``;
    - line breaks inside a quoted field are kept exactly as written (``\\r\\n``
      stays ``\\r\\n``).

    Raises :class:`~csvql.errors.CSVError` (with ``line`` set to the 1-based line
    where the problem is detected) when a quoted field is not closed before the
    end of the text, or when a closing quote is followed by anything other than
    the delimiter, a line break or the end of the text (``"ab"c``).
    Raises ``ValueError`` if ``delimiter`` or ``quote`` is not exactly one
    character, if they are equal, or if either is a line-break character.
    """
    for name, ch in (("delimiter", delimiter), ("quote", quote)):
        if len(ch) != 1 or ch in "\r\n":
            raise ValueError(f"{name} must be a single non-newline character, got {ch!r}")
    if delimiter == quote:
        raise ValueError("delimiter and quote must differ")

    records: list[list[str]] = []
    record: list[str] = []
    field: list[str] = []
    line = 1
    i = 0
    n = len(text)
    at_field_start = True  # no character of the current field consumed yet
    line_empty = True  # nothing at all consumed on the current record's line

    def end_record() -> None:
        nonlocal record, field, at_field_start, line_empty
        if not line_empty:
            record.append("".join(field))
            records.append(record)
        record, field = [], []
        at_field_start = True
        line_empty = True

    while i < n:
        ch = text[i]
        if at_field_start and ch == quote:
            start_line = line
            i += 1
            while True:
                if i >= n:
                    raise CSVError("unterminated quoted field", start_line)
                c = text[i]
                if c == quote:
                    if i + 1 < n and text[i + 1] == quote:
                        field.append(quote)
                        i += 2
                        continue
                    i += 1
                    break
                if c == "\n" or (c == "\r" and not (i + 1 < n and text[i + 1] == "\n")):
                    line += 1
                field.append(c)
                i += 1
            line_empty = False
            at_field_start = False
            if i < n and text[i] not in (delimiter, "\r", "\n"):
                raise CSVError("unexpected character after closing quote", line)
            continue
        if ch == delimiter:
            record.append("".join(field))
            field = []
            at_field_start = True
            line_empty = False
            i += 1
        elif ch == "\r" or ch == "\n":
            i += 2 if ch == "\r" and i + 1 < n and text[i + 1] == "\n" else 1
            end_record()
            line += 1
        else:
            field.append(ch)
            at_field_start = False
            line_empty = False
            i += 1
    end_record()
    return records


def read_table(text: str, name: str = "t", delimiter: str = ",") -> Table:
    """Parse CSV ``text`` (see :func:`parse_csv`) into a typed :class:`Table`.

    The first record is the header. Column names are the header fields stripped
    of surrounding whitespace. Every following record is a data row and must
    have exactly as many fields as the header. Each column's type is
    :func:`~csvql.coltypes.infer_column` of its cells and every cell is
    converted with :func:`~csvql.coltypes.coerce`; rows become tuples.

    Raises :class:`~csvql.errors.CSVError` when the text has no records (no
    header), when a column name is empty or appears twice, or when a data row
    has the wrong number of fields (the message names the 1-based record number,
    counting the header as record 1). Errors of :func:`parse_csv` propagate.
    """
    records = parse_csv(text, delimiter=delimiter)
    if not records:
        raise CSVError("no header record")
    columns = [c.strip() for c in records[0]]
    seen: set[str] = set()
    for c in columns:
        if not c:
            raise CSVError("empty column name")
        if c in seen:
            raise CSVError(f"duplicate column name {c!r}")
        seen.add(c)
    data = records[1:]
    for k, rec in enumerate(data, start=2):
        if len(rec) != len(columns):
            raise CSVError(f"record {k} has {len(rec)} fields, expected {len(columns)}")
    types = [infer_column([rec[j] for rec in data]) for j in range(len(columns))]
    rows = [tuple(coerce(rec[j], types[j]) for j in range(len(columns))) for rec in data]
    return Table(name=name, columns=columns, types=types, rows=rows)
