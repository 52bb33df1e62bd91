"""`make_task` and `build_task`: a project folder with a pytest suite becomes a task."""

from __future__ import annotations

import ast
import math
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from swarm_envs.core.pysource import parse
from swarm_envs.error import ProjectError
from swarm_envs.project.graph import UnitRef, dependencies, order, restrict
from swarm_envs.project.layout import Note, Project, read_project
from swarm_envs.project.profile import ReferenceProfile, profile_reference
from swarm_envs.project.requirements import resolve
from swarm_envs.project.units import Candidate, find_candidates, map_tests, probe
from swarm_envs.scoring.runner import RunnerPool
from swarm_envs.tasks import MANIFEST, Suite, Task, bundled_task, is_task_name, register_task
from swarm_envs.tasks.environment import WHEELS
from swarm_envs.tasks.manifest import PLUGIN_SETTINGS, TestsSpec

#: runs of the reference under the scorer after the first, while tests are still deselected
#: (a finding fails its own test; one that changed the harness, every later test too)
_JUDGING_ROUNDS = 6
#: a finding's detail that starts with the test it is about: `tests/t.py::test_x: ...`
_NAMED_TEST = re.compile(r"^tests/\S+::\S+: ")
#: a test module in a traceback: `File ".../tests/test_x.py", line 9, in <module>`
_EXITING_MODULE = re.compile(r'File "[^"]*/(tests/[^"]+\.py)", line \d+, in <module>')
#: appended to the warning filters of a project that makes every warning an error
_TOOLING_DEPRECATIONS = "default::pytest.PytestDeprecationWarning"

__all__ = ["MakeTaskResult", "build_task", "make_task"]

Progress = Callable[[str, int, int], None]
_DIST_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+!_-]*$")
REPORT = "MAKE_TASK.md"


@dataclass
class MakeTaskResult:
    """What make-task produced and everything it decided on the way."""

    task: Task
    notes: list[Note] = field(default_factory=list)
    deselected: dict[str, str] = field(default_factory=dict)  # test id -> why
    candidates: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    collected: int = 0  # tests the reference's instrumented run collected

    def deselection(self) -> list[str]:
        """Lines saying how many tests were deselected and why, grouped by cause.

        More than `DESELECT_WARNING` of the suite is a warning, with the likely fix.
        """
        return deselection_report(self.deselected, self.collected)


def make_task(
    source: Path | str,
    dest: Path | str,
    *,
    name: str,
    description: str | None = None,
    duration_s: float = 20.0,
    max_units: int | None = None,
    requires: Sequence[str] = (),
    exclude: Sequence[str] = (),
    deselect_failing: bool = False,
    wheels: Path | str | None = None,
    progress: Progress | None = None,
) -> Task:
    """Build a task folder at `dest` from the project at `source`; returns the task.

    Args:
        source: the project's folder (an unpacked source distribution or a checkout).
        dest: the task folder to write (must not exist, or be empty).
        name: the task's name (lower-case letters, digits, '_' and '-').
        description: shown to agents; a default one names the project and its units.
        duration_s: modelled virtual duration of one full test run.
        max_units: keep at most this many units (the ones most tests reach); fewer probes.
        requires: extra requirement specifiers for third-party packages the tests need.
        exclude: glob patterns of test files to leave out (`tests/test_benchmarks.py`).
        deselect_failing: deselect tests that fail on the reference instead of stopping.
        wheels: a folder of wheels for the requirements (no package index needed).
        progress: called as `progress(stage, done, total)` while make-task works.

    Raises:
        ProjectError: the project cannot become a task (the message says why and what to do).
        RequirementsError: its third-party requirements cannot be fetched or installed.
    """
    return build_task(
        source,
        dest,
        name=name,
        description=description,
        duration_s=duration_s,
        max_units=max_units,
        requires=requires,
        exclude=exclude,
        deselect_failing=deselect_failing,
        wheels=wheels,
        progress=progress,
    ).task


