"""The document tree: block nodes (from :mod:`mdlite.blocks`) and inline nodes
(from :mod:`mdlite.inline`).

Block nodes keep their text *raw* (``Heading.text``, ``Paragraph.text``,
``ListItem.text``): inline markup is parsed when rendering. All nodes are
dataclasses and compare by value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# ----------------------------------------------------------------------------- blocks


@dataclass
class Heading:
    """An ATX heading ``# text``; ``level`` is 1..6, ``text`` is raw inline text."""

    level: int
    text: str


@dataclass
class Paragraph:
    """A paragraph; ``text`` is raw inline text, lines joined with ``"\\n"``."""

    text: str


@dataclass
class CodeBlock:
    """A fenced code block; ``code`` ends with ``"\\n"`` unless empty, ``info`` is the
    language word after the opening fence (``""`` if none)."""

    code: str
    info: str = ""


@dataclass
class BlockQuote:
    """A ``>`` block quote holding further blocks."""

    children: list = field(default_factory=list)


@dataclass
class ThematicBreak:
    """A horizontal rule (``---``, ``***``, ``___``)."""


@dataclass
class ListItem:
    """One list item: raw inline ``text`` and an optional nested list."""

    text: str
    sublist: "ListBlock | None" = None


@dataclass
class ListBlock:
    """A bullet (``ordered=False``) or ordered list. ``start`` is the number of the
    first item of an ordered list (``1`` for bullet lists)."""

    ordered: bool
    items: list = field(default_factory=list)
    start: int = 1


@dataclass
class Document:
    """The root: a list of blocks."""

    children: list = field(default_factory=list)


# ----------------------------------------------------------------------------- inlines


@dataclass
class Text:
    """Literal text (may contain ``"\\n"`` for soft line breaks)."""

    value: str


@dataclass
class Code:
    """An inline code span."""

    value: str


@dataclass
class Emphasis:
    """``*text*`` or ``_text_``."""

    children: list = field(default_factory=list)


@dataclass
class Strong:
    """``**text**`` or ``__text__``."""

    children: list = field(default_factory=list)


@dataclass
class Link:
    """``[children](href "title")``; ``title`` is ``None`` when absent."""

    href: str
    children: list = field(default_factory=list)
    title: str | None = None


@dataclass
class Image:
    """``![alt](src "title")``; ``alt`` is plain text, ``title`` ``None`` when absent."""

    src: str
    alt: str
    title: str | None = None


@dataclass
class LineBreak:
    """A hard line break (``<br />``)."""


def plain_text(nodes: list) -> str:
    """The text of inline ``nodes`` without markup: ``Text`` and ``Code`` values,
    the children of ``Emphasis``/``Strong``/``Link``, an ``Image``'s alt text, and
    ``"\\n"`` for a ``LineBreak``."""
    out = []
    for node in nodes:
        if isinstance(node, (Text, Code)):
            out.append(node.value)
        elif isinstance(node, (Emphasis, Strong, Link)):
            out.append(plain_text(node.children))
        elif isinstance(node, Image):
            out.append(node.alt)
        elif isinstance(node, LineBreak):
            out.append("\n")
    return "".join(out)
