"""The Pike VM on hand-written programs."""

import pytest

from tinyregex.compiler import Assert, Char, Dot, Jmp, Match, Program, Save, Set, Split
from tinyregex.nodes import CharClass
from tinyregex.vm import PikeVM, assertion_holds


def vm(*instructions, ngroups=0):
    return PikeVM(Program(tuple(instructions), ngroups))


# a*  (with the group-0 saves)
STAR = vm(Save(0), Split(2, 4), Char("a"), Jmp(1), Save(1), Match())
# ab
AB = vm(Save(0), Char("a"), Char("b"), Save(1), Match())
# a|ab
A_OR_AB = vm(Save(0), Split(2, 4), Char("a"), Jmp(6), Char("a"), Char("b"), Save(1), Match())
# (a)?b  -> group 1 around a
OPT_GROUP = vm(Save(0), Split(2, 5), Save(2), Char("a"), Save(3), Char("b"), Save(1), Match(), ngroups=1)


class TestAssertionHolds:
    def test_start(self):
        assert assertion_holds("^", "ab", 0)
        assert not assertion_holds("^", "ab", 1)
        assert assertion_holds("^", "", 0)

    def test_end(self):
        assert assertion_holds("$", "ab", 2)
        assert not assertion_holds("$", "ab", 1)
        assert not assertion_holds("$", "ab\n", 2)

    @pytest.mark.parametrize("pos, expected", [(0, True), (1, False), (2, True), (3, True), (4, False), (5, True)])
    def test_word_boundary(self, pos, expected):
        assert assertion_holds("b", "ab cd", pos) is expected
        assert assertion_holds("B", "ab cd", pos) is (not expected)

    def test_boundary_in_empty_and_non_word_text(self):
        assert not assertion_holds("b", "", 0)
        assert assertion_holds("B", "", 0)
        assert not assertion_holds("b", "--", 1)

    def test_underscore_and_digits_are_word_characters(self):
        assert not assertion_holds("b", "a_1", 1)
        assert not assertion_holds("b", "a_1", 2)
        assert assertion_holds("b", "é", 0) is False

    def test_unknown(self):
        with pytest.raises(ValueError):
            assertion_holds("z", "a", 0)


class TestAddThread:
    def test_docstring_example(self):
        threads = []
        STAR.add_thread(threads, set(), 0, (-1, -1), "x", 0)
        assert threads == [(2, (0, -1)), (5, (0, 0))]

    def test_split_priority(self):
        threads = []
        A_OR_AB.add_thread(threads, set(), 1, (7, -1), "", 7)
        assert threads == [(2, (7, -1)), (4, (7, -1))]

    def test_consuming_instruction_is_added_as_is(self):
        threads = []
        visited = set()
        AB.add_thread(threads, visited, 1, (0, -1), "ab", 0)
        assert threads == [(1, (0, -1))]
        assert visited == {1}

    def test_visited_instructions_are_skipped(self):
        threads = []
        visited = {2}
        STAR.add_thread(threads, visited, 1, (0, -1), "", 0)
        assert threads == [(5, (0, 0))]
        assert visited == {1, 2, 4, 5}

    def test_loop_without_progress_terminates(self):
        loop = vm(Split(1, 2), Jmp(0), Match())
        threads = []
        loop.add_thread(threads, set(), 0, (-1, -1), "", 0)
        assert threads == [(2, (-1, -1))]

    def test_save_does_not_modify_original(self):
        caps = (-1, -1, -1, -1)
        threads = []
        OPT_GROUP.add_thread(threads, set(), 0, caps, "ab", 0)
        assert caps == (-1, -1, -1, -1)
        assert threads == [(3, (0, -1, 0, -1)), (5, (0, -1, -1, -1))]

    def test_save_records_current_position(self):
        threads = []
        OPT_GROUP.add_thread(threads, set(), 4, (0, -1, 0, -1), "ab", 1)
        assert threads == [(5, (0, -1, 0, 1))]

    def test_assertions(self):
        prog = vm(Split(1, 3), Assert("^"), Char("x"), Assert("$"), Match())
        threads = []
        prog.add_thread(threads, set(), 0, (-1, -1), "ab", 0)
        assert threads == [(2, (-1, -1))]
        threads = []
        prog.add_thread(threads, set(), 0, (-1, -1), "ab", 2)
        assert threads == [(4, (-1, -1))]

    def test_long_epsilon_chain(self):
        n = 5000
        chain = [Jmp(i + 1) for i in range(n)] + [Match()]
        threads = []
        vm(*chain).add_thread(threads, set(), 0, (-1, -1), "", 0)
        assert threads == [(n, (-1, -1))]


class TestRun:
    def test_search(self):
        assert AB.run("xxabab") == (2, 4)

    def test_no_match(self):
        assert AB.run("axbx") is None
        assert AB.run("") is None

    def test_anchored(self):
        assert AB.run("xab", anchored=True) is None
        assert AB.run("abx", anchored=True) == (0, 2)
        assert AB.run("xab", 1, anchored=True) == (1, 3)

    def test_start_position(self):
        assert AB.run("abab", 1) == (2, 4)

    def test_greedy_star(self):
        assert STAR.run("aab", anchored=True) == (0, 2)
        assert STAR.run("baa") == (0, 0)

    def test_leftmost_first_alternation(self):
        assert A_OR_AB.run("ab") == (0, 1)

    def test_full(self):
        assert A_OR_AB.run("ab", anchored=True, full=True) == (0, 2)
        assert A_OR_AB.run("abc", anchored=True, full=True) is None
        assert STAR.run("aab", anchored=True, full=True) is None

    def test_captures(self):
        assert OPT_GROUP.run("ab") == (0, 2, 0, 1)
        assert OPT_GROUP.run("xb") == (1, 2, -1, -1)

    def test_must_advance(self):
        assert STAR.run("baa", must_advance=True) == (1, 3)
        assert STAR.run("aab", must_advance=True) == (0, 2)
        assert STAR.run("b", 1, must_advance=True) is None

    def test_must_advance_allows_later_empty_match(self):
        assert STAR.run("bb", must_advance=True) == (1, 1)

    def test_lazy_priority(self):
        # a*? then b : Split prefers leaving the loop
        lazy = vm(Save(0), Split(4, 2), Char("a"), Jmp(1), Char("b"), Save(1), Match())
        assert lazy.run("aab") == (0, 3)
        # a*? alone matches empty
        lazy_alone = vm(Save(0), Split(4, 2), Char("a"), Jmp(1), Save(1), Match())
        assert lazy_alone.run("aaa") == (0, 0)

    def test_dot_and_set(self):
        prog = vm(Save(0), Dot(), Set(CharClass(categories=("d",))), Save(1), Match())
        assert prog.run("a\n1b22") == (3, 5)

    def test_assertion_in_search(self):
        prog = vm(Save(0), Assert("b"), Char("c"), Save(1), Match())
        assert prog.run("acat cat") == (5, 6)

    def test_search_continues_past_dead_positions(self):
        prog = vm(Save(0), Assert("$"), Save(1), Match())
        assert prog.run("abc") == (3, 3)

    def test_linear_time_on_pathological_input(self):
        # (a|aa)*b on "aaaa...": exponential for naive backtracking
        prog = vm(
            Save(0), Split(2, 8), Split(3, 5), Char("a"), Jmp(7), Char("a"), Char("a"),
            Jmp(1), Char("b"), Save(1), Match(),
        )
        assert prog.run("a" * 3000) is None
        assert prog.run("a" * 3000 + "b") == (0, 3001)