def build_task(
    source: Path | str,
    dest: Path | str,
    *,
    name: str,
    description: str | None = None,
    duration_s: float = 20.0,
    max_units: int | None = None,
    requires: Sequence[str] = (),
    exclude: Sequence[str] = (),
    deselect_failing: bool = False,
    wheels: Path | str | None = None,
    suite: Suite = "custom",
    tags: Sequence[str] = ("bring-your-own",),
    progress: Progress | None = None,
) -> MakeTaskResult:
    """`make_task`, returning everything it decided (`MakeTaskResult`).

    The same arguments, plus the manifest's `suite` and `tags`.
    """
    report = progress or (lambda stage, done, total: None)
    source, dest = Path(source), Path(dest).absolute()
    _check_name(name)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ProjectError(f"{dest}: already exists and is not an empty folder")
    if max_units is not None and max_units < 1:
        raise ProjectError(f"max_units={max_units}: expected a positive number")
    clock = _Clock()
    report("reading the project", 0, 1)
    proj = read_project(source, exclude=exclude)
    clock.lap("read")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(
            tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent)
        )
    except OSError as e:
        raise ProjectError(f"{dest}: cannot write the task folder ({e.strerror})") from None
    try:
        result = _build(
            proj,
            staging,
            name=name,
            description=description,
            duration_s=duration_s,
            max_units=max_units,
            requires=requires,
            deselect_failing=deselect_failing,
            wheels=Path(wheels) if wheels is not None else None,
            suite=suite,
            tags=list(tags),
            report=report,
            clock=clock,
        )
        if dest.exists():
            dest.rmdir()
        os.replace(staging, dest)
    except OSError as e:
        shutil.rmtree(staging, ignore_errors=True)
        raise ProjectError(f"{e.filename or dest}: {e.strerror or e}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    result.task = register_task(dest)
    _register_with_gymnasium()
    result.seconds = clock.laps
    return result


def _check_name(name: str) -> None:
    if not is_task_name(name):
        raise ProjectError(
            f"name {name!r}: expected lower-case letters, digits, '_' and '-', starting with a "
            "letter (for example 'mylib')"
        )
    taken = bundled_task(name)
    if taken is not None:
        raise ProjectError(f"name {name!r} is taken by the bundled task {taken}; choose another")


def _register_with_gymnasium() -> None:
    from swarm_envs.envs.registration import register_envs

    register_envs()


class _Clock:
    def __init__(self) -> None:
        self.t = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, what: str) -> None:
        now = time.perf_counter()
        self.laps[what] = round(now - self.t, 3)
        self.t = now


# ---------------------------------------------------------------------------- building


