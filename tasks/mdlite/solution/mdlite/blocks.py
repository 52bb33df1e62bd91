"""The block layer: lines of Markdown -> a tree of block nodes.

Supported blocks: ATX headings, fenced code blocks, thematic breaks, block
quotes, bullet and ordered lists (one level of nesting) and paragraphs.
Indented code blocks, setext headings, tables and raw HTML are not supported.

Most parsers take the list of lines and the index of the line to start at, and
return ``(node, next_index)`` where ``next_index`` is the first line they did
not consume, or ``None`` when the block does not start at that line.

A line is *blank* when it is empty or holds only spaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdlite.nodes import (
    BlockQuote,
    CodeBlock,
    Document,
    Heading,
    ListBlock,
    ListItem,
    Paragraph,
    ThematicBreak,
)

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_QUOTE = re.compile(r"^ {0,3}>")


@dataclass
class ListMarker:
    """A list marker found at the start of a line (see :func:`parse_list_marker`).

    ``indent``: number of spaces before the marker; ``ordered``: whether it is a
    number; ``char``: the bullet (``-``, ``+``, ``*``) or the delimiter after the
    number (``.`` or ``)``); ``start``: the number (``None`` for bullets);
    ``content``: the rest of the line after the marker and the spaces after it.
    """

    indent: int
    ordered: bool
    char: str
    start: int | None
    content: str


def is_blank(line: str) -> bool:
    """True if ``line`` is empty or holds only spaces."""
    return line.strip(" ") == ""


def normalize(text: str) -> list[str]:
    """Split Markdown ``text`` into lines.

    ``"\\r\\n"`` and lone ``"\\r"`` count as ``"\\n"``; tabs are expanded to the
    next multiple of 4 columns (``str.expandtabs(4)``); the text is split at
    ``"\\n"``; a final ``"\\n"`` does not create an extra empty line. The empty
    text gives ``[]``.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text == "":
        return []
    if text.endswith("\n"):
        text = text[:-1]
    return [line.expandtabs(4) for line in text.split("\n")]


def parse_atx_heading(line: str) -> Heading | None:
    """Parse an ATX heading line, or return ``None`` if ``line`` is not one.

    A heading is: 0-3 spaces, then 1-6 ``#``, then a space or the end of the
    line (``#5`` and ``#######`` are not headings). The text is the rest of the
    line stripped of spaces, with an optional closing sequence removed: a run of
    ``#`` at the end that is the whole text or is preceded by a space
    (``# foo ##`` -> ``"foo"``, but ``# foo#`` -> ``"foo#"``), after which the text
    is stripped again. ``Heading.level`` is the number of opening ``#``.
    """
    m = re.match(r"^ {0,3}(#{1,6})(?: (.*))?$", line)
    if not m:
        return None
    level = len(m.group(1))
    text = (m.group(2) or "").strip(" ")
    stripped = text.rstrip("#")
    if stripped != text and (stripped == "" or stripped.endswith(" ")):
        text = stripped.strip(" ")
    return Heading(level, text)


def is_thematic_break(line: str) -> bool:
    """True if ``line`` is a thematic break (horizontal rule).

    That is: 0-3 spaces, then three or more of the *same* character among
    ``-``, ``*`` and ``_``, optionally with spaces between and after them, and
    nothing else (``- - -`` and ``***`` are breaks; ``--`` and ``-*-`` are not).
    """
    m = re.match(r"^ {0,3}([-*_])", line)
    if not m:
        return False
    ch = m.group(1)
    rest = line.strip(" ")
    return rest.count(ch) >= 3 and set(rest) <= {ch, " "}


def parse_list_marker(line: str) -> ListMarker | None:
    """Recognise a list item marker at the start of ``line``.

    After any number of leading spaces (reported as ``indent``), a marker is a
    bullet ``-``, ``+`` or ``*``, or 1-9 digits followed by ``.`` or ``)``. The
    marker must be followed by at least one space or by the end of the line
    (``-foo`` and ``1.5`` are not list items). ``content`` is what follows the
    marker with its leading spaces removed. Returns ``None`` when there is no
    marker. Thematic breaks such as ``* * *`` are *not* excluded here.
    """
    m = re.match(r"^( *)(?:([-+*])|(\d{1,9})([.)]))(?: +(.*)|$)", line)
    if not m:
        return None
    indent = len(m.group(1))
    content = m.group(5) or ""
    if m.group(2):
        return ListMarker(indent, False, m.group(2), None, content)
    return ListMarker(indent, True, m.group(4), int(m.group(3)), content)


