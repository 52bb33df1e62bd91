"""The two-pass assembler: source text -> list of `Instruction`."""

from __future__ import annotations

from dataclasses import dataclass

from stackvm.errors import AssemblerError
from stackvm.lexer import Token, tokenize_line
from stackvm.opcodes import (
    INT32_MAX,
    INT32_MIN,
    JUMP_OPS,
    MNEMONICS,
    NUM_LOCALS,
    OPERAND_OPS,
    Instruction,
    Op,
)


@dataclass(frozen=True)
class Statement:
    """One instruction as written: lower-cased mnemonic, operand token, source line."""

    mnemonic: str
    operand: Token | None
    line: int


def first_pass(source: str) -> tuple[list[Statement], dict[str, int]]:
    """Tokenize `source` and collect its statements and label addresses.

    Lines are numbered from 1 (``str.splitlines``) and tokenized with
    `tokenize_line`. Each line holds any number of label definitions, optionally
    followed by one instruction: a mnemonic (an ``"ident"`` token, lower-cased in
    the `Statement`) and at most one operand token. A label's address is the index
    of the next statement (possibly one past the last statement when nothing
    follows it). Labels are case-sensitive. Mnemonics and operands are not
    validated here (see `assemble`).

    Returns ``(statements, labels)`` where `labels` maps names to addresses.

    Raises:
        AssemblerError: with the line number, for tokenizer errors, a label
            defined twice (the message names the line of the first definition),
            a line whose first non-label token is not an identifier, a label
            definition after an instruction, or more than one operand.
    """
    statements: list[Statement] = []
    labels: dict[str, int] = {}
    label_lines: dict[str, int] = {}
    for lineno, line in enumerate(source.splitlines(), 1):
        tokens = tokenize_line(line, lineno)
        k = 0
        while k < len(tokens) and tokens[k].kind == "label":
            name = str(tokens[k].value)
            if name in labels:
                raise AssemblerError(
                    f"duplicate label {name!r} (first defined on line {label_lines[name]})",
                    lineno,
                    tokens[k].column,
                )
            labels[name] = len(statements)
            label_lines[name] = lineno
            k += 1
        rest = tokens[k:]
        if not rest:
            continue
        head = rest[0]
        if head.kind != "ident":
            raise AssemblerError(f"expected an instruction, found {head.value!r}", lineno, head.column)
        for tok in rest[1:]:
            if tok.kind == "label":
                raise AssemblerError("label definition after an instruction", lineno, tok.column)
        if len(rest) > 2:
            raise AssemblerError(f"too many operands for {head.value!r}", lineno, rest[2].column)
        statements.append(Statement(str(head.value).lower(), rest[1] if len(rest) == 2 else None, lineno))
    return statements, labels


def assemble(source: str) -> list[Instruction]:
    """Assemble `source` into a list of `Instruction`.

    Uses `first_pass`, then checks each statement:

    * the mnemonic must be one of `MNEMONICS` (case-insensitive);
    * instructions in `OPERAND_OPS` need exactly one operand, the others none;
    * ``push`` takes a number in the signed 32-bit range;
    * ``jmp``, ``jz``, ``jnz`` and ``call`` take a label name (an identifier),
      which becomes the label's address;
    * ``load`` and ``store`` take a number in ``0 .. NUM_LOCALS - 1``.

    Raises:
        AssemblerError: for any error, with the 1-based line number of the
            offending statement. Messages: ``unknown instruction 'pusj'``,
            ``'push' needs an operand``, ``'add' takes no operand``, ``'jmp'
            needs a label operand`` (a number was given), ``undefined label
            'loop'``, ``'push' needs a number operand`` (an identifier was
            given), ``operand out of range for 'load': 16 (allowed 0..15)``.

    >>> assemble("start: push 1\\njmp start")
    [Instruction(op=<Op.PUSH: 1>, arg=1), Instruction(op=<Op.JMP: 48>, arg=0)]
    """
    statements, labels = first_pass(source)
    program = []
    for st in statements:
        op = MNEMONICS.get(st.mnemonic)
        if op is None:
            raise AssemblerError(f"unknown instruction {st.mnemonic!r}", st.line)
        tok = st.operand
        if op not in OPERAND_OPS:
            if tok is not None:
                raise AssemblerError(f"{st.mnemonic!r} takes no operand", st.line, tok.column)
            program.append(Instruction(op))
            continue
        if tok is None:
            raise AssemblerError(f"{st.mnemonic!r} needs an operand", st.line)
        if op in JUMP_OPS:
            if tok.kind != "ident":
                raise AssemblerError(f"{st.mnemonic!r} needs a label operand", st.line, tok.column)
            if tok.value not in labels:
                raise AssemblerError(f"undefined label {tok.value!r}", st.line, tok.column)
            program.append(Instruction(op, labels[str(tok.value)]))
            continue
        if tok.kind != "number":
            raise AssemblerError(f"{st.mnemonic!r} needs a number operand", st.line, tok.column)
        value = int(tok.value)
        if op is Op.PUSH:
            low, high = INT32_MIN, INT32_MAX
        else:
            low, high = 0, NUM_LOCALS - 1
        if not low <= value <= high:
            raise AssemblerError(
                f"operand out of range for {st.mnemonic!r}: {value} (allowed {low}..{high})",
                st.line,
                tok.column,
            )
        program.append(Instruction(op, value))
    return program
