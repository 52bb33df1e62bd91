"""The evaluator: special forms, procedure calls and proper tail calls.

``evaluate(expr, env)`` evaluates one expression (a Lisp datum, as produced by
the reader):

* a symbol is looked up in `env`;
* ``()`` is an error; every other non-pair (number, string, boolean, ...)
  evaluates to itself;
* a pair whose car is a symbol naming a *special form* (a key of
  :data:`SPECIAL_FORMS`) is handed to that form's handler (special-form names are
  recognised whatever the environment binds them to);
* otherwise the operator is evaluated: a macro (any
  :class:`~lispy.procedures.MacroBase`) is expanded and the expansion evaluated
  in its place; anything else is a procedure call: the arguments are evaluated
  left to right and the procedure applied.

Special-form handlers have the signature ``handler(args, env)`` where ``args`` is
the Lisp list of the form's operands (the cdr of the form, unevaluated).  A handler
either returns the form's value or returns a :class:`TailCall` meaning "the value
is that of evaluating ``expr`` in ``env``"; ``evaluate`` then continues with it in
its own loop instead of recursing.  Together with closure bodies being continued the
same way, this makes tail calls run in constant Python stack space, so a loop
written as a tail-recursive procedure can run for any number of iterations.

Malformed special forms raise :class:`~lispy.errors.LispSyntaxError` with message
``"<form>: bad syntax"`` unless a handler documents another message.
"""

from __future__ import annotations

from collections.abc import Callable

from lispy.builtins.equality import is_eqv
from lispy.datatypes import NIL, UNASSIGNED, VOID, Pair, Symbol
from lispy.environment import Environment
from lispy.errors import LispSyntaxError, LispTypeError
from lispy.printer import to_string
from lispy.procedures import MacroBase, Procedure, parse_params

ELSE = Symbol("else")
ARROW = Symbol("=>")


class TailCall:
    """Returned by a special-form handler: continue by evaluating `expr` in `env`."""

    __slots__ = ("expr", "env")

    def __init__(self, expr: object, env: Environment):
        self.expr = expr
        self.env = env

    def __repr__(self) -> str:
        return f"TailCall({self.expr!r})"


#: Special-form name → handler.  Layer-5 modules (quasiquote, macros, conditions)
#: add their own forms to this table when they are imported.
SPECIAL_FORMS: dict[Symbol, Callable[[object, Environment], object]] = {}


def _forms(args: object, who: str) -> list:
    """The elements of the proper list `args`, or LispSyntaxError "<who>: bad syntax"."""
    items = []
    while isinstance(args, Pair):
        items.append(args.car)
        args = args.cdr
    if args is not NIL:
        raise LispSyntaxError(f"{who}: bad syntax")
    return items


def _sequence(forms: list, env: Environment) -> object:
    """Evaluate all but the last of `forms`; the last becomes a TailCall (VOID if none)."""
    if not forms:
        return VOID
    for form in forms[:-1]:
        evaluate(form, env)
    return TailCall(forms[-1], env)


def evaluate(expr: object, env: Environment) -> object:
    """Evaluate the expression `expr` in `env` and return its value.

    Rules (see the module docstring for the overall model):

    * :class:`~lispy.datatypes.Symbol` → ``env.lookup(expr)``;
    * ``NIL`` → :class:`~lispy.errors.LispSyntaxError` ``"empty combination ()"``;
    * any other non-pair → itself;
    * a pair whose car is a key of :data:`SPECIAL_FORMS` → call the handler with
      ``(expr.cdr, env)``; if it returns a :class:`TailCall`, continue the loop
      with its ``expr`` and ``env``, else return the result;
    * otherwise evaluate the car.  If it is a
      :class:`~lispy.procedures.MacroBase`, replace `expr` by
      ``macro.expand(expr, env)`` and continue (the operands are *not*
      evaluated).  Otherwise evaluate the operands left to right (an improper
      operand list raises LispSyntaxError
      ``"bad procedure call: improper argument list"``) and apply:

      - a :class:`~lispy.procedures.Procedure`: make the call frame with
        ``proc.env.extend(proc.params, proc.rest, args, proc.name)``, evaluate
        the body forms except the last in it, then continue the loop with the
        last body form in that frame (a proper tail call: no Python recursion);
      - any other Python callable (including :class:`~lispy.procedures.Builtin`):
        return ``proc(*args)``;
      - anything else: :class:`~lispy.errors.LispTypeError`
        ``"not a procedure: <written form of the value>"``, raised after the
        operands were evaluated.

    Evaluating nested non-tail subexpressions (operands, tests) may recurse in
    Python; only tail positions must run in constant stack space.
    """
    while True:
        if isinstance(expr, Symbol):
            return env.lookup(expr)
        if not isinstance(expr, Pair):
            if expr is NIL:
                raise LispSyntaxError("empty combination ()")
            return expr
        head = expr.car
        if isinstance(head, Symbol):
            handler = SPECIAL_FORMS.get(head)
            if handler is not None:
                result = handler(expr.cdr, env)
                if isinstance(result, TailCall):
                    expr, env = result.expr, result.env
                    continue
                return result
        proc = evaluate(head, env)
        if isinstance(proc, MacroBase):
            expr = proc.expand(expr, env)
            continue
        args = []
        rest = expr.cdr
        while isinstance(rest, Pair):
            args.append(evaluate(rest.car, env))
            rest = rest.cdr
        if rest is not NIL:
            raise LispSyntaxError("bad procedure call: improper argument list")
        if isinstance(proc, Procedure):
            env = proc.env.extend(proc.params, proc.rest, args, proc.name)
            body = proc.body
            for form in body[:-1]:
                evaluate(form, env)
            expr = body[-1]
            continue
        if callable(proc):
            return proc(*args)
        raise LispTypeError(f"not a procedure: {to_string(proc)}")


