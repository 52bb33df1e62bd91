"""The dependency graph of a project's units: which units a unit's body really uses.

A unit depends on another when its body refers to it by a name that resolves to it:

- a module-level function or class of its own module, or one imported from another module
  of the project (`from .lexer import tokenize`, `import pkg.lexer as lx; lx.tokenize()`,
  re-exports through `__init__.py` and `from x import *` followed);
- a method through `self.` or `cls.` (looked up along the project's own base classes) or
  through `super()`; a property read through `self.`;
- a class it calls, which links to the class's `__init__` (and `__post_init__`).

What runs when the unit is *defined* rather than called (its decorators, default values,
annotations) does not count, and neither do names bound inside the unit (parameters, local
variables, loop targets): a local called `match` or a parameter called `format` is not the
function of that name. Calls on objects whose class cannot be known statically make no edge.

`order` breaks cycles only inside strongly connected components (dropping the edges that
point forward in source order) and returns the units in dependency order; `restrict` keeps
a subset of units with the dependencies that ran through the dropped ones.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from swarm_envs.core.pysource import parse
from swarm_envs.tasks.stubbing import find_defs

_CONSTRUCTORS = ("__init__", "__post_init__", "__new__")


@dataclass(frozen=True)
class UnitRef:
    """A unit as the graph sees it: its name, file and symbol."""

    name: str
    path: str
    symbol: str


def module_name(path: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`; `pkg/__init__.py` -> `pkg`."""
    mod = path.removesuffix(".py").replace("/", ".")
    return mod.removesuffix(".__init__")


@dataclass
class _Module:
    path: str
    name: str
    tree: ast.Module
    is_package: bool
    #: name -> ("module", modname) | ("attr", modname, attr) | ("def", symbol)
    bindings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)


