"""Reading a project folder as it comes: where its code, tests, settings and licences are.

`read_project` turns a source distribution or a checkout into the parts of a task, in
memory, and says what it kept, moved and dropped, and why (`Note`s):

- **code**: a `src/` layout is flattened (`src/pkg` becomes `pkg` at the task's root); only
  importable code is kept (packages, top-level modules, their data files), not `docs/`,
  `examples/`, build files or compiled extensions;
- **tests**: `tests/`, `test/`, test files at the root and tests inside the package
  (`pkg/tests/`, `pkg/test_x.py`) all become the task's `tests/`; imports that named the
  old places (`from ..core import f`, `from pkg.tests.helpers import h`, `import test.common`)
  are rewritten to the new ones;
- **pytest settings** (`pytest.toml`, `pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg`,
  in pytest's order): those that cannot weaken scoring are kept (`swarm_envs.tasks.
  PYTEST_SETTINGS`), `-W` options become warning filters, `--deselect` becomes the task's
  deselect list, the project's own selection is kept (`-m`/`-k` in the task's addopts,
  the files `--ignore` names left out); doctests, plugins and output options are dropped,
  each with its reason;
- **conftests** outside the test folders (a root `conftest.py`) move into `tests/`; hooks
  that can change a test's outcome (`pytest_runtest_makereport`, ...) are removed from every
  conftest, with a note;
- **third-party imports**: the top-level names that the code and the tests import
  unconditionally and that are neither the standard library nor the project itself.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import re
import shlex
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from packaging.requirements import Requirement

from swarm_envs.core.pysource import parse
from swarm_envs.error import ProjectError
from swarm_envs.project.declared import Declared, read_declared, version_from_folder
from swarm_envs.tasks import PLUGIN_SETTINGS, PYTEST_SETTINGS, STRICT_ADDOPTS
from swarm_envs.tasks.stubbing import def_span

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

NoteKind = Literal["kept", "moved", "dropped", "warning"]

#: folders that are never part of a project's code or tests
SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    ".eggs",
    "build",
    "dist",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    "node_modules",
    "htmlcov",
    ".idea",
    ".vscode",
    ".github",
    ".gitlab",
    ".circleci",
}
#: top-level folders of a checkout that hold no importable code of the project
NON_CODE_DIRS = {
    "docs",
    "doc",
    "examples",
    "example",
    "benchmarks",
    "benchmark",
    "bench",
    "scripts",
    "tools",
    "bin",
    "ci",
    "site",
    "requirements",
    "changelog.d",
    "artwork",
    "images",
}
#: top-level modules that configure building or tooling, not the project
NON_CODE_MODULES = {"setup.py", "conftest.py", "noxfile.py", "fabfile.py", "tasks.py", "manage.py"}
LICENCE = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|AUTHORS|COPYRIGHT)([._-].*)?$", re.IGNORECASE)
README = ("README.md", "README.rst", "README.txt", "README")
#: conftest hooks that can change what a test's outcome looks like: removed from conftests
OUTCOME_HOOKS = (
    "pytest_runtest_makereport",
    "pytest_report_teststatus",
    "pytest_runtest_logreport",
    "pytest_runtest_protocol",
    "pytest_runtest_call",
    "pytest_pyfunc_call",
    "pytest_runtestloop",
    "pytest_assertion_pass",
)
MAX_FILES = 20_000
MAX_BYTES = 200 * 1024 * 1024
DEFAULT_TEST_FILES = ["test_*.py", "*_test.py"]


@dataclass(frozen=True)
class Note:
    """One thing make-task did with a project: kept, moved, dropped (with why), or a warning."""

    kind: NoteKind
    what: str
    why: str = ""

    def __str__(self) -> str:
        return f"{self.kind}: {self.what}" + (f" ({self.why})" if self.why else "")


@dataclass
class Project:
    """A project read from its folder: the parts of a task, not yet written."""

    source: Path
    solution: dict[str, bytes]
    tests: dict[str, bytes]  # relative to the task's tests/ folder
    readme: bytes | None = None
    licences: dict[str, bytes] = field(default_factory=dict)
    ini: dict[str, list[str] | bool | str] = field(default_factory=dict)
    # a plugin's settings (`PLUGIN_SETTINGS`): carried only if that plugin ends up enabled
    plugin_ini: dict[str, str] = field(default_factory=dict)
    deselect: list[str] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)  # third-party top-level names
    declared: list[str] = field(default_factory=list)  # distributions the project declares
    declaration: Declared = field(default_factory=Declared)  # its name, version, requirements
    notes: list[Note] = field(default_factory=list)

    def note(self, kind: NoteKind, what: str, why: str = "") -> None:
        """Record what was done with part of the project, and why."""
        self.notes.append(Note(kind, what, why))

    @property
    def top_level(self) -> set[str]:
        """Import names of the project's top-level modules and packages."""
        out = set()
        for rel in self.solution:
            head, _, rest = rel.partition("/")
            if rest and rel.endswith(".py"):
                out.add(head)
            elif not rest and head.endswith(".py"):
                out.add(head[:-3])
        return out


