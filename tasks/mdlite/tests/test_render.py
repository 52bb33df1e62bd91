import pytest

from mdlite import escape_html, render_block, render_inline
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


class TestEscapeHtml:
    def test_specials(self):
        assert escape_html("<a href=\"x\">Tom & Jerry's</a>") == (
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#x27;s&lt;/a&gt;"
        )

    def test_no_quotes(self):
        assert escape_html("\"'<&>", quote=False) == "\"'&lt;&amp;&gt;"

    def test_double_escape(self):
        assert escape_html("&amp;") == "&amp;amp;"

    def test_plain(self):
        assert escape_html("plain text") == "plain text"


class TestRenderInline:
    def test_text_escaped_without_quotes(self):
        assert render_inline([Text('a < b & "c"')]) == 'a &lt; b &amp; "c"'

    def test_code(self):
        assert render_inline([Code("<x>")]) == "<code>&lt;x&gt;</code>"

    def test_nesting(self):
        nodes = [Strong([Text("a "), Emphasis([Text("b")])]), Text("!")]
        assert render_inline(nodes) == "<strong>a <em>b</em></strong>!"

    def test_link(self):
        assert render_inline([Link("/a?x=1&y=2", [Text("go")])]) == '<a href="/a?x=1&amp;y=2">go</a>'
        assert render_inline([Link("u", [Text("t")], 'say "hi"')]) == '<a href="u" title="say &quot;hi&quot;">t</a>'

    def test_image(self):
        assert render_inline([Image("c.png", "a \"cat\"")]) == '<img src="c.png" alt="a &quot;cat&quot;" />'
        assert render_inline([Image("c.png", "cat", "T")]) == '<img src="c.png" alt="cat" title="T" />'

    def test_line_break(self):
        assert render_inline([Text("a"), LineBreak(), Text("b")]) == "a<br />\nb"

    def test_empty(self):
        assert render_inline([]) == ""

    def test_unknown_node(self):
        with pytest.raises(TypeError):
            render_inline(["text"])


class TestRenderBlock:
    def test_heading_and_paragraph(self):
        assert render_block(Heading(3, "Title")) == "<h3>Title</h3>\n"
        assert render_block(Paragraph("a & b")) == "<p>a &amp; b</p>\n"

    def test_code_block(self):
        assert render_block(CodeBlock("x < 1\n", "")) == "<pre><code>x &lt; 1\n</code></pre>\n"
        assert render_block(CodeBlock('print("*")\n', "py")) == (
            '<pre><code class="language-py">print("*")\n</code></pre>\n'
        )

    def test_thematic_break(self):
        assert render_block(ThematicBreak()) == "<hr />\n"

    def test_blockquote(self):
        assert render_block(BlockQuote([Paragraph("q")])) == "<blockquote>\n<p>q</p>\n</blockquote>\n"

    def test_lists(self):
        assert render_block(ListBlock(False, [ListItem("a"), ListItem("b")])) == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"
        assert render_block(ListBlock(True, [ListItem("a")])) == "<ol>\n<li>a</li>\n</ol>\n"
        assert render_block(ListBlock(True, [ListItem("a")], start=5)) == '<ol start="5">\n<li>a</li>\n</ol>\n'

    def test_nested_list(self):
        block = ListBlock(False, [ListItem("a", ListBlock(True, [ListItem("x")]))])
        assert render_block(block) == "<ul>\n<li>a\n<ol>\n<li>x</li>\n</ol>\n</li>\n</ul>\n"

    def test_document(self):
        doc = Document([Heading(1, "H"), ThematicBreak()])
        assert render_block(doc) == "<h1>H</h1>\n<hr />\n"
        assert render_block(Document([])) == ""

    def test_unknown_block(self):
        with pytest.raises(TypeError):
            render_block(Text("x"))