class _Project:
    def __init__(self, sources: Mapping[str, str]):
        self.modules: dict[str, _Module] = {}
        for path, text in sources.items():
            if not path.endswith(".py"):
                continue
            try:
                tree = parse(text)
            except SyntaxError:
                continue
            m = _Module(path, module_name(path), tree, path.endswith("__init__.py"))
            self.modules[m.name] = m
        for m in self.modules.values():
            self._bind(m)

    def _bind(self, m: _Module) -> None:
        for node in m.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                m.bindings[node.name] = ("def", node.name)
            elif isinstance(node, ast.ClassDef):
                m.bindings[node.name] = ("def", node.name)
                m.classes.setdefault(node.name, node)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        m.bindings[a.asname] = ("module", a.name)
                    else:
                        top = a.name.split(".")[0]
                        m.bindings[top] = ("module", top)
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(m, node)
                if base is None:
                    continue
                for a in node.names:
                    if a.name == "*":
                        self._star(m, base)
                    else:
                        m.bindings[a.asname or a.name] = ("attr", base, a.name)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                # `alias = function` at module level
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        m.bindings[t.id] = ("alias", node.value.id)

    def _absolute(self, m: _Module, node: ast.ImportFrom) -> str | None:
        if not node.level:
            return node.module
        package = m.name if m.is_package else m.name.rpartition(".")[0]
        parts = package.split(".") if package else []
        if node.level - 1 > len(parts):
            return None
        base = parts[: len(parts) - (node.level - 1)]
        return ".".join([*base, *([node.module] if node.module else [])])

    def _star(self, m: _Module, base: str) -> None:
        src = self.modules.get(base)
        if src is None:
            return
        names = [n for n in _public_names(src.tree) if n not in m.bindings]
        for n in names:
            m.bindings[n] = ("attr", base, n)

    def resolve(self, modname: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """(module, symbol) that `name` in module `modname` refers to, or None.

        A module is `("module:<name>", "")`.
        """
        m = self.modules.get(modname)
        if m is None or depth > 8:
            return None
        b = m.bindings.get(name)
        return None if b is None else self.resolve_binding(modname, b, depth)

    def resolve_binding(
        self, modname: str, b: tuple[str, ...], depth: int = 0
    ) -> tuple[str, str] | None:
        if b[0] == "def":
            return modname, b[1]
        if b[0] == "alias":
            return self.resolve(modname, b[1], depth + 1)
        if b[0] == "module":
            return ("module:" + b[1], "")
        _, base, attr = b
        if f"{base}.{attr}" in self.modules:  # `from pkg import submodule`
            return ("module:" + f"{base}.{attr}", "")
        return self.resolve(base, attr, depth + 1)

    def member(self, target: tuple[str, str], attr: str) -> tuple[str, str] | None:
        """`target.attr` for a module or class target."""
        where, sym = target
        if where.startswith("module:"):
            modname = where[len("module:") :]
            if f"{modname}.{attr}" in self.modules:
                return ("module:" + f"{modname}.{attr}", "")
            return self.resolve(modname, attr)
        return self.method(where, sym, attr)

    def method(self, modname: str, cls: str, attr: str, depth: int = 0) -> tuple[str, str] | None:
        """The project class `cls` of `modname` or a project base defining `attr`."""
        m = self.modules.get(modname)
        node = m.classes.get(cls.split(".")[-1]) if m is not None and "." not in cls else None
        if m is None or node is None or depth > 8:
            return None
        for child in node.body:
            if (
                isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and child.name == attr
            ):
                return modname, f"{cls}.{attr}"
        for base in node.bases:
            target = self.expr_target(m, base)
            if target is not None and not target[0].startswith("module:"):
                found = self.method(target[0], target[1], attr, depth + 1)
                if found is not None:
                    return found
        return None

    def expr_target(self, m: _Module, expr: ast.expr) -> tuple[str, str] | None:
        """What a `Name` or `a.b.c` expression of module scope refers to in the project."""
        if isinstance(expr, ast.Name):
            return self.resolve(m.name, expr.id)
        if isinstance(expr, ast.Attribute):
            inner = self.expr_target(m, expr.value)
            return self.member(inner, expr.attr) if inner is not None else None
        return None

    def is_class(self, target: tuple[str, str]) -> bool:
        m = self.modules.get(target[0])
        return m is not None and "." not in target[1] and target[1] in m.classes


def _public_names(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return [
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append(node.name)
        elif isinstance(node, ast.Assign):
            out += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [n for n in out if not n.startswith("_")]


def _bound_names(fn: ast.AST) -> set[str]:
    """Names bound inside a function (parameters, assignments, loop and with targets...)."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None:
                    out.add(arg.arg)
            if node is not fn and not isinstance(node, ast.Lambda):
                out.add(node.name)  # a nested def
        elif isinstance(node, ast.ClassDef) and node is not fn:
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            out.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            out.add(node.name)
    for node in ast.walk(fn):
        if isinstance(node, ast.Global):
            out.difference_update(node.names)
    return out


def _local_imports(
    project: _Project, m: _Module, fn: ast.FunctionDef | ast.AsyncFunctionDef
) -> dict[str, tuple[str, ...]]:
    """Bindings of the imports inside a function (`from .core import helper` in its body)."""
    out: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                out[a.asname or top] = ("module", a.name if a.asname else top)
        elif isinstance(node, ast.ImportFrom):
            base = project._absolute(m, node)
            if base is not None:
                for a in node.names:
                    if a.name != "*":
                        out[a.asname or a.name] = ("attr", base, a.name)
    return out


def _body_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterable[ast.AST]:
    """Every node that runs when `fn` is called.

    Its body, not its decorators, defaults or annotations (nested definitions' decorators
    and defaults do run when the body runs; annotations never count).
    """
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.AnnAssign):
            todo += [n for n in (node.target, node.value) if n is not None]
            yield node
            continue
        if isinstance(node, ast.arg):
            continue  # annotations of nested functions
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            todo += [*node.decorator_list, *node.args.defaults]
            todo += [d for d in node.args.kw_defaults if d is not None]
            todo += node.body
            yield node
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _references(
    project: _Project, m: _Module, symbol: str, fn: ast.FunctionDef | ast.AsyncFunctionDef
) -> set[tuple[str, str]]:
    """(module, symbol) of every project definition the body of `fn` refers to."""
    local = _bound_names(fn)
    imported = _local_imports(project, m, fn)
    cls = symbol.rsplit(".", 1)[0] if "." in symbol else None
    first = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)][:1]
    selfname = first[0] if first and cls else None
    calls = {id(n.func) for n in _body_nodes(fn) if isinstance(n, ast.Call)}
    out: set[tuple[str, str]] = set()

    def add(target: tuple[str, str] | None, called: bool) -> None:
        if target is None or target[0].startswith("module:"):
            return
        if project.is_class(target):
            out.add(target)
            if called:
                for ctor in _CONSTRUCTORS:
                    found = project.method(target[0], target[1], ctor)
                    if found is not None:
                        out.add(found)
        else:
            out.add(target)

    def attr_target(node: ast.Attribute) -> tuple[str, str] | None:
        v = node.value
        if isinstance(v, ast.Name) and v.id == selfname and cls is not None:
            return project.method(m.name, cls, node.attr)
        if (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Name)
            and v.func.id == "super"
            and cls is not None
        ):
            return _super_method(project, m, cls, node.attr)
        if isinstance(v, ast.Name | ast.Attribute):
            inner = value_target(v)
            return project.member(inner, node.attr) if inner is not None else None
        return None

    def name_target(name: str) -> tuple[str, str] | None:
        if name in imported:
            return project.resolve_binding(m.name, imported[name])
        return None if name in local else project.resolve(m.name, name)

    def value_target(node: ast.expr) -> tuple[str, str] | None:
        if isinstance(node, ast.Name):
            return name_target(node.id)
        if isinstance(node, ast.Attribute):
            return attr_target(node)
        return None

    for node in _body_nodes(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            add(name_target(node.id), id(node) in calls)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            add(attr_target(node), id(node) in calls)
    return out


def _super_method(project: _Project, m: _Module, cls: str, attr: str) -> tuple[str, str] | None:
    node = m.classes.get(cls.split(".")[-1])
    if node is None:
        return None
    for base in node.bases:
        target = project.expr_target(m, base)
        if target is not None and not target[0].startswith("module:"):
            found = project.method(target[0], target[1], attr)
            if found is not None:
                return found
    return None


def dependencies(sources: Mapping[str, str], units: Sequence[UnitRef]) -> dict[str, set[str]]:
    """{unit name: names of the units its body refers to} (see the module doc)."""
    project = _Project(sources)
    by_def = {(module_name(u.path), u.symbol): u.name for u in units}
    deps: dict[str, set[str]] = {}
    for u in units:
        m = project.modules.get(module_name(u.path))
        found: set[str] = set()
        if m is not None:
            for node in find_defs(m.tree, u.symbol):
                fns = [node] if not isinstance(node, ast.ClassDef) else []
                fns += [
                    c
                    for c in ast.walk(node)
                    if isinstance(c, ast.FunctionDef | ast.AsyncFunctionDef)
                    and isinstance(node, ast.ClassDef)
                ]
                for fn in fns:
                    if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                        for ref in _references(project, m, u.symbol, fn):
                            name = by_def.get(ref)
                            if name is not None and name != u.name:
                                found.add(name)
        deps[u.name] = found
    return deps


# ---------------------------------------------------------------------------- ordering


def _components(nodes: Sequence[str], deps: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan), iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(deps.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(deps.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def order(
    names: Sequence[str], deps: Mapping[str, set[str]]
) -> tuple[list[str], dict[str, list[str]], list[tuple[str, str]]]:
    """(names in dependency order, acyclic dependencies, dropped edges).

    `names` is the source order; an edge is dropped only inside a cycle, and there only if
    it points to a unit later in source order.
    """
    rank = {n: i for i, n in enumerate(names)}
    deps = {n: {d for d in deps.get(n, ()) if d in rank and d != n} for n in names}
    dropped: list[tuple[str, str]] = []
    for comp in _components(list(names), deps):
        if len(comp) < 2:
            continue
        members = set(comp)
        for n in comp:
            for d in sorted(deps[n] & members):
                if rank[d] > rank[n]:
                    deps[n].discard(d)
                    dropped.append((n, d))
    acyclic = {n: sorted(deps[n], key=lambda d: rank[d]) for n in names}
    ordered = list(graphlib.TopologicalSorter(acyclic).static_order())
    return ordered, acyclic, dropped


def restrict(deps: Mapping[str, Sequence[str]], keep: Iterable[str]) -> dict[str, list[str]]:
    """Dependencies among `keep`, through units that are not kept (transitively)."""
    keep = list(keep)
    kept = set(keep)
    out: dict[str, list[str]] = {}
    for n in keep:
        found: list[str] = []
        seen = {n}
        todo = list(deps.get(n, ()))
        while todo:
            d = todo.pop(0)
            if d in seen:
                continue
            seen.add(d)
            if d in kept:
                found.append(d)
            else:
                todo.extend(deps.get(d, ()))
        out[n] = sorted(found, key=keep.index)
    return out
