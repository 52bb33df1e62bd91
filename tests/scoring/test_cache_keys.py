"""Cache keys from host-read content only: a differential test against fresh runs.

After every edit of an adversarial sequence (a function reached through a registry, a
callback by name from the standard library, a hidden import, a data file read at run
time, a decorator's registry, same-size rewrites with restored timestamps, forged
records), the fast scorer, with its cache and its static keys, must agree with a fresh
`pytest` run of the naive scorer. A fresh episode must never inherit a cached outcome
from another content.
"""

from __future__ import annotations

import os
import textwrap

import pytest

from swarm_envs.scoring import make_scorer

from .project import write_task

SOLUTION = {
    "adv/__init__.py": "",
    "adv/fns.py": "def double(x):\n    return x * 2\n\n\ndef triple(x):\n    return x * 3\n",
    "adv/registry.py": 'from .fns import double, triple\n\nHANDLERS = {"double": double, "triple": triple}\n',
    "adv/core.py": textwrap.dedent(
        """\
        import json

        from .registry import HANDLERS


        def run(name, x):
            return HANDLERS[name](x)


        class Enc(json.JSONEncoder):
            def default(self, o):
                return ["point", o.x]


        def encode(p):
            return json.dumps(p, cls=Enc)


        class Box:
            def value(self):
                return 7


        def by_name(obj):
            return getattr(obj, "value")()
        """
    ),
    "adv/hidden.py": "def secret():\n    return 41\n",
    "adv/dyn.py": textwrap.dedent(
        """\
        import builtins

        _load = getattr(builtins, "__imp" + "ort__")


        def load():
            return _load("adv.hidden", fromlist=["secret"]).secret()
        """
    ),
    # The same, inside a function: only the tests that reach it depend on everything.
    "adv/dynfn.py": textwrap.dedent(
        """\
        import importlib


        def load(name):
            return importlib.import_module("adv." + name).secret()


        def plain():
            return 5
        """
    ),
    "adv/data.txt": "twelve chars",
    "adv/reader.py": textwrap.dedent(
        """\
        import os


        def size():
            with open(os.path.join(os.path.dirname(__file__), "data.txt")) as f:
                return f.read()
        """
    ),
    "adv/plugins.py": textwrap.dedent(
        """\
        REG = {}


        def register(f):
            REG[f.__name__] = f
            return f


        @register
        def plug():
            return 1
        """
    ),
}
TESTS = {
    "test_handlers.py": "from adv.core import run\n\n\ndef test_double():\n    assert run('double', 2) == 4\n\n\n"
    "def test_triple():\n    assert run('triple', 2) == 6\n",
    "test_json.py": "from adv.core import encode\n\n\nclass P:\n    x = 3\n\n\n"
    "def test_encode():\n    assert encode(P()) == '[\"point\", 3]'\n",
    "test_byname.py": "from adv.core import Box, by_name\n\n\ndef test_by_name():\n    assert by_name(Box()) == 7\n",
    "test_dyn.py": "from adv.dyn import load\n\n\ndef test_load():\n    assert load() == 41\n",
    "test_dynfn.py": "from adv.dynfn import load, plain\n\n\ndef test_load_by_name():\n"
    "    assert load('hidden') == 41\n\n\ndef test_plain():\n    assert plain() == 5\n",
    "test_reader.py": "from adv.reader import size\n\n\ndef test_size():\n    assert size() == 'twelve chars'\n",
    "test_plugins.py": "import adv.plugins as p\n\n\ndef test_plug():\n    assert p.REG['plug']() == 1\n",
}

FORGE = textwrap.dedent(
    """\
    import json, os

    for fd in range(3, 64):
        for rec in ({"ev": "loaded", "files": {}, "modules": {}}, {"ev": "deps", "tests": {}}):
            try:
                os.write(fd, b"0" * 32 + b" " + json.dumps(rec).encode() + b"\\n")
            except OSError:
                pass
    """
)


def _put(sandbox, rel: str, text: str, *, keep_times: bool = False) -> None:
    p = sandbox.root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    st = p.stat() if keep_times and p.exists() else None
    p.write_text(text)
    if st is not None:
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime


