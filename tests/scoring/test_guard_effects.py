"""The guard judges what code achieves, not which reflection it uses (docs/integrity.md).

Each test here is a small project doing what a real library does during its own tests (named
in the docstring), scored through both scorers: its tests pass with nothing flagged. Beside
it, the attack the rule still stops: the same reflection used to read what a test expects,
which earns nothing.
"""

from __future__ import annotations

import pytest

from swarm_envs.scoring import make_scorer

from .project import SOLUTION, write_task


def _score(kind, tmp_path, sandbox, lib: str, tests: dict[str, str], name: str = "mathy"):
    """Score `tests` against a project whose `mathy/__init__.py` is `lib`."""
    solution = {**SOLUTION, "mathy/__init__.py": lib}
    task = write_task(tmp_path / "t", solution=solution, tests=tests, start=solution, name=name)
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox, kind=kind) as sc:
        return sc.evaluate()


def _clean(r) -> None:
    assert r.integrity == () and r.passed == r.total, (r.integrity, r.failures)


# ------------------------------------------------------------------------ 1. frames

SENTINEL = """
import sys


def make_sentinel(name):
    # boltons.typeutils.make_sentinel: the module of whoever made it, from its frame
    module = sys._getframe(1).f_globals.get("__name__", "__main__")
    return type(name, (), {"__module__": module, "__repr__": lambda self: name})()


def caller_module():
    # a CLI framework finding its caller's module (python-fire's Fire() does this)
    import inspect

    info = inspect.stack()[1]
    return info.frame.f_globals["__name__"], info.function, info.filename.rsplit("/", 1)[-1]


def first_outside(pkg_file=__file__):
    # pandas' find_stack_level: walk out of the package by the frames' file names
    import inspect

    frame = inspect.currentframe()
    n = 0
    while frame is not None and frame.f_code.co_filename == pkg_file:
        frame = frame.f_back
        n += 1
    return n, frame.f_code.co_name, frame.f_lineno > 0


def old_api():
    # a deprecation warning attributed to the caller, and a log record of its line
    import logging
    import warnings

    warnings.warn("old_api is deprecated", DeprecationWarning, stacklevel=2)
    logging.getLogger("mathy").warning("old_api called")
    return 1


def own_locals():
    here = 42
    return sys._getframe().f_locals["here"]
"""

SENTINEL_TESTS = {
    "test_frames.py": """
import logging
import warnings

from mathy import caller_module, first_outside, make_sentinel, old_api, own_locals


def test_sentinel():
    s = make_sentinel("MISSING")
    assert type(s).__module__ == "test_frames"
    assert repr(s) == "MISSING"


def test_caller_module():
    assert caller_module() == ("test_frames", "test_caller_module", "test_frames.py")


def test_first_outside():
    assert first_outside() == (1, "test_first_outside", True)


def test_deprecated(caplog):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert old_api() == 1
    assert seen[0].filename.endswith("test_frames.py")
    assert caplog.records[0].funcName == "old_api"


def test_own_locals():
    assert own_locals() == 42
"""
}

# What the same reflection would need to cheat: a test's locals, its globals, its source.
PEEKS = {
    "locals through _getframe": "sys._getframe(1).f_locals.get('expected')",
    "globals through _getframe": "sys._getframe(1).f_globals.get('EXPECTED')",
    "constants through f_code": "sys._getframe(1).f_code.co_consts[-1]",
    "locals through inspect.stack": "__import__('inspect').stack()[1].frame.f_locals['expected']",
    "source through inspect.stack": "__import__('inspect').stack(context=1)[1].code_context[0]",
    "locals through a traceback": "_tb_frame().f_back.f_locals['expected']",
    "locals through traceback.walk_tb": "_walk().f_back.f_locals['expected']",
    "source through linecache": "_line()",
}
PEEK_LIB = """
import sys


def _tb_frame():
    try:
        raise KeyError
    except KeyError as e:
        return e.__traceback__.tb_frame


def _walk():
    import traceback

    try:
        raise KeyError
    except KeyError as e:
        return next(traceback.walk_tb(e.__traceback__))[0]


def _line():
    import linecache

    f = sys._getframe(2)
    return linecache.getline(f.f_code.co_filename, f.f_lineno)


def answer():
    try:
        return {PEEK}
    except Exception:
        return None
"""
PEEK_TESTS = {
    "test_peek.py": """
from mathy import answer

EXPECTED = 1234


def test_answer():
    expected = 1234
    assert answer() in (expected, EXPECTED, "    assert answer() in (expected, EXPECTED)\\n")
"""
}


