import pytest

from stackvm import (
    NUM_LOCALS,
    VM,
    DivisionByZeroError,
    Frame,
    Instruction,
    InvalidJumpError,
    Op,
    StackOverflowError,
    StackUnderflowError,
    StepLimitError,
    VMError,
)

I = Instruction


def vm_with(stack=(), program=(), **kwargs):
    return VM(list(program) or [I(Op.HALT)] * 10, stack=stack, **kwargs)


class TestExecStack:
    def test_push_pop(self):
        vm = vm_with([1])
        vm.exec_stack(I(Op.PUSH, 7))
        assert vm.stack == [1, 7]
        vm.exec_stack(I(Op.POP))
        assert vm.stack == [1]

    def test_dup_swap_over(self):
        vm = vm_with([1, 2])
        vm.exec_stack(I(Op.DUP))
        assert vm.stack == [1, 2, 2]
        vm.exec_stack(I(Op.SWAP))
        assert vm.stack == [1, 2, 2]
        vm = vm_with([1, 2])
        vm.exec_stack(I(Op.SWAP))
        assert vm.stack == [2, 1]
        vm.exec_stack(I(Op.OVER))
        assert vm.stack == [2, 1, 2]

    @pytest.mark.parametrize("op, stack", [(Op.POP, []), (Op.DUP, []), (Op.SWAP, [1]), (Op.OVER, [1])])
    def test_underflow_leaves_stack(self, op, stack):
        vm = vm_with(stack)
        with pytest.raises(StackUnderflowError):
            vm.exec_stack(I(op))
        assert vm.stack == stack

    def test_overflow(self):
        vm = vm_with([0, 0], max_stack=3)
        vm.exec_stack(I(Op.PUSH, 1))
        with pytest.raises(StackOverflowError):
            vm.exec_stack(I(Op.DUP))

    def test_pc_untouched_and_wrong_group(self):
        vm = vm_with()
        vm.exec_stack(I(Op.PUSH, 1))
        assert vm.pc == 0
        with pytest.raises(ValueError):
            vm.exec_stack(I(Op.ADD))


class TestExecArith:
    @pytest.mark.parametrize(
        "op, a, b, result",
        [
            (Op.ADD, 2, 3, 5),
            (Op.SUB, 2, 3, -1),
            (Op.MUL, -4, 3, -12),
            (Op.DIV, 7, 2, 3),
            (Op.DIV, -7, 2, -3),
            (Op.DIV, 7, -2, -3),
            (Op.DIV, -7, -2, 3),
            (Op.MOD, 7, 3, 1),
            (Op.MOD, -7, 2, -1),
            (Op.MOD, 7, -2, 1),
            (Op.MUL, 2**40, 2**40, 2**80),
        ],
    )
    def test_binary(self, op, a, b, result):
        vm = vm_with([9, a, b])
        vm.exec_arith(I(op))
        assert vm.stack == [9, result]

    def test_neg(self):
        vm = vm_with([1, 5])
        vm.exec_arith(I(Op.NEG))
        assert vm.stack == [1, -5]

    def test_division_by_zero(self):
        for op in (Op.DIV, Op.MOD):
            vm = vm_with([4, 0])
            with pytest.raises(DivisionByZeroError):
                vm.exec_arith(I(op))
            assert issubclass(DivisionByZeroError, VMError)

    def test_underflow_leaves_stack(self):
        vm = vm_with([4])
        with pytest.raises(StackUnderflowError):
            vm.exec_arith(I(Op.ADD))
        assert vm.stack == [4]
        with pytest.raises(StackUnderflowError):
            vm_with([]).exec_arith(I(Op.NEG))

    def test_wrong_group(self):
        with pytest.raises(ValueError):
            vm_with([1, 2]).exec_arith(I(Op.EQ))


