"""What a Python file can do, statically: the host's facts behind every cache key.

The fast scorer keys a cached outcome by the content the test could have executed, and it
decides what that content is on the host, from bytes the host read itself (never from a
record of the test process). Per file, `analyze` finds:

- `imports`: the modules the file names (relative ones resolved), for the import graph;
- `skeleton`: a digest of the file with every function body cut out: what importing it
  does (module-level code, class bodies, signatures, defaults, decorators);
- `functions`: every function and method with a digest of its body and the names its
  body refers to (names, attribute names, `getattr(x, "name")`, `"{0.name}".format`);
- `module_refs`: the names referred to outside function bodies (run at import, or stored
  where anything can reach them);
- `opaque`: why the file defeats this analysis, if it does: dynamic imports, `exec`,
  `eval`, reflection (`getattr` with a computed name, `__dict__`, `globals()`), reading
  files, inspecting frames, starting processes. Outside function bodies (what runs at
  import) this is the file's `opaque`, and a test that can reach the file depends on
  every file of the workspace; inside a body it is the function's `opaque`, and so
  matters only to the tests that reach that function; a name bound to such a module
  (`import importlib`, `from pathlib import Path`) is one of the file's `opaque_names`,
  and a test reaching that name anywhere depends on every file.

A test's outcome can only depend on a function's body if the function can be reached by
name from the test (transitively through bodies), is called implicitly (dunder and I/O
protocol methods), is a method of a class that foreign code calls back by name (a
subclass of a standard-library class), or is decorated (the decorator may register it).
Everything else a file does is in its skeleton. This is deliberately conservative: it
may re-run a test that could not have changed, never the reverse.

Source that is too deeply nested to parse, or too large, is opaque: nothing on the host
recurses over a syntax tree.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib.util import resolve_name

from swarm_envs.core.pysource import parse

from .snapshot import digest

#: larger Python files are not analysed: they are opaque
MAX_SOURCE = 2_000_000

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_S = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORMAT_ATTR = re.compile(r"\{[^{}]*?\.([A-Za-z_][A-Za-z0-9_]*)")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")

# Any use of these names, or an import of these modules, defeats the analysis.
OPAQUE_NAMES = frozenset(
    {"__import__", "exec", "eval", "compile", "execfile", "globals", "locals", "vars"}
    | {"__builtins__", "open", "breakpoint", "__loader__", "__spec__"}
)
OPAQUE_MODULES = frozenset(
    {"importlib", "imp", "pkgutil", "runpy", "zipimport", "inspect", "gc", "ctypes"}
    | {"marshal", "pickle", "shelve", "copyreg", "dill", "cloudpickle", "linecache"}
    | {"tokenize", "pathlib", "codecs", "fileinput", "shutil", "glob", "builtins"}
    | {"code", "codeop", "subprocess", "multiprocessing", "concurrent", "pty", "mmap"}
    | {"zipfile", "tarfile", "sqlite3", "dbm", "timeit", "doctest", "pdb", "bdb", "trace"}
    | {"profile", "cProfile", "unittest", "dis", "site", "sysconfig", "_imp", "_io"}
)
# Reflection through attributes.
OPAQUE_ATTRS = frozenset(
    {"__dict__", "__globals__", "__code__", "__closure__", "__subclasses__", "__builtins__"}
    | {"__import__", "__getattribute__", "__loader__", "__spec__", "__func__", "__self__"}
    | {"f_globals", "f_locals", "f_back", "f_code", "tb_frame", "gi_frame", "cr_frame"}
    | {"ag_frame", "__reduce__", "__reduce_ex__", "__setstate__", "__getstate__"}
)
_REFLECTION_CALLS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
#: prefix of a reference to every attribute of the objects of a class (`_Refs.scan`)
CLASS_ATTRS = "\0attrs:"
#: prefix of the binding of a function's defaults and annotations (`Binding`)
SIGNATURE = "\0sig:"
# Decorators that make a method an attribute run on access (called like a dunder).
_ACCESSORS = frozenset({"property", "setter", "getter", "deleter", "cached_property"})
# Methods that run while a module or class is being made, whoever reaches them later.
_AT_DEFINITION = frozenset({"__init_subclass__", "__set_name__", "__class_getitem__"})
# Module-level functions the import system calls by name.
_MODULE_HOOKS = frozenset({"__getattr__", "__dir__"})
# Builtins that a plain value may call at import: they only build containers.
PURE_CALLS = frozenset({"dict", "list", "tuple", "set", "frozenset"})
# Modules only some of whose attributes are harmless (pure string and value functions).
SAFE_ATTRS = {
    "sys": frozenset(
        {"maxsize", "maxunicode", "version", "version_info", "hexversion", "platform"}
        | {"byteorder", "float_info", "int_info", "hash_info", "stdout", "stderr", "stdin"}
        | {"argv", "exit", "getrecursionlimit", "setrecursionlimit", "getsizeof", "intern"}
        | {"float_repr_style", "implementation", "exc_info", "exception", "flags"}
        | {"getdefaultencoding", "getfilesystemencoding", "executable", "prefix"}
        | {"__stdout__", "__stderr__", "__stdin__"}
    ),
    "os": frozenset(
        {"path", "sep", "altsep", "extsep", "pathsep", "linesep", "defpath", "devnull"}
        | {"name", "curdir", "pardir", "environ", "getenv", "getpid", "cpu_count", "urandom"}
        | {"getcwd", "fspath", "fsencode", "fsdecode", "strerror", "PathLike", "error"}
    ),
    "os.path": frozenset(
        {"join", "split", "splitext", "basename", "dirname", "normpath", "normcase"}
        | {"abspath", "relpath", "commonpath", "commonprefix", "isabs", "splitdrive"}
        | {"sep", "altsep", "extsep", "pathsep", "curdir", "pardir", "expanduser"}
    ),
    "io": frozenset(
        {"StringIO", "BytesIO", "TextIOBase", "IOBase", "BufferedIOBase", "RawIOBase"}
        | {"UnsupportedOperation", "SEEK_SET", "SEEK_CUR", "SEEK_END", "DEFAULT_BUFFER_SIZE"}
    ),
    "types": frozenset(
        {"SimpleNamespace", "MappingProxyType", "GeneratorType", "NoneType"}
        | {"BuiltinFunctionType", "GenericAlias", "UnionType", "EllipsisType"}
    ),
    "operator": frozenset(
        {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos", "abs"}
        | {"eq", "ne", "lt", "le", "gt", "ge", "and_", "or_", "xor", "not_", "invert"}
        | {"lshift", "rshift", "matmul", "contains", "getitem", "itemgetter", "index"}
        | {"truth", "is_", "is_not", "concat", "countOf", "indexOf", "length_hint"}
    ),
}
# Methods that the interpreter or the standard library call without naming them in code.
PROTOCOL_NAMES = frozenset(
    {"keys", "items", "values", "read", "readline", "readlines", "write", "writelines"}
    | {"flush", "close", "fileno", "seek", "tell", "readinto", "isatty", "send", "throw"}
)
# Bases whose methods never call a subclass's methods by name.
SAFE_BASES = frozenset(
    {"object", "int", "float", "complex", "str", "bytes", "bytearray", "list", "dict"}
    | {"set", "frozenset", "tuple", "ABC", "Generic", "Protocol", "NamedTuple"}
    | {"BaseException", "Exception", "ValueError", "TypeError", "KeyError", "IndexError"}
    | {"LookupError", "ArithmeticError", "ZeroDivisionError", "RuntimeError", "NameError"}
    | {"AttributeError", "OSError", "IOError", "NotImplementedError", "OverflowError"}
    | {"StopIteration", "AssertionError", "UnicodeError", "Warning", "UserWarning"}
    | {"DeprecationWarning", "RecursionError", "SyntaxError", "EOFError", "FileNotFoundError"}
    | {"PermissionError", "TimeoutError", "MemoryError", "BufferError", "ImportError"}
)
_PURE_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "property", "setter", "getter", "deleter", "abstractmethod"}
    | {"cache", "lru_cache", "cached_property", "wraps", "overload", "contextmanager"}
    | {"total_ordering", "dataclass", "final", "override", "parametrize"}
)
# Not pure: `fixture` (pytest calls a fixture by the name of a test's parameter, which
# no code refers to), nor any decorator not listed.


@dataclass(frozen=True)
class ImportRef:
    """One imported module: its absolute name, and the names taken from it."""

    module: str
    names: tuple[str, ...] = ()
    star: bool = False


@dataclass(frozen=True)
class FunctionFacts:
    """One function or method (nested functions belong to the one they are in)."""

    qualname: str
    name: str
    digest: str
    refs: frozenset[str]
    always: bool  # decorated, a module's hook, or run while a class is being made
    implicit: bool = False  # a dunder, protocol method or property of a plain class
    opaque: str = ""  # why its body defeats the analysis: a test reaching it, everything


@dataclass(frozen=True)
class ClassFacts:
    """One class: its bases by name (None: a base that is not a plain name)."""

    qualname: str
    name: str
    bases: tuple[str | None, ...]
    metaclass: bool
    decorated: bool = False  # a decorator that is not a known pure one


@dataclass(frozen=True)
class Binding:
    """Module-level code whose references matter only to a test that reaches `name`.

    A module-level assignment of a plain value (`TABLE = {"add": handle_add}`) runs at
    import, but what it names can only be called through the name it binds: a test that
    never reaches `TABLE` cannot reach `handle_add` through it. A class's header and the
    plain values of its body belong to the class's name the same way. What the value
    calls must be an inert class of the project (`calls`: checked when the closure is
    known, see `keys`), and attribute bases must be modules (`modules`); otherwise the
    binding's references count for every test, as any module-level code does.
    """

    name: str
    refs: frozenset[str]
    calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileFacts:
    """What the analysis found in one Python file (see the module docstring)."""

    imports: tuple[ImportRef, ...]
    skeleton: str
    functions: tuple[FunctionFacts, ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    module_refs: frozenset[str] = frozenset()
    aliases: tuple[tuple[str, str], ...] = ()  # (local name, original name) of imports
    opaque: str = ""  # why code outside function bodies defeats the analysis
    # Names bound to modules (or their functions) that defeat the analysis, with why: a
    # test that reaches the name, wherever it is used, depends on everything.
    opaque_names: tuple[tuple[str, str], ...] = ()
    names: frozenset[str] = field(default=frozenset())  # simple names of its functions
    bindings: tuple[Binding, ...] = ()
    # Names bound at module level, or declared global, other than by `def` and `class`.
    assigned: frozenset[str] = frozenset()

    def all_refs(self) -> frozenset[str]:
        """Every name the file refers to, anywhere (for the import graph's edges)."""
        out = set(self.module_refs)
        for fn in self.functions:
            out.update(fn.refs)
        for b in self.bindings:
            out.update(b.refs)
        return frozenset(out)


def _segment(lines: list[bytes], node: ast.AST, start: ast.AST | None = None) -> bytes:
    """The source bytes of `node` (from `start`, default the node itself)."""
    first = start or node
    l0, c0 = first.lineno, first.col_offset  # type: ignore[attr-defined]
    l1, c1 = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
    if l1 is None or c1 is None:
        return b""
    if l0 == l1:
        return lines[l0 - 1][c0:c1]
    return b"".join([lines[l0 - 1][c0:], *lines[l0 : l1 - 1], lines[l1 - 1][:c1]])


def _body_start(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.stmt | None:
    body = fn.body
    if ast.get_docstring(fn, clean=False) is not None:
        body = body[1:]
    return body[0] if body else None


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            if ast.get_docstring(node, clean=False) is not None:
                out.add(id(node.body[0].value))  # type: ignore[attr-defined]
    return out


class _Refs:
    """Collects referenced names, and the reasons a file is opaque, over a node's subtree."""

    def __init__(self, docstrings: set[int], sensitive: dict[str, str], opaque: list[str]):
        self.docstrings = docstrings
        self.sensitive = sensitive  # local alias -> sensitive module ("sys", "os", "os.path")
        self.opaque = opaque

    def scan(
        self,
        roots: list[ast.AST],
        out: set[str],
        known: dict[str, str] | None = None,
        local: frozenset[str] = frozenset(),
    ) -> None:
        """Add the names `roots` refer to to `out`.

        `known`: locals whose every binding is `x = C(...)` (C a plain name): a computed
        `getattr(x, name)` reaches only what objects of the classes named C hold
        (recorded as the reference `CLASS_ATTRS + C`), as does `getattr(C(...), name)`
        where C is not one of the function's locals (`local`); any other computed one is
        opaque. Whether C names only a class of the project is the keys' check.
        """
        stack: list[ast.AST] = list(roots)
        parents: dict[int, ast.AST] = {}
        while stack:
            node = stack.pop()
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
                stack.append(child)
            if isinstance(node, ast.Name):
                out.add(node.id)
                self._name(node, parents.get(id(node)))
            elif isinstance(node, ast.Attribute):
                out.add(node.attr)
                if node.attr in OPAQUE_ATTRS:
                    self.opaque.append(f"reflection through .{node.attr}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
                if id(node) in self.docstrings:
                    continue
                value = node.value
                head = value[:10_000]
                text = head if isinstance(head, str) else head.decode("latin-1")
                # "{0.name}".format(x) reads the attribute `name`.
                out.update(_FORMAT_ATTR.findall(text))
                words = set(_IDENT_S.findall(text))
                hit = OPAQUE_ATTRS.intersection(words) or OPAQUE_NAMES.intersection(words)
                if hit and any(w.startswith("__") for w in hit):
                    self.opaque.append(f"the name {sorted(hit)[0]!r} in a string")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in _REFLECTION_CALLS:
                    args = node.args
                    if len(args) < 2 or not (
                        isinstance(args[1], ast.Constant) and isinstance(args[1].value, str)
                    ):
                        receiver = args[0] if args else None
                        made = _made_of(receiver, known, local) if known is not None else None
                        if node.func.id in ("getattr", "hasattr") and made is not None:
                            out.add(CLASS_ATTRS + made)
                            continue
                        self.opaque.append(f"{node.func.id}() with a computed name")
                    else:
                        out.add(args[1].value)  # getattr(obj, "name"): the attribute `name`

    def _name(self, node: ast.Name, parent: ast.AST | None) -> None:
        if node.id in OPAQUE_NAMES:
            self.opaque.append(f"{node.id}")
        elif node.id in _REFLECTION_CALLS:
            called = isinstance(parent, ast.Call) and parent.func is node
            if not called:
                self.opaque.append(f"{node.id} used as a value")
        module = self.sensitive.get(node.id)
        if module is None:
            return
        if isinstance(parent, ast.Attribute) and parent.value is node:
            attr = parent.attr
            if module == "os" and attr == "path":
                return  # os.path.<x>: checked when the outer attribute is seen
            if attr not in SAFE_ATTRS[module]:
                self.opaque.append(f"{module}.{attr}")
        else:
            self.opaque.append(f"the module {module} used as a value")


def _check_os_path(nodes: Iterable[ast.AST], sensitive: dict[str, str], opaque: list[str]) -> None:
    # os.path.exists(...) reads the filesystem; os.path.join(...) does not.
    for node in nodes:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "path"
            and isinstance(node.value.value, ast.Name)
            and sensitive.get(node.value.value.id) == "os"
            and node.attr not in SAFE_ATTRS["os.path"]
        ):
            opaque.append(f"os.path.{node.attr}")


def _outside_bodies(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node of the module outside function bodies.

    What runs at import: decorators, defaults and annotations included.
    """
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack.extend([*node.decorator_list, node.args])
            if node.returns is not None:
                stack.append(node.returns)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _imports(
    tree: ast.AST,
    package: str,
    sensitive: dict[str, str],
    opaque: list[str],
    opaque_names: dict[str, str],
) -> tuple[list[ImportRef], list[tuple[str, str]]]:
    """The file's imports and aliases.

    The names it binds to modules (or their functions) that defeat the analysis go into
    `opaque_names` (name -> why); a star import from one makes the whole file opaque.
    """
    refs: list[ImportRef] = []
    aliases: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                refs.append(ImportRef(a.name))
                top = a.name.split(".")[0]
                if top in OPAQUE_MODULES:
                    opaque_names.setdefault(a.asname or top, f"import {a.name}")
                bound = a.asname or top
                if a.asname is None and top in SAFE_ATTRS:
                    sensitive[bound] = top
                elif a.asname is not None and a.name in SAFE_ATTRS:
                    sensitive[bound] = a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                try:
                    mod = resolve_name("." * node.level + (node.module or ""), package)
                except (ImportError, ValueError):
                    continue  # beyond the top-level package: fails at import
            else:
                mod = node.module or ""
            top = mod.split(".")[0]
            bad_module = not node.level and top in OPAQUE_MODULES
            names = tuple(a.name for a in node.names if a.name != "*")
            star = any(a.name == "*" for a in node.names)
            if mod:
                refs.append(ImportRef(mod, names, star))
            for a in node.names:
                if a.name == "*":
                    if not node.level and (mod in SAFE_ATTRS or bad_module):
                        opaque.append(f"from {mod} import *")
                    continue
                full = f"{mod}.{a.name}" if mod else a.name
                if bad_module:
                    opaque_names.setdefault(a.asname or a.name, f"from {mod} import {a.name}")
                elif not node.level and full in SAFE_ATTRS:
                    sensitive[a.asname or a.name] = full
                elif not node.level and mod in SAFE_ATTRS and a.name not in SAFE_ATTRS[mod]:
                    opaque_names.setdefault(a.asname or a.name, f"from {mod} import {a.name}")
                if a.asname and a.asname != a.name:
                    aliases.append((a.asname, a.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            if 0 < len(value) <= 200 and _DOTTED.fullmatch(value):
                refs.append(ImportRef(value))  # a module named in a string (mock.patch...)
    return refs, aliases


def _is_all(node: ast.AST) -> bool:
    """`__all__ = [...]`, `__all__ += [...]` or `__all__.extend(...)`."""
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        f = node.value.func
        return (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id == "__all__"
        )
    return False


def _decorated(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True if a decorator could keep or register the function (not a known pure one)."""
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = (
            target.attr
            if isinstance(target, ast.Attribute)
            else target.id
            if isinstance(target, ast.Name)
            else None
        )
        if name not in _PURE_DECORATORS:
            return True
    return False


def _accessor(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A property (or its setter): run by attribute access, without its name being called."""
    for d in fn.decorator_list:
        name = d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""
        if name in _ACCESSORS:
            return True
    return False


def _base_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):  # Generic[T], Protocol[T]
        return _base_name(expr.value)
    return None


def _made_of(receiver: ast.AST | None, known: dict[str, str], local: frozenset[str]) -> str | None:
    """The class C whose object `receiver` is, or None.

    A known local, or a call `C(...)` of a name that is not a local (so not rebound in the
    function).
    """
    if isinstance(receiver, ast.Name):
        return known.get(receiver.id)
    if (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Name)
        and receiver.func.id not in local
    ):
        return receiver.func.id
    return None


def _known_locals(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
) -> tuple[dict[str, str], frozenset[str]]:
    """Locals of `fn` whose every binding is `x = C(...)` with one plain name C: {x: C}.

    And every name `fn` binds (arguments, assignments, imports, nested definitions).
    """
    made: dict[str, set[str]] = {}
    assigned: dict[str, int] = {}
    stores: dict[str, int] = {}
    unknown: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            unknown.add(node.arg)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            unknown.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            unknown.add(node.name)
        elif isinstance(node, ast.alias):
            unknown.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            unknown.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            unknown.add(node.rest)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node is not fn:
                unknown.add(node.name)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
        ):
            x = node.targets[0].id
            made.setdefault(x, set()).add(node.value.func.id)
            assigned[x] = assigned.get(x, 0) + 1
    bound = unknown | stores.keys()
    known = {
        x: c
        for x, cs in made.items()
        for c in cs
        if len(cs) == 1
        and x not in unknown
        and stores.get(x) == assigned[x]
        and c not in bound  # C itself is the module's name, not a local
    }
    return known, frozenset(bound)


def _plain(expr: ast.AST | None, calls: list[str], depth: int = 0) -> bool:
    """True if evaluating `expr` runs no code of the project beyond what `calls` names.

    Constants, names, containers, operators, subscripts, attributes, f-strings, lambdas
    (made, not called) and calls of plain names (recorded in `calls`, for the caller to
    check) with plain arguments. Operators, subscripts and attributes run methods of the
    objects involved: objects that a plain value can see were made by module-level code
    that every test reaches (with their classes, whose dunder methods and properties
    come with them), or are objects of inert classes, or builtins.
    """
    if expr is None:
        return True
    if depth > 100:
        return False
    nxt = depth + 1
    if isinstance(expr, ast.Constant | ast.Name):
        return True
    if isinstance(expr, ast.Call):
        if not isinstance(expr.func, ast.Name):
            return False
        calls.append(expr.func.id)
        return all(
            not isinstance(a, ast.Starred) and _plain(a, calls, nxt) for a in expr.args
        ) and all(k.arg is not None and _plain(k.value, calls, nxt) for k in expr.keywords)
    if isinstance(expr, ast.Lambda):
        # Made, not run (its body counts for whoever reaches the binding); its defaults run.
        a = expr.args
        return all(_plain(d, calls, nxt) for d in [*a.defaults, *a.kw_defaults] if d is not None)
    if isinstance(expr, ast.Dict):
        return all(k is not None and _plain(k, calls, nxt) for k in expr.keys) and all(
            _plain(v, calls, nxt) for v in expr.values
        )
    if isinstance(
        expr,
        ast.Tuple
        | ast.List
        | ast.Set
        | ast.BinOp
        | ast.UnaryOp
        | ast.BoolOp
        | ast.Compare
        | ast.Subscript
        | ast.Slice
        | ast.Attribute
        | ast.IfExp
        | ast.JoinedStr
        | ast.FormattedValue
        | ast.expr_context
        | ast.operator
        | ast.unaryop
        | ast.boolop
        | ast.cmpop,
    ):
        return all(
            not isinstance(c, ast.Starred | ast.NamedExpr) and _plain(c, calls, nxt)
            for c in ast.iter_child_nodes(expr)
        )
    return False


def _binding(
    node: ast.AST, owner: str | None, lazy_annotations: bool
) -> tuple[str, list[ast.AST], list[str]] | None:
    """(bound name, values, calls) of a plain assignment, or None.

    `owner`: the class whose body it is in (the binding belongs to the class's name).
    """
    values: list[ast.AST]
    if isinstance(node, ast.Assign):
        targets, values = node.targets, [node.value]
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
        values = [v for v in (node.annotation, node.value) if v is not None]
    else:
        return None
    if not all(isinstance(t, ast.Name) for t in targets):
        return None
    calls: list[str] = []
    # Annotations under `from __future__ import annotations` are strings: never run.
    checked = values[1:] if lazy_annotations and isinstance(node, ast.AnnAssign) else values
    if not all(_plain(v, calls) for v in checked):
        return None
    if owner is None and len(targets) != 1:
        return None
    name = owner if owner is not None else targets[0].id  # type: ignore[attr-defined]
    return name, values, calls


def analyze(data: bytes, package: str) -> FileFacts:
    """The static facts of one Python file whose package is `package` ("" at the root)."""
    if len(data) > MAX_SOURCE:
        return FileFacts((), "raw:" + digest(data), opaque="the file is too large to analyse")
    try:
        tree = parse(data)
    except (SyntaxError, ValueError):
        # It fails at import: nothing of it runs, and any edit changes its raw digest.
        return FileFacts((), "raw:" + digest(data))
    except (RecursionError, MemoryError):
        return FileFacts((), "raw:" + digest(data), opaque="too deeply nested to analyse")
    try:
        return _analyze(tree, data, package)
    except (RecursionError, MemoryError):
        return FileFacts((), "raw:" + digest(data), opaque="too deeply nested to analyse")


def _analyze(tree: ast.Module, data: bytes, package: str) -> FileFacts:  # noqa: C901
    opaque: list[str] = []
    sensitive: dict[str, str] = {}
    opaque_names: dict[str, str] = {}
    imports, aliases = _imports(tree, package, sensitive, opaque, opaque_names)
    _check_os_path(_outside_bodies(tree), sensitive, opaque)
    lazy_annotations = any(
        isinstance(n, ast.ImportFrom)
        and n.module == "__future__"
        and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )
    lines = data.splitlines(keepends=True) or [b""]
    refs = _Refs(_docstring_nodes(tree), sensitive, opaque)
    functions: list[FunctionFacts] = []
    classes: list[ClassFacts] = []
    bindings: list[Binding] = []
    seen: dict[str, int] = {}
    module_roots: list[ast.AST] = []
    made_at_import: set[str] = set()  # classes that anything may hold (see `Binding`)
    cuts: list[tuple[int, int, int, int]] = []  # body spans cut out of the skeleton

    def bind(name: str, values: list[ast.AST], calls: list[str]) -> None:
        names: set[str] = set()
        refs.scan(values, names)
        bindings.append(Binding(name, frozenset(names), tuple(calls)))

    # (scope, qualname prefix, the class it is the body of, whether that class is plain)
    todo: list[tuple[ast.Module | ast.ClassDef, str, str | None, bool]] = [(tree, "", None, True)]
    while todo:
        scope, prefix, owner, plain_owner = todo.pop()
        for node in scope.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                q = prefix + node.name
                n = seen.get(q, 0)
                seen[q] = n + 1
                first = _body_start(node)
                body = _segment(lines, node.body[-1], first) if first is not None else b""
                names: set[str] = set()
                # What defeats the analysis inside a body matters only to the tests that
                # reach the function (the body runs for no other).
                why: list[str] = []
                refs.opaque = why
                refs.scan(list(node.body), names, *_known_locals(node))
                _check_os_path((n for stmt in node.body for n in ast.walk(stmt)), sensitive, why)
                refs.opaque = opaque
                special = (
                    (node.name.startswith("__") and node.name.endswith("__"))
                    or node.name in PROTOCOL_NAMES
                    or _accessor(node)
                )
                implicit = special and owner is not None and plain_owner
                always = (
                    _decorated(node)
                    or (special and owner is not None and not implicit)
                    or (owner is None and node.name in _MODULE_HOOKS)
                    or (owner is not None and node.name in _AT_DEFINITION)
                )
                functions.append(
                    FunctionFacts(
                        q if n == 0 else f"{q}#{n}",
                        node.name,
                        digest(body),
                        frozenset(names),
                        always,
                        implicit and node.name not in _AT_DEFINITION,
                        why[0] if why else "",
                    )
                )
                # Decorators run at import: module level. Defaults and annotations too,
                # but a plain one matters only to a test that reaches the function.
                module_roots.extend(node.decorator_list)
                a = node.args
                sig: list[ast.AST] = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
                notes: list[ast.AST] = [node.returns] if node.returns is not None else []
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                    if arg is not None and arg.annotation is not None:
                        notes.append(arg.annotation)
                calls: list[str] = []
                checked = sig if lazy_annotations else [*sig, *notes]
                if all(_plain(e, calls) for e in checked):
                    if sig or notes:
                        bind(SIGNATURE + (q if n == 0 else f"{q}#{n}"), [*sig, *notes], calls)
                else:
                    module_roots.extend([*sig, *notes])
                if first is not None:
                    end = node.body[-1]
                    cuts.append(
                        (
                            first.lineno,
                            first.col_offset,
                            end.end_lineno or 0,
                            end.end_col_offset or 0,
                        )
                    )
            elif isinstance(node, ast.ClassDef):
                q = prefix + node.name
                meta = any(k.arg == "metaclass" for k in node.keywords)
                decorated = _decorated(node)  # type: ignore[arg-type]
                classes.append(
                    ClassFacts(
                        q,
                        node.name,
                        tuple(_base_name(b) for b in node.bases),
                        meta,
                        decorated,
                    )
                )
                header: list[ast.AST] = [*node.bases, *(k.value for k in node.keywords)]
                module_roots.extend(node.decorator_list)
                calls = []
                plain = not (meta or decorated) and plain_owner
                if plain and all(_plain(e, calls) for e in header):
                    bind(node.name, header, calls)
                else:
                    # A registering decorator or a metaclass can hand the class to anyone.
                    module_roots.extend(header)
                    made_at_import.add(node.name)
                    plain = False
                todo.append((node, q + ".", node.name, plain))
            elif owner is None and _is_all(node):
                continue  # names a star import exports: strings, not references
            else:
                got = _binding(node, owner if plain_owner else "", lazy_annotations)
                if got is not None and got[0]:
                    bind(*got)
                else:
                    module_roots.append(node)
    module_refs: set[str] = set(made_at_import)
    refs.scan(module_roots, module_refs)
    opaque.extend(why for name, why in opaque_names.items() if name in module_refs)
    assigned: set[str] = set()
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Global):
            assigned.update(sub.names)
    for top in tree.body:
        if not isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for sub in ast.walk(top):
                if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
                    assigned.add(sub.id)
                elif isinstance(sub, ast.alias) and sub.asname:
                    assigned.add(sub.asname)
    return FileFacts(
        imports=tuple(imports),
        skeleton="skel:" + digest(_cut(lines, cuts)),
        functions=tuple(functions),
        classes=tuple(classes),
        module_refs=frozenset(module_refs),
        aliases=tuple(aliases),
        opaque=opaque[0] if opaque else "",
        opaque_names=tuple(sorted(opaque_names.items())),
        names=frozenset(f.name for f in functions),
        bindings=tuple(bindings),
        assigned=frozenset(assigned),
    )


def _cut(lines: list[bytes], cuts: list[tuple[int, int, int, int]]) -> bytes:
    """The source with the given (line, col, end line, end col) spans replaced by a marker."""
    out: list[bytes] = []
    line, col = 1, 0
    for l0, c0, l1, c1 in sorted(cuts):
        if (l0, c0) < (line, col):
            continue  # inside a span already cut (a method of a nested class)
        out.append(_slice(lines, line, col, l0, c0))
        out.append(b"\x00body\x00")
        line, col = l1, c1
    out.append(_slice(lines, line, col, len(lines) + 1, 0))
    return b"".join(out)


def _slice(lines: list[bytes], l0: int, c0: int, l1: int, c1: int) -> bytes:
    if l0 > len(lines):
        return b""
    if l0 == l1:
        return lines[l0 - 1][c0:c1]
    tail = lines[l1 - 1][:c1] if l1 <= len(lines) else b""
    return b"".join([lines[l0 - 1][c0:], *lines[l0 : l1 - 1], tail])