def test_a_library_reading_its_callers_frames_is_not_flagged(kind, tmp_path, sandbox):
    """boltons' sentinels, a CLI framework's caller module, pandas' stack level, warnings'
    stack levels and logging's caller: names, files, lines and `__name__` are there."""
    r = _score(kind, tmp_path, sandbox, SENTINEL, SENTINEL_TESTS)
    _clean(r)
    assert r.total == 5


@pytest.mark.parametrize("peek", sorted(PEEKS))
def test_what_a_test_expects_is_out_of_reach_of_the_same_reflection(peek, kind, tmp_path, sandbox):
    r = _score(kind, tmp_path, sandbox, PEEK_LIB.replace("{PEEK}", PEEKS[peek]), PEEK_TESTS)
    assert r.passed == 0, (peek, r.failures)
    kinds = {f["kind"] for f in r.integrity}
    assert kinds <= {"test_source_read"}, r.integrity


# ------------------------------------------------------------- 7. one test, one verdict

ISOLATED_LIB = """
import os


def honest():
    return 1


def peek():
    # reads the test's own source: flagged, and refused
    with open(os.path.join("tests", "test_iso.py")) as f:
        return f.read()


def break_pytest():
    import _pytest.python

    _pytest.python.Function.runtest = lambda self: None
    return 1
"""


def test_a_finding_fails_only_the_test_it_was_made_in(kind, tmp_path, sandbox):
    tests = {
        "test_iso.py": """
from mathy import honest, peek


def test_a():
    assert honest() == 1


def test_b():
    assert "def test_b" not in peek()


def test_c():
    assert honest() == 1
"""
    }
    r = _score(kind, tmp_path, sandbox, ISOLATED_LIB, tests)
    assert {f["kind"] for f in r.integrity} == {"test_source_read"}, r.integrity
    assert r.per_test["tests/test_iso.py::test_a"] and r.per_test["tests/test_iso.py::test_c"]
    assert not r.per_test["tests/test_iso.py::test_b"]


def test_a_change_to_the_harness_fails_every_test_after_it(kind, tmp_path, sandbox):
    tests = {
        "test_harm.py": """
from mathy import break_pytest, honest


def test_a():
    assert honest() == 1


def test_b():
    assert break_pytest() == 1


def test_c():
    assert honest() == 1
"""
    }
    r = _score(kind, tmp_path, sandbox, ISOLATED_LIB, tests)
    assert "harness_changed" in {f["kind"] for f in r.integrity}, r.integrity
    assert not r.per_test["tests/test_harm.py::test_b"]
    assert not r.per_test["tests/test_harm.py::test_c"]


# ------------------------------------------------- 5, 6. tests that libraries build

HYPOTHESIS_TESTS = {
    "test_props.py": """
import unittest

from hypothesis import given, settings, strategies as st

from mathy import same


@settings(max_examples=5, database=None)
@given(st.integers())
def test_same(n):
    assert same(n) == n


class TestSame(unittest.TestCase):
    @settings(max_examples=5, database=None)
    @given(st.text())
    def test_text(self, s):
        self.assertEqual(same(s), s)
"""
}


def test_hypothesis_tests_are_canonical(kind, tmp_path, sandbox):
    """`@given` builds its wrapper from generated source (exec'd by hypothesis): code a
    trusted library made is trusted, on plain functions and unittest methods alike."""
    r = _score(kind, tmp_path, sandbox, "def same(x):\n    return x\n", HYPOTHESIS_TESTS)
    _clean(r)
    assert r.total == 2


