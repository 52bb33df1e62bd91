"""mdlite: a small Markdown-subset to HTML converter.

Three layers::

    blocks  (normalize, parse_blocks, parse_document)   text -> block nodes
    inline  (parse_inline and helpers)                  raw block text -> inline nodes
    render  (render_block, render_inline, to_html)      nodes -> HTML

>>> from mdlite import to_html
>>> to_html("Hello **world**")
'<p>Hello <strong>world</strong></p>\\n'
"""

from mdlite.blocks import (
    ListMarker,
    is_thematic_break,
    normalize,
    parse_atx_heading,
    parse_blockquote,
    parse_blocks,
    parse_document,
    parse_fenced_code,
    parse_list,
    parse_list_marker,
    parse_paragraph,
)
from mdlite.inline import (
    find_closing_bracket,
    parse_code_span,
    parse_emphasis,
    parse_image,
    parse_inline,
    parse_link,
    parse_link_target,
)
from mdlite.render import escape_html, render_block, render_inline, to_html

__all__ = [
    "ListMarker",
    "escape_html",
    "find_closing_bracket",
    "is_thematic_break",
    "normalize",
    "parse_atx_heading",
    "parse_blockquote",
    "parse_blocks",
    "parse_code_span",
    "parse_document",
    "parse_emphasis",
    "parse_fenced_code",
    "parse_image",
    "parse_inline",
    "parse_link",
    "parse_link_target",
    "parse_list",
    "parse_list_marker",
    "parse_paragraph",
    "render_block",
    "render_inline",
    "to_html",
]
