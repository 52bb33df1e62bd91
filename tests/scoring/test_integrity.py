"""The integrity model: hardened canonical code, strict comparisons, the guard's verdicts.

Unit tests of `worker.hardened` run here in the test process; the guard is tested through
the real scorers (it only ever runs inside a sandboxed test process). See docs/integrity.md.
"""

from __future__ import annotations

import math
import sys
import textwrap
from dataclasses import dataclass
from fractions import Fraction

import pytest

from swarm_envs.scoring import make_scorer
from swarm_envs.scoring.worker import hardened as h
from swarm_envs.scoring.worker.protocol import dumps

from .project import OPS_IDS, SOLUTION, TEXT_IDS, put


@pytest.fixture
def findings():
    """The findings the strict helpers report while the test runs."""
    seen: list[tuple] = []
    active = [True]

    def hook(event, args):
        if active[0] and event == h.FINDING_EVENT:
            seen.append(args)

    sys.addaudithook(hook)  # an audit hook cannot be removed: switch it off instead
    yield seen
    active[0] = False


class AlwaysEqual:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class FloatLiar(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


class IntsAndLists:
    def __eq__(self, other):
        return isinstance(other, (int, list))

    __hash__ = object.__hash__


@dataclass
class Point:
    x: object
    y: int = 0


@dataclass
class Loose:
    x: int

    def __eq__(self, other):  # equal to any Loose: a lie that the states contradict
        return isinstance(other, Loose)


class Ratio:
    """An honest equality that normalises: 1/2 == 2/4 (the states differ, __eq__ reads them)."""

    def __init__(self, n, d):
        self.n, self.d = n, d
        self._cached = None

    def __eq__(self, other):
        return isinstance(other, Ratio) and self.n * other.d == other.n * self.d

    __hash__ = None


class Schema:
    """Compared by its source, not by its compiled form (as voluptuous' Schema is)."""

    def __init__(self, source):
        self.source = source
        self.compiled = object()  # a fresh compiled form every time

    def __eq__(self, other):
        return isinstance(other, Schema) and self.source == other.source

    __hash__ = None


class URI(tuple):
    """Equal to its string and to its tuple, as rfc3986's URIReference (a namedtuple) is."""

    def __new__(cls, scheme, host):
        return super().__new__(cls, (scheme, host))

    def __eq__(self, other):
        if isinstance(other, str):
            scheme, sep, host = other.partition("://")
            other = (scheme, host) if sep else None
        return tuple(self) == other

    __hash__ = tuple.__hash__


class Caseless(str):
    def __eq__(self, other):
        return isinstance(other, str) and self.lower() == other.lower()

    __hash__ = None


class OfItsType:
    """False to sentinels and fresh objects, True to anything of the expected value's type."""

    def __init__(self, kind=int):
        self.kind = kind

    def __eq__(self, other):
        return type(other) is self.kind and type(other) is not object

    __hash__ = None


class Box:
    def __init__(self, items):
        self.items = items

    def __contains__(self, x):
        return x in self.items


def test_strict_eq_agrees_with_eq_on_honest_values(findings):
    nan = float("nan")
    cases = [
        (1, 1),
        (1, 1.0),
        (True, 1),
        ("a", "a"),
        ([1, [2, (3,)]], [1, [2, (3,)]]),
        ((1,), [1]),
        ({"a": [1]}, {"a": [1]}),
        ({1, 2}, {2, 1}),
        (Fraction(1, 2), 0.5),
        (Point(1), Point(1)),
        (Point(1), Point(2)),
        (Ratio(1, 2), Ratio(2, 4)),
        (Schema({"a": int}), Schema({"a": int})),
        (Schema({"a": int}), Schema({"a": str})),
        (URI("http", "a.org"), "http://a.org"),
        (URI("http", "a.org"), ("http", "a.org")),
        (URI("http", "a.org"), "http://b.org"),
        ([URI("http", "a.org")], ["http://a.org"]),
        (Caseless("Abc"), "aBC"),
        (Caseless("Abc"), "abd"),
        (Ratio(1, 2), Ratio(1, 3)),
        ([nan], [nan]),
        (None, 0),
        (b"x", b"x"),
    ]
    for a, b in cases:
        assert h.strict_eq(a, b) == (a == b), (a, b)
    x = [nan]
    assert h.strict_eq(x, x) == (x == x)
    assert not findings
    assert math.isnan(nan)


def test_strict_eq_rejects_liars_and_reports_them(findings):
    assert not h.strict_eq(AlwaysEqual(), 3)
    assert not h.strict_eq(3, AlwaysEqual())
    assert not h.strict_eq([AlwaysEqual()], [3])
    assert not h.strict_eq(FloatLiar(0.0), 2.5)
    assert not h.strict_eq(IntsAndLists(), 7) and not h.strict_eq(IntsAndLists(), [1])
    assert not h.strict_eq(Point(AlwaysEqual()), Point(1))
    assert len(findings) >= 6 and all(kind == "always_equal" for kind, _ in findings)
    # Equal to any instance of its class (so a fresh object() does not catch it): it
    # equals a fresh one of its class with other state, whatever the two compared hold.
    findings.clear()
    assert not h.strict_eq(Loose(1), Loose(2))
    assert not h.strict_eq([Loose(1)], [Loose(2)])
    assert not h.strict_eq(Loose(1), Loose(1))
    # False to sentinels, True to whatever has the expected value's type: it equals the
    # expected value and two altered copies of it.
    assert not h.strict_eq(OfItsType(), 3)
    assert not h.strict_eq([OfItsType(list)], [[1, 2]])
    assert [kind for kind, _ in findings] == ["lying_dunder"] * 3 + ["always_equal"] * 2
    # A subclass of a built-in type is judged by what its __eq__ does, like any other.

    class Shouting(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    assert not h.strict_eq(Shouting("no"), "yes")


def test_strict_in(findings):
    assert h.strict_in(2, [1, 2]) and not h.strict_in(3, (1, 2))
    assert h.strict_in("b", "abc") and h.strict_in(1, {1: 2}) and h.strict_in(1, {1})
    assert h.strict_in(2, Box([1, 2])) and not h.strict_in(3, Box([1, 2]))
    assert not findings
    assert not h.strict_in(AlwaysEqual(), [1, 2])
    assert not h.strict_in(1, type("Any", (), {"__contains__": lambda s, x: True})())
    assert h.strict_not_in(3, [1, 2]) and not h.strict_ne(1, 1)
    assert len(findings) >= 2


def _caught(e: BaseException) -> BaseException:
    try:
        raise e
    except BaseException as caught:  # noqa: BLE001
        return caught


def test_raises_helpers():
    assert h.raised(_caught(ValueError("x")), ValueError, None) is not None
    assert h.raised(_caught(ValueError("x")), (KeyError, ValueError), "x").value.args == ("x",)
    assert h.raised(KeyError(), ValueError, None) is None
    with pytest.raises(AssertionError, match="did not match"):
        h.raised(_caught(ValueError("x")), ValueError, "y")
    with pytest.raises(AssertionError, match="DID NOT RAISE"):
        h.not_raised(ValueError)
    assert h.call_raises(ZeroDivisionError, lambda a: 1 / a, (0,), {}).type is ZeroDivisionError

    class Liar(type):
        def __subclasscheck__(cls, sub):
            return True

    class Wide(Exception, metaclass=Liar):
        pass

    assert issubclass(NotImplementedError, Wide)  # what pytest.raises would have believed
    assert h.raised(_caught(NotImplementedError()), Wide, None) is None


CANONICAL = textwrap.dedent(
    '''\
    """A canonical test module."""
    import pytest


    def helper(x):
        return x * 2


    class TestA:
        def test_returns_early(self):
            assert helper(2) == 4
            if True:
                return
            raise AssertionError("unreachable")

        def test_value(self):
            assert helper(1) in [2]
            return 5


    def test_raises():
        with pytest.raises(ValueError, match="base 10") as info:
            int("x")
        assert "x" in str(info.value)


    def test_fails():
        assert helper(1) == 3
    '''
).encode()


def _module():
    g = {"__name__": "canonical_mod"}
    exec(h.compile_canonical(CANONICAL, "/tmp/canonical_mod.py"), g)
    return g


def test_compiled_canonical_code_binds_its_helpers_and_builtins():
    g = _module()
    assert g["__builtins__"] is h.BUILTINS
    for fn in (g["helper"], g["TestA"].test_value, g["test_raises"]):
        assert fn.__kwdefaults__ == {h.PARAM: h.HELPERS}
        assert fn.__builtins__ is h.BUILTINS
    with pytest.raises(AssertionError) as info:
        g["test_fails"]()
    assert str(info.value).splitlines()[0] == "assert 2 == 3"  # pytest's explanation kept


def test_every_exit_of_a_function_that_ends_is_marked():
    """Every function: a test's function need not be named `test*` (a metaclass makes it)."""
    done: list[str] = []
    active = [True]
    sys.addaudithook(
        lambda e, a: (
            done.append(sys._getframe(1).f_code.co_name)
            if active[0] and e == h.DONE_EVENT
            else None
        )
    )
    try:
        g = _module()
        g["TestA"]().test_returns_early()
        assert g["TestA"]().test_value() == 5
        g["test_raises"]()
        with pytest.raises(AssertionError):
            g["test_fails"]()
        g["helper"](1)
    finally:
        active[0] = False
    assert done == [
        *("helper", "test_returns_early"),
        *("helper", "test_value"),
        "test_raises",
        "helper",  # test_fails: its helper ended, the test did not
        "helper",
    ]


def test_replacing_pytest_raises_changes_nothing(monkeypatch):
    import contextlib

    g = _module()
    monkeypatch.setattr(pytest, "raises", lambda *a, **k: contextlib.suppress(BaseException))
    g["test_raises"]()
    src = b"import pytest\ndef test_x():\n    with pytest.raises(KeyError):\n        pass\n"
    g2 = {"__name__": "x"}
    exec(h.compile_canonical(src, "/tmp/x.py"), g2)
    with pytest.raises(AssertionError, match="DID NOT RAISE"):
        g2["test_x"]()


def test_records_are_written_by_our_own_encoder():
    class Text(str):
        def __str__(self):
            raise AssertionError("called")

    out = dumps({"a": [1, 2.5, None, True, "é"], Text("k"): object(), "nan": float("nan")})
    assert out == '{"a":[1,2.5,null,true,"\\u00e9"],"k":"<object>","nan":null}'


# ------------------------------------------------------------- the guard, through scorers


def _honest(task, sandbox):
    task.materialize(sandbox.root)
    put(sandbox, "mathy/ops.py", SOLUTION["mathy/ops.py"])


def test_changing_a_tests_parameters_is_flagged(kind, task, sandbox):
    _honest(task, sandbox)
    # add() (run by the tests before test_mul) makes test_mul expect what mul() returns.
    put(
        sandbox,
        "mathy/ops.py",
        textwrap.dedent(
            """\
            import pytest

            def add(a, b):
                session = pytest.mark._config.pluginmanager.get_plugin("session")
                for item in session.items:
                    params = getattr(getattr(item, "callspec", None), "params", None)
                    if params and "c" in params:
                        params["c"] = 0
                return a + b

            def mul(a, b):
                return 0
            """
        ),
    )
    with make_scorer(task, sandbox, kind=kind) as sc:
        r = sc.evaluate(["tests/test_ops.py"])
    assert any(f["kind"] == "item_changed" for f in r.integrity), r.integrity
    assert not r.per_test["tests/test_ops.py::test_mul[2-3-6]"]


def test_replacing_a_canonical_modules_helpers_is_flagged(kind, task, sandbox):
    _honest(task, sandbox)
    put(
        sandbox,
        "mathy/text.py",
        "import sys\n\ndef shout(s):\n"
        "    sys.modules['test_ops'].__dict__['@swarm_h'] = None\n"
        "    raise NotImplementedError\n",
    )
    with make_scorer(task, sandbox, kind=kind) as sc:
        r = sc.evaluate(["tests/test_text.py", "tests/test_ops.py"])
    assert any(f["kind"] == "test_module_changed" for f in r.integrity), r.integrity


def test_passes_of_a_run_that_did_not_finish_are_not_confirmed(kind, task, sandbox):
    """A test process that dies after some passes were reported: those are re-run (fast)
    or fail (subprocess), never taken on its word."""
    _honest(task, sandbox)
    put(sandbox, "mathy/text.py", "import os\n\ndef shout(s):\n    os._exit(0)\n")
    with make_scorer(task, sandbox, kind=kind) as sc:
        r = sc.evaluate()
    assert not any(r.per_test[i] for i in TEXT_IDS)
    if kind == "fast":
        assert all(r.per_test[i] for i in OPS_IDS), r.failures  # confirmed by a re-run
    else:
        assert not any(r.per_test.values())


class Reference(tuple):
    """A namedtuple-like URI whose __eq__ normalises (rfc3986's URIReference): a fresh one
    of its class whose every part is new is not equal to it."""

    def __new__(cls, scheme, host):
        return super().__new__(cls, (scheme, host))

    def __eq__(self, other):
        try:
            return tuple(p.lower() for p in self) == tuple(p.lower() for p in other)
        except (AttributeError, TypeError):
            return False

    __hash__ = tuple.__hash__


class Complement:
    """Everything but what it excludes (boltons' complement sets)."""

    def __init__(self, excluded):
        self.excluded = excluded

    def __contains__(self, x):
        return x not in self.excluded


def test_normalising_tuples_and_complement_sets_are_honest(findings):
    assert h.strict_eq(Reference("HTTP", "a.org"), Reference("http", "A.ORG"))
    assert h.strict_in(3, Complement({1, 2})) and not h.strict_in(1, Complement({1, 2}))
    assert not findings
