"""Stubbing: remove the implementation of functions, methods and classes, keep the rest.

A *unit* is named by its file and a symbol: `"func"`, `"Class"`, `"Class.method"` or
`"Outer.Inner.method"`. Stubbing replaces the body of every function the symbol names
(after its docstring) with one `raise NotImplementedError('not implemented yet: ...')`
line and leaves everything else of the file byte for byte: signatures, decorators,
docstrings, comments, other functions.

What a symbol names:

- a function or method: *every* definition of that name in its scope, so a property's
  getter, setter and deleter (or a function redefined under `if`-less code) are one unit;
- a class: every method of the class (nested classes included).

The rewriting is position-based (line and column), not line-based, so decorated nested
functions, one-line functions (`def f(x): return x + 1`) and bodies that share a line with
their docstring stub correctly; every stub is checked to parse.

This module is pure (the standard library and `swarm_envs.error` only) so that task loading
can stub a starting state without importing scoring or sandboxes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from swarm_envs.core.pysource import parse
from swarm_envs.error import ManifestError

STUB_MESSAGE = "not implemented yet: {name}"
STUB_EXCEPTION = "NotImplementedError"

Function = ast.FunctionDef | ast.AsyncFunctionDef
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class UnitLike(Protocol):
    """What stubbing needs of a unit (`swarm_envs.tasks.Unit` has it)."""

    @property
    def path(self) -> str:
        """The unit's file, relative to the project root."""
        ...

    @property
    def symbol(self) -> str:
        """What the unit names in that file: 'f', 'C' or 'C.m'."""
        ...


class StubError(ManifestError):
    """A unit cannot be stubbed: its symbol is missing or its stub would not parse."""


def stub_line(name: str, indent: int | str) -> str:
    """The line that replaces the body of a stubbed function (`name`: its qualified name)."""
    pad = " " * indent if isinstance(indent, int) else indent
    return pad + f"raise {STUB_EXCEPTION}({STUB_MESSAGE.format(name=name)!r})\n"


# ---------------------------------------------------------------------------- symbols


def find_defs(tree: ast.Module, symbol: str) -> list[Definition]:
    """Every definition that `symbol` names in the module, in source order (may be empty).

    The outer parts of a dotted symbol must be classes (the first class of that name);
    the last part matches every function or class of that name in the innermost scope.
    """
    scope: list[ast.stmt] = tree.body
    parts = symbol.split(".")
    for part in parts[:-1]:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == part), None)
        if cls is None:
            return []
        scope = cls.body
    last = parts[-1]
    return [
        n
        for n in scope
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == last
    ]


def find_symbol(tree: ast.Module, symbol: str) -> Definition | None:
    """The first function, class or method that `symbol` names, or None."""
    defs = find_defs(tree, symbol)
    return defs[0] if defs else None


def functions_of(node: ast.AST) -> list[Function]:
    """The function itself, or every method of a class (nested classes included)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node]
    if not isinstance(node, ast.ClassDef):
        raise TypeError(f"expected a function or class definition, got {type(node).__name__}")
    out: list[Function] = []
    for child in node.body:
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.extend(functions_of(child))
    return out


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def statement_start(node: ast.stmt) -> tuple[int, int]:
    """(line, column) where a statement starts, decorators included."""
    decorators = getattr(node, "decorator_list", None) or []
    first = min([node, *decorators], key=lambda n: (n.lineno, n.col_offset))
    if first is node:
        return node.lineno, node.col_offset
    # A decorator's expression starts after its '@'.
    return first.lineno, max(0, first.col_offset - 1)


def implementation(fn: Function) -> list[ast.stmt]:
    """The statements of a function's body after its docstring (empty: nothing to stub)."""
    body = fn.body
    return body[1:] if body and _is_docstring(body[0]) else list(body)


def body_span(fn: Function) -> tuple[int, int]:
    """First and last line (1-based) of the body after the docstring; (0, 0) when empty.

    The first line is that of the first statement's first decorator, if it has any.
    """
    body = implementation(fn)
    if not body:
        return (0, 0)
    return statement_start(body[0])[0], max(n.end_lineno or n.lineno for n in body)


def body_start(fn: Function) -> tuple[int, int]:
    """(line, column) of the first statement after the docstring; (0, 0) when empty."""
    body = implementation(fn)
    return statement_start(body[0]) if body else (0, 0)


def def_span(node: Definition) -> tuple[int, int]:
    """First and last line (1-based) of a whole definition, decorators included."""
    return statement_start(node)[0], node.end_lineno or node.lineno


@dataclass(frozen=True)
class Target:
    """One function to stub: the node and the name its stub line carries."""

    fn: Function
    name: str


def _variant(fn: Function, index: int) -> str:
    """How the stub of a repeated definition tells itself apart ('setter', '#2', ...)."""
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Attribute) and dec.attr in ("setter", "getter", "deleter"):
            return f" ({dec.attr})"
    return f" #{index + 1}"


