"""Stubbing: the code shapes real projects have, each stubbed so that the module still parses."""

import ast
import textwrap

import pytest

from swarm_envs.tasks import Unit
from swarm_envs.tasks.stubbing import (
    StubError,
    definition_texts,
    find_defs,
    stub_source,
    stub_units,
    targets,
)


def stub(src: str, *symbols: str) -> str:
    out = stub_source(textwrap.dedent(src), symbols)
    ast.parse(out)
    return out


def run(src: str, call: str):
    ns: dict = {}
    exec(compile(src, "<stub>", "exec"), ns)
    return eval(call, ns)


def test_keeps_signature_docstring_comments_and_other_functions():
    src = '''
        # header comment
        def f(self, x: int) -> int:
            """Doc."""
            # inside
            y = x
            return y


        def g():
            return 2  # keep me
    '''
    out = stub(src, "f")
    assert (
        'def f(self, x: int) -> int:\n    """Doc."""\n    # inside\n    raise NotImplementedError'
        in out
    )
    assert "return y" not in out and "return 2  # keep me" in out and "# header comment" in out


def test_decorated_inner_function_is_removed_with_its_decorator():
    src = """
        import functools

        def wrap(op):
            @functools.wraps(op)
            def inner(*a):
                return op(*a)
            return inner
    """
    out = stub(src, "wrap")
    assert "@functools.wraps" not in out and "def inner" not in out
    with pytest.raises(NotImplementedError, match="not implemented yet: wrap"):
        run(out, "wrap(len)")


def test_one_line_function_gets_its_stub_on_a_line_of_its_own():
    out = stub("def f(x): return x + 1\nclass C:\n    def m(self): return 2; pass\n", "f", "C.m")
    assert "def f(x):\n    raise NotImplementedError('not implemented yet: f')\n" in out
    assert (
        "    def m(self):\n        raise NotImplementedError('not implemented yet: C.m')\n" in out
    )


def test_body_sharing_the_docstring_line():
    out = stub('def f():\n    """Doc."""; return 1\n', "f")
    assert '"""Doc."""' in out and "return 1" not in out


def test_property_getter_and_setter_are_one_unit_with_distinct_stubs():
    src = """
        class Temp:
            def __init__(self):
                self._c = 0.0

            @property
            def celsius(self):
                return self._c

            @celsius.setter
            def celsius(self, value):
                self._c = float(value)
    """
    assert len(find_defs(ast.parse(textwrap.dedent(src)), "Temp.celsius")) == 2
    assert [t.name for t in targets(ast.parse(textwrap.dedent(src)), "Temp.celsius")] == [
        "Temp.celsius",
        "Temp.celsius (setter)",
    ]
    out = stub(src, "Temp.celsius")
    assert out.count("raise NotImplementedError") == 2
    assert "self._c = 0.0" in out  # __init__ untouched
    with pytest.raises(NotImplementedError, match=r"Temp\.celsius \(setter\)"):
        run(out, "setattr(Temp(), 'celsius', 3)")


def test_class_unit_stubs_every_method_including_nested_classes():
    src = """
        class A:
            X = 1

            def f(self):
                return 1

            class B:
                def g(self):
                    return 2
    """
    out = stub(src, "A")
    assert "X = 1" in out
    assert "not implemented yet: A.f" in out and "not implemented yet: A.B.g" in out
    assert "not implemented yet: A.B.g" in stub(src, "A.B.g")


def test_tabs_and_non_ascii_columns():
    src = 'def f(x):\n\t"""Ünïcode doc."""\n\treturn \'é\' + x\n\ndef g(): return \'ü\'\n'
    out = stub_source(src, ["f", "g"])
    assert "\traise NotImplementedError" in out and "return 'é'" not in out
    assert "def g():\n    raise" in out
    ast.parse(out)


def test_docstring_only_and_async_functions():
    src = 'def f():\n    """Only a docstring."""\n\nasync def g():\n    return 1\n'
    out = stub_source(src, ["f", "g"])
    assert out.startswith('def f():\n    """Only a docstring."""\n')
    assert "async def g():\n    raise NotImplementedError" in out


def test_missing_symbol_and_broken_source_are_stub_errors():
    with pytest.raises(StubError, match=r"m\.py: no function, method or class named 'nope'"):
        stub_source("def f():\n    return 1\n", ["nope"], path="m.py")
    with pytest.raises(StubError, match="cannot parse"):
        stub_source("def f(:\n", ["f"], path="m.py")
    unit = Unit(name="x", path="missing.py", symbol="f", tests=["tests"])
    with pytest.raises(StubError, match="not a file of the project"):
        stub_units({"m.py": b"def f(): return 1\n"}, [unit])


def test_definition_texts_cover_decorators():
    src = "class C:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    def x(self, v):\n        pass\n"
    texts = definition_texts(src, "C.x")
    assert texts[0].startswith("    @property\n") and texts[1].startswith("    @x.setter\n")
