"""Layer 2: environments and lexical scope."""

import pytest

from lispy.datatypes import NIL, UNASSIGNED, Pair, Symbol
from lispy.environment import Environment
from lispy.errors import ArityError, EvalError, UnboundVariable

S = Symbol
x, y, z = S("x"), S("y"), S("z")


class TestLookup:
    def test_own_frame(self):
        assert Environment({x: 1}).lookup(x) == 1

    def test_parent_frame(self):
        env = Environment({}, Environment({x: 2}))
        assert env.lookup(x) == 2

    def test_grandparent_frame(self):
        env = Environment({}, Environment({y: 0}, Environment({x: 3})))
        assert env.lookup(x) == 3

    def test_nearest_binding_wins(self):
        env = Environment({x: "inner"}, Environment({x: "outer"}))
        assert env.lookup(x) == "inner"

    def test_false_and_none_like_values_are_found(self):
        env = Environment({x: False, y: NIL, z: 0})
        assert env.lookup(x) is False and env.lookup(y) is NIL and env.lookup(z) == 0

    def test_unbound(self):
        with pytest.raises(UnboundVariable) as info:
            Environment({y: 1}, Environment()).lookup(x)
        assert str(info.value) == "unbound variable: x"
        assert info.value.name == "x"

    def test_unassigned(self):
        env = Environment({x: UNASSIGNED}, Environment({x: 1}))
        with pytest.raises(EvalError, match="variable used before initialization: x"):
            env.lookup(x)


class TestDefine:
    def test_creates_binding(self):
        env = Environment()
        env.define(x, 10)
        assert env.vars[x] == 10

    def test_returns_none(self):
        assert Environment().define(x, 1) is None

    def test_replaces_binding_in_same_frame(self):
        env = Environment({x: 1})
        env.define(x, 2)
        assert env.vars == {x: 2}

    def test_shadows_parent_without_changing_it(self):
        parent = Environment({x: "outer"})
        child = Environment({}, parent)
        child.define(x, "inner")
        assert child.vars[x] == "inner"
        assert parent.vars[x] == "outer"


class TestAssign:
    def test_changes_own_frame(self):
        env = Environment({x: 1})
        env.assign(x, 5)
        assert env.vars[x] == 5

    def test_changes_parent_frame_without_local_binding(self):
        parent = Environment({x: 1})
        child = Environment({}, parent)
        child.assign(x, 7)
        assert parent.vars[x] == 7
        assert x not in child.vars

    def test_changes_nearest_binding_only(self):
        outer = Environment({x: "o"})
        inner = Environment({x: "i"}, outer)
        Environment({}, inner).assign(x, "new")
        assert inner.vars[x] == "new" and outer.vars[x] == "o"

    def test_unbound(self):
        env = Environment({}, Environment({y: 1}))
        with pytest.raises(UnboundVariable, match="unbound variable: x"):
            env.assign(x, 1)
        assert x not in env.vars and x not in env.parent.vars

    def test_returns_none(self):
        assert Environment({x: 1}).assign(x, 2) is None


class TestExtend:
    def test_binds_params_positionally(self):
        child = Environment().extend([x, y], None, [1, 2])
        assert child.vars == {x: 1, y: 2}

    def test_parent_is_self_and_self_unchanged(self):
        env = Environment({z: 0})
        child = env.extend([x], None, [1])
        assert isinstance(child, Environment) and child is not env
        assert child.parent is env
        assert env.vars == {z: 0}
        assert child.lookup(z) == 0

    def test_rest_collects_remaining_args(self):
        child = Environment().extend([x], y, [1, 2, 3])
        rest = child.vars[y]
        assert child.vars[x] == 1
        assert isinstance(rest, Pair) and (rest.car, rest.cdr.car, rest.cdr.cdr) == (2, 3, NIL)

    def test_rest_is_nil_when_nothing_remains(self):
        assert Environment().extend([x], y, [1]).vars[y] is NIL

    def test_rest_only(self):
        child = Environment().extend([], z, ["a"])
        assert child.vars[z].car == "a" and child.vars[z].cdr is NIL

    def test_no_params(self):
        assert Environment().extend([], None, []).vars == {}

    @pytest.mark.parametrize(
        "params, rest, args, name, message",
        [
            ([x, y], None, [1], "f", "f: expected 2 arguments, got 1"),
            ([x], None, [1, 2], "g", "g: expected 1 argument, got 2"),
            ([], None, [1], "h", "h: expected 0 arguments, got 1"),
            ([x, y], z, [1], "f", "f: expected at least 2 arguments, got 1"),
            ([x], z, [], "k", "k: expected at least 1 argument, got 0"),
            ([x], None, [], None, "#<procedure>: expected 1 argument, got 0"),
        ],
    )
    def test_arity_errors(self, params, rest, args, name, message):
        with pytest.raises(ArityError) as info:
            Environment().extend(params, rest, args, name)
        assert str(info.value) == message