EDITS = [
    (
        "a function reached only through a registry",
        "adv/fns.py",
        SOLUTION["adv/fns.py"].replace("x * 2", "x * 2 + 1"),
    ),
    ("back", "adv/fns.py", SOLUTION["adv/fns.py"]),
    ("a module loaded by a hidden import", "adv/hidden.py", "def secret():\n    return 42\n"),
    ("back", "adv/hidden.py", SOLUTION["adv/hidden.py"]),
    (
        "a module a function loads by a computed name",
        "adv/hidden.py",
        "def secret():\n    return 40\n",
    ),
    ("back", "adv/hidden.py", SOLUTION["adv/hidden.py"]),
    (
        "a method the json module calls by name",
        "adv/core.py",
        SOLUTION["adv/core.py"].replace('["point", o.x]', '["point", o.x + 1]'),
    ),
    (
        "a method called through getattr",
        "adv/core.py",
        SOLUTION["adv/core.py"].replace("return 7", "return 8"),
    ),
    ("back", "adv/core.py", SOLUTION["adv/core.py"]),
    ("a data file read at run time", "adv/data.txt", "twelve CHARS"),
    ("back", "adv/data.txt", SOLUTION["adv/data.txt"]),
    (
        "a function a decorator registered",
        "adv/plugins.py",
        SOLUTION["adv/plugins.py"].replace("return 1", "return 2"),
    ),
    ("back", "adv/plugins.py", SOLUTION["adv/plugins.py"]),
    (
        "records forged at import",
        "adv/fns.py",
        FORGE + SOLUTION["adv/fns.py"].replace("x * 3", "x * 4"),
    ),
    ("back", "adv/fns.py", SOLUTION["adv/fns.py"]),
]


@pytest.mark.timeout(600)
@pytest.mark.slow
def test_the_fast_scorer_agrees_with_fresh_runs_after_adversarial_edits(tmp_path, sandbox):
    task = write_task(tmp_path / "adv", solution=SOLUTION, tests=TESTS, start=SOLUTION, name="adv")
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as fast, make_scorer(task, sandbox, kind="subprocess") as fresh:
        assert fast.evaluate().passed == fast.evaluate().total == 9
        for what, rel, text in EDITS:
            _put(sandbox, rel, text)
            a, b = fast.evaluate(), fresh.evaluate()
            assert a.verdict == b.verdict == "ok", (what, a.error, b.error)
            assert a.per_test == b.per_test, what
        # Same-size rewrites with the old timestamps, inside and outside the racy window.
        for new in ("x * 5", "x * 3"):
            _put(
                sandbox, "adv/fns.py", SOLUTION["adv/fns.py"].replace("x * 3", new), keep_times=True
            )
            assert fast.evaluate().per_test == fresh.evaluate().per_test, new
        p = sandbox.root / "adv/fns.py"
        old = p.stat().st_mtime_ns - 10**10
        os.utime(p, ns=(old, old))
        fast.evaluate()
        _put(
            sandbox, "adv/fns.py", SOLUTION["adv/fns.py"].replace("x * 3", "x * 6"), keep_times=True
        )
        assert fast.evaluate().per_test == fresh.evaluate().per_test


def test_a_fresh_episode_never_inherits_another_contents_outcome(tmp_path, make_sandbox_for_test):
    """The cache is shared by every episode of a task; keys are content, never reports."""
    task = write_task(tmp_path / "adv", solution=SOLUTION, tests=TESTS, start=SOLUTION, name="adv2")
    first = make_sandbox_for_test()
    task.materialize(first.root)
    _put(first, "adv/fns.py", FORGE + SOLUTION["adv/fns.py"].replace("x * 2", "x * 9"))
    with make_scorer(task, first) as sc:
        hacked = sc.evaluate()
    second = make_sandbox_for_test()
    task.materialize(second.root)
    with make_scorer(task, second) as sc:
        again = sc.evaluate()
    assert not hacked.per_test["tests/test_handlers.py::test_double"]
    assert again.per_test["tests/test_handlers.py::test_double"] and again.passed == 9


