import pytest

from mdlite import (
    ListMarker,
    is_thematic_break,
    normalize,
    parse_atx_heading,
    parse_blockquote,
    parse_blocks,
    parse_fenced_code,
    parse_list,
    parse_list_marker,
    parse_paragraph,
)
from mdlite.nodes import (
    BlockQuote,
    CodeBlock,
    Heading,
    ListBlock,
    ListItem,
    Paragraph,
    ThematicBreak,
)


def lines(text):
    return text.split("\n")


class TestNormalize:
    def test_line_endings(self):
        assert normalize("a\r\nb\rc\nd") == ["a", "b", "c", "d"]

    def test_final_newline_dropped_once(self):
        assert normalize("a\n") == ["a"]
        assert normalize("a\n\n") == ["a", ""]

    def test_empty(self):
        assert normalize("") == []

    def test_tabs_expand_to_four_columns(self):
        assert normalize("\tx\nab\tc") == ["    x", "ab  c"]


class TestAtxHeading:
    @pytest.mark.parametrize(
        "line, level, text",
        [
            ("# Title", 1, "Title"),
            ("###### six", 6, "six"),
            ("   ## indented", 2, "indented"),
            ("#   spaced   ", 1, "spaced"),
            ("# foo ##", 1, "foo"),
            ("# foo#", 1, "foo#"),
            ("## ###", 2, ""),
            ("#", 1, ""),
            ("# #hash tag", 1, "#hash tag"),
        ],
    )
    def test_headings(self, line, level, text):
        assert parse_atx_heading(line) == Heading(level, text)

    @pytest.mark.parametrize("line", ["#5 bolt", "####### seven", "    # code", "text # not", ""])
    def test_not_headings(self, line):
        assert parse_atx_heading(line) is None


class TestThematicBreak:
    @pytest.mark.parametrize("line", ["---", "***", "___", " - - -", "   *  *  *  ", "-----------"])
    def test_breaks(self, line):
        assert is_thematic_break(line) is True

    @pytest.mark.parametrize("line", ["--", "-*-", "    ---", "--- a", "", "+++", "=="])
    def test_not_breaks(self, line):
        assert is_thematic_break(line) is False


class TestListMarker:
    def test_bullets(self):
        assert parse_list_marker("- item") == ListMarker(0, False, "-", None, "item")
        assert parse_list_marker("  *   spaced") == ListMarker(2, False, "*", None, "spaced")
        assert parse_list_marker("+ x") == ListMarker(0, False, "+", None, "x")

    def test_ordered(self):
        assert parse_list_marker("1. one") == ListMarker(0, True, ".", 1, "one")
        assert parse_list_marker("   42) answer") == ListMarker(3, True, ")", 42, "answer")

    def test_empty_item(self):
        assert parse_list_marker("-") == ListMarker(0, False, "-", None, "")
        assert parse_list_marker("7.") == ListMarker(0, True, ".", 7, "")

    @pytest.mark.parametrize("line", ["-foo", "1.5 apples", "1234567890. big", "a. b", "text", ""])
    def test_not_markers(self, line):
        assert parse_list_marker(line) is None


class TestFencedCode:
    def test_backticks_with_info(self):
        src = lines("```py  extra words\nx = 1\n\n  y\n```\nafter")
        assert parse_fenced_code(src, 0) == (CodeBlock("x = 1\n\n  y\n", "py"), 5)

    def test_tildes_and_longer_closer(self):
        src = lines("~~~~\n~~~\ncode\n~~~~~~\n")
        assert parse_fenced_code(src, 0) == (CodeBlock("~~~\ncode\n", ""), 4)

    def test_closer_must_match_char(self):
        src = lines("```\n~~~\n```")
        assert parse_fenced_code(src, 0) == (CodeBlock("~~~\n", ""), 3)

    def test_unclosed_runs_to_end(self):
        src = lines("```\na\nb")
        assert parse_fenced_code(src, 0) == (CodeBlock("a\nb\n", ""), 3)

    def test_empty_block(self):
        assert parse_fenced_code(lines("```\n```"), 0) == (CodeBlock("", ""), 2)

    def test_indented_fence_strips_indentation(self):
        src = lines("  ```\n    four\n one\nnone\n  ```")
        assert parse_fenced_code(src, 0) == (CodeBlock("  four\none\nnone\n", ""), 5)

    def test_start_index(self):
        src = lines("para\n```\nx\n```")
        assert parse_fenced_code(src, 1) == (CodeBlock("x\n", ""), 4)

    @pytest.mark.parametrize("line", ["``", "    ```", "``` a`b", "text"])
    def test_not_fences(self, line):
        assert parse_fenced_code([line, "x", "```"], 0) is None

    def test_closer_with_text_does_not_close(self):
        src = lines("```\n``` not\n```")
        assert parse_fenced_code(src, 0) == (CodeBlock("``` not\n", ""), 3)