# ---------------------------------------------------------------------------- reading


def _walk(root: Path) -> dict[str, Path]:
    files: dict[str, Path] = {}
    total = 0
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            entries = sorted(d.iterdir())
        except OSError as e:
            raise ProjectError(f"{d}: cannot read the folder ({e.strerror})") from None
        for p in entries:
            if p.is_symlink():
                continue
            if p.is_dir():
                if p.name not in SKIP_DIRS and not p.name.endswith(".egg-info"):
                    stack.append(p)
            elif p.is_file() and p.suffix not in (".pyc", ".pyo"):
                files[p.relative_to(root).as_posix()] = p
                total += p.stat().st_size
                if len(files) > MAX_FILES or total > MAX_BYTES:
                    raise ProjectError(
                        f"{root}: more than {MAX_FILES} files or {MAX_BYTES >> 20} MB; "
                        "point make-task at the project's own folder"
                    )
    return files


def read_project(source: Path, *, exclude: Iterable[str] = ()) -> Project:
    """Read the project at `source` (see `_read_project`); file errors become ProjectError."""
    try:
        return _read_project(Path(source), exclude=exclude)
    except OSError as e:
        raise ProjectError(f"{e.filename or source}: cannot read ({e.strerror or e})") from None


def _read_project(source: Path, *, exclude: Iterable[str] = ()) -> Project:
    """Read the project at `source` (see the module doc).

    Args:
        source: the project's folder (an unpacked sdist or a checkout).
        exclude: glob patterns of test files to leave out (relative to the project).

    Raises:
        ProjectError: no such folder, no tests found, or a layout that cannot be mapped.
    """
    source = Path(source)
    if not source.exists():
        raise ProjectError(f"{source}: no such folder")
    if not source.is_dir():
        raise ProjectError(f"{source}: not a folder (give the project's folder)")
    files = _walk(source)
    proj = Project(source=source.resolve(), solution={}, tests={})
    code_root = _code_root(files)
    if code_root:
        proj.note("moved", f"{code_root}/ layout", "its packages sit at the task's root")
    settings = _read_settings(files, proj)
    patterns = _as_list(settings.get("python_files")) or DEFAULT_TEST_FILES
    excluded = list(exclude)
    ignored = _ignored_by_settings(settings)
    test_map = _map_tests(files, code_root, settings, patterns, proj)
    for rel in sorted(test_map):
        if any(fnmatch.fnmatch(rel, pat) for pat in excluded):
            proj.note("dropped", rel, "excluded with --exclude")
            del test_map[rel]
        elif any(fnmatch.fnmatch(rel, pat) for pat in ignored):
            proj.note("dropped", rel, "the project's own selection (--ignore in its addopts)")
            del test_map[rel]
    if not any(_is_test_file(new, patterns) for new in test_map.values()):
        raise ProjectError(
            f"{source}: no pytest tests found (looked for {', '.join(patterns)} in tests/, "
            "test/, the project root and inside its packages)"
        )
    _map_imported_helpers(files, code_root, test_map, proj)
    _take_code(files, code_root, test_map, proj)
    _take_tests(files, code_root, test_map, proj)
    _take_conftests(files, code_root, test_map, proj)
    _take_settings(settings, test_map, proj)
    _take_docs(files, proj)
    proj.imports = _third_party_imports(proj)
    proj.declaration = _declaration(source, files, proj)
    proj.declared = proj.declaration.names
    return proj