SHAPES = textwrap.dedent(
    """\
    from dataclasses import dataclass


    class Base:
        def __init__(self, v):
            self.v = v


    class Shape(Base):
        def __init__(self, v):
            super().__init__(v * 2)

        def __eq__(self, other):
            return isinstance(other, Shape) and self.v == other.v

        __hash__ = object.__hash__

        @property
        def area(self):
            return self.v * 10

        def grow(self):
            return self.v + 1

        def shrink(self):
            return self.v - 1


    @dataclass(frozen=True)
    class Spec:
        fn: object


    def scale(x):
        return x * 5


    SPEC = Spec(scale)
    ALIAS = Shape
    """
)
SHAPE_TESTS = {
    "test_shapes.py": textwrap.dedent(
        """\
        from adv.shapes import ALIAS, SPEC, Shape


        def test_eq():
            assert Shape(1) == Shape(1)


        def test_area():
            assert Shape(1).area == 20


        def test_by_computed_name():
            s = Shape(1)
            for name, want in (("grow", 3), ("shrink", 1)):
                assert getattr(s, name)() == want


        def test_spec():
            assert SPEC.fn(2) == 10


        def test_alias_by_computed_name():
            a = ALIAS(1)
            for name in ("grow",):
                assert getattr(a, name)() == 3
        """
    ),
    "test_other.py": "from adv.fns import double\n\n\ndef test_double():\n"
    "    assert double(2) == 4\n",
}
SHAPE_EDITS = [
    ("a base class's __init__, reached through the class header", "self.v = v", "self.v = v + 1"),
    ("a dunder that comes with its class", "self.v == other.v", "self.v != other.v"),
    ("a property", "self.v * 10", "self.v * 11"),
    ("a method reached by a computed name on an object of a known class", "- 1", "- 2"),
    ("a function held by an inert class's object at module level", "x * 5", "x * 6"),
    ("a method reached by a computed name through a module-level alias", "+ 1", "+ 2"),
]


@pytest.mark.timeout(600)
@pytest.mark.slow
def test_the_fast_scorer_agrees_after_edits_that_only_class_and_value_reach_see(tmp_path, sandbox):
    """Edits of what a test reaches through classes and module-level values, not names."""
    solution = {
        "adv/__init__.py": "",
        "adv/fns.py": SOLUTION["adv/fns.py"],
        "adv/shapes.py": SHAPES,
    }
    task = write_task(
        tmp_path / "shapes", solution=solution, tests=SHAPE_TESTS, start=solution, name="shapes"
    )
    task.materialize(sandbox.root)
    with make_scorer(task, sandbox) as fast, make_scorer(task, sandbox, kind="subprocess") as fresh:
        assert fast.evaluate().passed == 6
        for what, old, new in SHAPE_EDITS:
            _put(sandbox, "adv/shapes.py", SHAPES.replace(old, new, 1))
            a, b = fast.evaluate(), fresh.evaluate()
            assert a.verdict == b.verdict == "ok", (what, a.error, b.error)
            assert a.per_test == b.per_test, what
            assert a.passed < 6, what  # the edit broke something: the control
            # The test that reaches none of it is never re-run for it.
            assert a.ran < 6, what
            _put(sandbox, "adv/shapes.py", SHAPES)
            assert fast.evaluate().per_test == fresh.evaluate().per_test, f"back: {what}"
        assert fast.evaluate(fresh=True).per_test == fresh.evaluate().per_test


def _reach(files: dict[str, bytes], tests: dict[str, bytes], nodeid: str):
    from swarm_envs.scoring.graph import ImportGraph
    from swarm_envs.scoring.keys import Keyer
    from swarm_envs.scoring.snapshot import digest

    digests = {rel: digest(data) for rel, data in files.items()}
    blobs = {digest(data): data for data in files.values()}
    tds = {rel: digest(data) for rel, data in tests.items()}
    g = ImportGraph().analyse(digests, blobs, tests, tds)
    items = Keyer(digests, g.fact, g.closures, None, tds).items_for(nodeid.split("::")[0], nodeid)
    return None if items is None else {f"{rel}:{q}" for rel, qs in items.items() for q in qs}