METACLASS_TESTS = {
    "test_generated.py": """
import unittest

from mathy import same


def _check(value):
    def check(self):
        self.assertEqual(same(value), value)

    return check


class Generated(type):
    def __new__(mcs, name, bases, ns):
        for value in (1, "a"):
            ns[f"test_{value}"] = _check(value)
        return super().__new__(mcs, name, bases, ns)


class TestGenerated(unittest.TestCase, metaclass=Generated):
    pass
"""
}


def test_tests_made_by_a_metaclass_are_canonical(kind, tmp_path, sandbox):
    """A test method whose function is not named `test*` (made by a metaclass) runs to its
    end like any other; a project that makes it return early does not pass it."""
    r = _score(kind, tmp_path, sandbox, "def same(x):\n    return x\n", METACLASS_TESTS)
    _clean(r)
    assert r.total == 2


# ------------------------------------------------- 4. changes that are not the project's

HOOK_LIB = """
import sys


def _hook(kind, value, tb):  # boltons installs an excepthook of its own at import
    sys.__excepthook__(kind, value, tb)


sys.excepthook = _hook


def same(x):
    return x
"""

RELOAD_TESTS = {
    "test_reload.py": """
import importlib
import sys

import mathy


def test_fresh_import():
    # emoji's tests import the package afresh for each test
    global mathy
    for name in [n for n in sys.modules if n.startswith("mathy")]:
        del sys.modules[name]
    mathy = importlib.import_module("mathy")
    assert mathy.same(2) == 2
    assert sys.excepthook is not sys.__excepthook__
"""
}


def test_a_library_hook_and_a_tests_own_import_are_not_blamed(kind, tmp_path, sandbox):
    r = _score(kind, tmp_path, sandbox, HOOK_LIB, RELOAD_TESTS)
    _clean(r)
    assert r.total == 1


# ---------------------------------------------------------------------- 8. tracers

TRACING_LIB = '''
def traced_sum(xs):
    total = 0
    for x in xs:
        total += x
    return total


def add(a, b):
    """
    >>> add(1, 2)
    3
    >>> add(2, 2)
    4
    """
    return a + b
'''
TRACING_TESTS = {
    "test_tracing.py": """
import doctest
import sys

import mathy
from mathy import traced_sum


def test_doctest():
    # doctest sets builtins._ (its displayhook) and restores the trace function it found
    failures, tried = doctest.testmod(mathy)
    assert (failures, tried) == (0, 2)


def test_own_tracer():
    # a coverage-style tracer of the test's own
    seen = []

    def tracer(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)

    sys.settrace(tracer)
    try:
        total = traced_sum([1, 2, 3])
    finally:
        sys.settrace(None)
    assert total == 6
    assert "traced_sum" in seen
"""
}


def test_trusted_code_installs_its_own_tracer(kind, tmp_path, sandbox):
    """doctest (a trace function saved and restored, `builtins._`) and a test's own
    coverage-style tracer: nothing flagged."""
    r = _score(kind, tmp_path, sandbox, TRACING_LIB, TRACING_TESTS)
    _clean(r)
    assert r.total == 2


# A tracer reads the frames it is handed: the test's locals, through `f_back`.
SPY_LIB = """
import sys
import threading

_SEEN = []
_FRAMES = []


def _spy(frame, event, arg):
    f = frame
    while f is not None:
        if "expected" in f.f_locals:
            _SEEN.append(f.f_locals["expected"])
        f = f.f_back
    return _spy


def _probe():
    return None


def _in_a_thread(target=_probe, args=()):
    t = threading.Thread(target=target, args=args)
    t.start()
    t.join()


def answer():
    try:
        {INSTALL}
    except Exception:
        pass
    _probe()
    return _SEEN[-1] if _SEEN else None
"""
SPY_TESTS = {
    "test_spy.py": """
from mathy import answer


def test_answer():
    expected = 1234
    assert answer() == expected
"""
}
SPIES = {
    "sys.settrace": ("sys.settrace(_spy)", "used sys.settrace"),
    "sys.setprofile": ("sys.setprofile(_spy)", "used sys.setprofile"),
    "threading.settrace": ("threading.settrace(_spy); _in_a_thread()", "used threading.settrace"),
    "threading.setprofile": (
        "threading.setprofile(_spy); _in_a_thread()",
        "used threading.setprofile",
    ),
    # the hook a thread installs at its start, set without threading.settrace: the tracer is
    # installed by threading (trusted), and judged by the callable's origin
    "threading._trace_hook": (
        "threading._trace_hook = _spy; _in_a_thread()",
        "used sys.settrace with the project's _spy",
    ),
    # a tracer that is no one's code: a list's append, kept by the project
    "a list's append at a thread's start": (
        "threading._trace_hook = _FRAMES.append; _in_a_thread()",
        "used sys.settrace with a built-in method bound to data (list)",
    ),
    # trusted code handed the project's tracer (a thread's run() calling sys.settrace)
    "handed to trusted code": (
        "_in_a_thread(sys.settrace, (_spy,)); threading.Thread(target=_probe).run()",
        "used sys.settrace with the project's _spy",
    ),
}


