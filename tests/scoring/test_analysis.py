"""Static facts of a Python file: what the host keys a cached outcome by."""

from __future__ import annotations

import pytest

from swarm_envs.scoring.analysis import analyze

SRC = b'''"""Module doc: parse and tokenize are mentioned here, not referenced."""
import os
from .core import tokenize as tok

LIMIT = 3
TABLE = {"add": handle_add}


def handle_add(x):
    """Doc of handle_add mentions evaluate."""
    return helper(x) + tok(x).count


class Node(Base):
    def __eq__(self, other):
        return True

    def visit(self):
        return getattr(self, "walk")()

    @register("x")
    def decorated(self):
        return 1


def nested():
    def inner():
        return deep()
    return inner
'''


def _f(src: bytes = SRC, package: str = "pkg"):
    return analyze(src, package)


def test_imports_functions_and_references():
    f = _f()
    assert [(i.module, i.names) for i in f.imports] == [("os", ()), ("pkg.core", ("tokenize",))]
    assert dict(f.aliases) == {"tok": "tokenize"}
    fns = {fn.qualname: fn for fn in f.functions}
    assert set(fns) == {"handle_add", "Node.__eq__", "Node.visit", "Node.decorated", "nested"}
    assert {"helper", "tok", "count"} <= fns["handle_add"].refs
    assert "evaluate" not in fns["handle_add"].refs  # docstrings name nothing
    assert "walk" in fns["Node.visit"].refs  # a constant attribute name counts
    assert "deep" in fns["nested"].refs  # nested functions belong to their parent
    # A dunder comes with its class; a registering decorator makes a function everyone's.
    assert fns["Node.__eq__"].implicit and not fns["Node.__eq__"].always
    assert fns["Node.decorated"].always
    assert not fns["handle_add"].always and not fns["handle_add"].implicit
    # A plain module-level value belongs to its name: reached only through `TABLE`.
    binds = {b.name: b.refs for b in f.bindings}
    assert "handle_add" in binds["TABLE"] and "handle_add" not in f.module_refs
    assert "Base" in binds["Node"] and "tokenize" not in f.module_refs
    assert [(c.qualname, c.bases) for c in f.classes] == [("Node", ("Base",))]
    assert not f.opaque


def test_skeleton_ignores_bodies_but_not_what_importing_does():
    base = _f().skeleton
    body = SRC.replace(b"return helper(x) + tok(x).count", b"return helper(x) - 1")
    assert _f(body).skeleton == base
    assert _f(SRC.replace(b"LIMIT = 3", b"LIMIT = 4")).skeleton != base
    assert _f(SRC.replace(b"def handle_add(x):", b"def handle_add(x, y=1):")).skeleton != base
    assert _f(SRC.replace(b'"""Doc of handle_add', b'"""Other doc of handle_add')).skeleton != base
    body_digest = {fn.qualname: fn.digest for fn in _f(body).functions}
    assert (
        body_digest["handle_add"] != {fn.qualname: fn.digest for fn in _f().functions}["handle_add"]
    )


OPAQUE = [
    b"import importlib\n",
    b"from importlib import import_module\n",
    b"x = __import__('m')\n",
    b"exec('1')\n",
    b"def f():\n    return eval('1')\n",
    b"def f(o, n):\n    return getattr(o, n)\n",
    b"g = getattr\n",
    b"def f():\n    return globals()\n",
    b"def f(m):\n    return m.__dict__\n",
    b"def f(fn):\n    return fn.__globals__\n",
    b"import operator\nf = operator.attrgetter('__globals__')\n",
    b"import sys\nm = sys.modules\n",
    b"import sys\ndef f():\n    return sys._getframe()\n",
    b"import sys as s\nx = s.path\n",
    b"from sys import modules\n",
    b"import os\nx = os.listdir('.')\n",
    b"import os\nx = os.path.exists('a')\n",
    b"from os.path import exists\n",
    b"def f(p):\n    return open(p).read()\n",
    b"import inspect\n",
    b"import gc\n",
    b"import subprocess\n",
    b"import pickle\n",
    b"import builtins\n",
    b"x = __builtins__\n",
    b"f = len.__self__\n",
    b"import sys\nf(sys)\n",
]