def test_keys_follow_values_and_classes_and_widen_on_what_runs_at_import():
    m = textwrap.dedent(
        """\
        REG = []


        class Spec:
            pass


        class Loud:
            def __init__(self, f):
                REG.append(f)


        def h1():
            return 1


        def h2():
            return 2


        def h3():
            return 3


        A = Spec(h1)
        B = Loud(h2)
        C = {"x": h3}


        def other():
            return 0


        def by_table(k):
            return C[k]()
        """
    ).encode()
    files = {"pkg/__init__.py": b"", "pkg/m.py": m}
    tests = {
        "tests/test_a.py": b"from pkg.m import other, by_table\n\n\ndef test_o():\n"
        b"    assert other() == 0\n\n\ndef test_t():\n    assert by_table('x') == 3\n",
        "tests/test_b.py": b"from pkg.m import other\n\n\ndef test_dyn(n):\n"
        b"    x = other\n    assert getattr(x, n)\n",
    }
    o = _reach(files, tests, "tests/test_a.py::test_o")
    # h2 went to a class that runs code at construction: everyone's. h1 sits in an inert
    # object, h3 in a table: theirs only who reach A or C.
    assert o is not None and {"pkg/m.py:other", "pkg/m.py:h2", "pkg/m.py:Loud.__init__"} <= o
    assert "pkg/m.py:h1" not in o and "pkg/m.py:h3" not in o
    assert "pkg/m.py:h3" in _reach(files, tests, "tests/test_a.py::test_t")
    # A computed attribute of something that is not an object of a known class: opaque.
    assert _reach(files, tests, "tests/test_b.py::test_dyn") is None


def test_what_defeats_the_analysis_widens_only_the_keys_of_the_tests_that_reach_it():
    m = textwrap.dedent(
        """\
        import importlib


        def load(name):
            return importlib.import_module(name).VALUE


        def reads():
            with open(__file__) as f:
                return len(f.read())


        def pure(x):
            return x + 1
        """
    ).encode()
    files = {"pkg/__init__.py": b"", "pkg/m.py": m}
    tests = {
        "tests/test_a.py": b"from pkg.m import load, pure, reads\n\n\ndef test_pure():\n"
        b"    assert pure(1) == 2\n\n\ndef test_load():\n    assert load('pkg.v') == 1\n\n\n"
        b"def test_reads():\n    assert reads() > 0\n",
        # The module re-exported under its own name, then used: still everything.
        "tests/test_b.py": b"from pkg.m import importlib, pure\n\n\ndef test_again():\n"
        b"    assert importlib.import_module('pkg.v').VALUE == pure(0)\n",
    }
    pure = _reach(files, tests, "tests/test_a.py::test_pure")
    assert pure is not None and "pkg/m.py:pure" in pure and "pkg/m.py:load" not in pure
    assert _reach(files, tests, "tests/test_a.py::test_load") is None  # an opaque name
    assert _reach(files, tests, "tests/test_a.py::test_reads") is None  # an opaque body
    assert _reach(files, tests, "tests/test_b.py::test_again") is None
    # Used at import, the same name defeats the analysis for every test of the file.
    at_import = {**files, "pkg/m.py": m + b"\nVALUE = importlib.import_module('pkg.v')\n"}
    assert _reach(at_import, tests, "tests/test_a.py::test_pure") is None


def test_a_computed_attribute_of_a_new_object_of_a_known_class_reaches_its_methods():
    files = {
        "pkg/__init__.py": b"",
        "pkg/p.py": b"class Parser:\n    def one(self):\n        return 1\n\n"
        b"    def two(self):\n        return helper()\n\n\ndef helper():\n    return 2\n\n\n"
        b"def unrelated():\n    return 3\n",
    }
    tests = {
        "tests/test_p.py": b"from pkg.p import Parser, unrelated\n\n\ndef run(m):\n"
        b"    return getattr(Parser(), m)()\n\n\ndef test_two():\n    assert run('two') == 2\n",
        # A local rebinding the class's name: the receiver is not known.
        "tests/test_q.py": b"from pkg.p import Parser\n\n\ndef run(m, Parser=Parser):\n"
        b"    return getattr(Parser(), m)()\n\n\ndef test_one():\n    assert run('one') == 1\n",
    }
    got = _reach(files, tests, "tests/test_p.py::test_two")
    assert got is not None
    assert {"pkg/p.py:Parser.one", "pkg/p.py:Parser.two", "pkg/p.py:helper"} <= got
    assert "pkg/p.py:unrelated" not in got
    assert _reach(files, tests, "tests/test_q.py::test_one") is None
