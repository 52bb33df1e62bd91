"""The integrity guard of a test process: owns the channel, decides outcomes, flags tampering.

Code under test runs in the same process as pytest, so nothing that process holds is out
of its reach unless the interpreter itself keeps it out. The guard is a CPython audit hook
(`sys.addaudithook`: once added, it cannot be removed), installed before any code under
test is imported, and everything it needs lives in that hook's closure: the channel's
file descriptor and nonce, the per-test state, the snapshots it compares against. No
object the code under test can reach refers to any of it. (The closure is reachable only
through the garbage collector and through frames, and the guard vetoes both.)

The reporter plugin does not write records itself: it tells the guard what pytest did
(`sys.audit(REPORT_EVENT, ...)`), and the guard accepts those calls only from the
reporter's own code, on the main thread, with no untrusted frame on the stack. A test
counts as passed only if pytest reports every phase passed *and* the test's canonical
body reached its end (the completion marker of `hardened`), and nothing was flagged.

Flagged (a finding: kind, test, detail) and, where it is a capability, refused:

- frame introspection into test or harness frames (`sys._getframe`, `sys._current_frames`,
  `tb_frame`, `gi_frame`, `f_code`, `inspect`/`traceback` stack walks) by untrusted code;
- reading the code of a test or harness function (`__code__`), replacing any code object,
  defaults (`__code__`, `__defaults__`, `__kwdefaults__`) of a non-workspace function;
- changes to the modules and classes that decide outcomes (builtins, pytest, _pytest,
  pluggy, this package, the modules canonical tests use): their attributes are compared
  by identity with a snapshot taken at installation, at every test and at the end;
- replacement of a test item's methods, its test function, its parameters or fixtures;
  plugins or hook implementations added after the session started;
- `gc.get_objects`/`get_referrers`/`get_referents`, `ctypes`, `sys.settrace`/`setprofile`,
  `/proc/*/mem`, opening canonical test or harness files, code objects compiled under the
  name of a trusted file, by untrusted code;
- always-equal objects (reported by the strict comparisons of canonical assertions).

"Untrusted" code is code from the workspace, or code whose file is not a trusted one
(compiled from a string). A flagged run fails every test it ran.
"""

from __future__ import annotations

import os
import sys

from .hardened import BUILTINS, DONE_EVENT, FINDING_EVENT, HELPERS, TRUSTED_PREFIXES
from .protocol import Framer, plain