def _code_root(files: dict[str, Path]) -> str:
    """'src' for a src/ layout with code in it, else '' (the project root)."""
    if any(r.startswith("src/") and r.endswith(".py") for r in files):
        return "src"
    return ""


def _is_test_file(rel: str, patterns: list[str]) -> bool:
    name = PurePosixPath(rel).name
    return name.endswith(".py") and any(fnmatch.fnmatch(name, p) for p in patterns)


def _under(rel: str, prefix: str) -> str | None:
    if not prefix:
        return rel
    return rel[len(prefix) + 1 :] if rel.startswith(prefix + "/") else None


def _map_tests(
    files: dict[str, Path],
    code_root: str,
    settings: dict[str, object],
    patterns: list[str],
    proj: Project,
) -> dict[str, str]:
    """{file of the project: its path under the task's tests/} for every test-suite file."""
    out: dict[str, str] = {}
    root_dirs = [d for d in ("tests", "test") if any(r.startswith(d + "/") for r in files)]
    for d in root_dirs:
        has_tests = any(_is_test_file(r, patterns) for r in files if r.startswith(d + "/"))
        if not has_tests:
            continue
        if d == "test":
            proj.note("moved", "test/", "renamed tests/, its imports of test.* rewritten")
        for r in files:
            if r.startswith(d + "/"):
                out[r] = r[len(d) + 1 :]
    for r in files:
        if "/" not in r and _is_test_file(r, patterns) and r not in out:
            out[r] = r
            proj.note("moved", r, "a test file at the root moves into tests/")
    # Tests inside the package: pkg/tests/..., pkg/sub/test/..., pkg/test_x.py.
    inside: list[tuple[str, str]] = []  # (directory relative to the code root, file)
    for r in files:
        rel = _under(r, code_root)
        if rel is None or r in out or "/" not in rel:
            continue
        parts = rel.split("/")
        if parts[0] in NON_CODE_DIRS or parts[0] in ("tests", "test"):
            continue
        for i, part in enumerate(parts[:-1]):
            if part in ("tests", "test"):
                inside.append(("/".join(parts[: i + 1]), r))
                break
        else:
            if _is_test_file(rel, patterns):
                inside.append(("/".join(parts[:-1]), r))
    if inside:
        tops = {d.split("/")[0] for d, _ in inside}
        for d, r in inside:
            rel = _under(r, code_root) or r
            below = rel[len(d) + 1 :]
            parts = d.split("/")
            if parts[-1] in ("tests", "test"):
                parts = parts[:-1]
            if len(tops) == 1:
                parts = parts[1:]
            new = "/".join([*parts, below])
            if new in out.values():
                raise ProjectError(
                    f"{proj.source}: {r} and another test file would both become tests/{new}; "
                    "rename one of them"
                )
            out[r] = new
        dirs = sorted({d for d, _ in inside})
        proj.note("moved", ", ".join(f"{d}/" for d in dirs), "tests inside the package")
    return out


def _map_imported_helpers(
    files: dict[str, Path], code_root: str, test_map: dict[str, str], proj: Project
) -> None:
    """Modules of non-code folders that the tests import move with the tests.

    A `tools/` (or `scripts/`, `benchmarks/`, ...: `NON_CODE_DIRS`) folder at the root is
    not part of the importable project, but a suite may import helpers from it (`from
    tools.helpers import x`, `import tools.x`, `from tools import x`). Those modules, the
    ones they import from the same folders in turn, and their packages' `__init__.py`,
    go to `tests/` at the same relative place (`tests/tools/helpers.py`), and the imports
    are rewritten like those of any moved test module (`_take_tests`).
    """
    prefix = f"{code_root}/" if code_root else ""

    def file_of(module: str) -> str | None:
        parts = module.split(".")
        if parts[0] not in NON_CODE_DIRS:
            return None
        for base in dict.fromkeys((prefix, "")):
            for cand in (base + "/".join(parts) + ".py", base + "/".join(parts) + "/__init__.py"):
                if cand in files and cand not in test_map:
                    return cand
        return None

    def imported(rel: str) -> set[str]:
        try:
            tree = parse(files[rel].read_bytes().decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            return set()
        module = _module_of(_under(rel, code_root) or rel)
        package = module if rel.endswith("__init__.py") else module.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".") if package else []
                    if node.level - 1 > len(parts):
                        continue
                    head = ".".join(parts[: len(parts) - (node.level - 1)])
                    base = ".".join(x for x in (head, base) if x)
                if base:
                    out.add(base)
                    out.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
        return out

    todo = [r for r in test_map if r.endswith(".py")]
    taken: list[str] = []
    while todo:
        for module in sorted(imported(todo.pop())):
            parts = module.split(".")
            # the module and every package above it
            for i in range(1, len(parts) + 1):
                rel = file_of(".".join(parts[:i]))
                if rel is None or rel in test_map:
                    continue
                new = rel[len(prefix) :] if prefix and rel.startswith(prefix) else rel
                if new in test_map.values():
                    proj.note(
                        "warning", rel, f"imported by the tests, but tests/{new} exists: not moved"
                    )
                    continue
                test_map[rel] = new
                taken.append(rel)
                todo.append(rel)
    for rel in sorted(taken):
        proj.note("moved", rel, "a module outside the package that the tests import")


