import pytest

from stackvm import AssemblerError, Instruction, Op, assemble, first_pass

SOURCE = """\
; count down from 3
start:  push 3
loop:
        dup
        print
        push 1
        sub
        dup
        jnz loop
end:    halt
"""


class TestFirstPass:
    def test_statements_and_labels(self):
        statements, labels = first_pass(SOURCE)
        assert labels == {"start": 0, "loop": 1, "end": 7}
        assert [s.mnemonic for s in statements] == ["push", "dup", "print", "push", "sub", "dup", "jnz", "halt"]
        assert [s.line for s in statements] == [2, 4, 5, 6, 7, 8, 9, 10]
        assert statements[0].operand.value == 3
        assert statements[6].operand.value == "loop"
        assert statements[1].operand is None

    def test_mnemonics_lower_cased(self):
        statements, _ = first_pass("PUSH 1\nHalt")
        assert [s.mnemonic for s in statements] == ["push", "halt"]

    def test_label_at_end_and_shared_labels(self):
        _, labels = first_pass("a: b:\n  halt\nc:")
        assert labels == {"a": 0, "b": 0, "c": 1}

    def test_labels_are_case_sensitive(self):
        _, labels = first_pass("x: pop\nX: pop")
        assert labels == {"x": 0, "X": 1}

    def test_mnemonics_not_validated_here(self):
        statements, _ = first_pass("frobnicate 3")
        assert statements[0].mnemonic == "frobnicate"

    def test_duplicate_label(self):
        with pytest.raises(AssemblerError, match="line 2") as info:
            first_pass("x: pop\n  x: pop")
        assert info.value.line == 2
        assert "line 1" in info.value.message

    @pytest.mark.parametrize(
        "source, line",
        [
            ("pop\n42", 2),
            ("pop\npush 1 2", 2),
            ("halt\nhalt\npush x: ", 3),
            ("push 0x", 1),
        ],
    )
    def test_structure_errors(self, source, line):
        with pytest.raises(AssemblerError) as info:
            first_pass(source)
        assert info.value.line == line


class TestAssemble:
    def test_program(self):
        assert assemble(SOURCE) == [
            Instruction(Op.PUSH, 3),
            Instruction(Op.DUP),
            Instruction(Op.PRINT),
            Instruction(Op.PUSH, 1),
            Instruction(Op.SUB),
            Instruction(Op.DUP),
            Instruction(Op.JNZ, 1),
            Instruction(Op.HALT),
        ]

    def test_forward_references(self):
        assert assemble("call f\nhalt\nf: ret") == [
            Instruction(Op.CALL, 2),
            Instruction(Op.HALT),
            Instruction(Op.RET),
        ]

    def test_label_past_the_end(self):
        assert assemble("jmp end\nend:") == [Instruction(Op.JMP, 1)]

    def test_every_mnemonic(self):
        source = """\
top: push -1
pop
dup
swap
over
add
sub
mul
div
mod
neg
eq
ne
lt
le
gt
ge
not
jmp top
jz top
jnz top
call top
ret
load 0
store 15
print
halt
"""
        program = assemble(source)
        assert [i.op for i in program] == list(Op)[1:] + [Op.HALT]
        assert program[0].arg == -1
        assert program[-4].arg == 0 and program[-3].arg == 15

    def test_case_insensitive_mnemonics_and_empty_source(self):
        assert assemble("PuSh 0x10") == [Instruction(Op.PUSH, 16)]
        assert assemble("") == []
        assert assemble("; nothing\n\n") == []

    def test_push_range(self):
        assert assemble("push 2147483647\npush -2147483648")[1].arg == -(2**31)
        with pytest.raises(AssemblerError, match="out of range"):
            assemble("push 2147483648")

    @pytest.mark.parametrize(
        "source, line, fragment",
        [
            ("push 1\npusj 2", 2, "unknown instruction 'pusj'"),
            ("halt\njmp nowhere", 2, "undefined label 'nowhere'"),
            ("push", 1, "needs an operand"),
            ("pop\nadd 3", 2, "takes no operand"),
            ("jmp 3", 1, "label"),
            ("x: push x", 1, "number"),
            ("load 16", 1, "out of range"),
            ("store -1", 1, "out of range"),
        ],
    )
    def test_errors(self, source, line, fragment):
        with pytest.raises(AssemblerError) as info:
            assemble(source)
        assert info.value.line == line
        assert fragment in str(info.value)
        assert str(info.value).startswith(f"line {line}")
