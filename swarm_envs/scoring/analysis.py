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
  files, inspecting frames, starting processes. A test that can reach an opaque file
  depends on every file of the workspace.

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
from dataclasses import dataclass, field
from importlib.util import resolve_name

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
    | {"total_ordering", "dataclass", "final", "override", "fixture", "parametrize"}
)


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
    always: bool  # called implicitly (dunder, protocol) or decorated


@dataclass(frozen=True)
class ClassFacts:
    """One class: its bases by name (None: a base that is not a plain name)."""

    qualname: str
    name: str
    bases: tuple[str | None, ...]
    metaclass: bool


@dataclass(frozen=True)
class FileFacts:
    """What the analysis found in one Python file (see the module docstring)."""

    imports: tuple[ImportRef, ...]
    skeleton: str
    functions: tuple[FunctionFacts, ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    module_refs: frozenset[str] = frozenset()
    aliases: tuple[tuple[str, str], ...] = ()  # (local name, original name) of imports
    opaque: str = ""
    names: frozenset[str] = field(default=frozenset())  # simple names of its functions


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

    def scan(self, roots: list[ast.AST], out: set[str]) -> None:
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


def _check_os_path(tree: ast.AST, sensitive: dict[str, str], opaque: list[str]) -> None:
    # os.path.exists(...) reads the filesystem; os.path.join(...) does not.
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "path"
            and isinstance(node.value.value, ast.Name)
            and sensitive.get(node.value.value.id) == "os"
            and node.attr not in SAFE_ATTRS["os.path"]
        ):
            opaque.append(f"os.path.{node.attr}")


def _imports(
    tree: ast.AST, package: str, sensitive: dict[str, str], opaque: list[str]
) -> tuple[list[ImportRef], list[tuple[str, str]]]:
    refs: list[ImportRef] = []
    aliases: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                refs.append(ImportRef(a.name))
                top = a.name.split(".")[0]
                if top in OPAQUE_MODULES:
                    opaque.append(f"import {a.name}")
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
            if not node.level and top in OPAQUE_MODULES:
                opaque.append(f"from {mod} import ...")
            names = tuple(a.name for a in node.names if a.name != "*")
            star = any(a.name == "*" for a in node.names)
            if mod:
                refs.append(ImportRef(mod, names, star))
            for a in node.names:
                if a.name == "*":
                    if not node.level and mod in SAFE_ATTRS:
                        opaque.append(f"from {mod} import *")
                    continue
                full = f"{mod}.{a.name}" if mod else a.name
                if not node.level and full in SAFE_ATTRS:
                    sensitive[a.asname or a.name] = full
                elif not node.level and mod in SAFE_ATTRS and a.name not in SAFE_ATTRS[mod]:
                    opaque.append(f"from {mod} import {a.name}")
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


def _base_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):  # Generic[T], Protocol[T]
        return _base_name(expr.value)
    return None


def analyze(data: bytes, package: str) -> FileFacts:
    """The static facts of one Python file whose package is `package` ("" at the root)."""
    if len(data) > MAX_SOURCE:
        return FileFacts((), "raw:" + digest(data), opaque="the file is too large to analyse")
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        # It fails at import: nothing of it runs, and any edit changes its raw digest.
        return FileFacts((), "raw:" + digest(data))
    except (RecursionError, MemoryError):
        return FileFacts((), "raw:" + digest(data), opaque="too deeply nested to analyse")
    try:
        return _analyze(tree, data, package)
    except (RecursionError, MemoryError):
        return FileFacts((), "raw:" + digest(data), opaque="too deeply nested to analyse")


def _analyze(tree: ast.Module, data: bytes, package: str) -> FileFacts:
    opaque: list[str] = []
    sensitive: dict[str, str] = {}
    imports, aliases = _imports(tree, package, sensitive, opaque)
    _check_os_path(tree, sensitive, opaque)
    lines = data.splitlines(keepends=True) or [b""]
    refs = _Refs(_docstring_nodes(tree), sensitive, opaque)
    functions: list[FunctionFacts] = []
    classes: list[ClassFacts] = []
    seen: dict[str, int] = {}
    module_roots: list[ast.AST] = []
    cuts: list[tuple[int, int, int, int]] = []  # body spans cut out of the skeleton
    todo: list[tuple[ast.AST, str]] = [(tree, "")]
    while todo:
        scope, prefix = todo.pop()
        for node in ast.iter_child_nodes(scope):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                q = prefix + node.name
                n = seen.get(q, 0)
                seen[q] = n + 1
                first = _body_start(node)
                body = _segment(lines, node.body[-1], first) if first is not None else b""
                names: set[str] = set()
                refs.scan(list(node.body), names)
                functions.append(
                    FunctionFacts(
                        q if n == 0 else f"{q}#{n}",
                        node.name,
                        digest(body),
                        frozenset(names),
                        (node.name.startswith("__") and node.name.endswith("__"))
                        or node.name in PROTOCOL_NAMES
                        or _decorated(node),
                    )
                )
                # Signature, defaults and decorators run at import: module level.
                module_roots.extend([*node.decorator_list, node.args])
                if node.returns is not None:
                    module_roots.append(node.returns)
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
                classes.append(
                    ClassFacts(
                        q,
                        node.name,
                        tuple(_base_name(b) for b in node.bases),
                        any(k.arg == "metaclass" for k in node.keywords),
                    )
                )
                module_roots.extend([*node.decorator_list, *node.bases, *node.keywords])
                todo.append((node, q + "."))
            elif _is_all(node):
                continue  # names a star import exports: strings, not references
            else:
                module_roots.append(node)
    module_refs: set[str] = set()
    refs.scan(module_roots, module_refs)
    return FileFacts(
        imports=tuple(imports),
        skeleton="skel:" + digest(_cut(lines, cuts)),
        functions=tuple(functions),
        classes=tuple(classes),
        module_refs=frozenset(module_refs),
        aliases=tuple(aliases),
        opaque=opaque[0] if opaque else "",
        names=frozenset(f.name for f in functions),
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