@pytest.mark.parametrize("spy", sorted(SPIES))
def test_the_project_setting_a_tracer_is_refused_and_named(spy, kind, tmp_path, sandbox):
    install, named = SPIES[spy]
    r = _score(kind, tmp_path, sandbox, SPY_LIB.replace("{INSTALL}", install), SPY_TESTS)
    assert r.passed == 0, (spy, r.failures)
    assert {f["kind"] for f in r.integrity} == {"interpreter_access"}, r.integrity
    assert any(named in f["detail"] for f in r.integrity), r.integrity


CRAFTED_LIB = """
import sys


def answer():
    # the event the guard's own sys._getframe raises, raised straight from the function
    # the test calls: the guard would take the test for the caller and hand a real frame
    box = [None, None]
    try:
        sys.audit("swarm_envs.frame", None, (0,), box)
        return box[0].f_locals.get("expected")
    except Exception:
        return None
"""


def test_the_frame_event_raised_by_the_project_gives_no_real_frame(kind, tmp_path, sandbox):
    r = _score(kind, tmp_path, sandbox, CRAFTED_LIB, SPY_TESTS)
    assert r.passed == 0, r.failures
    assert {f["kind"] for f in r.integrity} == {"frame_introspection"}, r.integrity
    assert "raised the guard's frame event" in r.integrity[0]["detail"]


def test_the_tracing_event_raised_by_the_project_is_refused(kind, tmp_path, sandbox):
    lib = SPY_LIB.replace(
        "{INSTALL}", 'sys.audit("swarm_envs.tracing", "sys.settrace", _spy, [None, None])'
    )
    r = _score(kind, tmp_path, sandbox, lib, SPY_TESTS)
    assert r.passed == 0, r.failures
    assert {f["kind"] for f in r.integrity} == {"interpreter_access"}, r.integrity
    assert "raised the guard's tracing event" in r.integrity[0]["detail"]


# ------------------------------------------------------------ 9. lengths, the test's own

LENGTH_LIB = '''
class Bag:
    """A multiset: its length counts every item, iterating it yields each item once."""

    def __init__(self, items):
        self._items = list(items)

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(dict.fromkeys(self._items))


def largest(bags, key):
    return max(bags, key=key)


class Liar:
    def __len__(self):
        return 3

    def __iter__(self):
        return iter(())
'''
LENGTH_TESTS = {
    "test_lengths.py": """
from mathy import Bag, Liar, largest


def test_len_handed_to_the_library():
    bags = [Bag("aab"), Bag("abcd")]
    assert largest(bags, key=len) is bags[1]
    assert sorted(map(len, bags)) == [3, 4]


def test_len_rebound_by_the_test():
    len = lambda x: 99  # noqa: E731
    assert len(Bag("aab")) == 99


def test_a_lying_len_read_by_the_test():
    assert len(Liar()) == 3
"""
}