def _module_of(rel: str) -> str:
    mod = rel.removesuffix(".py").replace("/", ".")
    return mod.removesuffix(".__init__")


def _take_code(
    files: dict[str, Path], code_root: str, test_map: dict[str, str], proj: Project
) -> None:
    dropped: set[str] = set()
    with_code = {
        rel.split("/")[0]
        for r in files
        if r.endswith(".py") and (rel := _under(r, code_root)) is not None and "/" in rel
    }
    for r, p in files.items():
        if r in test_map:
            continue
        rel = _under(r, code_root)
        if rel is None:
            continue
        parts = rel.split("/")
        if len(parts) == 1:
            if rel.endswith((".py", ".pyi")) and rel not in NON_CODE_MODULES:
                proj.solution[rel] = p.read_bytes()
            continue
        if parts[0] in NON_CODE_DIRS or parts[0] in ("tests", "test"):
            dropped.add(parts[0] + "/")
            continue
        if parts[0] not in with_code:
            dropped.add(parts[0] + "/")
            continue
        if p.suffix in (".so", ".pyd", ".dylib", ".c", ".pyx", ".pxd", ".h", ".cpp"):
            proj.note("dropped", rel, "compiled or C source: only pure Python is supported")
            continue
        proj.solution[rel] = p.read_bytes()
    for d in sorted(dropped):
        proj.note("dropped", d, "not part of the importable project")
    if not any(k.endswith(".py") for k in proj.solution):
        raise ProjectError(f"{proj.source}: no Python code found outside the tests")


def _rewrite_imports(source: str, old_module: str, renames: dict[str, str]) -> tuple[str, int]:
    """Rewrite the imports of moved test modules; returns (text, imports rewritten).

    Imports that name a moved test module get its new name, and relative imports (resolved
    against the module's old place, `old_module`) become absolute ones.
    """
    try:
        tree = parse(source)
    except SyntaxError:
        return source, 0
    is_pkg = old_module.endswith(".__init__")
    package = old_module.removesuffix(".__init__") if is_pkg else old_module.rpartition(".")[0]

    def rename(mod: str) -> str:
        best = max((k for k in renames if mod == k or mod.startswith(k + ".")), key=len, default="")
        if not best:
            return mod
        new = renames[best] + mod[len(best) :]
        return new.lstrip(".")

    edits: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    continue
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                absolute = ".".join(x for x in (base, node.module or "") if x)
            else:
                absolute = node.module or ""
            new = rename(absolute)
            # `from pkg import test_helpers`: a name that is itself a moved module.
            moved = [
                a for a in node.names if rename(f"{absolute}.{a.name}") != f"{absolute}.{a.name}"
            ]
            if moved and absolute:
                kept = [a for a in node.names if a not in moved]
                parts = []
                if kept:
                    parts.append(ast.unparse(ast.ImportFrom(module=new, names=kept, level=0)))
                for a in moved:
                    target = rename(f"{absolute}.{a.name}")
                    parent, _, leaf = target.rpartition(".")
                    alias = ast.alias(leaf, a.asname if a.asname and a.asname != leaf else None)
                    if parent:
                        parts.append(
                            ast.unparse(ast.ImportFrom(module=parent, names=[alias], level=0))
                        )
                    else:
                        parts.append(ast.unparse(ast.Import(names=[alias])))
                edits.append((node, "; ".join(parts)))
                continue
            if node.level == 0 and new == absolute:
                continue
            if not new:
                # `from . import x` of a package that is now the rootless tests/ folder
                names = ", ".join(
                    f"{a.name} as {a.asname}" if a.asname else a.name for a in node.names
                )
                edits.append((node, f"import {names}"))
                continue
            edits.append((node, ast.unparse(ast.ImportFrom(module=new, names=node.names, level=0))))
        elif isinstance(node, ast.Import):
            aliases = [ast.alias(rename(a.name), a.asname) for a in node.names]
            if [a.name for a in aliases] != [a.name for a in node.names]:
                text = ast.unparse(ast.Import(names=aliases))
                # `import tools.x` binds `tools`; as `import tests.tools.x` it would bind
                # `tests`: bind the old top-level name to its new module too.
                for was, now in zip(node.names, aliases, strict=True):
                    top = was.name.partition(".")[0]
                    depth = was.name.count(".")
                    new_top = now.name.rsplit(".", depth)[0] if depth else now.name
                    if was.asname is None and now.name != was.name and new_top != top:
                        text += f"; import {new_top} as {top}"
                edits.append((node, text))
    if not edits:
        return source, 0
    lines = source.splitlines(keepends=True)
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
        head = lines[node.lineno - 1].encode()[: node.col_offset].decode()
        tail = lines[end_line - 1].encode()[end_col:].decode()
        lines[node.lineno - 1 : end_line] = [head + text + tail]
    return "".join(lines), len(edits)


