"""Sample programs and helpers that run source or bytecode end to end."""

from __future__ import annotations

from collections.abc import Iterable

from stackvm.assembler import assemble
from stackvm.encoder import decode
from stackvm.vm import VM

FACTORIAL = """\
; factorial: prints n! for the n on top of the stack (recursive)
        call fact
        print
        halt
fact:                   ; ( n -- n! )
        dup
        push 1
        le
        jz recurse      ; n > 1
        pop
        push 1
        ret
recurse:
        dup
        push 1
        sub
        call fact       ; n (n-1)!
        mul
        ret
"""

FIBONACCI = """\
; fibonacci: prints the first n Fibonacci numbers 0 1 1 2 3 5 ...
        store 0         ; remaining count
        push 0
        store 1         ; a
        push 1
        store 2         ; b
loop:
        load 0
        jz done
        load 1
        print
        load 1
        load 2
        add             ; a + b
        load 2
        store 1         ; a = b
        store 2         ; b = a + b
        load 0
        push 1
        sub
        store 0
        jmp loop
done:
        halt
"""

GCD = """\
; gcd: prints gcd(a, b) for a and b on the stack (b on top), Euclid's algorithm
loop:
        dup             ; a b b
        jz done
        swap            ; b a
        over            ; b a b
        mod             ; b (a mod b)
        jmp loop
done:
        pop
        print
        halt
"""

PRIMES = """\
# primes: prints every prime p with 2 <= p < n, by trial division
        store 0          ; limit n
        push 2
        store 1          ; candidate p
outer:
        load 1
        load 0
        lt
        jz end
        push 2
        store 2          ; divisor d
inner:
        load 2
        load 2
        mul
        load 1
        gt               ; d * d > p ?
        jnz is_prime
        load 1
        load 2
        mod
        jz next          ; d divides p
        load 2
        push 1
        add
        store 2
        jmp inner
is_prime:
        load 1
        print
next:
        load 1
        push 1
        add
        store 1
        jmp outer
end:
        halt
"""


def run_source(source: str, inputs: Iterable[int] = (), max_steps: int = 100_000) -> list[int]:
    """Assemble `source`, run it and return the printed values.

    The program is assembled with `assemble` and run on a new `VM` whose operand
    stack starts as `inputs` (the last input on top), with `VM.run(max_steps)`.

    Raises:
        AssemblerError: if the source does not assemble.
        VMError: for runtime errors, including `StepLimitError`.

    >>> run_source(FACTORIAL, [5])
    [120]
    """
    return VM(assemble(source), stack=inputs).run(max_steps)


def run_bytecode(data: bytes, inputs: Iterable[int] = (), max_steps: int = 100_000) -> list[int]:
    """Decode bytecode (see `stackvm.encoder`), run it and return the printed values.

    Like `run_source`, but the program is read with `decode`.

    Raises:
        DecodeError: if the bytecode is malformed.
        VMError: for runtime errors, including `StepLimitError`.
    """
    return VM(decode(data), stack=inputs).run(max_steps)
