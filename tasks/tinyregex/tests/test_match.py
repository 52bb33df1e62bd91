"""Match objects, built by hand from capture slots."""

import pytest

from tinyregex import Match, RegexError

TEXT = "hello world"
# group 0: "hello", group 1: "h", group 2: did not participate
M = Match(TEXT, (0, 5, 0, 1, -1, -1))


def match_with_groups(n):
    """A match of 'abcdefghijklmnop'[0:n] whose group k is the k-th character."""
    text = "abcdefghijklmnop"
    slots = [0, n]
    for k in range(n):
        slots += [k, k + 1]
    return Match(text, tuple(slots))


class TestSpan:
    def test_spans(self):
        assert M.span() == (0, 5)
        assert M.span(1) == (0, 1)
        assert M.span(2) == (-1, -1)

    def test_start_end(self):
        assert (M.start(), M.end()) == (0, 5)
        assert (M.start(2), M.end(2)) == (-1, -1)

    @pytest.mark.parametrize("group", [3, -1, True, "1", 1.0])
    def test_no_such_group(self, group):
        with pytest.raises(IndexError, match="no such group"):
            M.span(group)

    def test_ngroups(self):
        assert M.ngroups == 2
        assert Match("x", (0, 1)).ngroups == 0

    def test_invalid_slots(self):
        with pytest.raises(ValueError):
            Match("x", (0,))
        with pytest.raises(ValueError):
            Match("x", ())


class TestGroup:
    def test_whole_match(self):
        assert M.group() == "hello"
        assert M.group(0) == "hello"
        assert M[0] == "hello"

    def test_single_group(self):
        assert M.group(1) == "h"
        assert M[1] == "h"

    def test_unset_group_is_none(self):
        assert M.group(2) is None

    def test_several_groups(self):
        assert M.group(0, 1, 2) == ("hello", "h", None)
        assert M.group(1, 1) == ("h", "h")

    def test_empty_group(self):
        assert Match("abc", (1, 1)).group() == ""

    def test_invalid(self):
        with pytest.raises(IndexError):
            M.group(5)
        with pytest.raises(IndexError):
            M[3]

    def test_repr(self):
        assert repr(M) == "<tinyregex.Match object; span=(0, 5), match='hello'>"


class TestGroups:
    def test_groups(self):
        assert M.groups() == ("h", None)

    def test_default(self):
        assert M.groups("") == ("h", "")
        assert M.groups(default="-") == ("h", "-")

    def test_no_groups(self):
        assert Match("abc", (0, 3)).groups() == ()

    def test_many_groups(self):
        assert match_with_groups(4).groups() == ("a", "b", "c", "d")


class TestExpand:
    def test_plain_text(self):
        assert M.expand("no refs") == "no refs"

    def test_numbered_references(self):
        assert M.expand(r"[\1]") == "[h]"
        assert M.expand(r"\0!") == "hello!"

    def test_g_references(self):
        assert M.expand(r"<\g<0>> <\g<1>>") == "<hello> <h>"

    def test_unset_group_is_empty(self):
        assert M.expand(r"(\2)(\g<2>)") == "()()"

    def test_two_digit_references(self):
        m = match_with_groups(12)
        assert m.expand(r"\12") == "l"
        assert m.expand(r"\1x") == "ax"
        assert m.expand(r"\g<1>2") == "a2"

    def test_escapes(self):
        assert M.expand(r"a\\b") == "a\\b"
        assert M.expand(r"\n\t") == "\n\t"
        assert M.expand(r"\.\-") == r"\.\-"

    def test_invalid_group_reference(self):
        with pytest.raises(RegexError) as info:
            M.expand(r"ok \3")
        assert (info.value.msg, info.value.pos, info.value.pattern) == ("invalid group reference 3", 3, r"ok \3")
        with pytest.raises(RegexError, match="invalid group reference 10"):
            M.expand(r"\10")

    @pytest.mark.parametrize("template", [r"\g", r"\g<>", r"\g<a>", r"\g<1", r"x\g1"])
    def test_bad_group_reference(self, template):
        with pytest.raises(RegexError) as info:
            M.expand(template)
        assert info.value.msg == "bad group reference"
        assert info.value.pos == template.index("\\")

    def test_bad_escape(self):
        with pytest.raises(RegexError) as info:
            M.expand(r"a\q")
        assert (info.value.msg, info.value.pos) == (r"bad escape \q", 1)

    def test_trailing_backslash(self):
        with pytest.raises(RegexError) as info:
            M.expand("ab\\")
        assert (info.value.msg, info.value.pos) == ("bad escape (end of template)", 2)
