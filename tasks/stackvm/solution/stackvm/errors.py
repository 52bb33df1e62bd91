"""Exceptions raised by stackvm."""

from __future__ import annotations


class AssemblerError(Exception):
    """An error in assembly source, located by a 1-based line (and column, if known).

    ``str(err)`` is ``"line L: message"`` or ``"line L, column C: message"``.
    """

    def __init__(self, message: str, line: int, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = f"line {self.line}" if self.column is None else f"line {self.line}, column {self.column}"
        return f"{where}: {self.message}"


class DecodeError(ValueError):
    """Bytecode is malformed (bad header, unknown opcode or truncated operand)."""


class VMError(Exception):
    """A runtime error of the virtual machine.

    `pc` is the index of the instruction that failed; it is ``None`` until
    `VM.step` fills it in. ``str(err)`` is the message, followed by
    ``" (at pc N)"`` once `pc` is known.
    """

    def __init__(self, message: str, pc: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pc = pc

    def __str__(self) -> str:
        return self.message if self.pc is None else f"{self.message} (at pc {self.pc})"


class StackUnderflowError(VMError):
    """An instruction needed more values than the operand stack holds."""


class StackOverflowError(VMError):
    """The operand stack or the call stack grew beyond its limit."""


class InvalidJumpError(VMError):
    """A jump or call targets an address outside the program."""


class DivisionByZeroError(VMError):
    """``div`` or ``mod`` with a zero divisor."""


class StepLimitError(VMError):
    """The program did not halt within the allowed number of steps."""