class TestExecCompare:
    @pytest.mark.parametrize(
        "op, a, b, result",
        [
            (Op.EQ, 3, 3, 1),
            (Op.EQ, 3, 4, 0),
            (Op.NE, 3, 4, 1),
            (Op.LT, 3, 4, 1),
            (Op.LT, 4, 3, 0),
            (Op.LE, 4, 4, 1),
            (Op.GT, 4, 3, 1),
            (Op.GT, 3, 3, 0),
            (Op.GE, 3, 3, 1),
            (Op.GE, 2, 3, 0),
        ],
    )
    def test_binary(self, op, a, b, result):
        vm = vm_with([a, b])
        vm.exec_compare(I(op))
        assert vm.stack == [result]

    def test_not(self):
        for value, result in ((0, 1), (1, 0), (-5, 0)):
            vm = vm_with([value])
            vm.exec_compare(I(Op.NOT))
            assert vm.stack == [result]

    def test_underflow_leaves_stack(self):
        vm = vm_with([1])
        with pytest.raises(StackUnderflowError):
            vm.exec_compare(I(Op.LT))
        assert vm.stack == [1]

    def test_wrong_group(self):
        with pytest.raises(ValueError):
            vm_with([1, 2]).exec_compare(I(Op.ADD))


class TestExecControl:
    def test_jmp(self):
        vm = vm_with()
        vm.pc = 3
        vm.exec_control(I(Op.JMP, 7))
        assert vm.pc == 7

    def test_conditional_jumps(self):
        vm = vm_with([5, 0])
        vm.pc = 1
        vm.exec_control(I(Op.JZ, 8))
        assert (vm.pc, vm.stack) == (8, [5])
        vm.exec_control(I(Op.JZ, 2))
        assert (vm.pc, vm.stack) == (8, [])
        vm = vm_with([0, 5])
        vm.exec_control(I(Op.JNZ, 4))
        assert vm.pc == 4
        vm.exec_control(I(Op.JNZ, 9))
        assert (vm.pc, vm.stack) == (4, [])

    def test_call_and_ret(self):
        vm = vm_with()
        vm.pc = 3
        vm.exec_control(I(Op.CALL, 6))
        assert vm.pc == 6
        assert len(vm.frames) == 2
        assert vm.frames[-1].return_address == 3
        assert vm.frames[-1].locals == [0] * NUM_LOCALS
        vm.pc = 9
        vm.exec_control(I(Op.RET))
        assert vm.pc == 3
        assert len(vm.frames) == 1

    def test_halt(self):
        vm = vm_with()
        vm.exec_control(I(Op.HALT))
        assert vm.halted

    def test_invalid_targets(self):
        vm = vm_with(program=[I(Op.HALT)] * 4)
        vm.exec_control(I(Op.JMP, 4))  # one past the end is allowed
        assert vm.pc == 4
        for ins in (I(Op.JMP, 5), I(Op.CALL, -1)):
            with pytest.raises(InvalidJumpError):
                vm.exec_control(ins)
        vm = vm_with([1], program=[I(Op.HALT)] * 4)
        with pytest.raises(InvalidJumpError):
            vm.exec_control(I(Op.JNZ, 99))

    def test_not_taken_jump_is_not_checked(self):
        vm = vm_with([1], program=[I(Op.HALT)] * 4)
        vm.exec_control(I(Op.JZ, 99))
        assert vm.pc == 0

    def test_ret_without_call(self):
        with pytest.raises(VMError):
            vm_with().exec_control(I(Op.RET))

    def test_call_depth_limit(self):
        vm = vm_with(max_call_depth=2)
        vm.exec_control(I(Op.CALL, 0))
        vm.exec_control(I(Op.CALL, 0))
        with pytest.raises(StackOverflowError):
            vm.exec_control(I(Op.CALL, 0))

    def test_jz_underflow(self):
        with pytest.raises(StackUnderflowError):
            vm_with().exec_control(I(Op.JZ, 0))

    def test_wrong_group(self):
        with pytest.raises(ValueError):
            vm_with().exec_control(I(Op.PRINT))


class TestExecMemory:
    def test_store_and_load(self):
        vm = vm_with([42])
        vm.exec_memory(I(Op.STORE, 3))
        assert vm.stack == []
        assert vm.frames[0].locals[3] == 42
        vm.exec_memory(I(Op.LOAD, 3))
        vm.exec_memory(I(Op.LOAD, 0))
        assert vm.stack == [42, 0]

    def test_locals_belong_to_current_frame(self):
        vm = vm_with([7])
        vm.frames.append(Frame(0))
        vm.exec_memory(I(Op.STORE, 1))
        assert vm.frames[-1].locals[1] == 7
        assert vm.frames[0].locals[1] == 0

    def test_print(self):
        vm = vm_with([1, 2])
        vm.exec_memory(I(Op.PRINT))
        vm.exec_memory(I(Op.PRINT))
        assert vm.output == [2, 1]
        assert vm.stack == []

    def test_errors(self):
        with pytest.raises(StackUnderflowError):
            vm_with().exec_memory(I(Op.PRINT))
        with pytest.raises(StackUnderflowError):
            vm_with().exec_memory(I(Op.STORE, 0))
        with pytest.raises(VMError):
            vm_with().exec_memory(I(Op.LOAD, NUM_LOCALS))
        with pytest.raises(ValueError):
            vm_with().exec_memory(I(Op.POP))


