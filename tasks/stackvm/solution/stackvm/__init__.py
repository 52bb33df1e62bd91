"""stackvm: a small stack virtual machine with an assembler.

Pipeline: source text -> `tokenize_line` (lexer) -> `first_pass` / `assemble`
(assembler) -> list of `Instruction` -> `encode` / `decode` (bytecode) and
`disassemble` -> `VM` (execution) -> `run_source` / `run_bytecode` (programs).
"""

from stackvm.assembler import Statement, assemble, first_pass
from stackvm.disassembler import disassemble
from stackvm.encoder import MAGIC, decode, encode
from stackvm.errors import (
    AssemblerError,
    DecodeError,
    DivisionByZeroError,
    InvalidJumpError,
    StackOverflowError,
    StackUnderflowError,
    StepLimitError,
    VMError,
)
from stackvm.lexer import Token, parse_number, tokenize_line
from stackvm.opcodes import MNEMONICS, NUM_LOCALS, Instruction, Op
from stackvm.programs import FACTORIAL, FIBONACCI, GCD, PRIMES, run_bytecode, run_source
from stackvm.vm import VM, Frame

__all__ = [
    "FACTORIAL",
    "FIBONACCI",
    "GCD",
    "MAGIC",
    "MNEMONICS",
    "NUM_LOCALS",
    "PRIMES",
    "VM",
    "AssemblerError",
    "DecodeError",
    "DivisionByZeroError",
    "Frame",
    "Instruction",
    "InvalidJumpError",
    "Op",
    "StackOverflowError",
    "StackUnderflowError",
    "Statement",
    "StepLimitError",
    "Token",
    "VMError",
    "assemble",
    "decode",
    "disassemble",
    "encode",
    "first_pass",
    "parse_number",
    "run_bytecode",
    "run_source",
    "tokenize_line",
]