def _build(
    proj: Project,
    root: Path,
    *,
    name: str,
    description: str | None,
    duration_s: float,
    max_units: int | None,
    requires: Sequence[str],
    deselect_failing: bool,
    wheels: Path | None,
    suite: Suite,
    tags: list[str],
    report: Progress,
    clock: _Clock,
) -> MakeTaskResult:
    notes = proj.notes
    manifest: dict = {
        "name": name,
        "version": 0,
        "suite": suite,
        "description": description or f"The project {name}.",
        "tags": tags,
        "tests": {"paths": ["tests"], "duration_s": duration_s},
        "units": [],
    }
    if proj.ini:
        manifest["tests"]["ini"] = proj.ini
    deselected: dict[str, str] = {d: "deselected by the project's settings" for d in proj.deselect}
    _write_files(proj, root, name)
    decl = proj.declaration
    if decl.name and decl.version and _DIST_VERSION.match(decl.version):
        manifest["distribution"] = f"{decl.name}=={decl.version}"
        notes.append(Note("kept", f"distribution {manifest['distribution']}", "its metadata"))
    uses = _names_the_tests_use(proj.tests)
    if requires or proj.imports or decl.requirements() or (decl.tooling and uses):
        report("fetching requirements", 0, 1)
        resolved = resolve(
            decl,
            proj.imports,
            requires,
            root / WHEELS,
            wheels,
            notes,
            strict=not deselect_failing,
            uses=uses,
        )
        if resolved.pins:
            manifest["requires"] = resolved.pins
        else:
            shutil.rmtree(root / WHEELS, ignore_errors=True)
        if resolved.plugins:
            manifest["tests"]["plugins"] = resolved.plugins
        clock.lap("requirements")
    _take_plugin_settings(proj, manifest)
    _report_tooling_deprecations(proj, manifest)
    task = _write_manifest(root, manifest, deselected)
    report("running the reference (instrumented)", 0, 1)
    profile = profile_reference(task)
    for _ in range(3):
        if not (deselect_failing and profile.collect_errors):
            break
        # Test files that cannot even be imported here (a fuzzing harness, an optional
        # dependency nobody declared) go, as with --exclude; everything else stays.
        if not _drop_uncollectable(root, profile.collect_errors, notes):
            break
        task = _write_manifest(root, manifest, deselected)
        profile = profile_reference(task)
    clock.lap("profile")
    _check_profile(task, profile, deselected, deselect_failing)
    # A big suite (thousands of parametrised cases) needs more than the default limit of a
    # full run: five times what the instrumented run took, on a busy machine too.
    limit = max(TestsSpec().timeout_s, float(math.ceil(5 * profile.seconds)))
    if limit > TestsSpec().timeout_s:
        manifest["tests"]["timeout_s"] = limit
    task = _write_manifest(root, manifest, deselected, profile.collected)
    pool = RunnerPool(task)
    try:
        report("running the reference (scorer)", 0, 1)
        solution = task.solution_files()
        ref = pool.run_all(solution)
        clock.lap("reference")
        _check_reference(task, ref, profile, deselected, deselect_failing)
        for last in (False,) * (_JUDGING_ROUNDS - 1) + (True,):
            if all(t in manifest["tests"].get("deselect", []) for t in deselected):
                break
            # Deselected after the scorer's collection: start again with the new suite. A
            # test the integrity guard flags taints its whole run, so only the flagged tests
            # go first, and the others are judged again without them.
            if len(deselected) >= len(profile.collected):
                _all_deselected(profile, deselected)
            pool.close()
            task = _write_manifest(root, manifest, deselected, profile.collected)
            pool = RunnerPool(task)
            ref = pool.run_all(solution)
            _check_reference(task, ref, profile, deselected, deselect_failing and not last)
        candidates = find_candidates(solution, notes)
        reached = map_tests(candidates, profile, notes, deselected)
        ordered = sorted(reached, key=lambda c: (-len(c.tests), c.path, c.line))
        found, probed, probe_notes = probe(
            pool, solution, ordered, profile, max_units=max_units, progress=report
        )
        notes += probe_notes
        clock.lap("probes")
    finally:
        pool.close()
    for c in reached:
        if c.name in probed and c.name not in found:
            notes.append(
                Note("dropped", f"{c.where} {c.symbol}", "stubbing it fails none of its tests")
            )
    canonical = [t for t in profile.collected if t not in deselected]
    units = _units(reached, found, solution, canonical)
    manifest["units"] = units
    if description is None:
        manifest["description"] = _description(name, proj, len(units))
    task = _write_manifest(root, manifest, deselected, profile.collected)
    collected = len(profile.collected)
    _write_report(root, task, notes, deselected, len(reached), collected)
    clock.lap("write")
    return MakeTaskResult(task, notes, deselected, len(reached), collected=collected)


def _names_the_tests_use(tests: dict[str, bytes]) -> frozenset[str]:
    """Marker names (`pytest.mark.NAME`) and parameter names of the suite's functions.

    What a pytest plugin would have to define for the tests: only ever intersected with
    what a plugin does define (`requirements.provided_names`).
    """
    out: set[str] = set()
    for rel, data in tests.items():
        if not rel.endswith(".py"):
            continue
        try:
            tree = parse(data.decode("utf-8", "replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
            ):
                out.add(node.attr)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.update(a.arg for a in [*node.args.posonlyargs, *node.args.args])
                out.update(a.arg for a in node.args.kwonlyargs)
    return frozenset(out)


def _drop_uncollectable(root: Path, errors: dict[str, str], notes: list[Note]) -> bool:
    """Remove the test files whose collection failed; False when another kind of error is there."""
    files = []
    for nid in errors:
        rel = nid.split("::")[0]
        name = rel.rsplit("/", 1)[-1]
        if not rel.startswith("tests/") or not rel.endswith(".py") or name == "conftest.py":
            return False
        if name == "__init__.py" or not (root / rel).is_file():
            return False
        files.append(rel)
    left = [
        p for p in (root / "tests").rglob("test*.py") if p.relative_to(root).as_posix() not in files
    ]
    if not left:
        return False  # every test file: the collection error says more than "no tests"
    for rel in files:
        (root / rel).unlink()
        notes.append(Note("dropped", rel, f"does not collect here: {_reason(errors[rel])}"))
    return bool(files)


def _write_files(proj: Project, root: Path, name: str) -> None:
    def put(rel: str, data: bytes) -> None:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)

    for rel, data in proj.solution.items():
        put(f"solution/{rel}", data)
    for rel, data in proj.tests.items():
        put(f"tests/{rel}", data)
    for rel, data in proj.licences.items():
        put(rel, data)
        put(f"solution/{rel}", data)  # the code's licence travels with the code
    put("README.md", proj.readme or f"# {name}\n".encode())