def _take_tests(
    files: dict[str, Path], code_root: str, test_map: dict[str, str], proj: Project
) -> None:
    is_package = "__init__.py" in test_map.values()
    # Old module names of the suite's files -> new ones.
    renames: dict[str, str] = {}
    for old, new in test_map.items():
        if not old.endswith(".py"):
            continue
        base = _under(old, code_root) or old
        old_mod = _module_of(base if not old.startswith(("tests/", "test/")) else old)
        new_mod = _module_of(("tests/" if is_package else "") + new)
        renames[old_mod] = new_mod
    count = 0
    for old, new in sorted(test_map.items()):
        data = files[old].read_bytes()
        if old.endswith(".py"):
            base = old if old.startswith(("tests/", "test/")) else (_under(old, code_root) or old)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None:
                text, n = _rewrite_imports(
                    text, base.removesuffix(".py").replace("/", "."), renames
                )
                count += n
                data = text.encode("utf-8")
        proj.tests[new] = data
    if count:
        proj.note("moved", f"{count} imports in the tests", "rewritten to the tests' new place")


def _take_conftests(
    files: dict[str, Path], code_root: str, test_map: dict[str, str], proj: Project
) -> None:
    # A root conftest, and the conftest of a package folder whose test files moved.
    test_dirs = {str(PurePosixPath(old).parent) for old in test_map}
    outside = [
        r
        for r in files
        if PurePosixPath(r).name == "conftest.py"
        and r not in test_map
        and (
            r.count("/") == 0
            or (code_root and r == f"{code_root}/conftest.py")
            or str(PurePosixPath(r).parent) in test_dirs
        )
    ]
    for r in outside:
        text = files[r].read_text(encoding="utf-8", errors="replace")
        have = proj.tests.get("conftest.py")
        if have is not None:
            text = _merge_conftests(text, have.decode("utf-8", errors="replace"))
        proj.tests["conftest.py"] = text.encode("utf-8")
        proj.note("moved", r, "a conftest outside the tests becomes tests/conftest.py")
    for rel in sorted(proj.tests):
        if PurePosixPath(rel).name != "conftest.py":
            continue
        text, removed = _without_outcome_hooks(proj.tests[rel].decode("utf-8", errors="replace"))
        for hook in removed:
            proj.note("dropped", f"tests/{rel}: {hook}", "a hook that can change test outcomes")
        proj.tests[rel] = text.encode("utf-8")


def _merge_conftests(first: str, second: str) -> str:
    futures: list[str] = []
    bodies = []
    for text in (first, second):
        lines = [ln for ln in text.splitlines(keepends=True)]
        keep = []
        for ln in lines:
            if ln.startswith("from __future__ import"):
                futures.append(ln)
            else:
                keep.append(ln)
        bodies.append("".join(keep))
    return "".join(dict.fromkeys(futures)) + bodies[0] + "\n\n" + bodies[1]


