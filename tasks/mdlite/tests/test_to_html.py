from mdlite import to_html


class TestToHtml:
    def test_heading_and_paragraph(self):
        assert to_html("# Hello *world*\n\nSome **bold** text.\n") == (
            "<h1>Hello <em>world</em></h1>\n<p>Some <strong>bold</strong> text.</p>\n"
        )

    def test_empty_document(self):
        assert to_html("") == ""
        assert to_html("\n\n") == ""

    def test_inline_mix(self):
        src = "Use `a*b` or [the *docs*](http://x.org \"Docs\") and ![logo](l.png)."
        assert to_html(src) == (
            '<p>Use <code>a*b</code> or <a href="http://x.org" title="Docs">the <em>docs</em></a>'
            ' and <img src="l.png" alt="logo" />.</p>\n'
        )

    def test_unmatched_markup_is_text(self):
        assert to_html("2 * 3 = 6, [x] and snake_case_name `tick") == (
            "<p>2 * 3 = 6, [x] and snake_case_name `tick</p>\n"
        )

    def test_html_is_escaped_everywhere(self):
        src = "# <h1>\n\n<script>alert('x')</script>\n\n```\n<b>&</b>\n```\n"
        assert to_html(src) == (
            "<h1>&lt;h1&gt;</h1>\n"
            "<p>&lt;script&gt;alert('x')&lt;/script&gt;</p>\n"
            "<pre><code>&lt;b&gt;&amp;&lt;/b&gt;\n</code></pre>\n"
        )

    def test_lists(self):
        src = "1. first *item*\n2. second\n   - nested\n   - also\n3. third\n"
        assert to_html(src) == (
            "<ol>\n<li>first <em>item</em></li>\n<li>second\n<ul>\n<li>nested</li>\n<li>also</li>\n</ul>\n</li>\n"
            "<li>third</li>\n</ol>\n"
        )

    def test_blockquote_with_markup(self):
        assert to_html("> **Note**\n> read `this`\n") == (
            "<blockquote>\n<p><strong>Note</strong>\nread <code>this</code></p>\n</blockquote>\n"
        )

    def test_hard_break(self):
        assert to_html("line one  \nline two") == "<p>line one<br />\nline two</p>\n"

    def test_code_block_keeps_markup(self):
        assert to_html("```md\n# not a heading\n*x*\n```") == (
            '<pre><code class="language-md"># not a heading\n*x*\n</code></pre>\n'
        )

    def test_windows_line_endings(self):
        assert to_html("# A\r\n\r\ntext\r\n") == "<h1>A</h1>\n<p>text</p>\n"

    def test_rule_between_paragraphs(self):
        assert to_html("above\n\n***\n\nbelow") == "<p>above</p>\n<hr />\n<p>below</p>\n"