def _take_plugin_settings(proj: Project, manifest: dict) -> None:
    """A plugin's settings (`PLUGIN_SETTINGS`), where the task enables that plugin."""
    tests = manifest["tests"]
    plugins = tests.get("plugins", [])
    for key, value in proj.plugin_ini.items():
        plugin = PLUGIN_SETTINGS[key]
        if plugin in plugins:
            tests.setdefault("ini", {})[key] = value
            proj.note("kept", f"{key} = {value}", f"a setting of the enabled plugin {plugin}")
        else:
            proj.note("dropped", f"setting {key}", f"its plugin ({plugin}) is not enabled")


def _report_tooling_deprecations(proj: Project, manifest: dict) -> None:
    """Where every warning is an error, pytest's own deprecations are reported, not raised.

    The scorer's pytest may be newer than the one a project pins, and a plugin pinned for an
    older pytest warns about its own configuration at start: a project whose warning filters
    make every warning an error would stop before collecting anything. Those warnings
    concern the test tooling, not the project.
    """
    filters = manifest["tests"].get("ini", {}).get("filterwarnings", [])
    fields = [[part.strip() for part in f.split(":")] for f in filters]
    every = any(
        f[0] == "error" and (len(f) < 3 or f[2] in ("", "Warning", "DeprecationWarning"))
        for f in fields
    )
    if every and not any("PytestDeprecationWarning" in f for f in filters):
        filters.append(_TOOLING_DEPRECATIONS)
        proj.note(
            "kept",
            f"filterwarnings, and {_TOOLING_DEPRECATIONS} last",
            "the project makes warnings errors; pytest's and its plugins' own deprecations "
            "are reported, not raised (the scorer's pytest may be newer than the project's)",
        )


def _write_manifest(
    root: Path, manifest: dict, deselected: dict[str, str], collected: Sequence[str] = ()
) -> Task:
    """Write the manifest; `tests.deselect` lists the deselected node ids.

    The scorer deselects them exactly (`scoring.worker.settings.deselects`), not by prefix
    as pytest's `--deselect` would: deselecting `test_main` leaves `test_main_ok` in.
    """
    del collected  # the ids are exact: no other test goes with them
    if deselected:
        manifest["tests"]["deselect"] = sorted(deselected)
    (root / MANIFEST).write_text(tomli_w.dumps(manifest), encoding="utf-8")
    return Task(root)


#: the share of deselected tests above which make-task warns (and names the likely fix)
DESELECT_WARNING = 0.10
_FIXES = (
    (
        re.compile(r"(ModuleNotFoundError|ImportError)\b.*?No module named '?([\w.]+)"),
        "a missing dependency: add its distribution with --requires ({0})",
    ),
    (
        re.compile(r"'([\w.]+)' not found in `markers` configuration option"),
        "a pytest plugin that defines the marker '{0}': add its distribution with --requires "
        "(make-task enables the plugins it names with -p, test tools among them)",
    ),
    (
        re.compile(r"fixture '([\w.]+)' not found"),
        "a pytest plugin that provides the fixture '{0}': add its distribution with "
        "--requires (make-task enables the plugins it finds with -p)",
    ),
    (
        re.compile(r"(PermissionError|OSError).*(/dev/shm|SemLock|multiprocessing)"),
        "the sandbox: multiprocessing needs a private /dev/shm; leave the file out with --exclude",
    ),
    (
        re.compile(
            r"(ConnectionError|ConnectionRefused|gaierror|socket\.|Network is unreachable|"
            r"name resolution)"
        ),
        "the sandbox has no network: leave those test files out with --exclude",
    ),
    (
        re.compile(
            r"(skipped here|expected to fail here).*(not installed|no module|could not import)",
            re.IGNORECASE,
        ),
        "an optional dependency the tests skip without: add it with --requires",
    ),
)