def targets(tree: ast.Module, symbol: str) -> list[Target]:
    """The functions stubbing `symbol` rewrites, each with a stub name unique in the unit.

    Raises:
        StubError: no definition is named `symbol`.
    """
    defs = find_defs(tree, symbol)
    if not defs:
        raise StubError(f"no function, method or class named {symbol!r}")
    out: list[Target] = []
    seen: dict[str, int] = {}

    def add(fn: Function, base: str) -> None:
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(Target(fn, base if n == 0 else base + _variant(fn, n)))

    prefix = symbol.rsplit(".", 1)[0] + "." if "." in symbol else ""

    def visit(node: Definition, qual: str) -> None:
        if isinstance(node, ast.ClassDef):
            for child in node.body:
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    visit(child, f"{qual}.{child.name}")
        else:
            add(node, qual)

    for d in defs:
        visit(d, prefix + d.name)
    return out


# ---------------------------------------------------------------------------- rewriting


class _Lines:
    """A source split into lines, with column offsets in UTF-8 bytes as `ast` gives them."""

    def __init__(self, source: str):
        self.lines = source.splitlines(keepends=True)

    def col(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1]
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def indent_of(self, line: int) -> str:
        text = self.lines[line - 1]
        return text[: len(text) - len(text.lstrip(" \t"))]


def _stub_edit(src: _Lines, fn: Function, name: str) -> tuple[int, int, int, str] | None:
    """(first line, column, last line, replacement) that stubs `fn`; None: nothing to stub."""
    body = implementation(fn)
    if not body:
        return None
    line, byte_col = statement_start(body[0])
    end = max(n.end_lineno or n.lineno for n in body)
    col = src.col(line, byte_col)
    before = src.lines[line - 1][:col]
    if not before.strip():
        # The body starts on a line of its own: replace whole lines, keep its indentation.
        return line, 0, end, stub_line(name, src.indent_of(line))
    # The body shares its first line with the signature or the docstring (a one-liner):
    # cut there and put the stub on a line of its own, one level deeper than the def.
    own = src.indent_of(fn.lineno)
    deeper = own + ("\t" if own.endswith("\t") else "    ")
    return line, col, end, "\n" + stub_line(name, deeper)


def _apply(src: _Lines, edits: list[tuple[int, int, int, str]]) -> str:
    lines = list(src.lines)
    # Bottom-up, so that earlier positions stay valid.
    for line, col, end, text in sorted(edits, reverse=True):
        head = lines[line - 1][:col].rstrip() if col else ""
        lines[line - 1 : end] = [head + text]
    return "".join(lines)


def stub_source(source: str, symbols: Iterable[str], *, path: str = "<source>") -> str:
    """Replace the bodies of `symbols` (functions, methods, or every method of a class).

    The docstring and signature of each stubbed function stay; the body becomes a `raise`.

    Raises:
        StubError: a symbol names nothing in the file, or the result does not parse.
    """
    try:
        tree = parse(source)
    except SyntaxError as e:
        raise StubError(f"{path}: cannot parse ({e.msg}, line {e.lineno})") from None
    src = _Lines(source)
    edits: dict[int, tuple[int, int, int, str]] = {}
    for symbol in symbols:
        try:
            found = targets(tree, symbol)
        except StubError as e:
            raise StubError(f"{path}: {e}") from None
        for t in found:
            edit = _stub_edit(src, t.fn, t.name)
            if edit is not None:
                # A class and one of its methods may both be listed: stub each function once.
                edits.setdefault(id(t.fn), edit)
    out = _apply(src, list(edits.values()))
    try:
        parse(out)
    except SyntaxError as e:
        raise StubError(
            f"{path}: stubbing {', '.join(symbols)} would not parse ({e.msg}, line {e.lineno})"
        ) from None
    return out


def stub_units(files: dict[str, bytes], units: Iterable[UnitLike]) -> dict[str, bytes]:
    """Return a copy of `files` with every unit in `units` stubbed out.

    Raises:
        StubError: a unit's file is missing or cannot be stubbed.
    """
    by_path: dict[str, list[str]] = {}
    for u in units:
        by_path.setdefault(u.path, []).append(u.symbol)
    out = dict(files)
    for path, symbols in by_path.items():
        if path not in out:
            raise StubError(f"unit path {path!r} is not a file of the project")
        try:
            src = out[path].decode("utf-8")
        except UnicodeDecodeError:
            raise StubError(f"{path}: not UTF-8 text") from None
        out[path] = stub_source(src, symbols, path=path).encode("utf-8")
    return out


def definition_texts(source: str, symbol: str) -> list[str]:
    """The full text (decorators to last line) of every function stubbing `symbol` rewrites.

    In the order of `targets`; used to turn one version of a unit into another with exact
    `edit_file` replacements.
    """
    tree = parse(source)
    lines = source.splitlines(keepends=True)
    out = []
    for t in targets(tree, symbol):
        first, last = def_span(t.fn)
        out.append("".join(lines[first - 1 : last]))
    return out


def iter_functions(tree: ast.Module) -> Iterator[tuple[str, Function]]:
    """(symbol, node) of every module-level function and every method, in source order.

    Methods of nested classes are `Outer.Inner.m`. A name defined twice in one scope
    (a property's getter and setter) is yielded once per definition, with the same symbol.
    """

    def visit(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, Function]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + node.name, node
            elif isinstance(node, ast.ClassDef):
                yield from visit(node.body, f"{prefix}{node.name}.")

    yield from visit(tree.body, "")