class TestBlockquote:
    def test_simple(self):
        assert parse_blockquote(lines("> hello\n> world\nafter"), 0) == (BlockQuote([Paragraph("hello\nworld")]), 2)

    def test_optional_space_and_indent(self):
        assert parse_blockquote(lines("  >a\n>  b"), 0) == (BlockQuote([Paragraph("a\nb")]), 2)

    def test_blocks_inside(self):
        src = lines("> # Title\n>\n> - x\n> - y\n> ```\n> code\n> ```")
        block, end = parse_blockquote(src, 0)
        assert end == 7
        assert block == BlockQuote(
            [
                Heading(1, "Title"),
                ListBlock(False, [ListItem("x"), ListItem("y")]),
                CodeBlock("code\n", ""),
            ]
        )

    def test_nested(self):
        block, end = parse_blockquote(lines("> outer\n> > inner"), 0)
        assert block == BlockQuote([Paragraph("outer"), BlockQuote([Paragraph("inner")])])

    def test_no_lazy_continuation(self):
        assert parse_blockquote(lines("> a\nb"), 0) == (BlockQuote([Paragraph("a")]), 1)

    def test_not_a_quote(self):
        assert parse_blockquote(["    > code"], 0) is None
        assert parse_blockquote(["text"], 0) is None


class TestList:
    def test_bullet_list(self):
        assert parse_list(lines("- a\n- b\n- c\n\nafter"), 0) == (
            ListBlock(False, [ListItem("a"), ListItem("b"), ListItem("c")]),
            3,
        )

    def test_ordered_start(self):
        block, end = parse_list(lines("3. c\n4. d\n9. e"), 0)
        assert block == ListBlock(True, [ListItem("c"), ListItem("d"), ListItem("e")], start=3)

    def test_bullet_start_is_one(self):
        block, _ = parse_list(["* x"], 0)
        assert block.start == 1

    def test_nested(self):
        src = lines("- a\n  1. one\n  2. two\n- b\n    - deep")
        block, end = parse_list(src, 0)
        assert end == 5
        assert block == ListBlock(
            False,
            [
                ListItem("a", ListBlock(True, [ListItem("one"), ListItem("two")], start=1)),
                ListItem("b", ListBlock(False, [ListItem("deep")])),
            ],
        )

    def test_lazy_continuation(self):
        block, end = parse_list(lines("- a\nstill a"), 0)
        assert block == ListBlock(False, [ListItem("a\nstill a")]) and end == 2

    def test_continuation_text(self):
        src = lines("- first\ncontinued\n  - sub\n    more\n- second")
        block, _ = parse_list(src, 0)
        assert block == ListBlock(
            False,
            [ListItem("first\ncontinued", ListBlock(False, [ListItem("sub\nmore")])), ListItem("second")],
        )

    def test_blank_lines_between_items(self):
        block, end = parse_list(lines("- a\n\n- b\n\nafter"), 0)
        assert block == ListBlock(False, [ListItem("a"), ListItem("b")])
        assert end == 3

    def test_different_marker_ends_list(self):
        block, end = parse_list(lines("- a\n* b"), 0)
        assert block == ListBlock(False, [ListItem("a")])
        assert end == 1
        block, end = parse_list(lines("1. a\n2) b"), 0)
        assert end == 1

    def test_block_start_ends_list(self):
        for stop in ["# head", "---", "> quote", "```"]:
            block, end = parse_list(["- a", stop], 0)
            assert (block, end) == (ListBlock(False, [ListItem("a")]), 1), stop

    def test_thematic_break_is_not_a_list(self):
        assert parse_list(["* * *"], 0) is None
        assert parse_list(["    - code"], 0) is None
        assert parse_list(["text"], 0) is None


class TestParagraph:
    def test_lines_joined(self):
        assert parse_paragraph(lines("one\n  two\nthree  \n\nnext"), 0) == (Paragraph("one\ntwo\nthree"), 3)

    def test_trailing_spaces_of_inner_lines_kept(self):
        para, _ = parse_paragraph(lines("a  \nb"), 0)
        assert para.text == "a  \nb"

    @pytest.mark.parametrize("stop", ["# h", "***", "> q", "- item", "1. item", "```"])
    def test_interrupted_by_blocks(self, stop):
        assert parse_paragraph(["text", stop], 0) == (Paragraph("text"), 1)

    def test_deeply_indented_marker_does_not_interrupt(self):
        assert parse_paragraph(["text", "    - not a list"], 0) == (Paragraph("text\n- not a list"), 2)


class TestParseBlocks:
    def test_document(self):
        src = lines("# Title\n\nIntro text\nmore.\n\n---\n- a\n- b\n\n```sh\nls\n```\nend")
        assert parse_blocks(src) == [
            Heading(1, "Title"),
            Paragraph("Intro text\nmore."),
            ThematicBreak(),
            ListBlock(False, [ListItem("a"), ListItem("b")]),
            CodeBlock("ls\n", "sh"),
            Paragraph("end"),
        ]

    def test_blank_lines_only(self):
        assert parse_blocks(["", "   ", ""]) == []

    def test_heading_interrupts_paragraph(self):
        assert parse_blocks(["text", "## h", "more"]) == [Paragraph("text"), Heading(2, "h"), Paragraph("more")]

    def test_star_break_wins_over_list(self):
        assert parse_blocks(["* * *", "- a"]) == [ThematicBreak(), ListBlock(False, [ListItem("a")])]

    def test_dash_line_after_text_is_a_break(self):
        assert parse_blocks(["text", "---"]) == [Paragraph("text"), ThematicBreak()]

    def test_fence_with_backtick_info_is_paragraph(self):
        assert parse_blocks(["``` a`b"]) == [Paragraph("``` a`b")]