def _cause(why: str) -> str:
    """A deselection's cause, with instance details (ids, addresses, numbers) kept short."""
    text = _SANDBOX_PATH.sub("", why)  # where the run happened says nothing of the cause
    text = _TEMP_PATH.sub("/tmp/...", text)
    return re.sub(r"0x[0-9a-f]+", "0x...", text)[:160]


def likely_fix(causes: Iterable[str]) -> str | None:
    """The fix that the most frequent recognised cause points to, or None."""
    for cause in causes:
        for pattern, fix in _FIXES:
            m = pattern.search(cause)
            if m:
                groups = [g for g in m.groups() if g]
                return fix.format(groups[-1] if "{0}" in fix and groups else "")
    return None


def deselection_report(deselected: dict[str, str], collected: int) -> list[str]:
    """See `MakeTaskResult.deselection`."""
    if not deselected:
        return []
    total = max(collected, len(deselected))
    share = len(deselected) / total if total else 0.0
    groups: dict[str, list[str]] = {}
    for nid, why in deselected.items():
        groups.setdefault(_cause(why), []).append(nid)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    lines = [f"{len(deselected)} of {total} tests deselected ({share:.0%}), by cause:"]
    for cause, nids in ordered[:12]:
        more = f" and {len(nids) - 2} more" if len(nids) > 2 else ""
        lines.append(f"  {len(nids)} x {cause}")
        lines.append(f"     e.g. {', '.join(nids[:2])}{more}")
    if len(ordered) > 12:
        lines.append(f"  ... and {len(ordered) - 12} more causes (see {REPORT})")
    if share > DESELECT_WARNING:
        fix = likely_fix(c for c, _ in ordered)
        lines.append(
            f"warning: more than {DESELECT_WARNING:.0%} of the suite is deselected; "
            + (f"the likely fix: {fix}" if fix else "see the causes above")
        )
    return lines


_WHERE = re.compile(r"^\S+:\d+: ")
_SANDBOX_PATH = re.compile(r"/\S*?/ws/")
_TEMP_PATH = re.compile(r"/tmp/[^\s'\"]+")


