"""What a project declares about itself: its name, version, and what it and its tests need.

Read from the places real projects put it, most exact first:

- `PKG-INFO` of a source distribution (`Name`, `Version`, `Requires-Dist`, with
  `extra == "test"` markers for its test extras);
- `pyproject.toml`: `[project]` name, version, `dependencies`, `optional-dependencies`
  and `[dependency-groups]`;
- `setup.cfg`: `[metadata]` name, version, `[options] install_requires`, `tests_require`
  and `[options.extras_require]`;
- `requirements*.txt` files (at the root and in a `requirements/` folder) whose name says
  they are for tests (`requirements-test.txt`, `test-requirements.txt`, `requirements/
  tests.txt`), and a plain `requirements.txt` as runtime requirements.

Only the extras and groups named `test`, `tests`, `testing` and `dev` count as the tests'
requirements, and `dev` only where the project has none of the others: a `dev` extra or
a `requirements/dev.txt` lock file usually pins every tool of the project's maintainers.
Markers are evaluated for this Python (a `python_version < "3.8"` backport is not needed
here). Tools that only build, lint, type-check, measure coverage or change how
pytest runs (`TOOLING`) are left out: the scorer brings its own pytest and runs every test.
"""

from __future__ import annotations

import configparser
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path, PurePosixPath

from packaging.requirements import InvalidRequirement, Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: extras and dependency groups whose requirements the tests may need
TEST_EXTRAS = ("test", "tests", "testing", "dev")
#: distributions that build, lint, document, measure or reorder: never a test's requirement
#: (pytest itself is the scorer's; plugins that change how tests run or report are here too)
TOOLING = frozenset(
    {
        "pytest",
        "pluggy",
        "iniconfig",
        "py",
        "pytest-cov",
        "coverage",
        "codecov",
        "coveralls",
        "pytest-xdist",
        "pytest-forked",
        "pytest-randomly",
        "pytest-random-order",
        "pytest-rerunfailures",
        "flaky",
        "pytest-timeout",
        "pytest-sugar",
        "pytest-instafail",
        "pytest-repeat",
        "pytest-flakefinder",
        "pytest-testmon",
        "pytest-picked",
        "pytest-runner",
        "pytest-pretty",
        "pytest-clarity",
        "pytest-icdiff",
        "pytest-github-actions-annotate-failures",
        "pytest-mypy",
        "pytest-flake8",
        "pytest-ruff",
        "pytest-black",
        "pytest-isort",
        "pytest-pylint",
        "pytest-codspeed",
        "pytest-memray",
        "pytest-enabler",
        "pytest-checkdocs",
        "pytest-doctestplus",
        "tox",
        "nox",
        "mypy",
        "pyright",
        "pytype",
        "flake8",
        "ruff",
        "black",
        "isort",
        "pylint",
        "pyflakes-cli",
        "pre-commit",
        "twine",
        "build",
        "wheel",
        "setuptools",
        "setuptools-scm",
        "check-manifest",
        "bump2version",
        "bumpversion",
        "towncrier",
        "sphinx",
        "furo",
        "docutils",
        "readme-renderer",
        "restructuredtext-lint",
        "mkdocs",
        "pdoc",
        "ipython",
        "ipdb",
        "pdbpp",
        "tomli-w-stubs",
        "codespell",
        "changelog-manager",
        "pyupgrade",
        "autopep8",
        "yapf",
        "bandit",
        "safety",
        "vulture",
        "interrogate",
        "pydocstyle",
        "darglint",
        "mccabe-cli",
        "hatch",
        "flit",
        "poetry",
        "pip-tools",
        "virtualenv",
    }
)
_TOOLING_PREFIXES = (
    "sphinx",
    "mkdocs",
    "types-",
    "flake8-",
    "mypy-",
    "pytest-cov",
    "pallets-sphinx",
)
_TOOLING_SUFFIXES = ("-stubs",)
_TEST_FILE = re.compile(r"(^|[-_./])(test|tests|testing|dev)([-_.]|$)", re.IGNORECASE)
_VERSION_IN_NAME = re.compile(r"^(?P<name>.+?)-(?P<version>\d[^-]*)$")