def _is_fence_open(line: str) -> bool:
    m = _FENCE.match(line)
    return m is not None and not (m.group(2)[0] == "`" and "`" in m.group(3))


def _starts_block(line: str) -> bool:
    """True if ``line`` starts a block that interrupts a paragraph or list item text."""
    return (
        _is_fence_open(line)
        or parse_atx_heading(line) is not None
        or is_thematic_break(line)
        or _QUOTE.match(line) is not None
        or (lambda m: m is not None and m.indent <= 3)(parse_list_marker(line))
    )


def parse_fenced_code(lines: list[str], i: int) -> tuple[CodeBlock, int] | None:
    """Parse a fenced code block starting at ``lines[i]``.

    The opening fence is 0-3 spaces, then at least three backticks or at least
    three tildes, then an optional info string. A backtick fence whose info
    string contains a backtick is not a fence (return ``None``). ``info`` of
    the block is the first word of the stripped info string (``"py"`` for
    `````` ```py  linenos``````), ``""`` if there is none.

    The block ends at the first later line that is 0-3 spaces, then a run of
    the same fence character at least as long as the opening run, then only
    spaces; that line is consumed. Without such a line the block runs to the end
    of ``lines``. Each content line loses up to as many leading spaces as the
    opening fence was indented; content is otherwise verbatim (no inline
    parsing). ``code`` is the content lines each followed by ``"\\n"`` (``""``
    when there are none).
    """
    m = _FENCE.match(lines[i])
    if not m:
        return None
    indent = len(m.group(1))
    fence = m.group(2)
    info = m.group(3).strip()
    if fence[0] == "`" and "`" in info:
        return None
    closing = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",} *$")
    content: list[str] = []
    j = i + 1
    while j < len(lines):
        if closing.match(lines[j]):
            j += 1
            break
        line = lines[j]
        k = 0
        while k < indent and k < len(line) and line[k] == " ":
            k += 1
        content.append(line[k:])
        j += 1
    words = info.split()
    return CodeBlock("".join(c + "\n" for c in content), words[0] if words else ""), j


def parse_blockquote(lines: list[str], i: int) -> tuple[BlockQuote, int] | None:
    """Parse a block quote starting at ``lines[i]``.

    A quote line is 0-3 spaces followed by ``>``. The block quote is the run of
    consecutive quote lines starting at ``i`` (a line without ``>``, blank or
    not, ends it: there is no lazy continuation). From each line the spaces,
    the ``>`` and one following space (if present) are removed, and the
    resulting lines are parsed with :func:`parse_blocks` into the quote's
    children (so quotes can hold headings, lists, code and nested quotes).
    """
    if not _QUOTE.match(lines[i]):
        return None
    inner: list[str] = []
    j = i
    while j < len(lines) and _QUOTE.match(lines[j]):
        rest = lines[j].lstrip(" ")[1:]
        if rest.startswith(" "):
            rest = rest[1:]
        inner.append(rest)
        j += 1
    return BlockQuote(parse_blocks(inner)), j


