import pytest

from stackvm import MAGIC, DecodeError, Instruction, Op, decode, encode

PROGRAM = [
    Instruction(Op.PUSH, 5),
    Instruction(Op.PUSH, -2),
    Instruction(Op.ADD),
    Instruction(Op.JZ, 6),
    Instruction(Op.STORE, 3),
    Instruction(Op.PRINT),
    Instruction(Op.HALT),
]
BYTES = (
    b"SVM1"
    b"\x01\x05\x00\x00\x00"
    b"\x01\xfe\xff\xff\xff"
    b"\x10"
    b"\x31\x06\x00\x00\x00"
    b"\x41\x03\x00\x00\x00"
    b"\x50"
    b"\x00"
)


class TestEncode:
    def test_layout(self):
        assert encode(PROGRAM) == BYTES

    def test_empty_program(self):
        assert encode([]) == MAGIC == b"SVM1"

    def test_extreme_operands(self):
        data = encode([Instruction(Op.PUSH, 2**31 - 1), Instruction(Op.PUSH, -(2**31))])
        assert data[4:] == b"\x01\xff\xff\xff\x7f\x01\x00\x00\x00\x80"

    @pytest.mark.parametrize(
        "ins",
        [
            Instruction(Op.PUSH),
            Instruction(Op.PUSH, 2**31),
            Instruction(Op.JMP, -(2**31) - 1),
            Instruction(Op.ADD, 1),
        ],
    )
    def test_invalid(self, ins):
        with pytest.raises(ValueError):
            encode([Instruction(Op.HALT), ins])


class TestDecode:
    def test_layout(self):
        assert decode(BYTES) == PROGRAM

    def test_empty_program(self):
        assert decode(b"SVM1") == []

    def test_accepts_bytearray(self):
        assert decode(bytearray(BYTES)) == PROGRAM

    def test_bad_header(self):
        with pytest.raises(DecodeError):
            decode(b"SVM2\x00")
        with pytest.raises(DecodeError):
            decode(b"")

    def test_unknown_opcode(self):
        with pytest.raises(DecodeError, match="offset 5"):
            decode(b"SVM1\x00\xee")

    def test_truncated_operand(self):
        with pytest.raises(DecodeError):
            decode(b"SVM1\x01\x05\x00\x00")

    def test_decode_error_is_value_error(self):
        assert issubclass(DecodeError, ValueError)


class TestRoundTrip:
    def test_every_opcode(self):
        program = [Instruction(op, 7 if op in (Op.PUSH, Op.JMP, Op.JZ, Op.JNZ, Op.CALL, Op.LOAD, Op.STORE) else None) for op in Op]
        assert decode(encode(program)) == program
