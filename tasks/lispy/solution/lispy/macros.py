"""Macros: ``define-macro`` (procedural) and ``define-syntax`` / ``syntax-rules``.

Both kinds are :class:`~lispy.procedures.MacroBase` values bound in an
environment like any variable.  When the evaluator meets a combination whose
operator evaluates to one, it calls ``expand(form, env)`` on the *unevaluated*
form and evaluates the result instead.

* ``(define-macro (name . params) body ...)`` makes a :class:`Macro`: a procedure
  run at expansion time on the unevaluated operands; whatever it returns (usually
  built with quasiquote) is the expansion.
* ``(define-syntax name (syntax-rules (literal ...) (pattern template) ...))``
  makes a :class:`SyntaxRules` transformer that rewrites by pattern matching.
  These macros are *not hygienic*: symbols inserted by a template are not renamed.
  Use ``gensym`` in a ``define-macro`` when a fresh name is needed.

Pattern language (R7RS ``syntax-rules`` without vectors): the first element of a
pattern (the macro keyword, usually ``_``) is ignored; a symbol listed as a
literal matches only that same symbol; ``_`` matches anything without binding;
any other symbol is a pattern variable matching anything; ``(p ... rest)``
matches zero or more forms with ``p`` followed by forms matching the rest (which
may be empty, end in a dotted tail, or contain fixed patterns); other data
(numbers, strings, booleans) match ``equal?`` data.  In templates, ``x ...``
repeats a sub-template once per match of the ellipsis variables it contains, and
``(... ...)`` produces a literal ``...``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from lispy.builtins.equality import is_equal
from lispy.datatypes import NIL, VOID, Pair, Symbol, from_pylist
from lispy.environment import Environment
from lispy.errors import LispSyntaxError, UnboundVariable
from lispy.evaluator import SPECIAL_FORMS, _forms, evaluate
from lispy.procedures import MacroBase, parse_params

ELLIPSIS = Symbol("...")
UNDERSCORE = Symbol("_")
SYNTAX_RULES = Symbol("syntax-rules")

_gensym_counter = itertools.count(1)


def gensym(prefix: object = "g") -> Symbol:
    """``(gensym [prefix])``: a fresh uninterned symbol named ``<prefix><n>``.

    It is never ``eq?`` to any other symbol, even one with the same name.
    """
    name = prefix.name if isinstance(prefix, Symbol) else str(prefix)
    return Symbol.uninterned(f"{name}{next(_gensym_counter)}")


@dataclass(eq=False)
class Macro(MacroBase):
    """A procedural macro made by ``define-macro``."""

    name: str | None
    params: list[Symbol]
    rest: Symbol | None
    body: list
    env: Environment

    def expand(self, form: object, env: Environment) -> object:
        """Run the macro body on the unevaluated operands of `form`; return the result.

        The operands (``form.cdr``, which must be a proper list, else
        LispSyntaxError ``"<name>: bad syntax"``) are bound *unevaluated* to the
        parameters in a new frame extending the macro's definition environment
        (``self.env.extend(...)``, so arity errors are the usual ArityError
        naming the macro); the body forms are evaluated there in order and the
        value of the last is the expansion.  `env` (the use site) is not used.
        """
        args = _forms(form.cdr, self.name or "macro")
        frame = self.env.extend(self.params, self.rest, args, self.name)
        result: object = VOID
        for body_form in self.body:
            result = evaluate(body_form, frame)
        return result


def sf_define_macro(args: object, env: Environment) -> object:
    """``(define-macro (name . params) body ...)``: bind `name` to a :class:`Macro`.

    The parameter list is parsed with :func:`~lispy.procedures.parse_params`
    (rest parameters allowed); the macro closes over `env` and is bound with
    ``env.define``.  Returns VOID.  LispSyntaxError ``"define-macro: bad syntax"``
    unless the second element is a pair starting with a symbol and there is at
    least one body form.
    """
    items = _forms(args, "define-macro")
    if len(items) < 2 or not isinstance(items[0], Pair) or not isinstance(items[0].car, Symbol):
        raise LispSyntaxError("define-macro: bad syntax")
    name = items[0].car
    params, rest = parse_params(items[0].cdr)
    env.define(name, Macro(name.name, params, rest, items[1:], env))
    return VOID


def macroexpand_1(form: object, env: Environment) -> object:
    """Expand `form` once if it is a macro use, else return it unchanged.

    A macro use is a pair whose car is a symbol bound in `env` to a
    :class:`~lispy.procedures.MacroBase`; the result is then
    ``macro.expand(form, env)``.  Anything else (non-pairs, calls of procedures,
    unbound operator symbols, special forms) is returned as is, without error.
    """
    if not isinstance(form, Pair) or not isinstance(form.car, Symbol):
        return form
    try:
        value = env.lookup(form.car)
    except UnboundVariable:
        return form
    if isinstance(value, MacroBase):
        return value.expand(form, env)
    return form


class EllipsisMatch(list):
    """The binding of a pattern variable that occurs under an ellipsis: one entry
    per repetition (nested EllipsisMatch values for nested ellipses)."""


def _pattern_vars(pattern: object, literals: list[Symbol], ellipsis: Symbol) -> list[Symbol]:
    out: list[Symbol] = []
    stack = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, Symbol):
            if p is not ellipsis and p is not UNDERSCORE and p not in literals:
                out.append(p)
        elif isinstance(p, Pair):
            stack.append(p.cdr)
            stack.append(p.car)
    return out


def match_pattern(
    pattern: object,
    form: object,
    literals: list[Symbol],
    bindings: dict[Symbol, object],
    ellipsis: Symbol = ELLIPSIS,
) -> bool:
    """Match `form` against the syntax-rules `pattern`, recording variables in `bindings`.

    Returns True on a match (with `bindings` filled in) and False otherwise
    (`bindings` may then hold partial results).  Rules:

    * a symbol in `literals` matches only the identical symbol;
    * ``_`` matches anything and binds nothing;
    * any other symbol binds ``bindings[sym] = form``;
    * ``NIL`` matches only ``NIL``;
    * a pair ``(p <ellipsis> . after)``: let ``k`` be the number of pairs in
      ``after``; the form must be a list with at least ``k`` leading pairs; all
      but the last ``k`` elements must each match ``p``, and what is left matches
      ``after``.  Each pattern variable of ``p`` (its symbols other than
      literals, ``_`` and the ellipsis) is bound to an :class:`EllipsisMatch` of
      its per-element bindings, in order (empty when zero elements matched);
    * another pair matches a pair whose car matches the pattern's car and whose cdr
      matches the pattern's cdr;
    * any other datum matches an ``equal?`` datum.
    """
    if isinstance(pattern, Symbol):
        if pattern in literals:
            return form is pattern
        if pattern is not UNDERSCORE:
            bindings[pattern] = form
        return True
    if isinstance(pattern, Pair):
        if isinstance(pattern.cdr, Pair) and pattern.cdr.car is ellipsis:
            sub, after = pattern.car, pattern.cdr.cdr
            k = 0
            p = after
            while isinstance(p, Pair):
                k += 1
                p = p.cdr
            elements = []
            f = form
            while isinstance(f, Pair):
                elements.append(f)
                f = f.cdr
            repeat = len(elements) - k
            if repeat < 0:
                return False
            matches = []
            f = form
            for _ in range(repeat):
                b: dict[Symbol, object] = {}
                if not match_pattern(sub, f.car, literals, b, ellipsis):
                    return False
                matches.append(b)
                f = f.cdr
            for var in _pattern_vars(sub, literals, ellipsis):
                bindings[var] = EllipsisMatch(b[var] for b in matches)
            return match_pattern(after, f, literals, bindings, ellipsis)
        if not isinstance(form, Pair):
            return False
        return match_pattern(pattern.car, form.car, literals, bindings, ellipsis) and match_pattern(
            pattern.cdr, form.cdr, literals, bindings, ellipsis
        )
    if pattern is NIL:
        return form is NIL
    return is_equal(pattern, form)


def expand_template(template: object, bindings: dict[Symbol, object], ellipsis: Symbol | None = ELLIPSIS) -> object:
    """Instantiate the syntax-rules `template` with the pattern variable `bindings`.

    * a symbol bound in `bindings` is replaced by its value; using a variable
      whose value is an :class:`EllipsisMatch` without an ellipsis raises
      LispSyntaxError ``"syntax-rules: missing ellipsis after <name>"``; unbound
      symbols are copied as they are (no hygiene);
    * ``(<ellipsis> t)`` is the template `t` expanded with ellipses treated as
      ordinary symbols (so ``(... ...)`` gives ``...``);
    * ``(t <ellipsis> . rest)``: the variables of `t` whose bindings are
      EllipsisMatch values drive the repetition: `t` is expanded once per index
      ``i`` with each of them bound to its ``i``-th entry, the results are spliced
      in place, followed by the expansion of `rest`.  LispSyntaxError
      ``"syntax-rules: no pattern variable before ellipsis"`` if `t` has no such
      variable, ``"syntax-rules: ellipsis length mismatch"`` if their lengths
      differ;
    * other pairs are rebuilt from the expanded car and cdr; other data are
      returned unchanged.

    `ellipsis` None disables ellipsis processing.  `bindings` is not modified.
    """
    if isinstance(template, Symbol):
        if template in bindings:
            value = bindings[template]
            if isinstance(value, EllipsisMatch):
                raise LispSyntaxError(f"syntax-rules: missing ellipsis after {template}")
            return value
        return template
    if not isinstance(template, Pair):
        return template
    if ellipsis is not None and template.car is ellipsis and isinstance(template.cdr, Pair):
        return expand_template(template.cdr.car, bindings, None)
    if ellipsis is not None and isinstance(template.cdr, Pair) and template.cdr.car is ellipsis:
        sub, rest = template.car, template.cdr.cdr
        drivers = [
            v for v in dict.fromkeys(_pattern_vars(sub, [], ellipsis)) if isinstance(bindings.get(v), EllipsisMatch)
        ]
        if not drivers:
            raise LispSyntaxError("syntax-rules: no pattern variable before ellipsis")
        lengths = {len(bindings[v]) for v in drivers}
        if len(lengths) > 1:
            raise LispSyntaxError("syntax-rules: ellipsis length mismatch")
        results = []
        for i in range(lengths.pop()):
            inner = dict(bindings)
            for v in drivers:
                inner[v] = bindings[v][i]
            results.append(expand_template(sub, inner, ellipsis))
        return from_pylist(results, expand_template(rest, bindings, ellipsis))
    return Pair(expand_template(template.car, bindings, ellipsis), expand_template(template.cdr, bindings, ellipsis))


@dataclass(eq=False)
class SyntaxRules(MacroBase):
    """A ``syntax-rules`` transformer: literals, (pattern, template) rules, ellipsis."""

    name: str | None
    literals: list[Symbol]
    rules: list[tuple[object, object]]
    ellipsis: Symbol = field(default=ELLIPSIS)

    def expand(self, form: object, env: Environment) -> object:
        """Rewrite `form` with the first rule whose pattern matches it.

        For each (pattern, template) in order, the pattern's cdr is matched
        against ``form.cdr`` with :func:`match_pattern` (the keyword position is
        ignored) using a fresh bindings dict; the first match gives
        ``expand_template(template, bindings, self.ellipsis)``.  LispSyntaxError
        ``"<name>: no matching syntax rule"`` when no rule matches.
        """
        for pattern, template in self.rules:
            bindings: dict[Symbol, object] = {}
            if match_pattern(pattern.cdr, form.cdr, self.literals, bindings, self.ellipsis):
                return expand_template(template, bindings, self.ellipsis)
        raise LispSyntaxError(f"{self.name}: no matching syntax rule")


def sf_define_syntax(args: object, env: Environment) -> object:
    """``(define-syntax name (syntax-rules [ellipsis] (literal ...) (pattern template) ...))``.

    Binds `name` (with ``env.define``) to a :class:`SyntaxRules` named after it;
    returns VOID.  An optional symbol right after ``syntax-rules`` replaces ``...``
    as the ellipsis.  Each rule is a two-element list whose pattern is a pair.

    LispSyntaxError ``"define-syntax: bad syntax"`` if the name is not a symbol,
    the transformer is not a ``syntax-rules`` list, the literals are not a list
    of symbols, or a rule is malformed.
    """
    bad = LispSyntaxError("define-syntax: bad syntax")
    items = _forms(args, "define-syntax")
    if len(items) != 2 or not isinstance(items[0], Symbol):
        raise bad
    name, spec = items
    if not isinstance(spec, Pair) or spec.car is not SYNTAX_RULES:
        raise bad
    parts = _forms(spec.cdr, "define-syntax")
    ellipsis = ELLIPSIS
    if parts and isinstance(parts[0], Symbol):
        ellipsis = parts.pop(0)
    if not parts or (parts[0] is not NIL and not isinstance(parts[0], Pair)):
        raise bad
    literals = _forms(parts[0], "define-syntax")
    if not all(isinstance(lit, Symbol) for lit in literals):
        raise bad
    rules = []
    for rule in parts[1:]:
        rule_parts = _forms(rule, "define-syntax") if isinstance(rule, Pair) else []
        if len(rule_parts) != 2 or not isinstance(rule_parts[0], Pair):
            raise bad
        rules.append((rule_parts[0], rule_parts[1]))
    env.define(name, SyntaxRules(name.name, literals, rules, ellipsis))
    return VOID


SPECIAL_FORMS[Symbol("define-macro")] = sf_define_macro
SPECIAL_FORMS[Symbol("define-syntax")] = sf_define_syntax