def parse_list(lines: list[str], i: int) -> tuple[ListBlock, int] | None:
    """Parse a list starting at ``lines[i]``.

    ``lines[i]`` must hold a list marker (:func:`parse_list_marker`) with an
    indent of 0-3 spaces and must not be a thematic break; otherwise return
    ``None``. Its indent is the list's *base indent*; its kind is
    ``(ordered, char)``; ``start`` is its number (``1`` for bullet lists).

    Then, line by line:

    - a marker line (not a thematic break) indented less than base + 2 and of
      the same kind starts the next item; of a different kind it ends the list;
    - a marker line indented base + 2 or more is an item of the current item's
      ``sublist`` (created by the first such line, with that line's kind and
      number; later sub-items join it whatever their marker);
    - a blank line is skipped if the next non-blank line is a marker line that
      would continue the list (a same-kind item or a sub-item); otherwise the
      list ends before the blank line;
    - any other line that starts a block (fence, ATX heading, thematic break,
      block quote, or a marker line, each at 0-3 spaces) ends the list;
    - any other non-blank line is continuation text: stripped of leading
      spaces and appended with ``"\\n"`` to the text of the last sub-item, if the
      current item has a sublist, else to the item's own text.

    Items are tight: their text is raw inline text, never paragraphs. Deeper
    nesting is not supported.
    """
    first = parse_list_marker(lines[i])
    if first is None or first.indent > 3 or is_thematic_break(lines[i]):
        return None
    base = first.indent
    kind = (first.ordered, first.char)
    block = ListBlock(ordered=first.ordered, items=[], start=first.start if first.ordered else 1)

    def classify(line: str) -> str:
        """'item', 'sub', 'other-kind' or 'none' for a line."""
        if is_thematic_break(line):
            return "none"
        m = parse_list_marker(line)
        if m is None:
            return "none"
        if m.indent >= base + 2:
            return "sub"
        return "item" if (m.ordered, m.char) == kind else "other-kind"

    j = i
    while j < len(lines):
        line = lines[j]
        if is_blank(line):
            k = j
            while k < len(lines) and is_blank(lines[k]):
                k += 1
            if k < len(lines) and block.items and classify(lines[k]) in ("item", "sub"):
                j = k
                continue
            break
        cls = classify(line)
        if cls == "item":
            m = parse_list_marker(line)
            block.items.append(ListItem(m.content))
        elif cls == "sub":
            m = parse_list_marker(line)
            item = block.items[-1]
            if item.sublist is None:
                item.sublist = ListBlock(ordered=m.ordered, items=[], start=m.start if m.ordered else 1)
            item.sublist.items.append(ListItem(m.content))
        elif cls == "other-kind" or _starts_block(line):
            break
        else:
            item = block.items[-1]
            target = item.sublist.items[-1] if item.sublist is not None else item
            text = line.lstrip(" ")
            target.text = text if target.text == "" else target.text + "\n" + text
        j += 1
    return block, j


def parse_paragraph(lines: list[str], i: int) -> tuple[Paragraph, int]:
    """Parse a paragraph starting at ``lines[i]`` (which the caller guarantees is
    not blank and starts no other block).

    The paragraph takes ``lines[i]`` and every following line up to (not
    including) the first blank line or line that starts another block: a fence,
    an ATX heading, a thematic break, a block quote, or a list marker indented
    0-3 spaces. Each line loses its leading spaces; the lines are joined with
    ``"\\n"``; the last line's trailing spaces are removed (trailing spaces of
    other lines are kept: two or more of them mark a hard line break).
    """
    out = [lines[i].lstrip(" ")]
    j = i + 1
    while j < len(lines) and not is_blank(lines[j]) and not _starts_block(lines[j]):
        out.append(lines[j].lstrip(" "))
        j += 1
    return Paragraph("\n".join(out).rstrip(" ")), j


def parse_blocks(lines: list[str]) -> list:
    """Parse ``lines`` into a list of block nodes.

    Blank lines between blocks are skipped. At each other line the parsers are
    tried in this order, the first that applies wins: :func:`parse_fenced_code`,
    :func:`parse_atx_heading` (one line), :func:`is_thematic_break` (one line,
    gives :class:`~mdlite.nodes.ThematicBreak`), :func:`parse_blockquote`,
    :func:`parse_list`, and finally :func:`parse_paragraph`.
    """
    blocks: list = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if is_blank(line):
            i += 1
            continue
        found = parse_fenced_code(lines, i)
        if found is not None:
            blocks.append(found[0])
            i = found[1]
            continue
        heading = parse_atx_heading(line)
        if heading is not None:
            blocks.append(heading)
            i += 1
            continue
        if is_thematic_break(line):
            blocks.append(ThematicBreak())
            i += 1
            continue
        found = parse_blockquote(lines, i) if _QUOTE.match(line) else None
        if found is None:
            found = parse_list(lines, i)
        if found is None:
            found = parse_paragraph(lines, i)
        blocks.append(found[0])
        i = found[1]
    return blocks


def parse_document(text: str) -> Document:
    """Parse Markdown ``text`` into a :class:`~mdlite.nodes.Document`:
    ``Document(parse_blocks(normalize(text)))``."""
    return Document(parse_blocks(normalize(text)))