REPORT_EVENT = "swarm_envs.report"
MAX_FINDINGS = 20
# Categories of code, by the file it was compiled from.
TRUSTED, CANONICAL, WORKSPACE, ANONYMOUS = range(4)
# Hooks whose implementations decide what a test run means.
CRITICAL_HOOKS = (
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_pyfunc_call",
    "pytest_report_teststatus",
    "pytest_collection_modifyitems",
    "pytest_collectreport",
)
# Outcome path: checked at every test (the rest of the snapshot at the end of the run).
FAST_MODULES = (
    "builtins",
    "pytest",
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
_VETO = "refused by the scoring harness"
# Attributes that pytest and the standard library set during a run: (module or class, name).
LEGITIMATE_CHANGES = frozenset(
    {("*", "_pytest_diamond_inheritance_warning_shown")}
    | {("_pytest.assertion.util", n) for n in ("_reprcompare", "_assertion_pass", "_config")}
    | {("warnings", n) for n in ("filters", "showwarning", "_showwarnmsg_impl", "_showwarnmsg")}
    | {("warnings", n) for n in ("_onceregistry", "defaultaction", "_filters_version")}
    | {("tempfile", "tempdir")}
    | {("_pytest.debugging.pytestPDB", n) for n in ("_config", "_pluginmanager", "_saved")}
)


def _ids(d: dict) -> tuple[tuple, tuple, tuple]:
    return tuple(map(id, d)), tuple(map(id, d.values())), tuple(d)


def _submodule(value: object, name: str) -> bool:
    """True if `value` is the module `name` (a package gains its submodules on import)."""
    return type(value).__name__ == "module" and sys.modules.get(name) is value


class Refused(RuntimeError):
    """What the code under test gets for an operation the guard refuses."""


def _module_names() -> tuple[str, ...]:
    return tuple(n for n in FAST_MODULES if n in sys.modules)


def install(  # noqa: C901 - one closure keeps the guard's state out of reach
    *,
    out_fd: int,
    tree: str,
    canonical_codes: frozenset[int],
    keep: list,
    caller_codes: frozenset[int],
    harness_dir: str,
    canonical_imports: tuple[str, ...] = (),
) -> None:
    """Install the guard (once per process, before any code under test is imported).

    Args:
        out_fd: the channel's file descriptor (records go there, tagged with a nonce the
            guard draws and announces now).
        tree: the scoring tree (the process's working directory).
        canonical_codes: ids of every code object compiled from canonical test files.
        keep: the code objects themselves (keeps the ids valid).
        caller_codes: ids of the code objects allowed to report (the reporter's).
        harness_dir: this package's directory (its frames are trusted, its files private).
        canonical_imports: modules that canonical tests import (watched like pytest).
    """
    # Everything below is local to this call: after it returns, only the hook refers to it.
    framer = Framer(out_fd)
    emit = framer.emit
    del framer
    getframe = sys._getframe
    getpid = os.getpid
    import _thread

    get_ident = _thread.get_ident
    main_thread = get_ident()
    root = tree.rstrip("/") + "/"
    real_root = os.path.realpath(tree).rstrip("/") + "/"
    roots = tuple(dict.fromkeys((root, real_root)))
    test_roots = tuple(r + "tests/" for r in roots)
    harness_root = os.path.realpath(harness_dir).rstrip("/") + "/"
    pinned = list(keep)  # noqa: F841 - keeps the canonical ids valid for the hook's life
    canonical = frozenset(canonical_codes)
    callers = frozenset(caller_codes)
    categories: dict[object, int] = {}
    busy: set[int] = set()
    findings: list[dict] = []
    loaded_files: set[str] = set()
    loaded_modules: set[str] = set()
    genuine_modules = dict(sys.modules)
    import types

    ModuleType = types.ModuleType
    FunctionType = types.FunctionType
    MethodType = types.MethodType
    code_attr = FunctionType.__dict__["__code__"].__get__
    tdict = type.__dict__["__dict__"].__get__
    mro_of = type.__dict__["__mro__"].__get__

    def category(filename: object) -> int:
        c = categories.get(filename)
        if c is None:
            if type(filename) is not str:
                c = ANONYMOUS
            elif filename.startswith(test_roots):
                c = CANONICAL
            elif filename.startswith(roots):
                c = WORKSPACE
            elif filename.startswith(TRUSTED_PREFIXES) or filename.startswith(harness_root):
                c = TRUSTED
            else:
                c = ANONYMOUS
            categories[filename] = c
        return c

    def untrusted_frame(frame: object) -> object | None:
        """The newest frame of untrusted code on the stack from `frame` down, or None."""
        f = frame
        while f is not None:
            if category(f.f_code.co_filename) >= WORKSPACE:  # type: ignore[attr-defined]
                return f
            f = f.f_back  # type: ignore[attr-defined]
        return None

    def where(frame: object) -> str:
        """`file:line in function` of a frame, the file relative to the tree."""
        if frame is None:
            return "?"
        code = frame.f_code  # type: ignore[attr-defined]
        fn = str(code.co_filename)
        for r in roots:
            if fn.startswith(r):
                fn = fn[len(r) :]
                break
        return f"{fn}:{frame.f_lineno} in {code.co_name}"  # type: ignore[attr-defined]

    def is_private(filename: object) -> bool:
        """Canonical tests and the harness itself: what untrusted code may not look into."""
        if type(filename) is not str:
            return False
        return (
            filename.startswith(test_roots)
            or filename.startswith(harness_root)
            or "/_pytest/" in filename
            or "/pluggy/" in filename
        )

    # ------------------------------------------------------------ per-test state
    state: dict = {
        "collected": None,
        "items": {},  # id(item) -> (item, nodeid, qualname, file)
        "current": None,  # (item, nodeid, qualname, file)
        "phases": [],
        "in_call": False,
        "done": False,
        "finished": False,
        "params": {},  # id(item) -> pure copy of its parameters
        "funcargs": None,  # ids of the current item's fixture values after setup
        "plugins": None,
        "start_plugins": (),
        "pm": None,
        "canonical": None,  # canonical modules' globals: ids, and copies of their data
    }

    def current_test() -> str:
        cur = state["current"]
        return cur[1] if cur is not None else "(collection)" if state["collected"] is None else ""

    def flag(kind: str, detail: str) -> None:
        if len(findings) >= MAX_FINDINGS:
            return
        finding = {"kind": kind, "test": current_test(), "detail": plain(detail, 500)}
        findings.append(finding)
        emit({"ev": "integrity", **finding})

    # ------------------------------------------------------------ snapshots
    def snapshot_of(names: tuple[str, ...]) -> list[list]:
        """[label, dict, key ids, value ids, keys] of each module and of its classes."""
        out = []

        def add(label: str, d: object) -> None:
            out.append([label, d, tuple(map(id, d)), tuple(map(id, d.values())), tuple(d)])  # type: ignore[attr-defined, call-overload]

        for name in names:
            mod = sys.modules.get(name)
            if mod is None:
                continue
            add(name, mod.__dict__)
            for v in list(mod.__dict__.values()):
                if isinstance(v, type) and getattr(v, "__module__", None) == name:
                    add(f"{name}.{v.__qualname__}", tdict(v))
        return out

    fast_names = tuple(
        dict.fromkeys(
            [*_module_names(), *(n for n in canonical_imports if n in sys.modules)]
            + [n for n in sys.modules if n.startswith(__name__.rpartition(".")[0] + ".")]
        )
    )
    fast = snapshot_of(fast_names)
    fast.append(["the builtins of canonical tests", BUILTINS, *_ids(BUILTINS)])
    full_names = tuple(
        n
        for n, m in sys.modules.items()
        if n not in fast_names
        and isinstance(m, ModuleType)
        and n.split(".")[0] in ("pytest", "_pytest", "pluggy", "iniconfig")
    )
    full = snapshot_of(full_names)

    def check_snapshot(snap: list) -> None:
        for entry in snap:
            label, d, keys, values, key_objects = entry
            if tuple(map(id, d.values())) == values and tuple(map(id, d)) == keys:
                continue
            before = dict(zip(keys, values, strict=True))
            now = {id(k): id(v) for k, v in list(d.items())}
            changed = {k for k in before.keys() | now.keys() if before.get(k) != now.get(k)}
            names = {id(k): k for k in (*key_objects, *d)}
            named = sorted(plain(names.get(k, "?"), 80) for k in changed)
            old_names = set(key_objects)
            bad = [
                n
                for n in named
                if ("*", n) not in LEGITIMATE_CHANGES
                and (label, n) not in LEGITIMATE_CHANGES
                and not (n not in old_names and _submodule(d.get(n), f"{label}.{n}"))
            ]
            if not bad:
                entry[2:] = tuple(map(id, d)), tuple(map(id, d.values())), tuple(d)
                continue
            flag("harness_changed", f"the code under test changed {label}: {', '.join(bad[:3])}")
            return

    def class_attr(cls: object, name: str) -> object:
        for k in mro_of(cls) if isinstance(cls, type) else ():
            if name in tdict(k):
                return tdict(k)[name]
        return None

    report_type = getattr(sys.modules.get("_pytest.reports"), "TestReport", None)
    report_nodeid = class_attr(report_type, "nodeid")
    item_nodeid = class_attr(getattr(sys.modules.get("_pytest.nodes"), "Node", None), "nodeid")

    def nodeid_of(obj: object, prop: object) -> str:
        value = prop.__get__(obj) if prop is not None else getattr(obj, "nodeid", "")  # type: ignore[attr-defined]
        return plain(value)

    item_types: dict[type, frozenset[str]] = {}
    for modname, clsname in (
        ("_pytest.python", "Function"),
        ("_pytest.unittest", "TestCaseFunction"),
    ):
        cls = getattr(sys.modules.get(modname), clsname, None)
        if isinstance(cls, type):
            names = set()
            for k in mro_of(cls):
                for n, v in tdict(k).items():
                    if callable(v) or isinstance(v, property | staticmethod | classmethod):
                        names.add(n)
            item_types[cls] = frozenset(names - {"__init__"})

    def plugin_state(pm: object) -> tuple[tuple, tuple]:
        plugins = tuple(sorted(map(id, pm.get_plugins())))  # type: ignore[attr-defined]
        impls = []
        for name in CRITICAL_HOOKS:
            hook = getattr(pm.hook, name, None)  # type: ignore[attr-defined]
            if hook is not None:
                impls.append(tuple((id(i), id(i.function)) for i in hook.get_hookimpls()))
        return plugins, tuple(impls)

    def pure(value: object, depth: int = 0) -> object:
        """A deep copy of built-in data (None for anything else)."""
        t = type(value)
        if t in (int, float, complex, str, bytes, bool, type(None)):
            return value
        if depth > 20:
            return None
        if t in (list, tuple, set, frozenset):
            out = [pure(v, depth + 1) for v in value]  # type: ignore[attr-defined]
            if any(o is None and v is not None for o, v in zip(out, value, strict=True)):  # type: ignore[call-overload]
                return None
            return t(out)  # type: ignore[call-arg]
        if t is dict:
            items = [(pure(k, depth + 1), pure(v, depth + 1)) for k, v in value.items()]  # type: ignore[attr-defined]
            if any(
                (pk is None and k is not None) or (pv is None and v is not None)
                for (pk, pv), (k, v) in zip(items, value.items(), strict=True)  # type: ignore[attr-defined]
            ):
                return None
            return dict(items)
        return None

    def canonical_modules() -> list[ModuleType]:
        return [
            m
            for m in list(sys.modules.values())
            if isinstance(m, ModuleType)
            and isinstance(getattr(m, "__file__", None), str)
            and m.__file__.startswith(test_roots)  # type: ignore[union-attr]
        ]

    def check_canonical_modules(first: bool) -> None:
        seen: dict[str, tuple[tuple, tuple, tuple, dict]] = {}
        for m in canonical_modules():
            d = m.__dict__
            name = plain(m.__name__, 200)
            if d.get("__builtins__") is not BUILTINS or d.get("@swarm_h") is not HELPERS:
                flag("test_module_changed", f"the helpers of {name} were replaced")
            for k, v in list(d.items()):
                if isinstance(v, ModuleType) and genuine_modules.get(v.__name__, v) is not v:
                    flag("test_module_changed", f"{name}.{plain(k, 80)} is not the real module")
            # Its functions, classes and modules (its data it may change itself: a cache).
            kept = {k: v for k, v in d.items() if isinstance(v, ModuleType | type | FunctionType)}
            seen[name] = (*_ids(kept), {})
        if first:
            state["canonical"] = seen
            return
        before = state["canonical"] or {}
        for name, (keys, values, key_objects, data) in seen.items():
            old = before.get(name)
            if old is None:
                continue  # imported after collection: by a test, not seen before
            if old[:2] != (keys, values) or old[3] != data:
                changed = sorted(
                    str(k)
                    for k in set(key_objects) | set(old[2])
                    if (k in data) != (k in old[3]) or data.get(k) != old[3].get(k)
                ) or ["an attribute"]
                if old[:2] != (keys, values):
                    ids_now = dict(zip(key_objects, values, strict=True))
                    ids_then = dict(zip(old[2], old[1], strict=True))
                    changed = (
                        sorted(
                            {
                                str(k)
                                for k in ids_now.keys() | ids_then.keys()
                                if ids_now.get(k) != ids_then.get(k)
                            }
                        )
                        or changed
                    )
                flag(
                    "test_module_changed",
                    f"the code under test changed {name}: {', '.join(changed[:3])}",
                )
                state["canonical"] = seen
                return

    def check_item(entry: tuple) -> None:
        item, nodeid, qualname, file = entry
        methods = item_types.get(type(item))
        if methods is None:
            flag("item_changed", f"{nodeid} is not a pytest test item")
            return
        overrides = methods.intersection(item.__dict__)
        if overrides:
            flag("item_changed", f"{nodeid}: its {sorted(overrides)[0]} was replaced")
        if nodeid_of(item, item_nodeid) != nodeid:
            flag("item_changed", f"a test item was renamed to {nodeid_of(item, item_nodeid)}")
        obj = item.__dict__.get("_obj")
        func = obj.__func__ if isinstance(obj, MethodType) else obj
        if obj is not None and not (
            isinstance(func, FunctionType) and id(code_attr(func)) in canonical
        ):
            flag("item_changed", f"{nodeid}: its test function is not canonical code")
        params = getattr(getattr(item, "callspec", None), "params", None)
        if params is not None and pure(dict(params)) != state["params"].get(id(item)):
            flag("item_changed", f"{nodeid}: its parameters were changed")

    # ------------------------------------------------------------ reporting
    def report(kind: str, args: tuple) -> None:  # noqa: C901 - one branch per pytest event
        if kind == "collectstart":
            emit({"ev": "collect", "file": plain(args[0])})
        elif kind == "collecterror":
            emit({"ev": "collect_error", "file": plain(args[0]), "text": plain(args[1])})
        elif kind == "sessionstart":
            state["pm"] = args[0]
            state["start_plugins"] = plugin_state(args[0])[0]
            if not loaded_files:
                # Only pytest has run since the snapshot (configuring itself): take it again.
                fast[:] = snapshot_of(fast_names)
                fast.append(["the builtins of canonical tests", BUILTINS, *_ids(BUILTINS)])
                full[:] = snapshot_of(full_names)
        elif kind == "collected":
            session = args[0]
            items = list(session.items)
            ids = [nodeid_of(it, item_nodeid) for it in items]
            state["collected"] = ids
            for it, nid in zip(items, ids, strict=True):
                path, _, rest = nid.partition("::")
                qual = ".".join(p for p in rest.partition("[")[0].split("::") if p)
                state["items"][id(it)] = (it, nid, qual, root + path)
                params = getattr(getattr(it, "callspec", None), "params", None)
                if params is not None:
                    state["params"][id(it)] = pure(dict(params))
            state["plugins"] = plugin_state(state["pm"])
            for plugin in state["pm"].get_plugins():
                if id(plugin) in state["start_plugins"]:
                    continue
                f = getattr(plugin, "__file__", None) if isinstance(plugin, ModuleType) else None
                if not (isinstance(f, str) and f.startswith(test_roots)):
                    flag("plugin_added", "a pytest plugin was registered by the code under test")
            check_snapshot(fast)
            check_snapshot(full)
            check_canonical_modules(first=True)
            emit({"ev": "collected", "ids": ids})
        elif kind == "start":
            entry = state["items"].get(id(args[0]))
            if entry is None:
                flag("item_changed", "a test item that was not collected started")
                return
            state["current"] = entry
            state["phases"] = []
            state["done"] = state["in_call"] = False
            state["funcargs"] = None
            emit({"ev": "start", "id": entry[1]})
            check_item(entry)
            if plugin_state(state["pm"]) != state["plugins"]:
                flag("plugin_added", "a pytest plugin or hook implementation was added")
        elif kind == "call":
            cur = state["current"]
            if cur is None or args[0] is not cur[0]:
                flag("item_changed", "a test was called outside its own protocol")
                return
            state["in_call"] = bool(args[1])
            funcargs = getattr(cur[0], "funcargs", {})
            ids = tuple((k, id(v)) for k, v in funcargs.items())
            if args[1]:
                check_item(cur)
                state["funcargs"] = ids
            elif state["funcargs"] is not None and ids != state["funcargs"]:
                flag("item_changed", f"{cur[1]}: its fixture values were replaced")
        elif kind == "logreport":
            rep, text = args
            cur = state["current"]
            if type(rep) is not report_type:
                flag("report_changed", "a report of another kind than pytest's")
                return
            d = rep.__dict__
            when, outcome = d.get("when"), d.get("outcome")
            if cur is None or nodeid_of(rep, report_nodeid) != cur[1]:
                flag("report_changed", "a report for a test that is not running")
                return
            if type(when) is not str or type(outcome) is not str:
                flag("report_changed", f"{cur[1]}: a report of an unknown kind")
                return
            if any(w == when for w, _ in state["phases"]):
                flag("report_changed", f"{cur[1]}: two reports for its {when} phase")
            state["phases"].append((when, outcome))
            if outcome != "passed":
                emit(
                    {
                        "ev": "bad",
                        "id": cur[1],
                        "when": when,
                        "text": ("skipped: " if outcome == "skipped" else "") + plain(text),
                    }
                )
        elif kind == "finish_test":
            cur = state["current"]
            if cur is None or args[0] != cur[1]:
                flag("report_changed", "a test finished that was not running")
                return
            check_item(cur)
            check_snapshot(fast)
            check_canonical_modules(first=False)
            phases = state["phases"]
            reported = ("call", "passed") in phases and all(o == "passed" for _, o in phases)
            if reported and not state["done"]:
                flag(
                    "outcome_forged",
                    f"{cur[1]}: pytest reported a pass, but the test's body did not run to its end",
                )
            passed = reported and state["done"] and not findings
            emit({"ev": "done", "id": cur[1], "passed": passed})
            state["current"] = None
        elif kind == "sessionfinish":
            check_snapshot(fast)
            check_snapshot(full)
            check_canonical_modules(first=False)
            if state["plugins"] is not None and plugin_state(state["pm"]) != state["plugins"]:
                flag("plugin_added", "a pytest plugin or hook implementation was added")
            emit(
                {
                    "ev": "loaded",
                    "files": sorted(loaded_files),
                    "modules": sorted(loaded_modules),
                }
            )
            state["finished"] = True
            emit({"ev": "finish"})
        elif kind == "error":
            emit({"ev": "error", "text": plain(args[0], 500)})

    # ------------------------------------------------------------ the hook
    def on_report(args: tuple) -> None:
        caller = getframe(2)  # 0: on_report, 1: hook, 2: the caller of sys.audit
        bad = untrusted_frame(caller)
        if id(caller.f_code) not in callers or get_ident() != main_thread or bad is not None:
            culprit = where(bad if bad is not None else caller)
            flag("report_forged", f"a report reached the scoring channel from {culprit}")
            raise Refused(_VETO)
        report(args[0], args[1:])

    def on_done() -> None:
        caller = getframe(2)
        cur = state["current"]
        code = caller.f_code
        if (
            cur is None
            or not state["in_call"]
            or id(code) not in canonical
            or getattr(code, "co_qualname", cur[2].rpartition(".")[2]) != cur[2]
            or code.co_filename != cur[3]
        ):
            return  # another canonical function's end: not this test's
        if get_ident() != main_thread or untrusted_frame(caller) is not None:
            flag("outcome_forged", f"{cur[1]}: its body was run by the code under test")
            return
        state["done"] = True

    transparent = ("/inspect.py", "/traceback.py")

    def frame_user(frame: object) -> object | None:
        """The frame on whose behalf a frame-returning function runs (skips inspect etc.)."""
        f = frame
        while f is not None:
            fn = f.f_code.co_filename  # type: ignore[attr-defined]
            if not (
                fn.endswith(transparent)
                or (fn.endswith("/logging/__init__.py") and f.f_code.co_name == "<lambda>")  # type: ignore[attr-defined]
            ):
                return f
            f = f.f_back  # type: ignore[attr-defined]
        return None

    def on_getframe(event: str, args: tuple) -> None:
        caller = getframe(2)
        user = frame_user(caller)
        if user is None or category(user.f_code.co_filename) < WORKSPACE:  # type: ignore[attr-defined]
            returned = args[0] if args else None
            if returned is None or not is_private(returned.f_code.co_filename):
                return
            if untrusted_frame(caller) is None:
                return
        flag("frame_introspection", f"the code under test called {event}")
        raise Refused(_VETO)

    def on_getattr(args: tuple) -> None:
        obj, name = args[0], args[1]
        if name == "__code__":
            target = code_attr(obj) if isinstance(obj, FunctionType) else None
            if target is None or not is_private(target.co_filename):
                return
            bad = untrusted_frame(getframe(2))
            if bad is not None:
                flag("code_introspection", f"{where(bad)} read the code of {target.co_qualname}")
                raise Refused(_VETO)
            return
        caller = getframe(2)
        if name == "f_code":
            if is_private(obj.f_code.co_filename) and untrusted_frame(caller) is not None:
                flag("frame_introspection", "the code under test inspected a test or harness frame")
                raise Refused(_VETO)
        elif name == "tb_frame":
            frame = obj.tb_frame
            direct = category(caller.f_code.co_filename) >= WORKSPACE
            private = is_private(frame.f_code.co_filename)
            if direct or (private and untrusted_frame(caller) is not None):
                flag("frame_introspection", "the code under test took a frame from a traceback")
                raise Refused(_VETO)
        else:  # gi_frame, cr_frame, ag_frame and their code
            user = frame_user(caller)
            if user is not None and category(user.f_code.co_filename) >= WORKSPACE:
                flag("frame_introspection", f"the code under test read .{name}")
                raise Refused(_VETO)

    def on_setattr(args: tuple) -> None:
        obj, name = args[0], args[1]
        if isinstance(obj, FunctionType) and name in ("__code__", "__defaults__", "__kwdefaults__"):
            if category(code_attr(obj).co_filename) < WORKSPACE:
                flag(
                    "harness_changed", f"the code under test replaced {name} of {obj.__qualname__}"
                )
                raise Refused(_VETO)

    def on_open(args: tuple) -> None:
        path = args[0] if args else None
        if isinstance(path, bytes):
            path = path.decode("utf-8", "replace")
        if not isinstance(path, str):
            return
        if path.startswith("/proc/") and (path.endswith("/mem") or "/map_files" in path):
            flag("memory_access", f"the code under test opened {path}")
            raise Refused(_VETO)
        full = path if path.startswith("/") else os.path.join(root, path)
        full = os.path.normpath(full)
        for r in roots:
            if full.startswith(r) and not full.startswith(r + "tests/"):
                loaded_files.add(full[len(r) :])
                return
        private = full.startswith(harness_root) or (
            full.startswith(test_roots) and full.endswith(".py")
        )
        if private and untrusted_frame(getframe(2)) is not None:
            flag("test_source_read", f"the code under test opened {full[len(root) :] or full}")
            raise Refused(_VETO)

    def on_compile(event: str, args: tuple) -> None:
        if event == "compile":
            filename = args[1] if len(args) > 1 else None
        elif event == "code.__new__":
            filename = args[1] if len(args) > 1 else None
        else:  # marshal.loads: code objects with any file name at all
            if category(getframe(2).f_code.co_filename) >= WORKSPACE:
                flag("code_forged", "the code under test loaded marshalled code")
                raise Refused(_VETO)
            return
        if isinstance(filename, bytes):
            filename = filename.decode("utf-8", "replace")
        direct = category(getframe(2).f_code.co_filename) >= WORKSPACE
        if direct and category(filename) in (TRUSTED, CANONICAL):
            flag("code_forged", f"the code under test compiled code named {filename!s}")
            raise Refused(_VETO)

    refused_always = ("gc.get_objects", "gc.get_referrers", "gc.get_referents")

    def hook(event: str, args: tuple) -> None:
        if not event.startswith(("swarm_envs.", "sys.", "object.", "open", "gc.", "ctypes.")) and (
            event not in ("compile", "code.__new__", "marshal.loads", "import")
        ):
            return
        me = get_ident()
        if me in busy:
            return
        busy.add(me)
        try:
            if event == REPORT_EVENT:
                on_report(args)
            elif event == DONE_EVENT:
                on_done()
            elif event == FINDING_EVENT:
                flag(plain(args[0], 40), plain(args[1], 500))
            elif event == "open":
                on_open(args)
            elif event == "import":
                if args and type(args[0]) is str:
                    loaded_modules.add(args[0])
            elif event == "object.__getattr__":
                on_getattr(args)
            elif event in ("object.__setattr__", "object.__delattr__"):
                on_setattr(args)
            elif event in ("sys._getframe", "sys._current_frames", "sys._getframemodulename"):
                on_getframe(event, args)
            elif event in refused_always:
                if untrusted_frame(getframe(1)) is not None:
                    flag("gc_introspection", f"the code under test called {event}")
                    raise Refused(_VETO)
            elif event in ("sys.settrace", "sys.setprofile") or event.startswith("ctypes."):
                if getpid() == owner:
                    flag("interpreter_access", f"the code under test used {event}")
                    raise Refused(_VETO)
            elif event in ("compile", "code.__new__", "marshal.loads"):
                on_compile(event, args)
        except Refused:
            raise
        except Exception as e:  # noqa: BLE001 - a fault of the guard fails the run, safely
            flag("guard_error", f"{type(e).__name__}: {e}")
        finally:
            busy.discard(me)

    owner = getpid()
    sys.addaudithook(hook)