def _defeated(f) -> str:
    """Why anything of the file defeats the analysis: the code run at import, a
    function's body, or a name bound to a module that can do anything."""
    return (
        f.opaque
        or next((fn.opaque for fn in f.functions if fn.opaque), "")
        or "".join(why for _, why in f.opaque_names)
    )


@pytest.mark.parametrize("src", OPAQUE, ids=lambda s: s.decode().strip().replace("\n", "; ")[:40])
def test_what_defeats_the_analysis_is_opaque(src):
    assert _defeated(analyze(src, ""))


def test_what_defeats_the_analysis_inside_a_body_is_that_functions_alone():
    f = analyze(
        b"import importlib\nfrom pathlib import Path as P\n\n\ndef load(n):\n"
        b"    return importlib.import_module(n)\n\n\ndef reads():\n    return open('x').read()\n"
        b"\n\ndef pure(x):\n    return x + 1\n",
        "",
    )
    assert not f.opaque  # nothing at import defeats it
    why = {fn.name: fn.opaque for fn in f.functions}
    assert why["reads"] and not why["pure"] and not why["load"]
    assert dict(f.opaque_names) == {
        "importlib": "import importlib",
        "P": "from pathlib import Path",
    }
    # At import, the same constructs make the whole file opaque.
    assert analyze(b"x = open('f').read()\n", "").opaque
    assert analyze(b"from pathlib import *\n", "").opaque
    assert analyze(b"import os\ndef f():\n    return os.path.exists('a')\n", "").functions[0].opaque


HONEST = [
    b"import os\nx = os.path.join('a', 'b')\n",
    b"import sys\nx = sys.maxsize\n",
    b"from collections import namedtuple\nP = namedtuple('P', 'x y')\n",
    b"def f(o):\n    return getattr(o, 'name', None)\n",
    b"import json\nx = json.dumps({})\n",
    b"import re\nR = re.compile('a+')\n",
    b"from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n",
    b"import math\nfrom functools import lru_cache\n",
]


@pytest.mark.parametrize("src", HONEST, ids=lambda s: s.decode().strip().replace("\n", "; ")[:40])
def test_ordinary_code_is_not_opaque(src):
    assert not _defeated(analyze(src, ""))


def test_broken_deep_and_huge_files_never_raise():
    broken = analyze(b"def (:\n", "")
    assert broken.skeleton.startswith("raw:") and not broken.opaque
    deep = analyze(b"x = " + b"1+" * 5000 + b"1\n", "")
    assert deep.opaque and deep.skeleton.startswith("raw:")
    nested = analyze(b"x = " + b"[" * 90 + b"]" * 90 + b"\n", "")  # parses: analysed
    assert not nested.opaque
    huge = analyze(b"x = 1\n" * 400_000, "")
    assert huge.opaque
    assert analyze(b"\xff\xfe not utf-8 \x00", "").skeleton.startswith("raw:")


def test_a_fixture_is_everyones_and_a_plain_value_only_its_names():
    src = b"""import pytest
from .spec import Spec

@pytest.fixture
def db():
    return connect()

TABLE = {"a": handler}
SPEC = Spec(handler2)
MADE = build(handler3)
LATER = lambda: handler4()
EARLY = lambda x=build2(): x
"""
    f = analyze(src, "pkg")
    fns = {fn.qualname: fn for fn in f.functions}
    assert fns["db"].always  # pytest calls it by a parameter's name
    binds = {b.name: b for b in f.bindings}
    assert binds["TABLE"].refs >= {"handler"} and not binds["TABLE"].calls
    assert binds["SPEC"].calls == ("Spec",)  # kept only if Spec is inert (see keys)
    assert "LATER" in binds and "handler4" in binds["LATER"].refs
    # What a value calls at import is checked with the closure (`keys`): a call of
    # anything but an inert class makes the binding's names everyone's.
    assert binds["MADE"].calls == ("build",) and "handler3" in binds["MADE"].refs
    assert binds["EARLY"].calls == ("build2",)  # a lambda's defaults run at import
    assert "handler" not in f.module_refs and "handler4" not in f.module_refs