def _reason(text: str) -> str:
    """What a failure comes down to: its exception, with pytest's first `E` line."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return "(no output)"
    last = _WHERE.sub("", _SANDBOX_PATH.sub("", lines[-1]))
    detail = next((ln[1:].strip() for ln in lines if ln.startswith("E ")), "")
    if detail and detail != last and not detail.startswith(last):
        return f"{last}: {detail}"[:200]
    return (detail or last)[:200]


def _group(texts: dict[str, str]) -> str:
    """Failures grouped by reason, the largest groups first."""
    groups: dict[str, list[str]] = {}
    for nid, text in texts.items():
        groups.setdefault(_reason(text), []).append(nid)
    out = []
    for why, nids in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:8]:
        more = f" and {len(nids) - 3} more" if len(nids) > 3 else ""
        out.append(f"  {len(nids)} x {why}\n     e.g. {', '.join(nids[:3])}{more}")
    return "\n".join(out)


def _check_profile(
    task: Task, profile: ReferenceProfile, deselected: dict[str, str], deselect_failing: bool
) -> None:
    """Deselect what the reference skips here; stop (or deselect) on anything else."""
    if profile.collect_errors:
        fix = likely_fix(profile.collect_errors.values())
        raise ProjectError(
            f"the project's tests do not collect:\n{_group(profile.collect_errors)}\n"
            + (f"The likely fix: {fix}; a" if fix else "A")
            + " test file that cannot work here can be left out with --exclude."
        )
    if not profile.collected:
        said = "\n".join(profile.output.strip().splitlines()[-8:])
        exits = _EXITING_MODULE.findall(profile.output) if "SystemExit" in said else []
        if exits:
            raise ProjectError(
                f"no tests were collected: the test module {exits[-1]} exits when it is "
                "imported (SystemExit; a `unittest.main()` outside `if __name__ == "
                "'__main__':`?), so pytest cannot collect it; pytest said:\n" + said
            )
        raise ProjectError(
            "no tests were collected from the project" + (f"; pytest said:\n{said}" if said else "")
        )
    outside = {n: o for n, o in profile.origins.items() if o is not None and os.path.isabs(str(o))}
    if outside:
        which = ", ".join(f"{n} from {o}" for n, o in outside.items())
        raise ProjectError(
            f"the tests imported {which}, not the project's own copy; check that the "
            "package is at the project's root or in src/"
        )
    for outcome, why in (("skipped", "skipped here"), ("xfailed", "expected to fail here")):
        for nid in profile.by_outcome(outcome):
            text = profile.tests[nid].text.strip().splitlines()
            deselected[nid] = f"{why}: {text[-1] if text else outcome} (a skip is not a pass)"
    failed = {nid: profile.tests[nid].text for nid in profile.by_outcome("failed")}
    if failed and not deselect_failing:
        raise ProjectError(
            f"the reference fails {len(failed)} of {len(profile.tests)} tests on this "
            f"machine:\n{_group(failed)}\nFix them, leave their files out with --exclude, "
            "or deselect them with --deselect-failing."
        )
    for nid, failure in failed.items():
        deselected[nid] = f"fails on the reference: {_reason(failure)}"
    if failed and len(deselected) >= len(profile.collected):
        _all_deselected(profile, deselected)


def _all_deselected(profile: ReferenceProfile, deselected: dict[str, str]) -> None:
    """Stop: every test would be deselected (say why, grouped, instead of 'no tests')."""
    raise ProjectError(
        f"the reference fails every one of its {len(profile.collected)} tests here:\n"
        + "\n".join(deselection_report(deselected, len(profile.collected))[1:])
    )


def _check_reference(
    task: Task, ref: object, profile: ReferenceProfile, deselected: dict, deselect_failing: bool
) -> None:
    """The reference must pass every test under the scorer; explain it when it does not."""
    from swarm_envs.scoring import TestReport

    assert isinstance(ref, TestReport)
    if ref.verdict != "ok":
        raise ProjectError(f"the scorer gave no verdict on the reference: {ref.error}")
    failing = {t: ref.failures.get(t, "") for t, ok in ref.per_test.items() if not ok}
    if not failing:
        return
    reasons: dict[str, str] = {}
    flagged = {f.get("test", ""): f for f in ref.integrity}
    if deselect_failing:
        # The guard names at most a few tests a run; every test that executed the flagged
        # code of the reference (in the instrumented run) does what they did.
        for nid, f in _running_flagged_code(ref.integrity, profile, task.solution_files()):
            if nid in failing:
                flagged.setdefault(nid, f)
    named = {nid for nid in failing if nid in flagged}
    if deselect_failing and named and len(named) < len(failing):
        # The guard named the tests that tampered: the rest failed with their run.
        failing = {nid: failing[nid] for nid in named}
    for nid, text in failing.items():
        if nid not in profile.tests:
            reasons[nid] = "its id differs between test processes (built from something random?)"
        elif nid in flagged or ref.integrity:
            f = flagged.get(nid) or ref.integrity[0]
            detail = _NAMED_TEST.sub("", str(f.get("detail")))  # grouped over the tests
            reasons[nid] = f"flagged by the scorer's integrity guard ({f.get('kind')}): {detail}"
        else:
            reasons[nid] = (
                "fails under the scorer's sandbox (no network, read-only tests): "
                + (text.strip().splitlines() or ["failed"])[-1]
            )
    if not deselect_failing:
        raise ProjectError(
            f"the reference passes the instrumented run but fails {len(failing)} tests under "
            f"the scorer:\n{_group(reasons)}\nDeselect them with --deselect-failing, or see "
            "docs/task-format.md (what differs in the sandbox)."
        )
    deselected.update(reasons)


_FLAGGED_AT = re.compile(r"(?P<file>[^\s:]+\.py):(?P<line>\d+) in ")


def _running_flagged_code(
    findings: Iterable[dict], profile: ReferenceProfile, solution: dict[str, bytes]
) -> list[tuple[str, dict]]:
    """The tests that executed code of the project a guard finding points at.

    (test, finding) for every test whose instrumented run executed the function that
    holds a finding's `file:line in function`.
    """
    at: dict[tuple[str, int], dict] = {}
    for f in findings:
        m = _FLAGGED_AT.match(str(f.get("detail", "")))
        data = solution.get(m["file"]) if m else None
        if m is None or data is None:
            continue
        try:
            tree = parse(data)
        except (SyntaxError, ValueError, RecursionError):
            continue
        line, inner = int(m["line"]), None
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                node.lineno <= line <= (node.end_lineno or node.lineno)
            ):
                if inner is None or node.lineno > inner.lineno:
                    inner = node
        if inner is not None:
            first = min([inner.lineno, *(d.lineno for d in inner.decorator_list)])
            at.setdefault((m["file"], first), f)
    return [
        (nid, at[loc])
        for nid, t in profile.tests.items()
        for loc in sorted(t.executed & at.keys())[:1]
    ]


def compress(tests: Sequence[str], suite: Sequence[str]) -> list[str]:
    """`tests` as test files and classes where it holds all of them, else as test ids."""
    mine = set(tests)

    def prefixes(nid: str) -> list[str]:
        parts = nid.split("::")
        out = ["::".join(parts[:i]) for i in range(1, len(parts))]
        if "[" in parts[-1]:  # a parametrised test: all its cases
            out.append("::".join([*parts[:-1], parts[-1].split("[", 1)[0]]))
        return out

    members: dict[str, list[str]] = {}
    for t in suite:
        for p in prefixes(t):
            members.setdefault(p, []).append(t)
    out: list[str] = []
    seen: set[str] = set()
    for t in suite:
        if t not in mine or t in seen:
            continue
        whole = next((p for p in prefixes(t) if all(m in mine for m in members[p])), None)
        if whole is None:
            out.append(t)
            seen.add(t)
        else:
            out.append(whole)
            seen.update(members[whole])
    return out


def _units(
    reached: list[Candidate],
    found: dict[str, list[str]],
    solution: dict[str, bytes],
    suite: Sequence[str],
) -> list[dict]:
    """Manifest entries of the confirmed units, in dependency order."""
    sources = {
        rel: data.decode("utf-8", errors="replace")
        for rel, data in solution.items()
        if rel.endswith(".py")
    }
    refs = [UnitRef(c.name, c.path, c.symbol) for c in reached]
    # The graph covers every reached candidate, so the kept units' dependencies do not
    # depend on which were kept (--max-units): edges run through the dropped ones.
    names, deps, _ = order([c.name for c in reached], dependencies(sources, refs))
    kept = [n for n in names if n in found]
    among = restrict(deps, kept)
    by_name = {c.name: c for c in reached}
    return [
        {
            "name": n,
            "path": by_name[n].path,
            "symbol": by_name[n].symbol,
            "tests": compress(found[n], suite),
            "depends_on": among[n],
        }
        for n in kept
    ]


def _description(name: str, proj: Project, n_units: int) -> str:
    what = f"{n_units} functions and methods are" if n_units != 1 else "1 function is"
    return (
        f"The project {name}, with its own test suite. {what} stubbed "
        "out (their signatures and docstrings are kept); implement them so that the tests "
        "in tests/ pass. Read the tests and the README to learn what each should do."
    )


def _write_report(
    root: Path,
    task: Task,
    notes: list[Note],
    deselected: dict[str, str],
    candidates: int,
    collected: int,
) -> None:
    lines = [
        f"# make-task: {task.id}",
        "",
        f"{len(task.units)} units (of {candidates} functions and methods that tests reach).",
        "",
        "## What make-task did",
        "",
        *(f"- {n}" for n in notes),
    ]
    if deselected:
        lines += ["", "## Deselected tests, by cause", "", "```"]
        lines += [*deselection_report(deselected, collected), "```", ""]
        lines += [f"- `{nid}`: {why}" for nid, why in sorted(deselected.items())]
    (root / REPORT).write_text("\n".join(lines) + "\n", encoding="utf-8")