class TestStep:
    def test_executes_one_instruction(self):
        vm = VM([I(Op.PUSH, 2), I(Op.PUSH, 3), I(Op.ADD), I(Op.PRINT)])
        assert vm.step() is True
        assert (vm.pc, vm.steps, vm.stack) == (1, 1, [2])
        vm.step()
        vm.step()
        assert vm.stack == [5]
        vm.step()
        assert vm.output == [5]
        assert vm.step() is False
        assert vm.halted
        assert vm.steps == 4

    def test_dispatches_every_group(self):
        program = [I(Op.PUSH, 1), I(Op.NOT), I(Op.STORE, 0), I(Op.LOAD, 0), I(Op.NEG), I(Op.JMP, 6), I(Op.HALT)]
        vm = VM(program)
        for _ in range(6):
            vm.step()
        assert vm.stack == [0]
        assert vm.pc == 6

    def test_halt_returns_false(self):
        vm = VM([I(Op.HALT), I(Op.PUSH, 1)])
        assert vm.step() is False
        assert vm.halted
        assert vm.step() is False
        assert vm.stack == []
        assert vm.steps == 1

    def test_error_records_pc(self):
        vm = VM([I(Op.PUSH, 1), I(Op.ADD)])
        vm.step()
        with pytest.raises(StackUnderflowError) as info:
            vm.step()
        assert info.value.pc == 1
        assert "at pc 1" in str(info.value)

    def test_pc_out_of_range(self):
        vm = VM([I(Op.HALT)])
        vm.pc = 5
        with pytest.raises(InvalidJumpError):
            vm.step()

    def test_initial_stack(self):
        vm = VM([I(Op.ADD)], stack=[20, 22])
        vm.step()
        assert vm.stack == [42]


class TestRun:
    def test_runs_to_halt(self):
        vm = VM([I(Op.PUSH, 6), I(Op.PUSH, 7), I(Op.MUL), I(Op.PRINT), I(Op.HALT), I(Op.PUSH, 1)])
        assert vm.run() == [42]
        assert vm.halted
        assert vm.steps == 5
        assert vm.stack == []

    def test_runs_off_the_end(self):
        vm = VM([I(Op.PUSH, 1), I(Op.PRINT)])
        assert vm.run() == [1]
        assert vm.halted

    def test_empty_program(self):
        assert VM([]).run() == []

    def test_step_limit(self):
        vm = VM([I(Op.JMP, 0)])
        with pytest.raises(StepLimitError):
            vm.run(max_steps=50)
        assert vm.steps == 50

    def test_exact_step_budget_is_enough(self):
        program = [I(Op.PUSH, 1), I(Op.PRINT), I(Op.PUSH, 2), I(Op.PRINT)]
        assert VM(program).run(max_steps=4) == [1, 2]
        assert VM(program + [I(Op.HALT)]).run(max_steps=5) == [1, 2]
        with pytest.raises(StepLimitError):
            VM(program).run(max_steps=3)

    def test_runtime_errors_propagate(self):
        with pytest.raises(DivisionByZeroError) as info:
            VM([I(Op.PUSH, 1), I(Op.PUSH, 0), I(Op.DIV)]).run()
        assert info.value.pc == 2
        with pytest.raises(StackUnderflowError):
            VM([I(Op.POP)]).run()

    def test_call_and_return(self):
        program = [I(Op.PUSH, 4), I(Op.CALL, 4), I(Op.PRINT), I(Op.HALT), I(Op.DUP), I(Op.MUL), I(Op.RET)]
        assert VM(program).run() == [16]

    def test_runaway_recursion(self):
        with pytest.raises(StackOverflowError):
            VM([I(Op.CALL, 0)]).run()
