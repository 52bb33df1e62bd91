import pytest

from stackvm import AssemblerError, Token, parse_number, tokenize_line


class TestParseNumber:
    @pytest.mark.parametrize(
        "text, value",
        [
            ("0", 0),
            ("42", 42),
            ("-7", -7),
            ("+3", 3),
            ("007", 7),
            ("0x1F", 31),
            ("0XfF", 255),
            ("-0x10", -16),
            ("0b101", 5),
            ("0o17", 15),
            ("'A'", 65),
            ("' '", 32),
            ("';'", 59),
            ("'\\n'", 10),
            ("'\\0'", 0),
            ("'\\''", 39),
            ("'\\\\'", 92),
        ],
    )
    def test_valid(self, text, value):
        assert parse_number(text) == value

    @pytest.mark.parametrize(
        "text", ["", "-", "0x", "12abc", "1_000", "0b102", "0o8", "1.5", "'ab'", "''", "'\\q'", "-'A'", " 1", "x1"]
    )
    def test_invalid(self, text):
        with pytest.raises(ValueError):
            parse_number(text)


class TestTokenizeLine:
    def test_instruction_with_operand(self):
        assert tokenize_line("    push 42", 3) == [Token("ident", "push", 3, 5), Token("number", 42, 3, 10)]

    def test_label_and_comment(self):
        tokens = tokenize_line("loop: jmp loop ; forever", 7)
        assert [(t.kind, t.value, t.column) for t in tokens] == [
            ("label", "loop", 1),
            ("ident", "jmp", 7),
            ("ident", "loop", 11),
        ]
        assert all(t.line == 7 for t in tokens)

    def test_blank_and_comment_lines(self):
        assert tokenize_line("", 1) == []
        assert tokenize_line("   \t ", 1) == []
        assert tokenize_line("; just a comment", 1) == []
        assert tokenize_line("# hash comment", 1) == []

    def test_comment_without_space(self):
        assert [t.value for t in tokenize_line("push 1;one", 1)] == ["push", 1]
        assert [t.value for t in tokenize_line("pop#x", 1)] == ["pop"]

    def test_character_literals(self):
        assert [t.value for t in tokenize_line("push ' ' ; space", 1)] == ["push", 32]
        assert [t.value for t in tokenize_line("push ';'", 1)] == ["push", 59]
        assert [t.value for t in tokenize_line("push '#'#c", 1)] == ["push", 35]

    def test_several_labels(self):
        tokens = tokenize_line("a: _b2: halt", 1)
        assert [(t.kind, t.value) for t in tokens] == [("label", "a"), ("label", "_b2"), ("ident", "halt")]

    def test_identifiers_keep_case(self):
        assert tokenize_line("PUSH 1", 1)[0].value == "PUSH"

    @pytest.mark.parametrize(
        "line, column",
        [
            ("push 12abc", 6),
            ("push @", 6),
            ("9lives: halt", 1),
            ("  jmp lo-op", 7),
            ("push 'a", 6),
            ("push 'ab'", 6),
        ],
    )
    def test_errors_have_line_and_column(self, line, column):
        with pytest.raises(AssemblerError) as info:
            tokenize_line(line, 12)
        assert info.value.line == 12
        assert info.value.column == column
        assert str(info.value).startswith(f"line 12, column {column}: ")
