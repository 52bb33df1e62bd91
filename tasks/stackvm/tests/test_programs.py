import pytest

from stackvm import (
    FACTORIAL,
    FIBONACCI,
    GCD,
    PRIMES,
    AssemblerError,
    DecodeError,
    StepLimitError,
    assemble,
    encode,
    run_bytecode,
    run_source,
)


class TestRunSource:
    @pytest.mark.parametrize("n, expected", [(0, 1), (1, 1), (5, 120), (10, 3628800), (20, 2432902008176640000)])
    def test_factorial(self, n, expected):
        assert run_source(FACTORIAL, [n]) == [expected]

    def test_fibonacci(self):
        assert run_source(FIBONACCI, [10]) == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]
        assert run_source(FIBONACCI, [0]) == []
        assert run_source(FIBONACCI, [60])[-1] == 956722026041

    @pytest.mark.parametrize("a, b, expected", [(48, 18, 6), (18, 48, 6), (17, 5, 1), (7, 0, 7), (1071, 462, 21)])
    def test_gcd(self, a, b, expected):
        assert run_source(GCD, [a, b]) == [expected]

    def test_primes(self):
        assert run_source(PRIMES, [30]) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
        assert len(run_source(PRIMES, [200])) == 46

    def test_small_programs(self):
        assert run_source("push 2\npush 3\nadd\nprint") == [5]
        assert run_source("push 'H'\nprint\npush 'i'\nprint\nhalt") == [72, 105]

    def test_step_limit(self):
        with pytest.raises(StepLimitError):
            run_source("loop: jmp loop", max_steps=1000)
        with pytest.raises(StepLimitError):
            run_source(FACTORIAL, [10], max_steps=20)

    def test_assembler_errors(self):
        with pytest.raises(AssemblerError) as info:
            run_source("push 1\nprnt\n")
        assert info.value.line == 2


class TestRunBytecode:
    def test_sample_programs(self):
        assert run_bytecode(encode(assemble(FACTORIAL)), [6]) == [720]
        assert run_bytecode(encode(assemble(GCD)), [84, 36]) == [12]
        assert run_bytecode(encode(assemble(FIBONACCI)), [5]) == [0, 1, 1, 2, 3]

    def test_hand_written_bytecode(self):
        data = b"SVM1" + b"\x01\x02\x00\x00\x00" + b"\x01\x03\x00\x00\x00" + b"\x12" + b"\x50"
        assert run_bytecode(data) == [6]

    def test_step_limit_and_decode_errors(self):
        with pytest.raises(StepLimitError):
            run_bytecode(b"SVM1\x30\x00\x00\x00\x00", max_steps=10)
        with pytest.raises(DecodeError):
            run_bytecode(b"XXXX")