def apply_procedure(proc: object, args: list) -> object:
    """Call the Lisp procedure `proc` with the already evaluated `args` (a Python list).

    Used by builtins such as ``map`` and ``apply`` that call back into Lisp.  A
    :class:`~lispy.procedures.Procedure` gets a call frame exactly as in
    :func:`evaluate` (so arity errors are the same) and its body forms are
    evaluated in order; the value of the last is returned.  Any other Python
    callable (a :class:`~lispy.procedures.Builtin` included) is called as
    ``proc(*args)``.  Anything else, including macros, raises
    :class:`~lispy.errors.LispTypeError` ``"not a procedure: <written form>"``.
    """
    if isinstance(proc, Procedure):
        env = proc.env.extend(proc.params, proc.rest, args, proc.name)
        result: object = VOID
        for form in proc.body:
            result = evaluate(form, env)
        return result
    if callable(proc) and not isinstance(proc, MacroBase):
        return proc(*args)
    raise LispTypeError(f"not a procedure: {to_string(proc)}")


# ----------------------------------------------------------------- special forms


def sf_quote(args: object, env: Environment) -> object:
    """``(quote datum)``: return `datum` unevaluated (the very same object).

    LispSyntaxError ``"quote: bad syntax"`` unless there is exactly one operand.
    """
    items = _forms(args, "quote")
    if len(items) != 1:
        raise LispSyntaxError("quote: bad syntax")
    return items[0]


def sf_if(args: object, env: Environment) -> object:
    """``(if test consequent [alternative])``.

    Evaluates `test`; if its value is anything but ``#f`` the consequent is
    evaluated, otherwise the alternative (VOID when there is none).  The chosen
    branch is in tail position (return a TailCall).  LispSyntaxError
    ``"if: bad syntax"`` unless there are 2 or 3 operands.
    """
    items = _forms(args, "if")
    if len(items) not in (2, 3):
        raise LispSyntaxError("if: bad syntax")
    if evaluate(items[0], env) is not False:
        return TailCall(items[1], env)
    if len(items) == 3:
        return TailCall(items[2], env)
    return VOID


def sf_define(args: object, env: Environment) -> object:
    """``(define name expr)`` or ``(define (name . params) body ...)``; returns VOID.

    * ``(define name expr)``: evaluate `expr` in `env` and bind `name` in *the
      current frame* (``env.define``).  If the value is a
      :class:`~lispy.procedures.Procedure` whose ``name`` is None, its name is set
      to the symbol's name (so ``(define f (lambda (x) x))`` prints as
      ``#<procedure f>``).
    * ``(define (name . params) body ...)``: shorthand for binding `name` to a
      procedure named `name` with those parameters (parsed with
      :func:`~lispy.procedures.parse_params`, so ``(define (f . args) ...)`` and
      ``(define (f a . rest) ...)`` work) and that body, closed over `env`.

    LispSyntaxError ``"define: bad syntax"`` when the target is neither a symbol
    nor a pair whose car is a symbol, when the first form does not have exactly
    one expression, or when the procedure form has an empty body.
    """
    items = _forms(args, "define")
    if not items:
        raise LispSyntaxError("define: bad syntax")
    target = items[0]
    if isinstance(target, Symbol):
        if len(items) != 2:
            raise LispSyntaxError("define: bad syntax")
        value = evaluate(items[1], env)
        if isinstance(value, Procedure) and value.name is None:
            value.name = target.name
        env.define(target, value)
        return VOID
    if isinstance(target, Pair) and isinstance(target.car, Symbol):
        body = items[1:]
        if not body:
            raise LispSyntaxError("define: bad syntax")
        params, rest = parse_params(target.cdr)
        env.define(target.car, Procedure(params, rest, body, env, target.car.name))
        return VOID
    raise LispSyntaxError("define: bad syntax")


