import pytest

from mdlite import (
    find_closing_bracket,
    parse_code_span,
    parse_emphasis,
    parse_image,
    parse_inline,
    parse_link,
    parse_link_target,
)
from mdlite.nodes import Code, Emphasis, Image, LineBreak, Link, Strong, Text


class TestCodeSpan:
    def test_simple(self):
        assert parse_code_span("a `code` b", 2) == (Code("code"), 8)

    def test_double_backticks_contain_single(self):
        assert parse_code_span("``a ` b``", 0) == (Code("a ` b"), 9)

    def test_strip_one_space_each_side(self):
        assert parse_code_span("`` `x` ``", 0) == (Code("`x`"), 9)
        assert parse_code_span("`  two  `", 0) == (Code(" two "), 9)

    def test_only_spaces_kept(self):
        assert parse_code_span("`  `", 0) == (Code("  "), 4)

    def test_newline_becomes_space(self):
        assert parse_code_span("`a\nb`", 0) == (Code("a b"), 5)

    def test_backslash_is_literal(self):
        assert parse_code_span(r"`a\`", 0) == (Code("a\\"), 4)

    def test_unmatched(self):
        assert parse_code_span("`open", 0) is None
        assert parse_code_span("``a`", 0) is None


class TestFindClosingBracket:
    def test_simple(self):
        assert find_closing_bracket("[abc] x", 0) == 4

    def test_nested(self):
        assert find_closing_bracket("x [a [b] c] d", 2) == 10

    def test_escaped_bracket(self):
        assert find_closing_bracket(r"[a\]b]", 0) == 5

    def test_code_span_skipped(self):
        assert find_closing_bracket("[a `]` b]", 0) == 8

    def test_lone_backtick_is_text(self):
        assert find_closing_bracket("[a ` b]", 0) == 6

    def test_unclosed(self):
        assert find_closing_bracket("[a [b]", 0) is None

    def test_not_a_bracket(self):
        with pytest.raises(ValueError):
            find_closing_bracket("abc", 1)


class TestLinkTarget:
    def test_destination_only(self):
        assert parse_link_target("(http://x.org)", 0) == ("http://x.org", None, 14)

    def test_with_title_and_spaces(self):
        assert parse_link_target('( /a  "The \\"T\\""  ) rest', 0) == ("/a", 'The "T"', 20)

    def test_empty(self):
        assert parse_link_target("()", 0) == ("", None, 2)

    def test_balanced_parentheses(self):
        assert parse_link_target("(a_(b)_c)", 0) == ("a_(b)_c", None, 9)

    def test_angle_brackets(self):
        assert parse_link_target("(<my file.md>)", 0) == ("my file.md", None, 14)

    def test_escapes(self):
        assert parse_link_target(r"(a\)b)", 0) == ("a)b", None, 6)

    def test_quote_inside_destination(self):
        assert parse_link_target('(a"t")', 0) == ('a"t"', None, 6)

    @pytest.mark.parametrize("text", ["(a b)", "(a", '(a "t)', "(a(b)", "x(a)", '(a "t" x)', "(<a)"])
    def test_invalid(self, text):
        assert parse_link_target(text, 0) is None


class TestLink:
    def test_simple(self):
        assert parse_link("[home](/index.html) more", 0) == (Link("/index.html", [Text("home")]), 19)

    def test_title(self):
        assert parse_link('[a](b "c")', 0) == (Link("b", [Text("a")], "c"), 10)

    def test_link_text_is_inline_parsed(self):
        link, _ = parse_link("[`x` \\* y](u)", 0)
        assert link == Link("u", [Code("x"), Text(" * y")])

    def test_nested_brackets_in_text(self):
        link, end = parse_link("[a [b] c](u)", 0)
        assert link == Link("u", [Text("a [b] c")]) and end == 12

    @pytest.mark.parametrize("text", ["[a] (u)", "[a]", "[a](u", "[a", "[a][b]"])
    def test_not_links(self, text):
        assert parse_link(text, 0) is None


