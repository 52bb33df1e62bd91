from textkit import dedent, indent


class TestDedent:
    def test_common_margin_removed(self):
        assert dedent("    a\n      b\n    c\n") == "a\n  b\nc\n"

    def test_no_common_margin(self):
        text = "a\n  b\n"
        assert dedent(text) == text

    def test_blank_lines_ignored_and_emptied(self):
        assert dedent("  a\n\n     \n  b") == "a\n\n\nb"

    def test_tabs_and_spaces_differ(self):
        text = "\tx\n  y\n"
        assert dedent(text) == text

    def test_common_tab_prefix(self):
        assert dedent("\t\tx\n\ty\n") == "\tx\ny\n"

    def test_partial_common_prefix(self):
        assert dedent("  \tx\n   y\n") == "\tx\n y\n"

    def test_final_newline_preserved_or_absent(self):
        assert dedent("  x") == "x"
        assert dedent("  x\n") == "x\n"

    def test_empty(self):
        assert dedent("") == ""


class TestIndent:
    def test_prefix_non_blank_lines(self):
        assert indent("a\n\nb", "> ") == "> a\n\n> b"

    def test_whitespace_only_lines_not_prefixed_by_default(self):
        assert indent("a\n   \nb\n", "  ") == "  a\n   \n  b\n"

    def test_custom_predicate(self):
        assert indent("a\n\nb\n", "#", lambda line: True) == "#a\n#\n#b\n"

    def test_predicate_sees_line_ending(self):
        seen = []
        indent("x\ny", "-", lambda line: seen.append(line) or False)
        assert seen == ["x\n", "y"]

    def test_empty(self):
        assert indent("", "> ") == ""

    def test_prefix_every_line_including_last_partial_line(self):
        assert indent("def f():\n    return 1", "    ") == "    def f():\n        return 1"