def test_only_the_tests_own_calls_of_len_are_strict(kind, tmp_path, sandbox):
    """A `len` the test hands to a library measures the library's objects unjudged; the
    test's own `len(x) == 3` of an object that iterating contradicts is caught."""
    r = _score(kind, tmp_path, sandbox, LENGTH_LIB, LENGTH_TESTS)
    lengths = "tests/test_lengths.py::"
    assert r.per_test[lengths + "test_len_handed_to_the_library"], r.failures
    assert r.per_test[lengths + "test_len_rebound_by_the_test"], r.failures
    assert not r.per_test[lengths + "test_a_lying_len_read_by_the_test"]
    assert [(f["kind"], f["test"]) for f in r.integrity] == [
        ("lying_dunder", lengths + "test_a_lying_len_read_by_the_test")
    ], r.integrity


# ------------------------------------------------ 10. comparisons handed to the project

MATCHER_LIB = '''
class Expr:
    """What `M == 1` builds (glom's matchers, a query builder's column expressions)."""

    def __init__(self, op, value):
        self.op, self.value = op, value

    def matches(self, target):
        return (target == self.value) == (self.op == "==")


class _M:
    def __eq__(self, other):
        return Expr("==", other)

    def __ne__(self, other):
        return Expr("!=", other)

    __hash__ = object.__hash__


M = _M()


def check(target, spec):
    if not spec.matches(target):
        raise ValueError(target)
    return target


class Or:
    def __init__(self, *specs, default=None):
        self.specs, self.default = specs, default

    def __call__(self, target):
        return target if any(s.matches(target) for s in self.specs) else self.default


class Truthy:
    """Not equal to anything, but what its `==` answers is a non-empty list."""

    def __eq__(self, other):
        return [other]

    __hash__ = object.__hash__


def answer():
    return Truthy()


def keep(x):
    return x
'''
MATCHER_TESTS = {
    "test_matchers.py": """
from mathy import M, Or, answer, check, keep


def ok(x):
    return x


def test_expressions_handed_to_the_project():
    assert check(1, M == 1) == 1
    assert check(2, M != 1) == 2
    assert Or(M == 2, default=3)(1) == 3


def test_handed_to_bool():
    assert bool(answer() == 42)


def test_handed_to_the_tests_own_helper():
    assert ok(answer() == 42)


def test_handed_to_the_project_and_asserted():
    assert keep(answer() == 42)


def test_asserted():
    assert answer() == 42
"""
}


def test_comparisons_handed_to_the_project_are_its_data(kind, tmp_path, sandbox):
    """glom's `assert glom(1, M == 1) == 1`: a comparison the test hands to the project's
    own function builds a value that function interprets, and is not judged as a claim of
    equality. Handed to `bool` or to the test's own helper, or asserted, the same lying
    `==` is still caught; handed to the project, the project decides anyway, and the
    value it returns is what the assert judges."""
    r = _score(kind, tmp_path, sandbox, MATCHER_LIB, MATCHER_TESTS)
    m = "tests/test_matchers.py::"
    assert r.per_test[m + "test_expressions_handed_to_the_project"], r.failures
    for name in ("test_handed_to_bool", "test_handed_to_the_tests_own_helper", "test_asserted"):
        assert not r.per_test[m + name], name
    flagged = {f["test"] for f in r.integrity}
    assert flagged == {
        m + "test_handed_to_bool",
        m + "test_handed_to_the_tests_own_helper",
        m + "test_asserted",
    }, r.integrity
    # `keep` is the project's: it could return True whatever it is handed, so what it
    # returns is judged as any asserted value is (a non-empty list is true).
    assert r.per_test[m + "test_handed_to_the_project_and_asserted"]


# The test's own helper that only passes the comparison on (glom's `test_sky`).
PASS_ON_TESTS = {
    "test_pass_on.py": """
from mathy import M, Or, answer, check


def as_spec(spec, default):
    'only hands `spec` on, to the project'
    return Or(spec, default=default)


def twice(spec, default):
    return as_spec(spec, default)


def test_sky():
    def nested(spec):
        return Or(spec, default=0)

    assert as_spec(M == 2, 3)(1) == 3
    assert twice(M == 1, 3)(1) == 1
    assert nested(M == 1)(1) == 1


def takes_its_truth(x):
    return bool(x)


def reads_it_twice(spec, default):
    ok = spec == spec
    return Or(spec, default=default) if ok else None


def test_a_helper_that_takes_the_truth():
    assert takes_its_truth(answer() == 42)


def test_a_helper_that_uses_it_twice():
    assert reads_it_twice(answer() == 42, 3)


def passes_on(spec, default):
    return Or(spec, default=default)


def test_a_helper_shadowed_by_a_parameter(passes_on=lambda spec, default: spec):
    assert passes_on(answer() == 42, 3)
"""
}


