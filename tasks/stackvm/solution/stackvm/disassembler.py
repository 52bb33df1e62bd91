"""Turning a program back into assembly source."""

from __future__ import annotations

from collections.abc import Sequence

from stackvm.opcodes import JUMP_OPS, Instruction, Op  # noqa: F401  (Op: doctest)


def disassemble(program: Sequence[Instruction]) -> str:
    """Return assembly source for `program` that `assemble` turns back into it.

    Each instruction is written on its own line, indented by 4 spaces, as the
    lower-case mnemonic followed, if it has an operand, by one space and the
    operand in decimal. Jump and call targets are written as labels named
    ``L<target>`` (e.g. ``jmp L4``); each label that is used is defined once on a
    line of its own (``L4:``, not indented) just before the instruction at that
    index, or at the very end for a target equal to ``len(program)``. Every line
    ends with ``"\\n"``; an empty program gives ``""``.

    Raises:
        ValueError: if a jump or call target is outside ``0 .. len(program)``.

    >>> print(disassemble([Instruction(Op.PUSH, 1), Instruction(Op.JMP, 0)]), end="")
    L0:
        push 1
        jmp L0
    """
    targets = set()
    for index, ins in enumerate(program):
        if ins.op in JUMP_OPS:
            if ins.arg is None or not 0 <= ins.arg <= len(program):
                raise ValueError(f"instruction {index}: invalid target {ins.arg!r}")
            targets.add(ins.arg)
    lines = []
    for index, ins in enumerate(program):
        if index in targets:
            lines.append(f"L{index}:\n")
        name = ins.op.name.lower()
        if ins.op in JUMP_OPS:
            lines.append(f"    {name} L{ins.arg}\n")
        elif ins.arg is not None:
            lines.append(f"    {name} {ins.arg}\n")
        else:
            lines.append(f"    {name}\n")
    if len(program) in targets:
        lines.append(f"L{len(program)}:\n")
    return "".join(lines)
