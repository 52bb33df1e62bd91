"""The binary bytecode format."""

from __future__ import annotations

from collections.abc import Sequence

from stackvm.errors import DecodeError
from stackvm.opcodes import INT32_MAX, INT32_MIN, OPERAND_OPS, Instruction, Op

MAGIC = b"SVM1"
"""The 4-byte header every bytecode blob starts with."""


def encode(program: Sequence[Instruction]) -> bytes:
    """Encode `program` as bytecode.

    The result is `MAGIC` followed by each instruction in order: one byte, the
    opcode value, then for instructions in `OPERAND_OPS` the operand as 4 bytes,
    little-endian, signed (two's complement).

    Raises:
        ValueError: if an operand instruction has no operand or one outside the
            signed 32-bit range, or an operand-less instruction has an operand.

    >>> encode([Instruction(Op.PUSH, 1), Instruction(Op.HALT)])
    b'SVM1\\x01\\x01\\x00\\x00\\x00\\x00'
    """
    out = bytearray(MAGIC)
    for index, ins in enumerate(program):
        out.append(int(ins.op))
        if ins.op in OPERAND_OPS:
            if ins.arg is None or not INT32_MIN <= ins.arg <= INT32_MAX:
                raise ValueError(f"instruction {index}: bad operand {ins.arg!r} for {ins.op.name}")
            out += ins.arg.to_bytes(4, "little", signed=True)
        elif ins.arg is not None:
            raise ValueError(f"instruction {index}: {ins.op.name} takes no operand")
    return bytes(out)


def decode(data: bytes) -> list[Instruction]:
    """Decode bytecode made by `encode` back into a list of `Instruction`.

    Operand-less instructions get ``arg=None``. ``decode(encode(p)) == p`` for any
    valid program `p`.

    Raises:
        DecodeError: if `data` does not start with `MAGIC`, holds a byte that is
            not an opcode, or ends in the middle of an operand. The message gives
            the byte offset of the problem.
    """
    data = bytes(data)
    if not data.startswith(MAGIC):
        raise DecodeError("missing SVM1 header")
    program = []
    i = len(MAGIC)
    while i < len(data):
        try:
            op = Op(data[i])
        except ValueError:
            raise DecodeError(f"offset {i}: unknown opcode 0x{data[i]:02x}") from None
        if op in OPERAND_OPS:
            if i + 5 > len(data):
                raise DecodeError(f"offset {i + 1}: truncated operand of {op.name}")
            program.append(Instruction(op, int.from_bytes(data[i + 1 : i + 5], "little", signed=True)))
            i += 5
        else:
            program.append(Instruction(op))
            i += 1
    return program
