"""Task generators: turn a complete project into task instances.

`stub_units` removes the implementation of units (keeping signatures and
docstrings), which is also how a bundled task without a `start/` folder gets its
starting state.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from swarm_envs.error import ManifestError
from swarm_envs.task import Unit

STUB_MESSAGE = "not implemented yet: {name}"


def _find(tree: ast.Module, symbol: str) -> ast.AST | None:
    scope: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in symbol.split("."):
        node = next(
            (
                n
                for n in scope
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        scope = node.body if isinstance(node, ast.ClassDef) else []
    return node


def _body_span(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """First and last line (1-based) of the body after the docstring."""
    body = fn.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if not body:
        return (0, 0)
    return body[0].lineno, max(n.end_lineno or n.lineno for n in body)


def _functions_of(node: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node]
    assert isinstance(node, ast.ClassDef)
    return [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def stub_source(source: str, symbols: Iterable[str], *, path: str = "<source>") -> str:
    """Replace the bodies of `symbols` (functions, methods, or every method of a class).

    Line-based so that comments and formatting elsewhere survive; the docstring and
    signature of each stubbed function stay, the body becomes a `raise`.
    """
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans: list[tuple[int, int, int, str]] = []
    for symbol in symbols:
        node = _find(tree, symbol)
        if node is None:
            raise ManifestError(f"{path}: no function, method or class named {symbol!r}")
        for fn in _functions_of(node):
            start, end = _body_span(fn)
            if start == 0:
                continue
            indent = fn.body[-1].col_offset
            spans.append((start, end, indent, f"{symbol.split('.')[0]}.{fn.name}"
                          if isinstance(node, ast.ClassDef) else symbol))
    # Bottom-up so that earlier line numbers stay valid.
    for start, end, indent, name in sorted(set(spans), reverse=True):
        stub = " " * indent + f"raise NotImplementedError({STUB_MESSAGE.format(name=name)!r})\n"
        lines[start - 1 : end] = [stub]
    out = "".join(lines)
    ast.parse(out)  # a stub must never break the module
    return out


def stub_units(files: dict[str, bytes], units: Iterable[Unit]) -> dict[str, bytes]:
    """Return a copy of `files` with every unit in `units` stubbed out."""
    by_path: dict[str, list[str]] = {}
    for u in units:
        by_path.setdefault(u.path, []).append(u.symbol)
    out = dict(files)
    for path, symbols in by_path.items():
        if path not in out:
            raise ManifestError(f"unit path {path!r} is not a file of the project")
        src = out[path].decode("utf-8")
        out[path] = stub_source(src, symbols, path=path).encode("utf-8")
    return out