class TestImage:
    def test_simple(self):
        assert parse_image("![cat](cat.png)", 0) == (Image("cat.png", "cat"), 15)

    def test_title_and_offset(self):
        assert parse_image('see ![a b](x.jpg "Pic")!', 4) == (Image("x.jpg", "a b", "Pic"), 23)

    def test_alt_is_plain_text(self):
        image, _ = parse_image("![`big` cat \\[1\\]](c.png)", 0)
        assert image.alt == "big cat [1]"

    @pytest.mark.parametrize("text", ["[a](b)", "! [a](b)", "![a]", "![a](b c)"])
    def test_not_images(self, text):
        assert parse_image(text, 0) is None


class TestEmphasis:
    def test_star_and_underscore(self):
        assert parse_emphasis("*a*", 0) == (Emphasis([Text("a")]), 3)
        assert parse_emphasis("_a b_ c", 0) == (Emphasis([Text("a b")]), 5)

    def test_strong(self):
        assert parse_emphasis("**bold** x", 0) == (Strong([Text("bold")]), 8)
        assert parse_emphasis("__bold__", 0) == (Strong([Text("bold")]), 8)

    def test_triple(self):
        assert parse_emphasis("***both***", 0) == (Emphasis([Strong([Text("both")])]), 10)

    def test_opener_followed_by_space(self):
        assert parse_emphasis("* a*", 0) is None

    def test_closer_preceded_by_space_is_skipped(self):
        assert parse_emphasis("*a *b*", 0) == (Emphasis([Text("a *b")]), 6)

    def test_runs_of_other_length_skipped(self):
        assert parse_emphasis("*a **b** c*", 0) == (Emphasis([Text("a "), Strong([Text("b")]), Text(" c")]), 11)
        assert parse_emphasis("**a *b* c**", 0) == (Strong([Text("a "), Emphasis([Text("b")]), Text(" c")]), 11)

    def test_intraword_underscore(self):
        assert parse_emphasis("snake_case_name", 5) is None
        assert parse_emphasis("_a_b", 0) is None
        assert parse_emphasis("_a_b_", 0) == (Emphasis([Text("a_b")]), 5)

    def test_intraword_star_allowed(self):
        assert parse_emphasis("a*b*c", 1) == (Emphasis([Text("b")]), 4)

    def test_code_span_and_escape_skipped(self):
        assert parse_emphasis("*a `*` b*", 0) == (Emphasis([Text("a "), Code("*"), Text(" b")]), 9)
        assert parse_emphasis(r"*a \* b*", 0) == (Emphasis([Text("a * b")]), 8)

    def test_no_closer(self):
        assert parse_emphasis("*open", 0) is None
        assert parse_emphasis("**a*", 0) is None

    def test_too_long_run(self):
        assert parse_emphasis("****a****", 0) is None

    def test_not_a_delimiter(self):
        assert parse_emphasis("abc", 0) is None


class TestParseInline:
    def test_plain_text(self):
        assert parse_inline("just text") == [Text("just text")]

    def test_empty(self):
        assert parse_inline("") == []

    def test_escapes(self):
        assert parse_inline(r"\*not\* \# \a") == [Text("*not* # \\a")]

    def test_soft_break_keeps_newline(self):
        assert parse_inline("a \nb") == [Text("a\nb")]

    def test_hard_break_two_spaces(self):
        assert parse_inline("a   \nb") == [Text("a"), LineBreak(), Text("b")]

    def test_hard_break_backslash(self):
        assert parse_inline("a\\\nb") == [Text("a"), LineBreak(), Text("b")]

    def test_html_is_just_text(self):
        assert parse_inline("<b>&</b>") == [Text("<b>&</b>")]

    def test_trailing_backslash(self):
        assert parse_inline("end\\") == [Text("end\\")]