def sf_set(args: object, env: Environment) -> object:
    """``(set! name expr)``: assign the nearest existing binding of `name`; returns VOID.

    Uses ``env.assign`` so assigning an unbound name raises
    :class:`~lispy.errors.UnboundVariable`.  LispSyntaxError ``"set!: bad
    syntax"`` unless there are exactly two operands and the first is a symbol.
    """
    items = _forms(args, "set!")
    if len(items) != 2 or not isinstance(items[0], Symbol):
        raise LispSyntaxError("set!: bad syntax")
    env.assign(items[0], evaluate(items[1], env))
    return VOID


def sf_lambda(args: object, env: Environment) -> object:
    """``(lambda params body ...)``: return a new anonymous Procedure closed over `env`.

    `params` is parsed with :func:`~lispy.procedures.parse_params` (its
    LispSyntaxError propagates); the body is the Python list of the remaining
    forms.  LispSyntaxError ``"lambda: bad syntax"`` if the parameter list or the
    body is missing (at least one body form is required).
    """
    items = _forms(args, "lambda")
    if len(items) < 2:
        raise LispSyntaxError("lambda: bad syntax")
    params, rest = parse_params(items[0])
    return Procedure(params, rest, items[1:], env, None)


def sf_begin(args: object, env: Environment) -> object:
    """``(begin form ...)``: evaluate the forms in order in `env` (no new frame).

    The value is that of the last form, which is in tail position; ``(begin)``
    is VOID.  Definitions inside ``begin`` go to the current frame.
    """
    return _sequence(_forms(args, "begin"), env)


def _bindings(spec: object, who: str, unique: bool) -> tuple[list[Symbol], list]:
    """Parse ``((name init) ...)`` into (names, init forms)."""
    names, inits = [], []
    for binding in _forms(spec, who):
        parts = _forms(binding, who) if isinstance(binding, Pair) else None
        if parts is None or len(parts) != 2 or not isinstance(parts[0], Symbol):
            raise LispSyntaxError(f"{who}: bad binding")
        if unique and parts[0] in names:
            raise LispSyntaxError(f"{who}: duplicate variable {parts[0]}")
        names.append(parts[0])
        inits.append(parts[1])
    return names, inits


def sf_let(args: object, env: Environment) -> object:
    """``(let ((name init) ...) body ...)`` and named ``let``.

    Plain let: evaluate every init in `env` (so inits cannot see each other),
    then evaluate the body in a new child frame binding the names; the last body
    form is in tail position.

    Named let ``(let loop ((name init) ...) body ...)``: evaluate the inits in
    `env`; make a frame (child of `env`) in which ``loop`` is bound to a
    Procedure named ``loop`` with the binding names as parameters and the body as
    body (closed over that frame); then call it with the init values, with the
    body in tail position.  A call to ``loop`` in tail position inside the body
    therefore iterates in constant stack space.

    Errors (LispSyntaxError): ``"let: bad syntax"`` if the bindings or the body
    are missing; ``"let: bad binding"`` for a binding that is not a two-element
    list starting with a symbol; ``"let: duplicate variable <name>"``.
    """
    items = _forms(args, "let")
    if items and isinstance(items[0], Symbol):
        if len(items) < 3:
            raise LispSyntaxError("let: bad syntax")
        loop_name, spec, body = items[0], items[1], items[2:]
        names, inits = _bindings(spec, "let", True)
        values = [evaluate(init, env) for init in inits]
        loop_env = Environment(parent=env)
        proc = Procedure(names, None, body, loop_env, loop_name.name)
        loop_env.define(loop_name, proc)
        return _sequence(body, loop_env.extend(names, None, values, loop_name.name))
    if len(items) < 2:
        raise LispSyntaxError("let: bad syntax")
    names, inits = _bindings(items[0], "let", True)
    values = [evaluate(init, env) for init in inits]
    return _sequence(items[1:], env.extend(names, None, values))


