import pytest

from stackvm import FACTORIAL, GCD, Instruction, Op, assemble, disassemble


class TestDisassemble:
    def test_plain_instructions(self):
        program = [Instruction(Op.PUSH, -3), Instruction(Op.DUP), Instruction(Op.STORE, 2), Instruction(Op.HALT)]
        assert disassemble(program) == "    push -3\n    dup\n    store 2\n    halt\n"

    def test_labels_for_targets(self):
        program = [
            Instruction(Op.PUSH, 1),
            Instruction(Op.JZ, 3),
            Instruction(Op.JMP, 0),
            Instruction(Op.CALL, 5),
            Instruction(Op.HALT),
            Instruction(Op.RET),
        ]
        assert disassemble(program) == (
            "L0:\n"
            "    push 1\n"
            "    jz L3\n"
            "    jmp L0\n"
            "L3:\n"
            "    call L5\n"
            "    halt\n"
            "L5:\n"
            "    ret\n"
        )

    def test_label_at_end_and_once_per_target(self):
        program = [Instruction(Op.JMP, 2), Instruction(Op.JNZ, 2)]
        assert disassemble(program) == "    jmp L2\n    jnz L2\nL2:\n"

    def test_empty(self):
        assert disassemble([]) == ""

    def test_invalid_target(self):
        with pytest.raises(ValueError):
            disassemble([Instruction(Op.JMP, 2)])
        with pytest.raises(ValueError):
            disassemble([Instruction(Op.CALL, -1)])

    @pytest.mark.parametrize("source", [FACTORIAL, GCD])
    def test_reassembles(self, source):
        program = assemble(source)
        assert assemble(disassemble(program)) == program
