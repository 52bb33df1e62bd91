"""The HTML layer: nodes -> HTML text, and the one-call :func:`to_html`."""

from __future__ import annotations

from mdlite.blocks import parse_document
from mdlite.inline import parse_inline
from mdlite.nodes import (
    BlockQuote,
    Code,
    CodeBlock,
    Document,
    Emphasis,
    Heading,
    Image,
    LineBreak,
    Link,
    ListBlock,
    ListItem,
    Paragraph,
    Strong,
    Text,
    ThematicBreak,
)


def escape_html(text: str, quote: bool = True) -> str:
    """Escape ``text`` for HTML.

    ``&`` -> ``&amp;``, ``<`` -> ``&lt;``, ``>`` -> ``&gt;``; when ``quote`` is true
    also ``"`` -> ``&quot;`` and ``'`` -> ``&#x27;``. ``&`` is replaced first, so
    existing entities are escaped again (``&amp;`` -> ``&amp;amp;``).
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if quote:
        text = text.replace('"', "&quot;").replace("'", "&#x27;")
    return text


def render_inline(nodes: list) -> str:
    """Render inline nodes to HTML, concatenated:

    - ``Text`` -> its value escaped with ``escape_html(value, quote=False)``;
    - ``Code`` -> ``<code>`` + escaped value (``quote=False``) + ``</code>``;
    - ``Emphasis`` -> ``<em>...</em>``, ``Strong`` -> ``<strong>...</strong>``;
    - ``Link`` -> ``<a href="HREF">children</a>``, or with a title
      ``<a href="HREF" title="TITLE">children</a>``;
    - ``Image`` -> ``<img src="SRC" alt="ALT" />``, or with a title
      ``<img src="SRC" alt="ALT" title="TITLE" />``;
    - ``LineBreak`` -> ``<br />`` followed by ``"\\n"``.

    Attribute values are escaped with ``escape_html(value)`` (quotes too).
    Raises ``TypeError`` for anything that is not an inline node.
    """
    out: list[str] = []
    for node in nodes:
        if isinstance(node, Text):
            out.append(escape_html(node.value, quote=False))
        elif isinstance(node, Code):
            out.append(f"<code>{escape_html(node.value, quote=False)}</code>")
        elif isinstance(node, Emphasis):
            out.append(f"<em>{render_inline(node.children)}</em>")
        elif isinstance(node, Strong):
            out.append(f"<strong>{render_inline(node.children)}</strong>")
        elif isinstance(node, Link):
            title = "" if node.title is None else f' title="{escape_html(node.title)}"'
            out.append(f'<a href="{escape_html(node.href)}"{title}>{render_inline(node.children)}</a>')
        elif isinstance(node, Image):
            title = "" if node.title is None else f' title="{escape_html(node.title)}"'
            out.append(f'<img src="{escape_html(node.src)}" alt="{escape_html(node.alt)}"{title} />')
        elif isinstance(node, LineBreak):
            out.append("<br />\n")
        else:
            raise TypeError(f"not an inline node: {node!r}")
    return "".join(out)


def render_block(block) -> str:
    """Render one block node (or a whole ``Document``) to HTML.

    Raw text of headings, paragraphs and list items is parsed with
    :func:`~mdlite.inline.parse_inline` and rendered with :func:`render_inline`
    (written ``INLINE`` below). Every block's HTML ends with ``"\\n"``:

    - ``Document`` -> its children's HTML concatenated (``""`` when empty);
    - ``Heading`` -> ``<hN>INLINE</hN>``;
    - ``Paragraph`` -> ``<p>INLINE</p>``;
    - ``CodeBlock`` -> ``<pre><code>CODE</code></pre>``, with
      ``<code class="language-INFO">`` when ``info`` is not empty; the code is
      escaped with ``quote=False``, the info with ``quote=True``;
    - ``BlockQuote`` -> ``<blockquote>\\n`` + children + ``</blockquote>``;
    - ``ThematicBreak`` -> ``<hr />``;
    - ``ListBlock`` -> ``<ul>\\n`` + items + ``</ul>``; ordered: ``<ol>\\n`` ...
      ``</ol>``, or ``<ol start="N">\\n`` when ``start`` is not 1;
    - ``ListItem`` -> ``<li>INLINE</li>``; with a sublist
      ``<li>INLINE\\n`` + the sublist's HTML + ``</li>``.

    Raises ``TypeError`` for anything that is not a block node.
    """
    if isinstance(block, Document):
        return "".join(render_block(child) for child in block.children)
    if isinstance(block, Heading):
        return f"<h{block.level}>{render_inline(parse_inline(block.text))}</h{block.level}>\n"
    if isinstance(block, Paragraph):
        return f"<p>{render_inline(parse_inline(block.text))}</p>\n"
    if isinstance(block, CodeBlock):
        cls = f' class="language-{escape_html(block.info)}"' if block.info else ""
        return f"<pre><code{cls}>{escape_html(block.code, quote=False)}</code></pre>\n"
    if isinstance(block, BlockQuote):
        return "<blockquote>\n" + "".join(render_block(c) for c in block.children) + "</blockquote>\n"
    if isinstance(block, ThematicBreak):
        return "<hr />\n"
    if isinstance(block, ListBlock):
        if block.ordered:
            open_tag = "<ol>" if block.start == 1 else f'<ol start="{block.start}">'
            close_tag = "</ol>"
        else:
            open_tag, close_tag = "<ul>", "</ul>"
        return open_tag + "\n" + "".join(render_block(item) for item in block.items) + close_tag + "\n"
    if isinstance(block, ListItem):
        inner = render_inline(parse_inline(block.text))
        if block.sublist is not None:
            inner += "\n" + render_block(block.sublist)
        return f"<li>{inner}</li>\n"
    raise TypeError(f"not a block node: {block!r}")


def to_html(text: str) -> str:
    """Convert Markdown ``text`` to HTML: the document is parsed with
    :func:`~mdlite.blocks.parse_document` and rendered with :func:`render_block`.

    >>> to_html("# Hi\\n\\nSome *text*.")
    '<h1>Hi</h1>\\n<p>Some <em>text</em>.</p>\\n'
    """
    return render_block(parse_document(text))