def sf_let_star(args: object, env: Environment) -> object:
    """``(let* ((name init) ...) body ...)``: sequential bindings.

    Each init is evaluated in a frame that already binds the earlier names, and
    each binding gets its *own* new frame (so a closure created by an init sees
    the bindings made before it, not later ones; repeating a name is allowed and
    shadows).  With no bindings the body still runs in a new child frame.  The last
    body form is in tail position.  Errors as for ``let`` but with ``let*`` in the
    message (duplicates are allowed).
    """
    items = _forms(args, "let*")
    if len(items) < 2:
        raise LispSyntaxError("let*: bad syntax")
    names, inits = _bindings(items[0], "let*", False)
    current = env
    for name, init in zip(names, inits):
        current = current.extend([name], None, [evaluate(init, current)])
    if current is env:
        current = env.extend([], None, [])
    return _sequence(items[1:], current)


def sf_letrec(args: object, env: Environment) -> object:
    """``(letrec ((name init) ...) body ...)`` (also registered as ``letrec*``).

    Makes one new child frame in which every name is first bound to
    :data:`~lispy.datatypes.UNASSIGNED`; then evaluates the inits *in that
    frame*, left to right, binding each name to its value as soon as it is
    computed (so mutually recursive lambdas work, and a later init may use an
    earlier value; using a variable before its init has run raises the
    ``"variable used before initialization"`` EvalError from lookup).  The body runs
    in that frame, last form in tail position.  Errors as for ``let`` with
    ``letrec`` in the message.
    """
    items = _forms(args, "letrec")
    if len(items) < 2:
        raise LispSyntaxError("letrec: bad syntax")
    names, inits = _bindings(items[0], "letrec", True)
    frame = env.extend(names, None, [UNASSIGNED] * len(names))
    for name, init in zip(names, inits):
        frame.define(name, evaluate(init, frame))
    return _sequence(items[1:], frame)


def sf_cond(args: object, env: Environment) -> object:
    """``(cond clause ...)``: the first clause whose test is true wins.

    Clauses are tried in order:

    * ``(test)``: if the test value is true, it is the value of the cond;
    * ``(test => receiver)``: if true, evaluate `receiver` and call it (with
      :func:`apply_procedure`) on the test value;
    * ``(test body ...)``: if true, evaluate the body, last form in tail position;
    * ``(else body ...)``: always taken; must be the last clause.

    No true clause gives VOID.  Errors (LispSyntaxError): ``"cond: bad syntax"``
    for a clause that is not a non-empty list, an ``else`` without body or a
    ``=>`` not followed by exactly one expression; ``"cond: else must be the last
    clause"`` when an ``else`` clause is reached but is not last.  Clauses after
    the chosen one are not checked.
    """
    clauses = _forms(args, "cond")
    for i, clause in enumerate(clauses):
        if not isinstance(clause, Pair):
            raise LispSyntaxError("cond: bad syntax")
        parts = _forms(clause, "cond")
        if parts[0] is ELSE:
            if i != len(clauses) - 1:
                raise LispSyntaxError("cond: else must be the last clause")
            if len(parts) < 2:
                raise LispSyntaxError("cond: bad syntax")
            return _sequence(parts[1:], env)
        value = evaluate(parts[0], env)
        if value is False:
            continue
        if len(parts) == 1:
            return value
        if parts[1] is ARROW:
            if len(parts) != 3:
                raise LispSyntaxError("cond: bad syntax")
            return apply_procedure(evaluate(parts[2], env), [value])
        return _sequence(parts[1:], env)
    return VOID


def sf_and(args: object, env: Environment) -> object:
    """``(and expr ...)``: evaluate left to right, stopping at the first ``#f``.

    Returns ``#f`` if some expression is false, else the value of the last one
    (which is in tail position); ``(and)`` is ``#t``.
    """
    items = _forms(args, "and")
    if not items:
        return True
    for form in items[:-1]:
        if evaluate(form, env) is False:
            return False
    return TailCall(items[-1], env)


def sf_or(args: object, env: Environment) -> object:
    """``(or expr ...)``: the first true value, evaluating left to right.

    Expressions after the first true one are not evaluated; the last expression
    is in tail position; ``(or)`` is ``#f``.
    """
    items = _forms(args, "or")
    if not items:
        return False
    for form in items[:-1]:
        value = evaluate(form, env)
        if value is not False:
            return value
    return TailCall(items[-1], env)


def sf_when(args: object, env: Environment) -> object:
    """``(when test body ...)``: if `test` is true, evaluate the body (last form in
    tail position; an empty body gives VOID); otherwise VOID without evaluating the
    body.  LispSyntaxError ``"when: bad syntax"`` if the test is missing."""
    items = _forms(args, "when")
    if not items:
        raise LispSyntaxError("when: bad syntax")
    if evaluate(items[0], env) is False:
        return VOID
    return _sequence(items[1:], env)