def test_a_helper_that_only_passes_a_comparison_to_the_project(kind, tmp_path, sandbox):
    """glom's `as_type(M == 'abc', list)`, whose body only hands it to `And`: the comparison
    reaches the project's function, as if the test had handed it there itself. A helper
    that takes its truth, uses it twice, or a name that may mean another function at the
    call, keeps the judgement."""
    r = _score(kind, tmp_path, sandbox, MATCHER_LIB, PASS_ON_TESTS)
    m = "tests/test_pass_on.py::"
    assert r.per_test[m + "test_sky"], r.failures
    judged = {
        m + "test_a_helper_that_takes_the_truth",
        m + "test_a_helper_that_uses_it_twice",
        m + "test_a_helper_shadowed_by_a_parameter",
    }
    assert not any(r.per_test[t] for t in judged), (r.per_test, r.integrity)
    assert {f["test"] for f in r.integrity} == judged, r.integrity


# ------------------------------------------------ 11. the tests' own objects in a comparison

OWN_LIB = """
import sys


class Compose:
    def __init__(self, *fs):
        self.fs = fs

    def __eq__(self, other):
        if isinstance(other, Compose):
            return self.fs == other.fs
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = object.__hash__


def compose(*fs):
    return Compose(*fs)


class Anything:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class Declines:
    value = Anything()

    def __eq__(self, other):
        return NotImplemented

    __hash__ = object.__hash__


def declines():
    return Declines()


def borrowed():
    # an always-equal class of the tests' own, taken from their module
    return sys.modules["test_own"].AlwaysEquals()


def annotation(fn):
    import inspect

    return inspect.signature(fn).return_annotation
"""
OWN_TESTS = {
    "test_own.py": """
from mathy import annotation, borrowed, compose, declines


class AlwaysEquals:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class NeverEquals:
    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


class Expected:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return self.value == other.value

    __hash__ = object.__hash__


def test_compose_metadata():
    composed = compose(1, 2)
    assert composed == compose(1, 2)
    assert composed == AlwaysEquals()
    assert AlwaysEquals() == composed
    assert not composed == NeverEquals()
    assert composed != NeverEquals()
    assert not composed != AlwaysEquals()
    assert not composed == object()


def test_annotations_set_afterwards():
    # toolz's `compose` reads the return annotation of the function it is handed
    def otherfunc(f):
        return f

    otherfunc.__annotations__ = {"f": int, "return": str}
    assert annotation(otherfunc) is str


def test_an_answer_read_off_the_project():
    assert declines() == Expected(5)


def test_the_tests_class_returned_by_the_project():
    assert borrowed() == 5
"""
}


def test_the_tests_own_classes_decide_where_the_project_declines(kind, tmp_path, sandbox):
    """toolz's `assert composed == AlwaysEquals()`: the project's `__eq__` declines and the
    test's own class, which equals anything by design, decides. An answer of the tests'
    class that depends on what the project's object shows (an attribute that equals
    anything), or an always-equal object of the tests' class that the project returns,
    is still judged and flagged."""
    r = _score(kind, tmp_path, sandbox, OWN_LIB, OWN_TESTS)
    m = "tests/test_own.py::"
    assert r.per_test[m + "test_compose_metadata"], r.failures
    # a function's signature is read as it is when asked (annotations set afterwards count)
    assert r.per_test[m + "test_annotations_set_afterwards"], r.failures
    judged = {
        m + "test_an_answer_read_off_the_project",
        m + "test_the_tests_class_returned_by_the_project",
    }
    assert not any(r.per_test[t] for t in judged), (r.per_test, r.integrity)
    assert {f["test"] for f in r.integrity} == judged, r.integrity
