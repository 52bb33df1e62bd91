"""Thompson construction: the exact instruction layouts."""

import pytest

from tinyregex.compiler import (
    Assert, Char, Compiler, Dot, Jmp, Match, Program, Save, Set, Split, compile_program,
)
from tinyregex.nodes import (
    Alternate, Anchor, AnyChar, CharClass, Concat, Empty, Group, Literal, Repeat,
)

a, b, c = Literal("a"), Literal("b"), Literal("c")


def emitted(node, prefix=()):
    comp = Compiler()
    comp.program.extend(prefix)
    comp.emit(node)
    return comp.program


def repeated(node, prefix=()):
    comp = Compiler()
    comp.program.extend(prefix)
    comp.emit_repeat(node)
    return comp.program


class TestEmit:
    def test_leaves(self):
        cls = CharClass((("a", "z"),))
        assert emitted(a) == [Char("a")]
        assert emitted(AnyChar()) == [Dot()]
        assert emitted(cls) == [Set(cls)]
        assert emitted(Anchor("$")) == [Assert("$")]
        assert emitted(Empty()) == []

    def test_concat(self):
        assert emitted(Concat((a, AnyChar(), b))) == [Char("a"), Dot(), Char("b")]

    def test_capturing_group(self):
        assert emitted(Group(a, 1)) == [Save(2), Char("a"), Save(3)]
        assert emitted(Group(Group(b, 2), 1)) == [Save(2), Save(4), Char("b"), Save(5), Save(3)]

    def test_non_capturing_group(self):
        assert emitted(Group(Concat((a, b)), None)) == [Char("a"), Char("b")]

    def test_two_alternatives(self):
        assert emitted(Alternate((a, b))) == [Split(1, 3), Char("a"), Jmp(4), Char("b")]

    def test_three_alternatives(self):
        assert emitted(Alternate((a, b, c))) == [
            Split(1, 3), Char("a"), Jmp(7), Split(4, 6), Char("b"), Jmp(7), Char("c"),
        ]

    def test_alternatives_of_different_lengths(self):
        assert emitted(Alternate((Concat((a, b)), c))) == [Split(1, 4), Char("a"), Char("b"), Jmp(5), Char("c")]

    def test_empty_alternative(self):
        assert emitted(Alternate((a, Empty()))) == [Split(1, 3), Char("a"), Jmp(3)]
        assert emitted(Alternate((Empty(), a))) == [Split(1, 2), Jmp(3), Char("a")]

    def test_targets_are_absolute(self):
        prog = emitted(Alternate((a, b)), prefix=[Save(0), Char("x")])
        assert prog == [Save(0), Char("x"), Split(3, 5), Char("a"), Jmp(6), Char("b")]

    def test_group_around_alternation(self):
        assert emitted(Concat((Group(Alternate((a, b)), 1), c))) == [
            Save(2), Split(2, 4), Char("a"), Jmp(5), Char("b"), Save(3), Char("c"),
        ]

    def test_unknown_node(self):
        with pytest.raises(TypeError):
            emitted("a")


class TestEmitRepeat:
    def test_star(self):
        assert repeated(Repeat(a, 0, None)) == [Split(1, 3), Char("a"), Jmp(0)]

    def test_lazy_star(self):
        assert repeated(Repeat(a, 0, None, greedy=False)) == [Split(3, 1), Char("a"), Jmp(0)]

    def test_plus(self):
        assert repeated(Repeat(a, 1, None)) == [Char("a"), Split(0, 2)]

    def test_lazy_plus(self):
        assert repeated(Repeat(a, 1, None, greedy=False)) == [Char("a"), Split(2, 0)]

    def test_optional(self):
        assert repeated(Repeat(a, 0, 1)) == [Split(1, 2), Char("a")]
        assert repeated(Repeat(a, 0, 1, greedy=False)) == [Split(2, 1), Char("a")]

    def test_exact_count(self):
        assert repeated(Repeat(a, 3, 3)) == [Char("a"), Char("a"), Char("a")]

    def test_zero_count(self):
        assert repeated(Repeat(a, 0, 0)) == []

    def test_at_least(self):
        assert repeated(Repeat(a, 2, None)) == [Char("a"), Char("a"), Split(1, 3)]

    def test_range(self):
        assert repeated(Repeat(a, 1, 3)) == [Char("a"), Split(2, 5), Char("a"), Split(4, 5), Char("a")]

    def test_lazy_range(self):
        assert repeated(Repeat(a, 2, 3, greedy=False)) == [Char("a"), Char("a"), Split(4, 3), Char("a")]

    def test_multi_instruction_body(self):
        assert repeated(Repeat(Group(Concat((a, b)), 1), 0, None)) == [
            Split(1, 6), Save(2), Char("a"), Char("b"), Save(3), Jmp(0),
        ]

    def test_targets_are_absolute(self):
        assert repeated(Repeat(a, 0, None), prefix=[Save(0)]) == [Save(0), Split(2, 4), Char("a"), Jmp(1)]
        assert repeated(Repeat(a, 1, None), prefix=[Save(0), Dot()]) == [Save(0), Dot(), Char("a"), Split(2, 4)]

    def test_emit_dispatches_repeats(self):
        assert emitted(Concat((Repeat(a, 0, None), b))) == [Split(1, 3), Char("a"), Jmp(0), Char("b")]

    def test_nested_repeat(self):
        assert repeated(Repeat(Repeat(a, 1, None), 0, 1)) == [Split(1, 3), Char("a"), Split(1, 3)]


class TestCompileProgram:
    def test_wraps_in_group_zero(self):
        assert compile_program(Literal("a"), 0) == Program((Save(0), Char("a"), Save(1), Match()), 0)

    def test_empty(self):
        assert compile_program(Empty(), 0).instructions == (Save(0), Save(1), Match())

    def test_keeps_group_count(self):
        prog = compile_program(Group(a, 1), 1)
        assert prog.ngroups == 1
        assert prog.instructions == (Save(0), Save(2), Char("a"), Save(3), Save(1), Match())

    def test_offsets_account_for_initial_save(self):
        assert compile_program(Alternate((a, b)), 0).instructions == (
            Save(0), Split(2, 4), Char("a"), Jmp(5), Char("b"), Save(1), Match(),
        )

    def test_instructions_are_a_tuple(self):
        assert isinstance(compile_program(a, 0).instructions, tuple)
