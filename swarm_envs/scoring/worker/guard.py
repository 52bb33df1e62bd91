"""The integrity guard of a test process: owns the channel, decides outcomes, flags tampering.

Code under test runs in the same process as pytest, so nothing that process holds is out
of its reach unless the interpreter itself keeps it out. The guard is a CPython audit hook
(`sys.addaudithook`: once added, it cannot be removed, and no hook may be added after
it), installed before any code under test is imported. Everything it needs lives in that
hook's closure (the channel's file descriptor and nonce, the per-test state, its
snapshots), and its code runs with a private copy of the builtins and of its globals, so
no object the code under test can reach refers to any of it, and no name it looks up can
be rebound. It calls no method of an object it did not make: the reporter hands it plain
data (strings, numbers, tuples). Reaching its closure would take the garbage collector,
a frame, a trace or profile function, a signal handler or an audit hook of one's own; the
guard refuses each (and holds the cyclic garbage collector while it runs).

The reporter plugin does not write records itself: it tells the guard what pytest did
(`sys.audit(REPORT_EVENT, ...)`), and the guard accepts those calls only from the
reporter's own code, on the main thread, with no untrusted frame on the stack. A test
counts as passed only if pytest reported every phase passed, *and* the test's canonical
body ran to its end during its call (the completion marker of `hardened`, accepted only
from the canonical code whose file and qualified name are the test's, or that its item's
test function leads to through trusted library wrappers), and nothing was flagged. Passes
are confirmed by the final record, sent after the last checks.

It judges what code achieves, not which reflection it uses (docs/integrity.md, "What the
guard judges"), and blames only the project's code:

- frames are views for the project (`_view_types`): `sys._getframe` and the standard
  walkers of tracebacks are replaced; frames other than the project's own show code name,
  file, line and module `__name__` only. Real frames that lead to a test or the harness
  (`tb_frame`, `gi_frame`, `f_code` read by the project itself) are refused, silently;
  canonical sources are not opened on its behalf (nor left in `linecache`);
- a canonical function's code is a shell (`hardened.make_shell`): its body's code is
  refused to the project;
- changes to the modules and classes that decide outcomes (builtins, pytest, _pytest,
  pluggy, this package, the builtins of canonical code) are compared by identity with a
  snapshot at every test and at the end of the run; in the modules canonical tests use,
  only a value the project made counts (`made_by_project`);
- code that trusted code compiled and ran with nothing of the project's on the stack is
  trusted (hypothesis' generated wrappers).

Flagged (a finding: kind, test, detail) and, where it is a capability, refused:

- `sys._current_frames`, the real `sys._getframe` used by the project;
- the project reading the code behind a canonical function's shell, opening a canonical
  test source; replacing the code or the defaults (`__code__`, `__defaults__`,
  `__kwdefaults__`) of a function that is not the workspace's;
- the changes above;
- a test item that is not pytest's, whose methods, test function or parameters were
  replaced, or whose test function is not canonical code (reached, for a test decorated
  by a library, through `__wrapped__`, shells and trusted library code only); fixture
  values replaced between setup and call; plugins or hook implementations added by the
  code under test;
- trace and profile functions set by the project, or made by it and installed by trusted
  code (`sys.settrace`/`setprofile`, `threading.settrace`/`setprofile`, `threading`'s
  hooks at a thread's start: judged by the callable's origin); the guard's own events
  raised by anything but the guard's replacements;
- `gc.get_objects`/`get_referrers`/`get_referents`, `ctypes`, `sys.addaudithook`,
  `signal.signal`/`setitimer`/`alarm`, `/proc/*/mem`, opening harness files, code compiled
  or unmarshalled under the name of a trusted file, by untrusted code;
- always-equal objects and lying dunders (reported by the strict comparisons of canonical
  assertions).

"Untrusted" code is the workspace's, or code compiled from a string by it. A finding fails
the test during which it was made; one made while no test ran, or whose effect outlives
its test (`protocol.PERSISTENT`), every later test too.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import sys
import types
from typing import Any

from .hardened import (
    BUILTINS,
    DONE_EVENT,
    FINDING_EVENT,
    HELPERS,
    SHELL_EVENT,
    TRUSTED_PREFIXES,
    hide_param,
    make_shell,
)
from .protocol import OPENED, PERSISTENT, SPAWNED

REPORT_EVENT = "swarm_envs.report"
#: what a frame view asks the guard (see `_view_types`)
VIEW_EVENT = "swarm_envs.frame"
#: what the replaced setters of trace and profile functions ask the guard (`_view_types`)
TRACE_EVENT = "swarm_envs.tracing"
#: findings reported per test, and per run (past them a test still fails, unreported)
MAX_FINDINGS = 5
MAX_RUN_FINDINGS = 1000
# Categories of code, by the file it was compiled from.
TRUSTED, CANONICAL, WORKSPACE, ANONYMOUS = range(4)
# Outcome path, checked at every test (module dicts, and the classes in PER_TEST_CLASSES);
# everything else of the snapshot (all their classes, the modules canonical tests use, this
# package) is checked at the end of collection and at the end of the run.
PER_TEST_CLASSES = frozenset(
    {"Function", "PyobjMixin", "CallInfo", "TestReport", "BaseReport", "Item", "Node"}
    | {"HookCaller", "HookImpl", "Result", "FixtureRequest", "TopRequest", "SubRequest"}
    | {"FixtureDef", "ApproxBase", "ApproxScalar", "ApproxSequenceLike", "ApproxMapping"}
    | {"WarningsChecker", "RaisesExc", "RaisesGroup", "Session", "SetupState"}
)
FAST_MODULES = (
    "builtins",
    "pytest",
    "re",
    "_pytest.runner",
    "_pytest.python",
    "_pytest.python_api",
    "_pytest.raises",
    "_pytest.approx",
    "_pytest.outcomes",
    "_pytest.reports",
    "_pytest.fixtures",
    "_pytest.main",
    "_pytest.nodes",
    "_pytest.skipping",
    "_pytest.recwarn",
    "_pytest.unittest",
    "_pytest.assertion.rewrite",
    "_pytest.assertion.util",
    "pluggy._callers",
    "pluggy._hooks",
    "pluggy._manager",
    "pluggy._result",
)
# What pytest sets in its own modules and classes during a run (module or class, name):
# elsewhere only what the project made is suspect (`made_by_project`).
LEGITIMATE_CHANGES = frozenset(
    {("*", "_pytest_diamond_inheritance_warning_shown")}
    # Set by `warnings.warn` in the module a warning is attributed to (a deprecation warning
    # of pytest's during collection): what was shown, nothing that decides an outcome.
    | {("*", "__warningregistry__")}
    # Cached on a class by copyreg the first time one of its objects is copied or pickled.
    | {("*", "__slotnames__")}
    | {("_pytest.assertion.util", n) for n in ("_reprcompare", "_assertion_pass", "_config")}
    | {("_pytest.debugging.pytestPDB", n) for n in ("_config", "_pluginmanager", "_saved")}
    # What Python gives the application to set: its hooks and streams (a library installs
    # its own excepthook at import, a CLI redirects stdout).
    | {("sys", n) for n in ("excepthook", "displayhook", "breakpointhook", "unraisablehook")}
    | {("sys", n) for n in ("stdin", "stdout", "stderr", "ps1", "ps2", "tracebacklimit")}
    # The last value an interactive session (doctest's examples) displayed: `sys.displayhook`.
    | {("builtins", "_")}
)
_VETO = "refused by the scoring harness"
# Signal handlers run between any two bytecodes, the guard's own included: none may be set.
_SIGNAL_SETTERS = ("signal", "setitimer", "alarm")


class Refused(RuntimeError):
    """What the code under test gets for an operation the guard refuses."""


class RefusedOpen(PermissionError):
    """What an open of a canonical test source gets on behalf of the code under test.

    An `OSError`, so that `linecache` and `inspect` (asked by the code under test for the
    source lines of a stack) carry on without them.
    """


def _view_types(_audit, _event, _frame_type, _code_type, _trace_event):  # noqa: ANN001, ANN202, C901
    """The classes of frame views and code views, and the tracing setters (private globals).

    A frame view stands for a real frame that the code under test may not hold (see
    `_install`). It keeps nothing: each of its attributes asks the guard (an audit event
    of its own), which looks the real frame up in a table of its closure and answers by
    the frame's code: the project's own frames in full, any other frame as its code name,
    file, line and module `__name__` only. Its methods take everything they use as
    defaults (read only through audited `__defaults__`), so rebinding a global changes
    nothing; `isinstance(view, types.FrameType)` holds (`__class__`), so `inspect` and
    `traceback` take it as a frame. A code view is plain data: a test function's
    signature facts, never its constants or names.

    `tracing(kind)` makes the replacement of one of `sys.settrace`, `sys.setprofile`,
    `threading.settrace`, `threading.setprofile` (and `sys.gettrace` under dynamic keys):
    it hands the callable to the guard (an audit event of its own), which installs it only
    for trusted code and a callable the project did not make. Every replacement shares one
    code object, by which the guard knows the event came from one of them.
    """

    def _ask(view, name, _audit=_audit, _event=_event):  # noqa: ANN001, ANN202
        box = [None, None]
        _audit(_event, view, name, box)
        if box[1] is not None:
            raise box[1]
        return box[0]

    def _getframe(*args, _audit=_audit, _event=_event):  # noqa: ANN002, ANN202
        box = [None, None]
        _audit(_event, None, args, box)
        if box[1] is not None:
            raise box[1]
        return box[0]

    class FrameView:
        __slots__ = ("__weakref__",)
        __module__ = None  # inspect.getmodule(view): no module to read source through
        __class__ = property(lambda self, _t=_frame_type: _t)
        f_back = property(lambda self, _a=_ask: _a(self, "f_back"))
        f_code = property(lambda self, _a=_ask: _a(self, "f_code"))
        f_globals = property(lambda self, _a=_ask: _a(self, "f_globals"))
        f_locals = property(lambda self, _a=_ask: _a(self, "f_locals"))
        f_builtins = property(lambda self, _a=_ask: _a(self, "f_builtins"))
        f_lineno = property(lambda self, _a=_ask: _a(self, "f_lineno"))
        f_lasti = property(lambda self, _a=_ask: _a(self, "f_lasti"))
        f_trace = property(lambda self: None, lambda self, value: None)
        f_trace_lines = property(lambda self: False, lambda self, value: None)
        f_trace_opcodes = property(lambda self: False, lambda self, value: None)

        def clear(self):  # noqa: ANN202
            return None

        def __repr__(self, _a=_ask):  # noqa: ANN001, ANN204
            return _a(self, "repr")

    class CodeView:
        __slots__ = (
            "co_name",
            "co_qualname",
            "co_filename",
            "co_firstlineno",
            "co_argcount",
            "co_posonlyargcount",
            "co_kwonlyargcount",
            "co_flags",
            "co_varnames",
            "co_nlocals",
            "co_consts",
            "co_names",
            "co_freevars",
            "co_cellvars",
            "_positions",
            "_lines",
        )
        __module__ = None
        __class__ = property(lambda self, _t=_code_type: _t)

        def co_positions(self, _iter=iter):  # noqa: ANN001, ANN202
            return _iter(self._positions)

        def co_lines(self, _iter=iter):  # noqa: ANN001, ANN202
            return _iter(self._lines)

        def __repr__(self):  # noqa: ANN204
            where = f'file "{self.co_filename}", line {self.co_firstlineno}'
            return f"<code object {self.co_name}, {where}>"

    def walkers(traceback, inspect, _ask=_ask):  # noqa: ANN001, ANN202
        """(module, name, replacement): the standard walkers of tracebacks, giving views."""
        real_inner = inspect.getinnerframes
        info = inspect.FrameInfo

        def walk_tb(tb, _ask=_ask):  # noqa: ANN001, ANN202
            while tb is not None:
                yield _ask(tb.tb_frame, "wrap"), tb.tb_lineno
                tb = tb.tb_next

        def walk_tb_positions(tb, _ask=_ask, _pos=traceback._get_code_position):  # noqa: ANN001, ANN202
            while tb is not None:
                frame = tb.tb_frame
                positions = _pos(frame.f_code, tb.tb_lasti)
                if positions[0] is None:
                    positions = (tb.tb_lineno, *positions[1:])
                yield _ask(frame, "wrap"), positions
                tb = tb.tb_next

        def getinnerframes(tb, context=1, _ask=_ask, _inner=real_inner, _info=info):  # noqa: ANN001, ANN202
            return [
                _info(
                    _ask(f.frame, "wrap"),
                    f.filename,
                    f.lineno,
                    f.function,
                    f.code_context,
                    f.index,
                    positions=f.positions,
                )
                for f in _inner(tb, context)
            ]

        return (
            (traceback, "walk_tb", walk_tb),
            (traceback, "_walk_tb_with_full_positions", walk_tb_positions),
            (inspect, "getinnerframes", getinnerframes),
        )

    def _setter(func=None, *, _kind="", _audit=_audit, _event=_trace_event):  # noqa: ANN001, ANN202
        box = [None, None]
        _audit(_event, _kind, func, box)
        if box[1] is not None:
            raise box[1]
        return box[0]

    def tracing(kind, _setter=_setter, _fn=type(_setter)):  # noqa: ANN001, ANN202, B008
        made = _fn(
            _setter.__code__, _setter.__globals__, kind.rpartition(".")[2], _setter.__defaults__
        )
        made.__kwdefaults__ = {**_setter.__kwdefaults__, "_kind": kind}
        return made

    return FrameView, CodeView, _getframe, walkers, tracing


def _refuse_signals(*args: object, **kwargs: object) -> None:
    sys.audit(FINDING_EVENT, "signal_handler", "the code under test set a signal handler or timer")
    raise Refused(f"signal handlers and timers are {_VETO}")


def _no_trace() -> None:
    """`sys.gettrace` for the code under test: the harness's tracer is nobody's business."""
    return None


def install(**kwargs: object) -> None:
    """Install the guard (once per process, before any code under test is imported).

    The implementation runs with a private copy of this module's globals and of the
    builtins, made now, while they are still genuine; see `_install` for the arguments.
    """
    private = dict(globals())
    private["__builtins__"] = dict(builtins.__dict__)
    if kwargs.get("trace"):
        # The tracer's state is reachable from the tracer itself: `sys.gettrace` must not
        # hand it out. `_install` replaces this with the guard's own `sys.gettrace`, which
        # gives any tracer but the guard's (a trusted one doctest or a test installed).
        kwargs["real_gettrace"] = sys.gettrace
        sys.gettrace = _no_trace
    fresh = types.FunctionType(_install.__code__, private, "_install")
    fresh.__kwdefaults__ = dict(_install.__kwdefaults__ or {})
    import signal

    # `asyncio.run` sets a SIGINT handler of its own where SIGINT has Python's default one
    # (KeyboardInterrupt). A scoring worker has no use for that (its pool ends it): with
    # the system's default, the event loops of the tests run without setting a handler.
    with contextlib.suppress(ValueError, OSError):  # not the main thread: nothing to do
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    for module in (signal, sys.modules.get("_signal")):
        for name in _SIGNAL_SETTERS:
            if module is not None and hasattr(module, name):
                setattr(module, name, _refuse_signals)
    fresh(**kwargs)


def _install(  # noqa: C901 - one closure keeps the guard's state out of reach
    *,
    out_fd: int,
    tree: str,
    canonical_codes: frozenset[int],
    keep: list,
    caller_codes: frozenset[int],
    harness_dir: str,
    canonical_imports: tuple[str, ...] = (),
    trace: bool = False,
    real_gettrace: Any = None,
) -> None:
    """The guard proper.

    Args:
        out_fd: the channel's file descriptor (records go there, tagged with a nonce the
            guard draws and announces now).
        tree: the scoring tree (the process's working directory).
        canonical_codes: ids of every code object compiled from canonical test files.
        keep: the code objects themselves (keeps the ids valid).
        caller_codes: ids of the code objects allowed to report (the reporter's).
        harness_dir: the worker's directory (its frames are trusted, its files private).
        canonical_imports: modules that canonical tests import (watched like pytest).
        trace: record, per test, the lines of the project's code that began running
            (`tracer` below): the host narrows the test's cache key to the functions
            they are in.
        real_gettrace: `sys.gettrace` as it was (`install` hides the tracer from it).
    """
    import _thread
    import gc
    import inspect
    from functools import partial as functools_partial
    from operator import is_

    try:
        from _json import encode_basestring_ascii as enc
    except ImportError:  # pragma: no cover
        from json.encoder import py_encode_basestring_ascii as enc

    write = os.write
    getpid = os.getpid
    getframe = sys._getframe
    get_ident = _thread.get_ident
    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable
    ModuleType = types.ModuleType
    FunctionType = types.FunctionType
    module_dict = vars(ModuleType)["__dict__"].__get__
    tdict = type.__dict__["__dict__"].__get__
    qualname_of = type.__dict__["__qualname__"].__get__
    code_of = FunctionType.__dict__["__code__"].__get__
    str_str = str.__str__
    owner = getpid()
    main_thread = get_ident()

    def plain(value: object, limit: int = 4000) -> str:
        if type(value) is not str:
            value = str_str(value) if issubclass(type(value), str) else "<not text>"
        return value[:limit]

    def dumps(value: Any) -> str:
        t = type(value)
        if t is str:
            return enc(value)
        if t is bool:
            return "true" if value else "false"
        if t is int:
            return int.__repr__(value)
        if t is type(None):
            return "null"
        if t is list or t is tuple:
            return "[" + ",".join([dumps(v) for v in value]) + "]"
        if t is dict:
            items = value.items()
            return "{" + ",".join([enc(plain(k)) + ":" + dumps(v) for k, v in items]) + "}"
        return "null"

    nonce = os.urandom(16).hex().encode()

    def emit(record: dict) -> None:
        if getpid() != owner:
            return  # a fork of the test process (code under test called os.fork)
        view = memoryview(nonce + b" " + dumps(record).encode("ascii") + b"\n")
        while view:
            view = view[write(out_fd, view) :]

    view = memoryview(nonce + b"\n")
    while view:
        view = view[write(out_fd, view) :]

    root = tree.rstrip("/") + "/"
    real_root = os.path.realpath(tree).rstrip("/") + "/"
    roots = tuple(dict.fromkeys((root, real_root)))
    test_roots = tuple(r + "tests/" for r in roots)
    harness_root = os.path.realpath(harness_dir).rstrip("/") + "/"
    # The task's third-party packages live there too: trusted code, but not private (a
    # library reads its own data files on behalf of the code under test).
    library_root = harness_root + "site/"
    pinned = list(keep)  # noqa: F841 - keeps the canonical ids valid for the hook's life
    # The hardened helpers that read a canonical function's code or set a shell's defaults
    # on its behalf (`make_shell`, `hide_param`): taken by identity now.
    own_readers = frozenset(id(code_of(f)) for f in (make_shell, hide_param))
    canonical = frozenset(canonical_codes)
    # Shells of canonical functions (`hardened.make_shell`): their code is a signature.
    shells: dict[int, int] = {}  # id of a shell's code -> id of its body's code
    shells_kept: list[object] = []
    callers = frozenset(caller_codes)
    categories: dict[object, int] = {}
    busy: set[int] = set()
    findings: list[dict] = []
    # What was loaded, by the test file on whose behalf ("": the session's).
    loaded_files: dict[str, set[str]] = {}
    loaded_modules: dict[str, set[str]] = {}
    genuine_modules = {plain(k): v for k, v in sys.modules.items()}
    modules_dict = sys.modules

    def category(filename: object) -> int:
        if type(filename) is not str:
            return ANONYMOUS
        c = categories.get(filename)
        if c is None:
            if filename.startswith(test_roots):
                c = CANONICAL
            elif filename.startswith(roots):
                c = WORKSPACE
            elif filename.startswith(TRUSTED_PREFIXES) or filename.startswith(harness_root):
                c = TRUSTED
            else:
                c = ANONYMOUS
            categories[filename] = c
        return c

    # Frames of trusted code known to have nothing untrusted below them (a frame's callers
    # never change while it lives; holding it keeps its id from being reused). Bounded.
    clean: set[object] = set()  # frames (hashed by identity: no builtins.id event)

    # Code that trusted code compiled and ran with nothing of the project's on the stack
    # (hypothesis builds `@given`'s wrapper from generated source): trusted, whatever its
    # file name says. Ids of the code objects, held for the process's life.
    trusted_made: set[int] = set()
    trusted_kept: list[object] = []

    def code_category(code: Any) -> int:
        if id(code) in trusted_made:
            return TRUSTED
        return category(code.co_filename)

    def untrusted_frame(frame: object) -> object | None:
        """The newest frame of untrusted code on the stack from `frame` down, or None."""
        f = frame
        seen: list[object] = []
        while f is not None:
            if f in clean:
                break
            c = code_category(f.f_code)  # type: ignore[attr-defined]
            if c >= WORKSPACE:
                return f
            if c == TRUSTED and f is not frame:  # the newest is still running: not it
                seen.append(f)
            f = f.f_back  # type: ignore[attr-defined]
        if len(clean) > 4096:
            clean.clear()
        clean.update(seen)  # a frame's callers never change while it lives
        return None

    def where(frame: object) -> str:
        """`file:line in function` of a frame, the file relative to the tree."""
        if frame is None:
            return "?"
        code = frame.f_code  # type: ignore[attr-defined]
        fn = plain(code.co_filename)
        for r in roots:
            if fn.startswith(r):
                fn = fn[len(r) :]
                break
        return f"{fn}:{int(frame.f_lineno or 0)} in {plain(code.co_name)}"  # type: ignore[attr-defined]

    def is_private(filename: object) -> bool:
        """Canonical tests and the harness itself: what untrusted code may not look into."""
        if type(filename) is not str:
            return False
        return (
            filename.startswith(test_roots)
            or (filename.startswith(harness_root) and not filename.startswith(library_root))
            or "/_pytest/" in filename
            or "/pluggy/" in filename
        )

    def normalize(path: str) -> str:
        """An absolute path without `.` and `..` (relative ones against the tree)."""
        if not path.startswith("/"):
            path = root + path
        parts: list[str] = []
        for part in path.split("/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part and part != ".":
                parts.append(part)
        return "/" + "/".join(parts)

    # ------------------------------------------------------------ per-test state
    state: dict = {
        "collected": None,
        "items": {},  # nodeid -> (qualname, file, facts at collection)
        "current": None,  # nodeid
        "phases": [],
        "in_call": False,
        "done": False,
        "funcargs": None,
        "plugins": None,
        "canonical": None,
        "canonical_dicts": None,
        "owner": "",  # the test file whose collection or test is running
        "workspace_ran": False,  # a workspace module was loaded
        "flagged": False,  # a finding during the running test: it fails
        "poisoned": False,  # a finding outside any test, or one that outlives its test
        "test_findings": 0,  # findings while this test (or the collection) ran
    }

    # ------------------------------------------------------------ the tracer
    # What a test executed, for its dynamic cache key (issue 30): the (file, line) at which
    # each Python frame began (or resumed) running, recorded by a global trace function
    # that keeps no local tracing (so a call costs one set insertion). Lines are mapped to
    # functions on the host, from source the host read itself. The sink is the running
    # test's set during its call phase; everything else (collection, fixtures, teardown)
    # goes to its test file's shared set, which counts for every test of that file. A
    # trace is worthless, and the host falls back to the static key, when the tracer was
    # switched off during the test, or the test started a thread (its frames are not
    # traced) or another process: those are marked with a line of SPAWNED.
    trace_sink: list = [set()]
    trace_shared: dict[str, set] = {"": trace_sink[0]}
    trace_tests: dict[str, set] = {}
    dict_get = dict.get
    spawn_events = frozenset(
        {"os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system"}
        | {"subprocess.Popen", "pty.spawn"}
    )
    import threading as _threading

    thread_start = (
        plain(getattr(_threading, "__file__", "")),
        int(_threading.Thread.start.__code__.co_firstlineno),
    )

    def tracer(frame: Any, event: str, arg: object) -> None:
        f = dict_get(frame.f_globals, "__file__")
        if type(f) is str:
            trace_sink[0].add((f, frame.f_lineno))

    def trace_lines(lines: set) -> dict | None:
        """{workspace file: sorted lines} of a sink; None: the trace cannot be used."""
        if thread_start in lines:
            return None
        out: dict[str, list[int]] = {}
        for f, line in lines:
            if line == SPAWNED:
                return None
            for r in roots:
                if f.startswith(r):
                    if not f.startswith(r + "tests/"):
                        out.setdefault(f[len(r) :], []).append(line)
                    break
        return {k: sorted(set(v)) for k, v in out.items()}

    def read_for_tests(frame: Any) -> bool:
        """Whether a file opened from `frame` is read on behalf of the code under test.

        Not when only trusted code is on the stack (pytest reading sources to report a
        failure), nor by the import system (a module's code is keyed by its functions).
        """
        opener = plain(frame.f_code.co_filename)
        if opener.startswith("<frozen importlib") or opener.startswith(harness_root):
            return False
        f = frame
        while f is not None:
            if code_category(f.f_code) != TRUSTED:
                return True
            f = f.f_back
        return False

    def trace_sink_to(owner: str) -> None:
        s = trace_shared.get(owner)
        if s is None:
            s = trace_shared[owner] = set()
        trace_sink[0] = s

    def current_test() -> str:
        cur = state["current"]
        if cur is not None:
            return cur
        return "(collection)" if state["collected"] is None else ""

    def flag(kind: str, detail: str) -> None:
        finding = {"kind": plain(kind, 40), "test": current_test(), "detail": plain(detail, 500)}
        # A finding fails the test during which the code under test acted; one made while
        # no test ran, or whose effect outlives its test (the harness changed), every
        # later test too (the host applies the same rule: `protocol.RunState.flagged`).
        if state["current"] is None or finding["kind"] in PERSISTENT:
            state["poisoned"] = True
        state["flagged"] = True
        state["test_findings"] += 1
        if state["test_findings"] > MAX_FINDINGS or len(findings) >= MAX_RUN_FINDINGS:
            return
        findings.append(finding)
        emit({"ev": "integrity", **finding})

    # ------------------------------------------------------------ snapshots
    # Snapshots hold the keys and values themselves and compare them with `is`: `id()`
    # raises an audit event of its own (builtins.id), which would run this hook per entry.
    def ids(d: Any) -> list:
        return [tuple(d), tuple(d.values())]

    def same(d: Any, keys: tuple, values: tuple) -> bool:
        return len(d) == len(keys) and all(map(is_, d.values(), values)) and all(map(is_, d, keys))

    def snapshot_of(names: tuple[str, ...], classes: frozenset[str] | None = None) -> list[list]:
        """[label, dict, key ids, value ids, keys] of each module and of its classes.

        `classes`: only the classes of these names (None: all of them).
        """
        out = []
        for name in names:
            mod = modules_dict.get(name)
            if mod is None or not issubclass(type(mod), ModuleType):
                continue
            d = module_dict(mod)
            out.append([name, d, *ids(d)])
            for v in list(d.values()):
                if issubclass(type(v), type) and tdict(v).get("__module__") == name:
                    qual = plain(qualname_of(v), 200)
                    if classes is None or qual in classes:
                        out.append([f"{name}.{qual}", tdict(v), *ids(tdict(v))])
        return out

    own_package = __name__.rpartition(".")[0]
    fast_names = tuple(n for n in FAST_MODULES if n in modules_dict)
    full_names = tuple(
        dict.fromkeys(
            [n for n in canonical_imports if n in modules_dict]
            + [n for n in modules_dict if plain(n).startswith(own_package + ".")]
            + [
                plain(n)
                for n, m in list(modules_dict.items())
                if issubclass(type(m), ModuleType)
                and plain(n).split(".")[0] in ("pytest", "_pytest", "pluggy", "iniconfig")
            ]
        )
    )

    def take_snapshots() -> tuple[list, list]:
        fast = snapshot_of(fast_names, PER_TEST_CLASSES)
        fast.append(["the builtins of canonical tests", BUILTINS, *ids(BUILTINS)])
        return fast, snapshot_of(full_names)

    # ------------------------------------------------------------ frame views
    # The code under test may walk the stack (a deprecation helper's caller, a CLI
    # framework's caller module, `logging`, `warnings`, `inspect.stack()`): it gets views,
    # in which frames of any code but the project's show their code name, file, line and
    # module `__name__` only (their locals, globals, constants and source stay out of
    # reach). `sys._getframe` and the standard library's walkers of tracebacks are
    # replaced by the views' own; trusted code with nothing of the project's below it
    # (pytest) still gets real frames.
    made = FunctionType(
        _view_types.__code__,
        {"__builtins__": dict(builtins.__dict__), "__name__": __name__},
        "_view_types",
    )
    FrameView, CodeView, view_getframe, view_walkers, tracing = made(
        sys.audit, VIEW_EVENT, types.FrameType, types.CodeType, TRACE_EVENT
    )
    # Only the replacement `sys._getframe` may ask for a frame by depth: the project raising
    # the event itself (`sys.audit` called straight from a function a test calls) would
    # otherwise be answered as if the test had asked (issue 31's red team).
    getframe_code = code_of(view_getframe)
    views: dict[object, object] = {}  # real frame -> its view (cleared at every test)
    reals: dict[object, object] = {}  # view -> its real frame
    code_views: dict[object, object] = {}

    def project_code(code: object) -> bool:
        """The project's own code (the workspace's, or compiled from a string by it)."""
        return code_category(code) >= WORKSPACE

    def view_of(frame: object) -> object:
        v = views.get(frame)
        if v is None:
            v = FrameView()
            views[frame] = v
            reals[v] = frame
        return v

    def code_view(code: Any) -> object:
        cv = code_views.get(code)
        if cv is None:
            cv = CodeView()
            n = code.co_argcount + code.co_kwonlyargcount
            n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
            cv.co_name, cv.co_qualname = code.co_name, code.co_qualname
            cv.co_filename, cv.co_firstlineno = code.co_filename, code.co_firstlineno
            cv.co_argcount, cv.co_posonlyargcount = code.co_argcount, code.co_posonlyargcount
            cv.co_kwonlyargcount, cv.co_flags = code.co_kwonlyargcount, code.co_flags
            cv.co_varnames, cv.co_nlocals = tuple(code.co_varnames[:n]), n
            cv.co_consts = cv.co_names = cv.co_freevars = cv.co_cellvars = ()
            cv._positions, cv._lines = tuple(code.co_positions()), tuple(code.co_lines())
            code_views[code] = cv
        return cv

    def redacted_globals(g: object) -> dict:
        if type(g) is not dict:
            return {}
        return {k: g.get(k) if type(g.get(k)) is str else None for k in ("__name__", "__file__")}

    def on_view(args: tuple) -> None:  # noqa: C901 - one branch per attribute of a frame
        if len(args) != 3 or type(args[2]) is not list or len(args[2]) != 2:
            return
        target, what, box = args
        if target is None:  # sys._getframe(*what)
            if getframe(2).f_code is not getframe_code:
                flag("frame_introspection", f"{where(getframe(2))} raised the guard's frame event")
                raise Refused(_VETO)
            if type(what) is not tuple or len(what) > 1:
                box[1] = TypeError("_getframe expected at most 1 argument")
                return
            depth = what[0] if what else 0
            if type(depth) is not int and type(depth) is not bool:
                box[1] = TypeError("an integer is required")
                return
            caller = getframe(3)  # 0: on_view, 1: hook, 2: the replacement, 3: its caller
            f: Any = caller
            for _ in range(int(depth)):
                f = f.f_back if f is not None else None
            if f is None:
                box[1] = ValueError("call stack is not deep enough")
                return
            box[0] = f if untrusted_frame(caller) is None else view_of(f)
            return
        if what == "wrap":  # a real frame from a walker of tracebacks (`view_walkers`)
            if type(target) is types.FrameType:
                box[0] = target if untrusted_frame(getframe(2)) is None else view_of(target)
            return
        if type(target) is not FrameView:
            return
        real: Any = reals.get(target)
        if real is None:
            return  # a view of an earlier test: dead
        own = project_code(real.f_code)
        if what == "f_back":
            back = real.f_back
            box[0] = None if back is None else view_of(back)
        elif what == "f_code":
            box[0] = real.f_code if own else code_view(real.f_code)
        elif what == "f_globals":
            box[0] = real.f_globals if own else redacted_globals(real.f_globals)
        elif what == "f_locals":
            box[0] = real.f_locals if own else {}
        elif what == "f_builtins":
            box[0] = real.f_builtins if own else {}
        elif what == "f_lineno":
            box[0] = real.f_lineno
        elif what == "f_lasti":
            box[0] = real.f_lasti
        elif what == "repr":
            box[0] = f"<frame view of {where(real)}>"

    def forget_views() -> None:
        views.clear()
        reals.clear()

    def purge_sources() -> None:
        """Canonical test sources out of `linecache` (pytest reads them to report failures)."""
        lc = modules_dict.get("linecache")
        if lc is None or not issubclass(type(lc), ModuleType):
            return
        cache = module_dict(lc).get("cache")
        if type(cache) is not dict:
            return
        for k in list(dict.keys(cache)):
            if type(k) is str and k.startswith(test_roots):
                dict.pop(cache, k, None)

    sys._getframe = view_getframe
    import traceback as _traceback

    # ------------------------------------------------------------ tracers
    # A trace or profile function is handed every frame, real ones of tests included, and
    # a local trace function can move a test's line: the guard owns installing them. The
    # setters of `sys` and `threading` are replaced (`tracing`); each call is judged by
    # who calls it and by the origin of the callable: the project calling one, or trusted
    # code installing a callable the project made (a thread started after the project set
    # `threading._trace_hook`, a trusted helper handed the project's function), is flagged
    # and refused. Trusted code (doctest, hypothesis' explain phase, a coverage-style
    # plugin) installs its own; under dynamic keys that displaces the recording tracer, so
    # the test's trace is marked incomplete and it keeps its static key.
    real_setters = {
        "sys.settrace": sys.settrace,
        "sys.setprofile": sys.setprofile,
        "threading.settrace": _threading.settrace,
        "threading.setprofile": _threading.setprofile,
    }
    for name in ("_settraceallthreads", "_setprofileallthreads"):  # Python 3.12+
        if hasattr(sys, name):
            real_setters["sys." + name] = getattr(sys, name)
    setter_code = None
    for kind_name in real_setters:
        module_name, _, attr = kind_name.partition(".")
        replacement = tracing(kind_name)
        setter_code = code_of(replacement)
        setattr(sys if module_name == "sys" else _threading, attr, replacement)

    def describe(value: object) -> str:
        code = value
        if type(value) is types.MethodType:
            code = value.__func__
        if type(code) is FunctionType:
            c = code_of(code)
            return f"{plain(c.co_name, 80)} ({where_code(c)})"
        return f"an object of {plain(qualname_of(type(value)), 80)}"

    def where_code(code: Any) -> str:
        fn = plain(code.co_filename)
        for r in roots:
            if fn.startswith(r):
                return f"{fn[len(r) :]}:{int(code.co_firstlineno)}"
        return f"{fn}:{int(code.co_firstlineno)}"

    def bound_to_data(func: object) -> bool:
        """A built-in method bound to an object (a list's `append`): of no one's code.

        Whoever holds the object reads the frames it is handed; trusted tracers are
        functions, or methods of objects of their own classes.
        """
        return type(func) is types.BuiltinMethodType and not issubclass(
            type(func.__self__), ModuleType
        )

    def displaced(kind: str) -> None:
        """A trusted tracer replaced the recording one: this trace is incomplete."""
        if trace and "settrace" in kind:
            trace_sink[0].add(("", SPAWNED))

    def on_trace(args: tuple) -> None:
        if len(args) != 3 or type(args[2]) is not list or len(args[2]) != 2:
            return
        kind, func, box = args
        caller = getframe(2)  # 0: on_trace, 1: hook, 2: the replacement, 3: its caller
        if caller.f_code is not setter_code or type(kind) is not str:
            flag("interpreter_access", f"{where(caller)} raised the guard's tracing event")
            raise Refused(_VETO)
        if kind == "sys.gettrace":
            current = real_gettrace() if real_gettrace is not None else None
            box[0] = None if current is tracer else current
            return
        real_setter = real_setters.get(kind)
        if real_setter is None:
            return
        try:
            user: Any = getframe(3)
        except ValueError:
            user = None  # called from C with no Python frame (`_thread.start_new_thread`)
        bad = untrusted_frame(user)
        if bad is not None:
            flag("interpreter_access", f"{where(bad)} used {kind}")
            box[1] = Refused(f"{kind} is {_VETO}")
            return
        if func is not None and (made_by_project(func) or bound_to_data(func)):
            data = plain(qualname_of(type(getattr(func, "__self__", None))), 80)
            origin = (
                f"the project's {describe(func)}"
                if made_by_project(func)
                else f"a built-in method bound to data ({data})"
            )
            flag("interpreter_access", f"{where(user)} used {kind} with {origin}")
            # Not installed; trusted code carries on without it (a thread at its start
            # would otherwise die before running).
            return
        real_setter(func)
        displaced(kind)

    for module, name, replacement in view_walkers(_traceback, inspect):
        setattr(module, name, replacement)

    fast, full = take_snapshots()

    def check_snapshot(snap: list) -> bool:
        for entry in snap:
            label, d, keys, values = entry
            if same(d, keys, values):
                continue
            items = list(d.items())
            if len(items) == len(keys) and all(map(is_, (k for k, _ in items), keys)):
                # The same names in the same order, some rebound (pytest sets the assertion
                # hooks of `_pytest.assertion.util` at every test): only those are looked at.
                before, now = {}, {}
                for k, old, (_, new) in zip(keys, values, items, strict=True):
                    if old is not new:
                        before[plain(k, 80)], now[plain(k, 80)] = old, new
                named = sorted(now)
                old_names = set(now)
            else:
                before = {plain(k, 80): v for k, v in zip(keys, values, strict=True)}
                now = {plain(k, 80): v for k, v in items}
                named = sorted(
                    k
                    for k in before.keys() | now.keys()
                    if before.get(k, before) is not now.get(k, now)
                )
                old_names = set(before)
            core = is_core(label)
            bad = [
                n
                for n in named
                if ("*", n) not in LEGITIMATE_CHANGES
                and (label, n) not in LEGITIMATE_CHANGES
                and not (n not in old_names and submodule(d.get(n), f"{label}.{n}"))
                # Outside pytest and the builtins, only what the project made is suspect:
                # a library's lazy cache, a backport's own functions, a test's own change.
                and (core or (n in now and made_by_project(now[n])))
            ]
            if bad:
                flag(
                    "harness_changed", f"the code under test changed {label}: {', '.join(bad[:3])}"
                )
                return False
            entry[2:] = ids(d)
        return True

    def is_core(label: str) -> bool:
        """pytest, pluggy, the builtins and this package: what decides an outcome."""
        root_name = label.partition(".")[0]
        return (
            root_name in ("builtins", "pytest", "_pytest", "pluggy")
            or label.startswith(own_package + ".")
            or label == "the builtins of canonical tests"
        )

    def made_by_project(value: object, depth: int = 0) -> bool:  # noqa: C901 - one case per kind
        """True if `value` is code the project made, or holds it (read without its code)."""
        if depth > 4:
            return False
        t = type(value)
        if t is FunctionType:
            return project_code(code_of(value))
        if t is types.MethodType:
            method: Any = value
            return made_by_project(method.__func__, depth + 1) or made_by_project(
                method.__self__, depth + 1
            )
        if t is staticmethod or t is classmethod:
            return made_by_project(value.__func__, depth + 1)  # type: ignore[attr-defined]
        if t is property:
            return any(
                made_by_project(f, depth + 1)
                for f in (value.fget, value.fset, value.fdel)  # type: ignore[attr-defined]
                if f is not None
            )
        if t is functools_partial:
            return made_by_project(value.func, depth + 1)  # type: ignore[attr-defined]
        if issubclass(t, ModuleType):
            f = module_dict(value).get("__file__")
            return type(f) is str and category(f) >= WORKSPACE
        if issubclass(t, type):
            for v in list(tdict(value).values()):
                tv = type(v)
                if (tv is FunctionType or tv is staticmethod or tv is classmethod) and (
                    made_by_project(v, depth + 1)
                ):
                    return True
            mod = modules_dict.get(plain(tdict(value).get("__module__", "")))
            return mod is not None and made_by_project(mod, depth + 1)
        return made_by_project(t, depth + 1)  # an instance of a class of the project's

    def submodule(value: object, name: str) -> bool:
        """True if `value` is the module `name` (a package gains its submodules on import)."""
        return issubclass(type(value), ModuleType) and modules_dict.get(name) is value

    def canonical_modules() -> dict[str, dict]:
        out = {}
        for m in list(modules_dict.values()):
            if not issubclass(type(m), ModuleType):
                continue
            d = module_dict(m)
            f = d.get("__file__")
            if type(f) is str and f.startswith(test_roots):
                out[plain(d.get("__name__"), 200)] = d
        return out

    def check_canonical_helpers() -> None:
        """At every test: the helpers and builtins of the canonical modules are ours."""
        for name, d in (state["canonical_dicts"] or {}).items():
            if d.get("__builtins__") is not BUILTINS or d.get("@swarm_h") is not HELPERS:
                flag("test_module_changed", f"the helpers of {name} were replaced")
                return

    def check_canonical_modules(first: bool) -> None:
        """The canonical modules' helpers, builtins, functions, classes and modules.

        Found at the end of collection; later checks look at those (a test does not
        import canonical modules of its own after that).
        """
        if first or state["canonical_dicts"] is None:
            state["canonical_dicts"] = canonical_modules()
        seen: dict[str, list] = {}
        for name, d in state["canonical_dicts"].items():
            if d.get("__builtins__") is not BUILTINS or d.get("@swarm_h") is not HELPERS:
                flag("test_module_changed", f"the helpers of {name} were replaced")
            kept = {}
            for k, v in list(d.items()):
                tv = type(v)
                if issubclass(tv, ModuleType):
                    modname = plain(module_dict(v).get("__name__"), 200)
                    if genuine_modules.get(modname, v) is not v:
                        flag("test_module_changed", f"{name}.{plain(k, 80)} is not the real module")
                if issubclass(tv, ModuleType) or tv is FunctionType or issubclass(tv, type):
                    kept[k] = v  # its functions, classes and modules (not its data: a cache)
            seen[name] = ids(kept)
        if first:
            state["canonical"] = seen
            return
        for name, (keys, values) in seen.items():
            old = (state["canonical"] or {}).get(name)
            if old is not None and not (
                len(keys) == len(old[0])
                and all(map(is_, keys, old[0]))
                and all(map(is_, values, old[1]))
            ):
                now = dict(zip(map(plain, keys), values, strict=True))
                then = dict(zip(map(plain, old[0]), old[1], strict=True))
                changed = sorted(
                    k
                    for k in now.keys() | then.keys()
                    if now.get(k, now) is not then.get(k, then)
                    and k in now
                    and made_by_project(now[k])  # a test may rebind its own names
                    and not current_module(now[k])  # and import a module again
                )
                if changed:
                    flag(
                        "test_module_changed",
                        f"the code under test changed {name}: {', '.join(changed[:3])}",
                    )
                    break
        state["canonical"] = seen

    def current_module(value: object) -> bool:
        """True for a module, which a test may import again (emoji's tests do).

        A fake of a genuine module is caught by its name (`genuine_modules`).
        """
        return issubclass(type(value), ModuleType)

    def plugins_ok(got: object, where_: str) -> None:
        if state["plugins"] is not None and got != state["plugins"]:
            flag("plugin_added", f"a pytest plugin or hook implementation was added ({where_})")

    # ------------------------------------------------------------ reporting
    def report(kind: str, args: tuple) -> None:  # noqa: C901 - one branch per pytest event
        if kind == "collectstart":
            state["owner"] = plain(args[0]).partition("::")[0]
            trace_sink_to(state["owner"])
            emit({"ev": "collect", "file": plain(args[0])})
        elif kind == "collecterror":
            emit({"ev": "collect_error", "file": plain(args[0]), "text": plain(args[1])})
        elif kind == "sessionstart":
            if not state["workspace_ran"]:
                # Only pytest has run since the snapshot (configuring itself): take it again.
                fast[:], full[:] = take_snapshots()
        elif kind == "collected":
            items, plugins, foreign = args
            collected = []
            for nodeid, facts in items:
                nid = plain(nodeid)
                path, _, rest = nid.partition("::")
                qual = ".".join(p for p in rest.partition("[")[0].split("::") if p)
                state["items"][nid] = (qual, root + path, facts)
                collected.append(nid)
            state["collected"] = collected
            state["plugins"], state["critical_plugins"] = plugins
            for plugin in foreign:
                flag(
                    "plugin_added",
                    f"a pytest plugin was registered by the code under test: {plain(plugin, 200)}",
                )
            check_snapshot(fast)
            check_snapshot(full)
            check_canonical_modules(first=True)
            state["owner"] = ""
            trace_sink_to("")
            emit({"ev": "collected", "ids": collected})
        elif kind == "start":
            nodeid, facts, plugins = plain(args[0]), args[1], args[2]
            entry = state["items"].get(nodeid)
            if entry is None:
                flag("item_changed", f"a test item that was not collected started: {nodeid}")
                return
            state["current"] = nodeid
            state["owner"] = nodeid.partition("::")[0]
            trace_sink_to(state["owner"])
            trace_tests.pop(nodeid, None)
            forget_views()
            purge_sources()
            state["phases"] = []
            state["done"] = state["in_call"] = state["flagged"] = False
            state["test_findings"] = 0
            state["funcargs"] = None
            emit({"ev": "start", "id": nodeid})
            check_item(nodeid, entry, facts)
            if plugins != state["critical_plugins"]:
                flag("plugin_added", "a hook implementation was added during the run")
        elif kind == "call":
            nodeid, starting, facts, funcargs = plain(args[0]), args[1], args[2], args[3]
            if nodeid != state["current"]:
                flag("item_changed", f"a test was called outside its own protocol: {nodeid}")
                return
            state["in_call"] = bool(starting)
            if trace:
                if starting:
                    trace_sink[0] = trace_tests[nodeid] = set()
                else:
                    trace_sink_to(state["owner"])
            if starting:
                check_item(nodeid, state["items"][nodeid], facts)
                state["funcargs"] = funcargs
            elif state["funcargs"] is not None and funcargs != state["funcargs"]:
                flag("item_changed", f"{nodeid}: its fixture values were replaced during its call")
        elif kind == "logreport":
            nodeid, when, outcome, text = (plain(a) for a in args)
            cur = state["current"]
            if nodeid != cur:
                flag("report_changed", f"a report for a test that is not running: {nodeid}")
                return
            if when not in ("setup", "call", "teardown"):
                flag("report_changed", f"{cur}: a report for an unknown phase")
                return
            # A call phase may report more than once: each unittest subTest reports its own.
            if when != "call" and any(w == when for w, _ in state["phases"]):
                flag("report_changed", f"{cur}: two reports for its {when} phase")
            state["phases"].append((when, outcome))
            purge_sources()  # pytest read the test's source to report it
            if outcome != "passed":
                prefix = "skipped: " if outcome == "skipped" else ""
                emit({"ev": "bad", "id": cur, "when": when, "text": prefix + text})
        elif kind == "finish_test":
            nodeid, facts = plain(args[0]), args[1]
            cur = state["current"]
            if nodeid != cur:
                flag("report_changed", f"a test finished that was not running: {nodeid}")
                return
            # Not its parameters: a canonical test may change its own (humanize negates
            # the numbers it was given and tests again).
            check_item(cur, state["items"][cur], facts, params=False)
            check_snapshot(fast)
            check_canonical_helpers()
            phases = state["phases"]
            reported = ("call", "passed") in phases and all(o == "passed" for _, o in phases)
            if reported and not state["done"]:
                flag(
                    "outcome_forged",
                    f"{cur}: pytest reported a pass, but its body did not run to its end",
                )
            passed = reported and state["done"] and not state["flagged"] and not state["poisoned"]
            record: dict = {"ev": "done", "id": cur, "passed": passed}
            if trace:
                lines = trace_tests.pop(cur, None)
                if real_gettrace() is not tracer:
                    lines = None  # switched off (or lost to an error inside it): re-armed
                    real_setters["sys.settrace"](tracer)  # the guard is busy: its own call
                ran = ("setup", "passed") in phases and any(w == "call" for w, _ in phases)
                ok = lines is not None and ran and not state["flagged"]
                record["trace"] = trace_lines(lines) if ok and lines is not None else None
            emit(record)
            state["current"] = None
            state["owner"] = ""
            trace_sink_to("")
        elif kind == "sessionfinish":
            check_snapshot(fast)
            check_snapshot(full)
            check_canonical_modules(first=False)
            plugins_ok(args[0], "at the end of the run")
            loaded: dict = {
                "ev": "loaded",
                "files": {k: sorted(v) for k, v in loaded_files.items()},
                "modules": {k: sorted(v) for k, v in loaded_modules.items()},
            }
            if trace:
                alive = real_gettrace() is tracer
                loaded["executed"] = {
                    k: trace_lines(v) if alive else None for k, v in trace_shared.items()
                }
            emit(loaded)
            emit({"ev": "finish"})
        elif kind == "error":
            emit({"ev": "error", "text": plain(args[0], 500)})

    def check_item(nodeid: str, entry: tuple, facts: object, params: bool = True) -> None:
        """Facts the reporter gathered about an item: (kind ok, overrides, code id, params)."""
        if type(facts) is not tuple or len(facts) != 4:
            flag("item_changed", f"{nodeid}: unreadable")
            return
        kind_ok, overrides, chain, now = facts
        if kind_ok is not True:
            flag("item_changed", f"{nodeid} is not a pytest test item")
        elif overrides:
            flag("item_changed", f"{nodeid}: its {plain(overrides[0], 80)} was replaced")
        elif canonical_in(chain) is None:
            flag("item_changed", f"{nodeid}: its test function is not canonical code")
        elif chain != entry[2][2]:
            flag("item_changed", f"{nodeid}: its test function was replaced")
        elif params and now != entry[2][3]:
            flag("item_changed", f"{nodeid}: its parameters were changed")

    def canonical_in(chain: object) -> int | None:
        """The id of the canonical code a test function's chain leads to, 0, or None.

        The chain (see `reporter.code_chain`) is the test function's code, then that of each
        `__wrapped__`: it may pass through trusted library code only (a decorator of the
        canonical file, `@mock.patch`), never through the workspace's or anonymous code.
        """
        if type(chain) is not tuple:
            return None
        for link in chain:
            if type(link) is not tuple or len(link) != 2 or type(link[0]) is not int:
                return None
            if link[0] in canonical:
                return link[0]
            if link[0] in shells:
                continue  # the next link is its body
            if category(link[1]) != TRUSTED and link[0] not in trusted_made:
                return None
        # Trusted code all the way (hypothesis keeps the test it wraps elsewhere than in
        # `__wrapped__`): the test's own code is then known by its name and file (`on_done`).
        return 0 if chain else None

    # ------------------------------------------------------------ the hook
    def on_report(args: tuple) -> None:
        caller = getframe(2)  # 0: on_report, 1: hook, 2: the caller of sys.audit
        bad = untrusted_frame(caller)
        if id(caller.f_code) not in callers or get_ident() != main_thread or bad is not None:
            culprit = where(bad if bad is not None else caller)
            flag("report_forged", f"a report reached the scoring channel from {culprit}")
            raise Refused(_VETO)
        if not args or type(args[0]) is not str:
            return
        report(args[0], args[1:])

    def on_done() -> None:
        caller = getframe(2)
        cur = state["current"]
        code = caller.f_code
        if cur is None or not state["in_call"] or id(code) not in canonical:
            return
        qual, file, facts = state["items"][cur]
        # The test's own function: its name in its file, or the canonical code its item
        # holds (a test inherited from a helper module of the suite, a mixin).
        own = canonical_in(facts[2]) if type(facts) is tuple and len(facts) == 4 else None
        if id(code) != own and (
            getattr(code, "co_qualname", qual.rpartition(".")[2]) != qual
            or code.co_filename != file
        ):
            return  # another canonical function's end: not this test's
        if get_ident() != main_thread or untrusted_frame(caller) is not None:
            flag("outcome_forged", f"{cur}: its body was run by the code under test")
            return
        state["done"] = True

    def on_getframe(event: str, args: tuple) -> None:
        """The interpreter's own frame functions (the project has `view_getframe`)."""
        if event == "sys._getframemodulename":
            return  # a module name: what views give too
        caller = getframe(2)
        if event == "sys._current_frames":
            if untrusted_frame(caller) is not None:
                flag("frame_introspection", f"{where(untrusted_frame(caller))} called {event}")
                raise Refused(_VETO)
            return
        # The real sys._getframe, held from before the guard replaced it.
        returned = args[0] if args else None
        if project_code(caller.f_code):
            flag("frame_introspection", f"{where(caller)} called the real {event}")
            raise Refused(_VETO)
        if returned is not None and exposes(returned) and untrusted_frame(caller) is not None:
            raise Refused(_VETO)

    def exposes(frame: object) -> bool:
        """True if a real frame is, or leads through `f_back` to, a test or harness frame."""
        f = frame
        while f is not None:
            if is_private(f.f_code.co_filename):  # type: ignore[attr-defined]
                return True
            f = f.f_back  # type: ignore[attr-defined]
        return False

    def on_getattr(args: tuple) -> None:  # noqa: C901 - one branch per audited attribute
        """Reads of code and real frames: the project gets views, or nothing.

        The project never holds a real frame from which a test's or the harness's locals
        are reachable (`f_back` and `f_locals` are not audited): such reads are refused
        where the project itself makes them; trusted code may read them on its behalf (it
        gives back text, or views: `view_walkers`). Refusing them is silent: nothing was
        learnt. Reading a canonical function's own code (not its shell's) is refused, and
        flagged where the project reads it itself.
        """
        obj, name = args[0], args[1]
        reader = getframe(2)
        direct = project_code(reader.f_code)
        if name == "__code__":
            # Canonical tests' code holds their expected values; pytest's and ours, nothing.
            target = code_of(obj) if type(obj) is FunctionType else None
            if target is None or category(target.co_filename) != CANONICAL:
                return
            if id(target) in shells or id(reader.f_code) in own_readers:
                return
            if direct:
                flag(
                    "code_introspection",
                    f"{where(reader)} read the code of {plain(target.co_name)}",
                )
                raise Refused(_VETO)
            if untrusted_frame(reader) is not None:
                raise Refused(_VETO)
        elif name in ("__defaults__", "__kwdefaults__"):
            # The harness's helpers keep their state in defaults: not the project's to see.
            target = code_of(obj) if type(obj) is FunctionType else None
            f = target.co_filename if target is not None else None
            if (
                type(f) is str
                and f.startswith(harness_root)
                and not f.startswith(library_root)
                and untrusted_frame(reader) is not None
            ):
                raise Refused(_VETO)
        elif name == "f_code":
            if direct and not project_code(obj.f_code):
                raise Refused(_VETO)
        elif name == "tb_frame":
            if direct and exposes(obj.tb_frame):
                raise Refused(_VETO)
        elif name in ("gi_frame", "cr_frame", "ag_frame"):
            frame = getattr(obj, name)
            if frame is None:
                return
            # A generator's frame leads to whoever resumes it next (a test): the project
            # may not keep one, nor have trusted code read one of another's generators.
            if direct or (not project_code(frame.f_code) and untrusted_frame(reader) is not None):
                raise Refused(_VETO)
        elif name in ("gi_code", "cr_code", "ag_code"):
            code = getattr(obj, name)
            if (
                category(code.co_filename) == CANONICAL
                and id(code) not in shells
                and untrusted_frame(reader) is not None
            ):
                raise Refused(_VETO)

    def on_setattr(args: tuple) -> None:
        obj, name = args[0], args[1]
        if type(obj) is FunctionType and name == "__code__" and len(args) > 2:
            # hypothesis gives the wrapper it made the test's name and file (`impersonate`)
            on_exec(args[2:])
        if type(obj) is FunctionType and name in ("__code__", "__defaults__", "__kwdefaults__"):
            # The standard library does it too, on its own behalf (`types.coroutine` on
            # asyncio's functions while asyncio is imported): refused for untrusted code.
            if (
                category(code_of(obj).co_filename) < WORKSPACE
                and id(getframe(2).f_code) not in own_readers
                and untrusted_frame(getframe(2)) is not None
            ):
                flag(
                    "harness_changed",
                    f"the code under test replaced {name} of {plain(code_of(obj).co_name)}",
                )
                raise Refused(_VETO)

    def on_open(args: tuple) -> None:
        path = args[0] if args else None
        if type(path) is bytes:
            path = path.decode("utf-8", "replace")
        if type(path) is not str:
            path = plain(path) if issubclass(type(path), str) else None
        if path is None:
            return
        full = normalize(path)
        if full.startswith("/proc/") and (full.endswith("/mem") or "/map_files" in full):
            flag("memory_access", f"the code under test opened {full}")
            raise Refused(_VETO)
        for r in roots:
            if full.startswith(r) and not full.startswith(r + "tests/"):
                loaded_files.setdefault(state["owner"], set()).add(full[len(r) :])
                if full.endswith(".py"):
                    state["workspace_ran"] = True
                if trace and read_for_tests(getframe(2)):
                    trace_sink[0].add((full, OPENED))  # its content counts, whole
                return
        private = (full.startswith(harness_root) and not full.startswith(library_root)) or (
            full.startswith(test_roots) and full.endswith(".py")
        )
        if private:
            reader = getframe(2)
            if project_code(reader.f_code):
                flag("test_source_read", f"{where(reader)} opened {full}")
                raise RefusedOpen(13, f"{_VETO}: {full}")
            if untrusted_frame(reader) is not None:
                # `inspect.stack()` or a traceback printed for the project: without the lines.
                raise RefusedOpen(13, f"{_VETO}: {full}")

    def on_compile(event: str, args: tuple) -> None:
        try:
            compiler = getframe(2)
        except ValueError:
            return  # no Python frame compiles it (a thread's start, the interpreter's end)
        direct = category(compiler.f_code.co_filename) >= WORKSPACE
        if event == "marshal.loads":
            if direct:
                flag("code_forged", f"{where(compiler)} loaded marshalled code")
                raise Refused(_VETO)
            return
        filename = args[1] if len(args) > 1 else None
        if type(filename) is bytes:
            filename = filename.decode("utf-8", "replace")
        if direct and category(filename) in (TRUSTED, CANONICAL):
            flag("code_forged", f"{where(compiler)} compiled code named {plain(filename, 200)}")
            raise Refused(_VETO)

    frames = ("sys._getframe", "sys._current_frames", "sys._getframemodulename")
    gc_events = ("gc.get_objects", "gc.get_referrers", "gc.get_referents")
    tracers: tuple[str, ...] = ("sys.settrace", "sys.setprofile")
    tracers += ("sys._settraceallthreads", "sys._setprofileallthreads")  # Python 3.12+
    interpreter = ("sys.addaudithook",)
    compiling = ("compile", "code.__new__", "marshal.loads")

    def on_shell(args: tuple) -> None:
        if len(args) != 2 or id(getframe(2).f_code) not in own_readers:
            return
        shell, body = args
        if type(shell) is types.CodeType and type(body) is types.CodeType and id(body) in canonical:
            shells[id(shell)] = id(body)
            shells_kept.append(shell)

    def on_exec(args: tuple) -> None:
        code = args[0] if args else None
        if type(code) is not types.CodeType or category(code.co_filename) == WORKSPACE:
            return  # the project's modules are executed by the (trusted) import system
        if untrusted_frame(getframe(2)) is not None:
            return
        todo = [code]
        while todo and len(trusted_kept) < 100_000:
            c = todo.pop()
            if id(c) not in trusted_made and category(c.co_filename) != WORKSPACE:
                trusted_made.add(id(c))
                trusted_kept.append(c)
                todo.extend(k for k in c.co_consts if type(k) is types.CodeType)

    watched = frozenset(
        {REPORT_EVENT, DONE_EVENT, FINDING_EVENT, VIEW_EVENT, SHELL_EVENT, "open", "import"}
        | {TRACE_EVENT, *tracers, "object.__getattr__"}
        | {"object.__setattr__", "object.__delattr__", *frames, *gc_events, *interpreter}
        | set(compiling)
        | {"exec"}
        | (spawn_events if trace else frozenset())
    )

    def hook(event: str, args: tuple) -> None:
        if event not in watched and not (
            type(event) is str and event.startswith(("ctypes.", "sys.monitoring"))
        ):
            return  # most events (builtins.id, os.*, ...): nothing to check
        me = get_ident()
        if me in busy:
            return  # what the guard's own code raises (frames, code objects)
        busy.add(me)
        was_enabled = gc_enabled()
        if was_enabled:
            gc_disable()  # no finalizer of anyone else's may run inside the guard
        try:
            if event == REPORT_EVENT:
                on_report(args)
            elif event == DONE_EVENT:
                on_done()
            elif event == VIEW_EVENT:
                on_view(args)
            elif event == SHELL_EVENT:
                on_shell(args)
            elif event == FINDING_EVENT:
                flag(plain(args[0] if args else "", 40), plain(args[1] if len(args) > 1 else ""))
            elif event == "open":
                on_open(args)
            elif event == "import":
                if args and type(args[0]) is str:
                    loaded_modules.setdefault(state["owner"], set()).add(args[0])
            elif event == "object.__getattr__":
                on_getattr(args)
            elif event == "object.__setattr__" or event == "object.__delattr__":
                on_setattr(args)
            elif event in frames:
                on_getframe(event, args)
            elif event in gc_events:
                if untrusted_frame(getframe(1)) is not None:
                    flag(
                        "gc_introspection", f"{where(untrusted_frame(getframe(1)))} called {event}"
                    )
                    raise Refused(_VETO)
            elif event == TRACE_EVENT:
                on_trace(args)
            elif event in tracers:
                # The real setter, not through its replacement: held from before the guard,
                # or set from C (a coverage-style tracer). Trusted code only.
                bad = untrusted_frame(getframe(1))
                if bad is not None:
                    flag("interpreter_access", f"{where(bad)} used {event}")
                    raise Refused(_VETO)
                displaced(event)
            elif event in interpreter or event.startswith(("ctypes.", "sys.monitoring")):
                flag("interpreter_access", f"{where(getframe(1))} used {event}")
                raise Refused(_VETO)
            elif event == "exec":
                on_exec(args)
            elif event in spawn_events:
                trace_sink[0].add(("", SPAWNED))
            elif event in compiling:
                on_compile(event, args)
        except (Refused, RefusedOpen):
            raise
        except BaseException as e:  # noqa: BLE001 - a fault of the guard fails the run, safely
            flag("guard_error", f"{plain(type(e).__name__)} while handling {plain(event, 60)}")
        finally:
            busy.discard(me)
            if was_enabled:
                gc_enable()

    if trace:
        real_setters["sys.settrace"](tracer)  # the real one: the hook is not in yet
        sys.gettrace = tracing("sys.gettrace")  # anyone's tracer but the guard's
    sys.addaudithook(hook)