def _without_outcome_hooks(text: str) -> tuple[str, list[str]]:
    try:
        tree = parse(text)
    except SyntaxError:
        return text, []
    lines = text.splitlines(keepends=True)
    removed = []
    for node in reversed(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name in OUTCOME_HOOKS:
            first, last = def_span(node)
            lines[first - 1 : last] = []
            removed.append(node.name)
    return "".join(lines), sorted(removed)


# ---------------------------------------------------------------------------- settings


def _as_list(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [ln.strip() for ln in value.splitlines() if ln.strip()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def _read_settings(files: dict[str, Path], proj: Project) -> dict[str, object]:
    """The pytest settings of the project, from the first file pytest would use."""
    candidates = [
        ("pytest.toml", "toml", ("pytest",)),
        (".pytest.toml", "toml", ("pytest",)),
        ("pytest.ini", "ini", "pytest"),
        (".pytest.ini", "ini", "pytest"),
        ("pyproject.toml", "toml", ("tool", "pytest", "ini_options")),
        ("pyproject.toml", "toml", ("tool", "pytest")),
        ("tox.ini", "ini", "pytest"),
        ("setup.cfg", "ini", "tool:pytest"),
    ]
    for name, kind, where in candidates:
        p = files.get(name)
        if p is None:
            continue
        try:
            if kind == "toml":
                table: object = tomllib.loads(p.read_text(encoding="utf-8"))
                for key in where:
                    table = table.get(key) if isinstance(table, dict) else None
                if not isinstance(table, dict):
                    continue
                table = {k: v for k, v in table.items() if not isinstance(v, dict)}
            else:
                cp = configparser.ConfigParser(interpolation=None)
                cp.read_string(p.read_text(encoding="utf-8"))
                if not cp.has_section(str(where)):
                    if name.startswith(("pytest", ".pytest")):
                        table = {}
                    else:
                        continue
                else:
                    table = dict(cp.items(str(where)))
        except (tomllib.TOMLDecodeError, configparser.Error, UnicodeDecodeError) as e:
            proj.note("warning", name, f"cannot read its pytest settings: {e}")
            continue
        proj.note("kept", f"pytest settings of {name}", "only those that cannot weaken scoring")
        return dict(table)
    return {}


_LIST_SETTINGS = {k for k, t in PYTEST_SETTINGS.items() if t is list and k != "addopts"}
_COSMETIC = ("console_output_style", "log_", "junit_", "cache_dir", "verbosity_", "tmp_path_")
_DROPPED_SETTINGS = {
    "testpaths": "tests are found where make-task puts them",
    "pythonpath": "the task's layout makes the package importable",
    "minversion": "the scorer's pytest decides",
    "required_plugins": "third-party pytest plugins are not loaded",
    "doctest_optionflags": "doctests are not scored",
    "doctest_encoding": "doctests are not scored",
    "timeout": "the scorer has its own time limits",
    "timeout_method": "the scorer has its own time limits",
    "faulthandler_timeout": "the scorer has its own time limits",
    "enable_assertion_pass_hook": "could change how assertions are reported",
}


def _take_settings(settings: dict[str, object], test_map: dict[str, str], proj: Project) -> None:
    ini: dict[str, list[str] | bool | str] = {}
    for key, raw in settings.items():
        if key == "addopts":
            _take_addopts(raw, ini, test_map, proj)
        elif key in _LIST_SETTINGS:
            ini[key] = _as_list(raw)
            proj.note("kept", f"{key} = {_short(ini[key])}")
        elif key == "xfail_strict":
            ini[key] = raw if isinstance(raw, bool) else str(raw).strip().lower() in ("1", "true")
            proj.note("kept", f"xfail_strict = {ini[key]}")
        elif key == "empty_parameter_set_mark":
            ini[key] = str(raw)
            proj.note("kept", f"{key} = {raw}")
        elif key in PLUGIN_SETTINGS:
            proj.plugin_ini[key] = str(raw)  # kept later if its plugin is enabled
        elif key in _DROPPED_SETTINGS:
            proj.note("dropped", f"setting {key}", _DROPPED_SETTINGS[key])
        elif key.startswith(_COSMETIC):
            proj.note("dropped", f"setting {key}", "output only")
        else:
            proj.note("dropped", f"setting {key}", "not a setting swarm-envs can keep safely")
    proj.ini = ini


def _short(v: object) -> str:
    text = repr(v)
    return text if len(text) < 80 else text[:77] + "..."


def _take_addopts(
    raw: object, ini: dict[str, list[str] | bool | str], test_map: dict[str, str], proj: Project
) -> None:
    tokens: list[str] = []
    for item in raw if isinstance(raw, list) else [raw]:
        try:
            tokens += shlex.split(str(item))
        except ValueError:
            proj.note("warning", f"addopts {item!r}", "cannot be parsed; dropped")
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        value = None
        name = tok
        if "=" in tok and tok.startswith("--"):
            name, value = tok.split("=", 1)
        takes = name in ("-W", "--pythonwarnings", "-p", "--deselect", "--ignore", "-k", "-m")
        takes = takes or name == "--ignore-glob"
        takes = takes or name in ("-n", "--numprocesses", "--maxfail", "--cov", "--tb", "-r")
        if value is None and name.startswith("-W") and len(name) > 2:
            name, value = "-W", name[2:]
        elif value is None and takes and name in ("-W", "--pythonwarnings", "-p", "--deselect"):
            value = tokens[i + 1] if i + 1 < len(tokens) else ""
            i += 1
        elif value is None and name in ("--ignore", "--ignore-glob", "-k", "-m", "-n"):
            value = tokens[i + 1] if i + 1 < len(tokens) else ""
            i += 1
        i += 1
        if name in STRICT_ADDOPTS:
            addopts = ini.setdefault("addopts", [])
            assert isinstance(addopts, list)
            addopts.append(name)
            proj.note("kept", f"addopts {name}")
        elif name in ("-W", "--pythonwarnings"):
            filters = ini.setdefault("filterwarnings", [])
            assert isinstance(filters, list)
            filters.append(str(value))
            proj.note("kept", f"addopts -W {value}", "as a warning filter")
        elif name == "--deselect":
            nid = _moved_nodeid(str(value), test_map)
            if nid:
                proj.deselect.append(nid)
                proj.note("kept", f"--deselect {value}", f"tests.deselect {nid}")
        elif name.startswith("--doctest"):
            proj.note(
                "dropped",
                f"addopts {tok}",
                "doctests live in the code agents edit, so they cannot be canonical tests",
            )
        elif name in ("-k", "-m") and value:
            # The project's own selection (`-m 'not stress'`): its suite is what it selects.
            addopts = ini.setdefault("addopts", [])
            assert isinstance(addopts, list)
            addopts.append(f"{name} {shlex.quote(str(value))}")
            proj.note("kept", f"addopts {name} {value!r}", "the project's own selection")
        elif name in ("--ignore", "--ignore-glob"):
            proj.note("kept", f"addopts {name} {value}", "the project's own selection")
        elif name == "-p":
            proj.note("dropped", f"addopts -p {value}", "pytest plugins are not loaded")
        elif name.startswith(("--cov", "-n", "--numprocesses", "--dist", "--benchmark")):
            proj.note("dropped", f"addopts {tok}", "a third-party plugin's option")
        elif name.startswith(("-x", "--exitfirst", "--maxfail", "--lf", "--ff", "--sw")):
            proj.note("dropped", f"addopts {tok}", "every test runs")
        else:
            proj.note("dropped", f"addopts {tok}", "output or run options are the scorer's")


def _addopts_tokens(raw: object) -> list[str]:
    tokens: list[str] = []
    for item in raw if isinstance(raw, list) else [raw]:
        try:
            tokens += shlex.split(str(item))
        except ValueError:
            pass
    return tokens


def _ignored_by_settings(settings: dict[str, object]) -> list[str]:
    """Glob patterns of the files that the project's `--ignore` and `--ignore-glob` leave out.

    pytest takes both relative to where it runs (the project's root): a folder or file
    given to `--ignore` leaves out everything under it.
    """
    tokens = _addopts_tokens(settings.get("addopts", []))
    out: list[str] = []
    for i, tok in enumerate(tokens):
        name, eq, value = tok.partition("=")
        if name not in ("--ignore", "--ignore-glob"):
            continue
        if not eq:
            value = tokens[i + 1] if i + 1 < len(tokens) else ""
        value = value.strip().removeprefix("./").rstrip("/")
        if not value:
            continue
        if name == "--ignore":
            out += [value, f"{value}/*"]
        else:
            out.append(value)
    return out


def _moved_nodeid(nodeid: str, test_map: dict[str, str]) -> str | None:
    path, sep, rest = nodeid.partition("::")
    new = test_map.get(path.strip("./"))
    return f"tests/{new}{sep}{rest}" if new else None


def _take_docs(files: dict[str, Path], proj: Project) -> None:
    for name in README:
        if name in files:
            proj.readme = files[name].read_bytes()
            proj.note("kept", name, "the task's README.md")
            break
    for r, p in files.items():
        if "/" not in r and LICENCE.match(r):
            proj.licences[r] = p.read_bytes()
    if proj.licences:
        proj.note("kept", ", ".join(sorted(proj.licences)), "licence and attribution files")
    else:
        proj.note("warning", "no licence file", "say under which licence the code may be used")


# ---------------------------------------------------------------------------- imports


def _module_imports(tree: ast.Module, module: str, is_package: bool) -> tuple[set[str], set[str]]:
    """(absolute modules imported anywhere, top-level names imported unconditionally).

    Unconditional: at module level, outside `try` and `if` blocks (so `try: import numpy`
    and `if TYPE_CHECKING:` imports are optional).
    """
    package = module if is_package else module.rpartition(".")[0]
    every: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            every.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                base = ".".join(parts[: max(0, len(parts) - (node.level - 1))])
                mod = ".".join(x for x in (base, node.module or "") if x)
            else:
                mod = node.module or ""
            every.add(mod)
            every.update(f"{mod}.{a.name}" for a in node.names if a.name != "*")
    hard: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            hard.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            hard.add(node.module.split(".")[0])
    return every, hard


def _third_party_imports(proj: Project) -> set[str]:
    """Top-level names that the tests, and the project modules they reach, import for sure."""
    own = proj.top_level | {"tests"}
    helpers = {PurePosixPath(r).stem for r in proj.tests if r.endswith(".py")}
    helpers |= {r.split("/")[0] for r in proj.tests if "/" in r}
    by_module = {_module_of(rel): rel for rel in proj.solution if rel.endswith(".py")}
    parsed: dict[str, tuple[set[str], set[str]]] = {}

    def imports(files: dict[str, bytes], rel: str, module: str) -> tuple[set[str], set[str]]:
        if rel not in parsed:
            try:
                tree = parse(files[rel])
            except (SyntaxError, ValueError):
                tree = ast.Module(body=[], type_ignores=[])
            parsed[rel] = _module_imports(tree, module, rel.endswith("__init__.py"))
        return parsed[rel]

    found: set[str] = set()
    todo: list[str] = []
    for rel in proj.tests:
        if rel.endswith(".py"):
            every, hard = imports(proj.tests, rel, "tests." + _module_of(rel))
            found |= hard
            todo += sorted(every)
    seen: set[str] = set()
    while todo:
        mod = todo.pop()
        parts = mod.split(".")
        for i in range(1, len(parts) + 1):
            found_rel = by_module.get(".".join(parts[:i]))
            if found_rel is None or found_rel in seen:
                continue
            seen.add(found_rel)
            every, hard = imports(proj.solution, found_rel, _module_of(found_rel))
            found |= hard
            todo += sorted(every)
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    pytest_own = {"pytest", "_pytest", "py", "pluggy"}
    return {n for n in found if n not in stdlib | own | helpers | pytest_own}


def _declaration(source: Path, files: dict[str, Path], proj: Project) -> Declared:
    """What the project declares, with its name and version (from its folder if need be)."""
    d = read_declared(files)
    name, version = version_from_folder(source.resolve())
    d.name = d.name or name
    d.version = d.version or version
    if d.sources:
        proj.note("kept", "declared requirements", "from " + ", ".join(d.sources))
    if d.tooling:
        proj.note(
            "dropped",
            "declared tools " + ", ".join(Requirement(t).name for t in d.tooling),
            "they build, lint, measure or reorder; the scorer brings its own pytest",
        )
    return d
