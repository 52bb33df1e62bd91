"""The instruction set: opcodes, their groups, and the `Instruction` record."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Op(IntEnum):
    """Opcodes. The value is the opcode byte; the mnemonic is the lower-case name."""

    HALT = 0x00
    PUSH = 0x01
    POP = 0x02
    DUP = 0x03
    SWAP = 0x04
    OVER = 0x05
    ADD = 0x10
    SUB = 0x11
    MUL = 0x12
    DIV = 0x13
    MOD = 0x14
    NEG = 0x15
    EQ = 0x20
    NE = 0x21
    LT = 0x22
    LE = 0x23
    GT = 0x24
    GE = 0x25
    NOT = 0x26
    JMP = 0x30
    JZ = 0x31
    JNZ = 0x32
    CALL = 0x33
    RET = 0x34
    LOAD = 0x40
    STORE = 0x41
    PRINT = 0x50


STACK_OPS = frozenset({Op.PUSH, Op.POP, Op.DUP, Op.SWAP, Op.OVER})
ARITH_OPS = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD, Op.NEG})
COMPARE_OPS = frozenset({Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.NOT})
CONTROL_OPS = frozenset({Op.JMP, Op.JZ, Op.JNZ, Op.CALL, Op.RET, Op.HALT})
MEMORY_OPS = frozenset({Op.LOAD, Op.STORE, Op.PRINT})

OPERAND_OPS = frozenset({Op.PUSH, Op.JMP, Op.JZ, Op.JNZ, Op.CALL, Op.LOAD, Op.STORE})
"""Instructions that take exactly one operand; all others take none."""
JUMP_OPS = frozenset({Op.JMP, Op.JZ, Op.JNZ, Op.CALL})
"""Instructions whose operand is a target instruction index (a label in source)."""

MNEMONICS = {op.name.lower(): op for op in Op}
"""Mnemonic -> opcode, e.g. ``"push" -> Op.PUSH``."""

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
NUM_LOCALS = 16
"""Number of local variable slots in each call frame (indices 0..15)."""


@dataclass(frozen=True)
class Instruction:
    """One instruction: an opcode and its operand (``None`` for operand-less ops).

    For jumps and calls the operand is the index of the target instruction; for
    ``load``/``store`` it is a local slot index; for ``push`` the value.
    """

    op: Op
    arg: int | None = None
