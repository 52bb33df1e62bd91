"""The high-level interface: a stateful :class:`Calculator` and the one-shot :func:`calc`."""

from __future__ import annotations

from exprcalc.errors import CalcError
from exprcalc.evaluator import Evaluator, UserFunction
from exprcalc.functions import Value
from exprcalc.nodes import Assign, FuncDef
from exprcalc.parser import parse


class Calculator:
    """A calculator session that remembers variables and functions between statements.

    Args:
        variables: initial variables (copied).
        max_depth: passed to :class:`~exprcalc.evaluator.Evaluator`.
    """

    def __init__(self, variables: dict[str, Value] | None = None, *, max_depth: int = 100):
        self.evaluator = Evaluator(variables, max_depth=max_depth)

    @property
    def variables(self) -> dict[str, Value]:
        """The session's global variables (the evaluator's dict, not a copy)."""
        return self.evaluator.variables

    @property
    def functions(self) -> dict[str, UserFunction]:
        """The session's user-defined functions (not a copy)."""
        return self.evaluator.functions

    def execute(self, source: str) -> Value | None:
        """Parse and evaluate one statement and return its result.

        An expression returns its value, which is also stored in the variable
        ``ans`` (so ``"2 + 3"`` then ``"ans * 2"`` gives ``10``); an assignment
        returns the assigned value and a function definition returns ``None``,
        and neither changes ``ans``.  If evaluation fails nothing is stored in
        ``ans`` (but an assignment's value is only stored once it was computed).

        Raises :class:`~exprcalc.errors.ParseError` and the evaluation errors
        (all subclasses of :class:`~exprcalc.errors.CalcError`).
        """
        node = parse(source)
        result = self.evaluator.evaluate(node)
        if not isinstance(node, (Assign, FuncDef)):
            self.evaluator.variables["ans"] = result
        return result

    def run(self, script: str) -> list[Value | None]:
        """Execute a script line by line and return the list of results.

        Each line is one statement run with :meth:`execute`.  Lines that are empty,
        whitespace-only or comments (first non-blank character ``#``) are skipped
        and contribute no result; a trailing ``# comment`` on a statement line is
        ignored by the tokenizer.  Execution stops at the first error, which is
        re-raised after setting its ``line`` attribute to the 1-based line number;
        the effects of earlier lines are kept.
        """
        results: list[Value | None] = []
        for lineno, line in enumerate(script.splitlines(), start=1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            try:
                results.append(self.execute(line))
            except CalcError as err:
                err.line = lineno
                raise
        return results


def calc(source: str, **variables: Value) -> Value | None:
    """Evaluate one statement in a fresh :class:`Calculator` with the given variables.

    Example: ``calc("x ^ 2 + 1", x=3)`` -> ``10``.
    """
    return Calculator(variables).execute(source)
