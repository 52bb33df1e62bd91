"""Thompson construction: syntax tree -> NFA program for the Pike VM (:mod:`tinyregex.vm`).

The NFA is a list of instructions addressed by index ("pc"):

========================  =======================================================
``Char(c)``               consume one character equal to ``c``
``Dot()``                 consume one character other than ``"\\n"``
``Set(cls)``              consume one character ``ch`` with ``cls.matches(ch)``
``Assert(kind)``          zero-width test (``"^"``, ``"$"``, ``"b"``, ``"B"``)
``Split(x, y)``           fork: continue at ``x`` *and* at ``y``, ``x`` preferred
``Jmp(x)``                continue at ``x``
``Save(slot)``            record the current position in capture slot ``slot``
``Match()``               the pattern has matched
========================  =======================================================

Capture slots ``2k`` and ``2k + 1`` hold the start and end of group ``k``; group 0
is the whole match.
"""

from __future__ import annotations

from dataclasses import dataclass

from tinyregex.nodes import (
    Alternate,
    Anchor,
    AnyChar,
    CharClass,
    Concat,
    Empty,
    Group,
    Literal,
    Node,
    Repeat,
)


@dataclass(frozen=True)
class Char:
    char: str


@dataclass(frozen=True)
class Dot:
    pass


@dataclass(frozen=True)
class Set:
    cls: CharClass


@dataclass(frozen=True)
class Assert:
    kind: str


@dataclass(frozen=True)
class Split:
    x: int
    y: int


@dataclass(frozen=True)
class Jmp:
    x: int


@dataclass(frozen=True)
class Save:
    slot: int


@dataclass(frozen=True)
class Match:
    pass


Instruction = Char | Dot | Set | Assert | Split | Jmp | Save | Match


@dataclass(frozen=True)
class Program:
    """A compiled pattern: the instructions and the number of capturing groups."""

    instructions: tuple[Instruction, ...]
    ngroups: int


class Compiler:
    """Append the instructions of syntax-tree nodes to :attr:`program`.

    Jump targets are absolute indexes into :attr:`program`; a forward target is
    known only after the code it skips has been emitted, so such instructions are
    appended first and replaced (``self.program[pc] = Split(...)``) afterwards.
    """

    def __init__(self) -> None:
        self.program: list[Instruction] = []

    @property
    def pc(self) -> int:
        """The index the next appended instruction will get."""
        return len(self.program)

    def emit(self, node: Node) -> None:
        """Append the code for ``node``.

        * ``Empty`` -> nothing; ``Literal(c)`` -> ``Char(c)``; ``AnyChar`` -> ``Dot()``;
          ``CharClass`` -> ``Set(node)``; ``Anchor(k)`` -> ``Assert(k)``.
        * ``Group(inner, k)`` -> ``Save(2k)``, code of ``inner``, ``Save(2k+1)``;
          a non-capturing group (``k`` is ``None``) -> just the code of ``inner``.
        * ``Concat`` -> the code of each item in order.
        * ``Alternate(o1, ..., on)`` -> for every option but the last:
          ``Split(L, NEXT)``, ``L:`` code of the option, ``Jmp(END)``, where ``NEXT``
          is where the next option's code starts; then the last option's code,
          and ``END`` is the index just after it.  For ``a|b``::

              0 Split(1, 3)   1 Char(a)   2 Jmp(4)   3 Char(b)   (END = 4)

        * ``Repeat`` -> :meth:`emit_repeat`.

        Raises ``TypeError`` for an unknown node.
        """
        if isinstance(node, Empty):
            return
        if isinstance(node, Literal):
            self.program.append(Char(node.char))
        elif isinstance(node, AnyChar):
            self.program.append(Dot())
        elif isinstance(node, CharClass):
            self.program.append(Set(node))
        elif isinstance(node, Anchor):
            self.program.append(Assert(node.kind))
        elif isinstance(node, Group):
            if node.index is None:
                self.emit(node.node)
            else:
                self.program.append(Save(2 * node.index))
                self.emit(node.node)
                self.program.append(Save(2 * node.index + 1))
        elif isinstance(node, Concat):
            for item in node.items:
                self.emit(item)
        elif isinstance(node, Alternate):
            jumps: list[int] = []
            for option in node.options[:-1]:
                split = self.pc
                self.program.append(Split(-1, -1))
                self.emit(option)
                jumps.append(self.pc)
                self.program.append(Jmp(-1))
                self.program[split] = Split(split + 1, self.pc)
            self.emit(node.options[-1])
            for j in jumps:
                self.program[j] = Jmp(self.pc)
        elif isinstance(node, Repeat):
            self.emit_repeat(node)
        else:
            raise TypeError(f"cannot compile {node!r}")

    def emit_repeat(self, node: Repeat) -> None:
        """Append the code for ``Repeat(e, min, max, greedy)``.

        Layouts (``L`` is the index where the layout starts, ``END`` the index just
        after it; for a lazy repeat the two targets of every ``Split`` are swapped
        so that *skipping/leaving* is preferred):

        * ``max is None`` and ``min == 0`` (``e*``)::

              L: Split(L+1, END)   code of e   Jmp(L)   END:

        * ``max is None`` and ``min >= 1`` (``e+``, ``e{3,}``): ``min - 1`` copies of
          the code of ``e``, then::

              L: code of e   Split(L, END)   END:

        * ``max`` finite (``e?``, ``e{2,4}``, ``e{3}``): ``min`` copies of the code of
          ``e``, then ``max - min`` optional copies, each ``Split(S+1, END)`` (``S``
          being that split's own index) followed by the code of ``e``, where
          ``END`` is the end of the *last* copy (so skipping one optional copy skips
          all the following ones).  ``e{0}`` emits nothing.

        Example: ``a*`` -> ``0 Split(1, 3)   1 Char(a)   2 Jmp(0)``;
        ``a+?`` -> ``0 Char(a)   1 Split(2, 0)``.
        """
        body, lo, hi = node.node, node.min, node.max

        def split(prefer: int, other: int) -> Split:
            return Split(prefer, other) if node.greedy else Split(other, prefer)

        if hi is None:
            if lo == 0:
                start = self.pc
                self.program.append(Split(-1, -1))
                self.emit(body)
                self.program.append(Jmp(start))
                self.program[start] = split(start + 1, self.pc)
            else:
                for _ in range(lo - 1):
                    self.emit(body)
                start = self.pc
                self.emit(body)
                self.program.append(split(start, self.pc + 1))
            return
        for _ in range(lo):
            self.emit(body)
        splits: list[int] = []
        for _ in range(hi - lo):
            splits.append(self.pc)
            self.program.append(Split(-1, -1))
            self.emit(body)
        for s in splits:
            self.program[s] = split(s + 1, self.pc)


def compile_program(tree: Node, ngroups: int) -> Program:
    """Compile a whole pattern tree into a :class:`Program`.

    The instructions are ``Save(0)``, the code of ``tree`` (via
    :meth:`Compiler.emit`), ``Save(1)`` and ``Match()``.  ``ngroups`` is stored
    unchanged.  Example: ``compile_program(Literal("a"), 0).instructions`` ==
    ``(Save(0), Char("a"), Save(1), Match())``.
    """
    compiler = Compiler()
    compiler.program.append(Save(0))
    compiler.emit(tree)
    compiler.program.append(Save(1))
    compiler.program.append(Match())
    return Program(tuple(compiler.program), ngroups)