def sf_unless(args: object, env: Environment) -> object:
    """``(unless test body ...)``: like ``when`` with the test negated: the body runs
    only if `test` is ``#f``.  LispSyntaxError ``"unless: bad syntax"`` if the test
    is missing."""
    items = _forms(args, "unless")
    if not items:
        raise LispSyntaxError("unless: bad syntax")
    if evaluate(items[0], env) is not False:
        return VOID
    return _sequence(items[1:], env)


def sf_case(args: object, env: Environment) -> object:
    """``(case key ((datum ...) body ...) ... [(else body ...)])``.

    Evaluates `key` once, then takes the first clause whose (unevaluated) datum
    list contains a datum ``eqv?`` to it (see
    :func:`~lispy.builtins.equality.is_eqv`, so ``1`` does not match ``1.0`` or
    ``#t``); ``else`` matches anything and must be last.  The chosen body is
    evaluated with its last form in tail position; no match gives VOID.
    LispSyntaxError ``"case: bad syntax"`` for a missing key, a clause that is not
    a list whose first element is a list of data (or ``else``), or a clause
    without body; ``"case: else must be the last clause"``.
    """
    items = _forms(args, "case")
    if not items:
        raise LispSyntaxError("case: bad syntax")
    key = evaluate(items[0], env)
    clauses = items[1:]
    for i, clause in enumerate(clauses):
        if not isinstance(clause, Pair):
            raise LispSyntaxError("case: bad syntax")
        parts = _forms(clause, "case")
        if len(parts) < 2:
            raise LispSyntaxError("case: bad syntax")
        if parts[0] is ELSE:
            if i != len(clauses) - 1:
                raise LispSyntaxError("case: else must be the last clause")
            return _sequence(parts[1:], env)
        if parts[0] is not NIL and not isinstance(parts[0], Pair):
            raise LispSyntaxError("case: bad syntax")
        if any(is_eqv(key, datum) for datum in _forms(parts[0], "case")):
            return _sequence(parts[1:], env)
    return VOID


def sf_do(args: object, env: Environment) -> object:
    """``(do ((var init [step]) ...) (test result ...) body ...)``: iteration.

    The inits are evaluated in `env` and bound in a new frame.  Each iteration:
    evaluate `test` in the current frame; if true, evaluate the result forms there
    and return the last one's value (VOID if there are none; the last is in tail
    position); otherwise evaluate the body forms for effect, then evaluate every
    step expression (in the current frame, all before rebinding) and bind the
    variables to the new values in a *fresh* frame (child of `env`); a variable
    without step keeps its value.  Closures made in different iterations therefore
    see different bindings.

    LispSyntaxError ``"do: bad syntax"`` for a missing or malformed variable list
    (each spec is ``(var init)`` or ``(var init step)`` with a symbol var) or a
    test clause that is not a non-empty list.
    """
    items = _forms(args, "do")
    if len(items) < 2 or not isinstance(items[1], Pair):
        raise LispSyntaxError("do: bad syntax")
    names, inits, steps = [], [], []
    for spec in _forms(items[0], "do"):
        parts = _forms(spec, "do") if isinstance(spec, Pair) else []
        if len(parts) not in (2, 3) or not isinstance(parts[0], Symbol):
            raise LispSyntaxError("do: bad syntax")
        names.append(parts[0])
        inits.append(parts[1])
        steps.append(parts[2] if len(parts) == 3 else None)
    test_clause = _forms(items[1], "do")
    body = items[2:]
    frame = env.extend(names, None, [evaluate(init, env) for init in inits])
    while True:
        if evaluate(test_clause[0], frame) is not False:
            return _sequence(test_clause[1:], frame)
        for form in body:
            evaluate(form, frame)
        values = [
            evaluate(step, frame) if step is not None else frame.lookup(name)
            for name, step in zip(names, steps)
        ]
        frame = env.extend(names, None, values)


SPECIAL_FORMS.update(
    {
        Symbol("quote"): sf_quote,
        Symbol("if"): sf_if,
        Symbol("define"): sf_define,
        Symbol("set!"): sf_set,
        Symbol("lambda"): sf_lambda,
        Symbol("begin"): sf_begin,
        Symbol("let"): sf_let,
        Symbol("let*"): sf_let_star,
        Symbol("letrec"): sf_letrec,
        Symbol("letrec*"): sf_letrec,
        Symbol("cond"): sf_cond,
        Symbol("and"): sf_and,
        Symbol("or"): sf_or,
        Symbol("when"): sf_when,
        Symbol("unless"): sf_unless,
        Symbol("case"): sf_case,
        Symbol("do"): sf_do,
    }
)
