"""The virtual machine: an operand stack, call frames with locals, an output buffer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from stackvm.errors import (
    DivisionByZeroError,
    InvalidJumpError,
    StackOverflowError,
    StackUnderflowError,
    StepLimitError,
    VMError,
)
from stackvm.opcodes import (
    ARITH_OPS,
    COMPARE_OPS,
    CONTROL_OPS,
    MEMORY_OPS,
    NUM_LOCALS,
    STACK_OPS,
    Instruction,
    Op,
)


@dataclass
class Frame:
    """A call frame: where `ret` continues, and `NUM_LOCALS` local slots (all 0 at first).

    The main frame has ``return_address == -1``.
    """

    return_address: int
    locals: list[int] = field(default_factory=lambda: [0] * NUM_LOCALS)


class VM:
    """A stack machine running a list of `Instruction`.

    State: `program`, `pc` (index of the next instruction), `stack` (operand
    stack, top at the end, values are unbounded Python ints), `frames` (call
    frames, the current one last; starts with one main frame), `output` (values
    printed so far), `halted` and `steps` (instructions executed).

    `stack` initialises the operand stack (e.g. program inputs). The operand
    stack may hold at most `max_stack` values and at most `max_call_depth` calls
    may be active at once.

    Instruction semantics, where ``a`` is the value below the top and ``b`` the
    top of the stack (``b`` is popped first):

    * stack: ``push n``, ``pop``, ``dup`` (copy top), ``swap`` (exchange the two
      top values), ``over`` (push a copy of ``a``);
    * arithmetic (pop operands, push result): ``add`` a+b, ``sub`` a-b, ``mul``
      a*b, ``div`` a/b truncated toward zero, ``mod`` the remainder of that
      division (``a - b * (a div b)``, so it has the sign of ``a``), ``neg`` -b;
    * comparisons push 1 (true) or 0 (false): ``eq``, ``ne``, ``lt`` (a < b),
      ``le``, ``gt``, ``ge``; ``not`` pushes 1 if b == 0 else 0;
    * control: ``jmp t``; ``jz t`` / ``jnz t`` pop a value and jump if it is zero
      / non-zero; ``call t`` pushes a new frame returning to the next
      instruction and jumps; ``ret`` pops the frame and continues at its return
      address; ``halt`` stops;
    * memory: ``load i`` pushes local ``i`` of the current frame, ``store i``
      pops into it; ``print`` pops a value and appends it to `output`.
    """

    def __init__(
        self,
        program: Sequence[Instruction],
        *,
        stack: Iterable[int] = (),
        max_stack: int = 1024,
        max_call_depth: int = 256,
    ) -> None:
        self.program = list(program)
        self.pc = 0
        self.stack: list[int] = list(stack)
        self.frames: list[Frame] = [Frame(-1)]
        self.output: list[int] = []
        self.halted = False
        self.steps = 0
        self.max_stack = max_stack
        self.max_call_depth = max_call_depth

    # ------------------------------------------------------------------ helpers

    def _need(self, n: int, op: Op) -> None:
        if len(self.stack) < n:
            raise StackUnderflowError(
                f"{op.name.lower()} needs {n} value(s), stack has {len(self.stack)}"
            )

    def _push(self, value: int) -> None:
        if len(self.stack) >= self.max_stack:
            raise StackOverflowError(f"operand stack overflow (limit {self.max_stack})")
        self.stack.append(value)

    # ------------------------------------------------------------------ handlers

    def exec_stack(self, ins: Instruction) -> None:
        """Execute a stack instruction: ``push``, ``pop``, ``dup``, ``swap``, ``over``.

        Does not touch `pc`.

        Raises:
            StackUnderflowError: if the stack holds too few values (``pop`` and
                ``dup`` need 1, ``swap`` and ``over`` need 2); the stack is left
                unchanged.
            StackOverflowError: if a push would exceed `max_stack` values.
            ValueError: if `ins` is not a stack instruction.
        """
        op = ins.op
        if op not in STACK_OPS:
            raise ValueError(f"not a stack instruction: {op.name}")
        if op is Op.PUSH:
            self._push(int(ins.arg))  # type: ignore[arg-type]
        elif op is Op.POP:
            self._need(1, op)
            self.stack.pop()
        elif op is Op.DUP:
            self._need(1, op)
            self._push(self.stack[-1])
        elif op is Op.SWAP:
            self._need(2, op)
            self.stack[-1], self.stack[-2] = self.stack[-2], self.stack[-1]
        else:  # OVER
            self._need(2, op)
            self._push(self.stack[-2])

    def exec_arith(self, ins: Instruction) -> None:
        """Execute ``add``, ``sub``, ``mul``, ``div``, ``mod`` or ``neg`` (see `VM`).

        Binary operations pop ``b`` then ``a`` and push the result; ``neg`` pops
        one value. ``div`` truncates toward zero (``-7 div 2`` is -3) and ``mod``
        has the sign of the dividend (``-7 mod 2`` is -1). Does not touch `pc`.

        Raises:
            StackUnderflowError: if the stack holds too few values (it is then
                left unchanged).
            DivisionByZeroError: for ``div`` or ``mod`` with ``b == 0``.
            ValueError: if `ins` is not an arithmetic instruction.
        """
        op = ins.op
        if op not in ARITH_OPS:
            raise ValueError(f"not an arithmetic instruction: {op.name}")
        if op is Op.NEG:
            self._need(1, op)
            self.stack.append(-self.stack.pop())
            return
        self._need(2, op)
        b = self.stack[-1]
        a = self.stack[-2]
        if op in (Op.DIV, Op.MOD) and b == 0:
            raise DivisionByZeroError(f"{op.name.lower()} by zero")
        del self.stack[-2:]
        if op is Op.ADD:
            result = a + b
        elif op is Op.SUB:
            result = a - b
        elif op is Op.MUL:
            result = a * b
        else:
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            result = q if op is Op.DIV else a - b * q
        self.stack.append(result)

    def exec_compare(self, ins: Instruction) -> None:
        """Execute ``eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge`` or ``not``.

        Comparisons pop ``b`` then ``a`` and push 1 if ``a <op> b`` holds, else 0.
        ``not`` pops one value and pushes 1 if it is 0, else 0. Does not touch
        `pc`.

        Raises:
            StackUnderflowError: if the stack holds too few values (it is then
                left unchanged).
            ValueError: if `ins` is not a comparison instruction.
        """
        op = ins.op
        if op not in COMPARE_OPS:
            raise ValueError(f"not a comparison instruction: {op.name}")
        if op is Op.NOT:
            self._need(1, op)
            self.stack.append(1 if self.stack.pop() == 0 else 0)
            return
        self._need(2, op)
        b = self.stack.pop()
        a = self.stack.pop()
        result = {
            Op.EQ: a == b,
            Op.NE: a != b,
            Op.LT: a < b,
            Op.LE: a <= b,
            Op.GT: a > b,
            Op.GE: a >= b,
        }[op]
        self.stack.append(1 if result else 0)

    def exec_control(self, ins: Instruction) -> None:
        """Execute ``jmp``, ``jz``, ``jnz``, ``call``, ``ret`` or ``halt``.

        Called with `pc` already pointing at the next instruction (as `step`
        does), so a jump not taken leaves `pc` alone. A taken jump or a call sets
        `pc` to the target ``ins.arg``; ``call`` first appends a `Frame` whose
        return address is the current `pc`. ``ret`` removes the current frame and
        sets `pc` to its return address. ``halt`` sets `halted`.

        Raises:
            InvalidJumpError: if a taken jump or a call targets an index outside
                ``0 .. len(program)`` (``len(program)`` itself is allowed: it ends
                the program).
            StackUnderflowError: if ``jz``/``jnz`` find an empty stack.
            StackOverflowError: if ``call`` would make more than
                `max_call_depth` calls active.
            VMError: for ``ret`` in the main frame (no call is active).
            ValueError: if `ins` is not a control instruction.
        """
        op = ins.op
        if op not in CONTROL_OPS:
            raise ValueError(f"not a control instruction: {op.name}")
        if op is Op.HALT:
            self.halted = True
            return
        if op is Op.RET:
            if len(self.frames) == 1:
                raise VMError("ret without an active call")
            self.pc = self.frames.pop().return_address
            return
        if op in (Op.JZ, Op.JNZ):
            self._need(1, op)
            value = self.stack.pop()
            if (value == 0) != (op is Op.JZ):
                return
        target = ins.arg
        if target is None or not 0 <= target <= len(self.program):
            raise InvalidJumpError(f"{op.name.lower()} to invalid address {target!r}")
        if op is Op.CALL:
            if len(self.frames) - 1 >= self.max_call_depth:
                raise StackOverflowError(f"call stack overflow (limit {self.max_call_depth})")
            self.frames.append(Frame(self.pc))
        self.pc = target

    def exec_memory(self, ins: Instruction) -> None:
        """Execute ``load i``, ``store i`` or ``print`` (see `VM`).

        Locals belong to the current (last) frame. Does not touch `pc`.

        Raises:
            VMError: if the local index is outside ``0 .. NUM_LOCALS - 1``.
            StackUnderflowError: if ``store`` or ``print`` find an empty stack.
            StackOverflowError: if ``load`` would exceed `max_stack` values.
            ValueError: if `ins` is not a memory instruction.
        """
        op = ins.op
        if op not in MEMORY_OPS:
            raise ValueError(f"not a memory instruction: {op.name}")
        if op is Op.PRINT:
            self._need(1, op)
            self.output.append(self.stack.pop())
            return
        index = ins.arg
        if index is None or not 0 <= index < NUM_LOCALS:
            raise VMError(f"invalid local index {index!r}")
        slots = self.frames[-1].locals
        if op is Op.LOAD:
            self._push(slots[index])
        else:
            self._need(1, op)
            slots[index] = self.stack.pop()

    # ------------------------------------------------------------------ loop

    def step(self) -> bool:
        """Execute one instruction; return True while the VM can go on.

        If the VM is halted, nothing happens and False is returned. If `pc` equals
        ``len(program)`` the program has ended: `halted` is set and False is
        returned (this does not count as a step). Otherwise the instruction at
        `pc` is fetched, `pc` is advanced by one, `steps` is incremented, and the
        instruction is dispatched by group to `exec_stack`, `exec_arith`,
        `exec_compare`, `exec_control` or `exec_memory`. Returns ``not halted``.

        Raises:
            InvalidJumpError: if `pc` is outside ``0 .. len(program)``.
            VMError: any error of the handler; its `pc` attribute is set to the
                index of the failing instruction before it propagates.
        """
        if self.halted:
            return False
        if self.pc == len(self.program):
            self.halted = True
            return False
        if not 0 <= self.pc < len(self.program):
            raise InvalidJumpError("program counter out of range", self.pc)
        index = self.pc
        ins = self.program[index]
        self.pc += 1
        self.steps += 1
        op = ins.op
        try:
            if op in STACK_OPS:
                self.exec_stack(ins)
            elif op in ARITH_OPS:
                self.exec_arith(ins)
            elif op in COMPARE_OPS:
                self.exec_compare(ins)
            elif op in CONTROL_OPS:
                self.exec_control(ins)
            else:
                self.exec_memory(ins)
        except VMError as err:
            err.pc = index
            raise
        return not self.halted

    def run(self, max_steps: int = 100_000) -> list[int]:
        """Run until the program halts and return `output`.

        The program halts on ``halt`` or when `pc` reaches ``len(program)``.
        At most `max_steps` instructions are executed by this call.

        Raises:
            StepLimitError: if the program has not halted after `max_steps`
                instructions (a program that halts by running off its end right
                after the last allowed instruction is fine).
            VMError: any runtime error from `step`.
        """
        executed = 0
        while not self.halted:
            if self.pc == len(self.program):
                self.halted = True
                break
            if executed >= max_steps:
                raise StepLimitError(f"no halt after {max_steps} steps", self.pc)
            self.step()
            executed += 1
        return self.output