def normal(name: str) -> str:
    """A distribution name as PEP 503 compares them (`Foo_Bar` -> `foo-bar`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def is_tooling(name: str) -> bool:
    """Whether the distribution `name` is a tool rather than something tests import."""
    n = normal(name)
    return (
        n in TOOLING
        or n.startswith(_TOOLING_PREFIXES)
        or n.endswith(_TOOLING_SUFFIXES)
        or n.startswith("sphinxcontrib")
    )


@dataclass
class Declared:
    """What a project declares (see the module doc)."""

    name: str | None = None
    version: str | None = None
    runtime: list[str] = field(default_factory=list)  # requirement specifiers
    tests: list[str] = field(default_factory=list)  # the test extras' specifiers
    tooling: list[str] = field(default_factory=list)  # declared, left out: tools
    sources: list[str] = field(default_factory=list)  # where each part was read

    @property
    def names(self) -> list[str]:
        """Every declared distribution name, runtime first."""
        out = []
        for spec in (*self.runtime, *self.tests, *self.tooling):
            try:
                out.append(Requirement(spec).name)
            except InvalidRequirement:
                continue
        return list(dict.fromkeys(out))

    def requirements(self) -> list[str]:
        """Runtime and test requirements, each distribution once (the first spec wins)."""
        seen: set[str] = set()
        out = []
        for spec in (*self.runtime, *self.tests):
            name = normal(Requirement(spec).name)
            if name not in seen:
                seen.add(name)
                out.append(spec)
        return out


def _applies(req: Requirement, extra: str = "") -> bool:
    if req.marker is None:
        return True
    try:
        return bool(req.marker.evaluate({"extra": extra}))
    except Exception:  # noqa: BLE001 - an unknown marker variable: keep the requirement
        return True


def _parse(spec: str, extra: str = "") -> Requirement | None:
    spec = spec.split(" #", 1)[0].strip()
    if not spec or spec.startswith(("#", "-", "git+", "http:", "https:", "file:", ".")):
        return None
    try:
        req = Requirement(spec)
    except InvalidRequirement:
        return None
    if req.url or not _applies(req, extra):
        return None
    return req


class _Reader:
    def __init__(self, project_name: str | None) -> None:
        self.out = Declared()
        self.own = normal(project_name) if project_name else None
        self.seen: set[tuple[str, str]] = set()

    def add(self, specs: Iterable[object], kind: str, source: str, extra: str = "") -> None:
        took = False
        for raw in specs:
            if not isinstance(raw, str):
                continue  # an `{include-group = ...}` table
            req = _parse(raw, extra)
            if req is None:
                continue
            name = normal(req.name)
            if name == self.own or (name, kind) in self.seen:
                continue  # `mylib[test]` in its own extras, or declared twice
            self.seen.add((name, kind))
            req.marker = None
            text = str(req)
            if is_tooling(name):
                self.out.tooling.append(text)
            elif kind == "runtime":
                self.out.runtime.append(text)
            else:
                self.out.tests.append(text)
            took = True
        if took and source not in self.out.sources:
            self.out.sources.append(source)


def read_declared(files: dict[str, Path]) -> Declared:
    """What the project whose files are `files` ({relative path: file}) declares.

    Unreadable files are skipped: a declaration make-task cannot read is one it does not use.
    """
    pkg = _pkg_info(files)
    pyproject = _toml(files.get("pyproject.toml"))
    project = pyproject.get("project", {}) if isinstance(pyproject.get("project"), dict) else {}
    cfg = _cfg(files.get("setup.cfg"))
    name = (
        (pkg.get("Name") if pkg else None)
        or (project.get("name") if isinstance(project.get("name"), str) else None)
        or (cfg.get("metadata", "name", fallback=None) if cfg else None)
    )
    r = _Reader(name)
    r.out.name = name
    r.out.version = (
        (pkg.get("Version") if pkg else None)
        or (project.get("version") if isinstance(project.get("version"), str) else None)
        or _cfg_version(cfg)
    )
    if pkg is not None:
        for raw in pkg.get_all("Requires-Dist") or []:
            r.add([raw], "runtime", "PKG-INFO")
            for extra in _test_names(pkg.get_all("Provides-Extra") or []):
                req = _parse(raw, extra)
                if req is not None and not _applies(Requirement(raw), ""):
                    r.add([raw], "tests", f"PKG-INFO (extra {extra})", extra)
    r.add(project.get("dependencies", []) or [], "runtime", "pyproject.toml [project]")
    extras = project.get("optional-dependencies", {}) or {}
    groups = pyproject.get("dependency-groups", {}) or {}
    extras = extras if isinstance(extras, dict) else {}
    groups = groups if isinstance(groups, dict) else {}
    for extra in _test_names([*extras, *groups]):
        if isinstance(extras.get(extra), list):
            r.add(extras[extra], "tests", f"pyproject.toml optional-dependencies.{extra}", extra)
        if isinstance(groups.get(extra), list):
            r.add(groups[extra], "tests", f"pyproject.toml dependency-groups.{extra}")
    poetry = (
        pyproject.get("tool", {}).get("poetry", {})
        if isinstance(pyproject.get("tool"), dict)
        else {}
    )
    if isinstance(poetry, dict) and poetry:
        r.out.name = r.out.name or (
            poetry.get("name") if isinstance(poetry.get("name"), str) else None
        )
        if not r.out.version and isinstance(poetry.get("version"), str):
            r.out.version = poetry["version"]
        r.add(_poetry(poetry.get("dependencies")), "runtime", "pyproject.toml [tool.poetry]")
        groups_p = poetry.get("group", {}) if isinstance(poetry.get("group"), dict) else {}
        tables = {n: g.get("dependencies") for n, g in groups_p.items() if isinstance(g, dict)}
        if isinstance(poetry.get("dev-dependencies"), dict):
            tables.setdefault("dev", poetry["dev-dependencies"])
        for name in _test_names(tables):
            r.add(_poetry(tables[name]), "tests", f"pyproject.toml poetry {name} dependencies")
    if cfg is not None:
        r.add(_lines(cfg.get("options", "install_requires", fallback="")), "runtime", "setup.cfg")
        r.add(_lines(cfg.get("options", "tests_require", fallback="")), "tests", "setup.cfg")
        if cfg.has_section("options.extras_require"):
            for extra in _test_names(cfg.options("options.extras_require")):
                text = cfg.get("options.extras_require", extra, fallback="")
                r.add(_lines(text), "tests", f"setup.cfg extras_require.{extra}", extra)
    req_files: dict[str, str] = {}  # file -> the kind of requirements it names
    for rel in sorted(files):
        p = PurePosixPath(rel)
        if p.suffix != ".txt" or not (
            (len(p.parts) == 1 and "requirements" in p.name.lower())
            or (len(p.parts) == 2 and p.parts[0] in ("requirements", "reqs"))
        ):
            continue
        m = _TEST_FILE.search(p.as_posix().removesuffix(".txt").replace("requirements", ""))
        if m:
            req_files[rel] = m.group(2).lower()
        elif p.name == "requirements.txt":
            req_files[rel] = "runtime"
    wanted = set(_test_names(req_files.values())) | {"runtime"}
    for rel, kind in req_files.items():
        if kind not in wanted:
            continue
        try:
            text = files[rel].read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        r.add(_lines(text), "runtime" if kind == "runtime" else "tests", rel)
    return r.out


def _test_names(names: Iterable[str]) -> list[str]:
    """The test extras among `names`: `test`, `tests`, `testing`, else `dev`."""
    have = [n for n in dict.fromkeys(names) if n in TEST_EXTRAS]
    tests = [n for n in have if n != "dev"]
    return tests or have


def version_from_folder(folder: Path) -> tuple[str | None, str | None]:
    """(name, version) from an unpacked sdist's folder name (`mylib-1.2.3`)."""
    m = _VERSION_IN_NAME.match(folder.name)
    return (m["name"], m["version"]) if m else (None, None)


def _poetry(table: object) -> list[str]:
    """Poetry's `{name = "^1.2"}` tables as requirement names (its version syntax is its own)."""
    if not isinstance(table, dict):
        return []
    return [
        str(name)
        for name, spec in table.items()
        if name != "python" and not (isinstance(spec, dict) and spec.get("optional") is True)
    ]


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def _pkg_info(files: dict[str, Path]):  # noqa: ANN202 - an email.message.Message or None
    p = files.get("PKG-INFO")
    if p is None:
        return None
    try:
        return HeaderParser().parsestr(p.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None


def _toml(p: Path | None) -> dict:
    if p is None:
        return {}
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _cfg(p: Path | None) -> configparser.ConfigParser | None:
    if p is None:
        return None
    cp = configparser.ConfigParser(interpolation=None)
    try:
        cp.read_string(p.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return None
    return cp


def _cfg_version(cfg: configparser.ConfigParser | None) -> str | None:
    if cfg is None:
        return None
    v = cfg.get("metadata", "version", fallback=None)
    if v and not v.startswith(("attr:", "file:")):
        return v.strip()
    return None
