"""A suite that builds itself: many real projects made into validated tasks, in one command.

    swarm-envs make-suite catalogue                     # the shipped catalogue (CATALOGUE)
    swarm-envs make-suite my_projects.txt --workers 2   # name==version lines, or sdist paths

For every project of the spec, in its own worker process (killed, with everything it
started, when it runs past `--timeout`):

1. `pip download --no-deps --no-binary NAME NAME==VERSION` fetches its source distribution
   (a path in the spec is taken as it is: an sdist archive or an unpacked folder);
2. `make-task` reads it as it comes (declared requirements, plugins, tests inside the
   package) and deselects the tests its reference fails here (`--deselect-failing`);
3. `validate` checks the task (the reference passes, the start fails, determinism, and,
   without `--quick`, that every unit's tests notice its stub);
4. with `--instances stub:2,bug:1`, the generators make that many instances of each valid
   task (K units stubbed, K bugs injected), and each instance is validated too.

Every project's outcome is a JSON file of the suite's folder, written when it ends: a second
run resumes, skipping what is done (`--retry` tries failed projects again). One line per
project says valid or why not; failures are grouped by cause at the end, with a summary
table. Valid tasks are written with the suite's name (`real-plus` by default) and found by
every later process (`swarm_envs.tasks.registered`): `swarm-envs bench --tasks real-plus`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from swarm_envs.error import ProjectError, ScoringError, TaskError

__all__ = [
    "CATALOGUE",
    "Entry",
    "Outcome",
    "make_suite",
    "read_spec",
    "suites_root",
]

#: the shipped catalogue: small permissively licensed pure-Python libraries with pytest suites
CATALOGUE = Path(__file__).with_name("catalogue.txt")
STATUS = "status"
TASKS = "tasks"
INSTANCES = "instances"
REJECTED = "rejected"
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9.+!_-]+)$")
_ARCHIVE = re.compile(r"^(?P<name>.+?)-(?P<version>\d[^-]*?)(\.tar\.gz|\.tgz|\.zip|\.tar\.bz2)$")
Line = Callable[[str], None]


def suites_root() -> Path:
    """Where built suites live by default (the `suites` folder of `swarm_envs.cache`)."""
    from swarm_envs import cache

    return cache.folder("suites")


@dataclass(frozen=True)
class Entry:
    """One project of a spec: a pinned distribution of the index, or a local sdist."""

    key: str  # name==version, or an sdist's file name without its suffix
    name: str | None = None
    version: str | None = None
    path: Path | None = None
    exclude: tuple[str, ...] = ()

    @property
    def task_name(self) -> str:
        """The task's name: the distribution's, lower-case, with '_' for '-' and '.'."""
        base = self.name or (self.path.name if self.path else self.key)
        m = _ARCHIVE.match(base)
        if m:
            base = m["name"]
        name = re.sub(r"[^a-z0-9_]+", "_", base.lower()).strip("_")
        return name if name[:1].isalpha() else f"p_{name}"


def read_spec(spec: str | Path) -> list[Entry]:
    """The projects of a spec file: `name==version`, or a path, one per line.

    `catalogue` names the shipped catalogue. `#` starts a comment; after a project, options
    of make-task may follow: `exclude=GLOB` (repeatable).

    Raises:
        ProjectError: the file cannot be read, or a line is neither (line number, fix).
    """
    path = CATALOGUE if str(spec) == "catalogue" else Path(spec)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ProjectError(
            f"{spec}: cannot read the spec ({e.strerror}); give a file of name==version "
            "lines or sdist paths, or 'catalogue'"
        ) from None
    entries: list[Entry] = []
    seen: set[str] = set()
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        first, *opts = line.split()
        exclude = []
        for o in opts:
            if not o.startswith("exclude="):
                raise ProjectError(f"{path}:{no}: {o!r}: the only option is exclude=GLOB")
            exclude.append(o.split("=", 1)[1])
        m = _PIN.match(first)
        if m:
            entry = Entry(first, m["name"], m["version"], exclude=tuple(exclude))
        else:
            p = Path(first)
            if not p.is_absolute():
                p = (path.parent / p).resolve()
            if not p.exists():
                raise ProjectError(
                    f"{path}:{no}: {first!r}: expected name==version (an exact pin) or the "
                    "path of an sdist or project folder"
                )
            m = _ARCHIVE.match(p.name)
            label = f"{m['name']}-{m['version']}" if m else p.name
            entry = Entry(label, path=p, exclude=tuple(exclude))
        if entry.key in seen:
            continue
        seen.add(entry.key)
        entries.append(entry)
    if not entries:
        raise ProjectError(f"{path}: no projects in the spec")
    return entries


@dataclass
class Outcome:
    """What became of one project."""

    key: str
    task: str | None = None  # the task folder, once made
    valid: bool = False
    cause: str = ""  # why not, in a few words (grouped in the summary)
    detail: str = ""  # the first lines of the error
    tests: int = 0
    units: int = 0
    deselected: int = 0
    deselect_causes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    instances: dict[str, bool] = field(default_factory=dict)  # instance name -> valid
    instance_problems: dict[str, str] = field(default_factory=dict)

    @property
    def total_s(self) -> float:
        """Seconds the project took, all stages."""
        return round(sum(self.seconds.values()), 1)


# ---------------------------------------------------------------------------- causes

_CAUSES: tuple[tuple[str, str], ...] = (
    ("too few tests", "too few tests"),
    ("does not collect", "tests do not collect"),
    ("no pytest tests found", "no tests in the sdist"),
    ("no Python code found", "no code outside the tests"),
    ("do not collect", "tests do not collect"),
    ("neither installed in this Python nor declared", "an undeclared import"),
    ("fetching the wheels", "requirements cannot be fetched"),
    ("installing the task's requirements", "requirements cannot be installed"),
    ("no sdist", "no source distribution"),
    ("downloading", "download failed"),
    ("ran out of time", "ran past its time limit"),
    ("time limit", "ran past its time limit"),
    ("fails on the reference", "the reference fails"),
    ("fails under the scorer", "the reference fails under the scorer"),
    ("the reference fails", "the reference fails"),
    ("reference fails", "the reference fails"),  # validate's own words
    ("no canonical tests", "no tests left after deselection"),
    ("no tests were collected", "no tests collected"),
    ("no units", "no units (no function the tests notice)"),
    ("fails none of its tests", "a unit its tests do not notice"),
    ("not deterministic", "tests are not deterministic"),
    ("on the order of the suite", "tests depend on earlier tests"),
    ("starting state already passes", "the start passes every test"),
    ("integrity guard", "flagged by the integrity guard"),
    ("compiled", "compiled code"),
)


def cause_of(text: str) -> str:
    """A failure's cause in a few words, for grouping (`_CAUSES`), else its first line."""
    for needle, cause in _CAUSES:
        if needle.lower() in text.lower():
            return cause
    first = (text.strip().splitlines() or ["unknown"])[0]
    return re.sub(r"(/[^\s:]+)+", "PATH", first)[:80]


# ---------------------------------------------------------------------------- one project


def _download(entry: Entry, sdists: Path) -> Path:
    """The sdist of a pinned entry, from `sdists` when it is there, else from the index."""
    want = re.sub(r"[-_.]+", "_", entry.name or "").lower()
    for p in sorted(sdists.glob("*")):
        m = _ARCHIVE.match(p.name)
        if (
            m
            and re.sub(r"[-_.]+", "_", m["name"]).lower() == want
            and m["version"] == entry.version
        ):
            return p
    sdists.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=sdists, prefix=".download-") as tmp:
        argv = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        argv += ["--no-binary", str(entry.name), "--disable-pip-version-check", "--no-input"]
        argv += ["-d", tmp, entry.key]
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise TaskError(f"downloading {entry.key}: cannot run pip ({e})") from None
        got = [p for p in Path(tmp).iterdir() if _ARCHIVE.match(p.name)]
        if r.returncode != 0 or not got:
            lines = [ln for ln in (r.stderr or r.stdout).splitlines() if "WARNING" not in ln]
            tail = "\n".join(lines[-4:])
            raise TaskError(f"downloading {entry.key}: no sdist from the index\n{tail}")
        dest = sdists / got[0].name
        os.replace(got[0], dest)
    return dest


def _unpack(archive: Path, into: Path) -> Path:
    """Unpack an sdist under `into`; returns its top folder."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                for name in z.namelist():
                    if name.startswith("/") or ".." in Path(name).parts:
                        raise ProjectError(f"{archive}: unsafe path {name!r} in the archive")
                z.extractall(into)
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(into, filter="data")
    except (OSError, tarfile.TarError, zipfile.BadZipFile) as e:
        raise ProjectError(f"{archive}: cannot unpack ({e})") from None
    tops = [p for p in into.iterdir() if p.is_dir()]
    return tops[0] if len(tops) == 1 else into


def _source(entry: Entry, folder: Path) -> Path:
    if entry.path is not None and entry.path.is_dir():
        return entry.path
    archive = entry.path if entry.path is not None else _download(entry, folder / "sdists")
    return _unpack(archive, folder / "src" / entry.task_name)


def build_one(
    entry: Entry,
    folder: Path,
    *,
    suite: str,
    wheels: Path | None,
    quick: bool,
    max_units: int | None,
    instances: Sequence[tuple[str, int]],
    instance_k: int,
    min_tests: int = 10,
) -> Outcome:
    """Download, make, validate (and generate instances of) one project: its `Outcome`."""
    from swarm_envs.generation.validation import validate
    from swarm_envs.project import build_task

    out = Outcome(entry.key)
    t = time.perf_counter()

    def lap(what: str) -> None:
        nonlocal t
        now = time.perf_counter()
        out.seconds[what] = round(now - t, 2)
        t = now

    prev = _read_status(folder, entry.key)
    if (
        prev is not None
        and prev.valid
        and prev.tests >= min_tests
        and prev.task
        and Path(prev.task).is_dir()
    ):
        # Valid already: only the instances asked for now are missing.
        from swarm_envs.tasks import Task

        prev.instances, prev.instance_problems = {}, {}
        t = time.perf_counter()
        for kind, count in instances:
            _instances(Task(Path(prev.task)), kind, count, instance_k, folder / INSTANCES, prev)
        prev.seconds["instances"] = round(time.perf_counter() - t, 2)
        return prev
    try:
        src = _source(entry, folder)
        lap("download")
        dest = folder / TASKS / entry.task_name
        if dest.exists():
            shutil.rmtree(dest)
        name = entry.task_name
        from swarm_envs.tasks import bundled_task

        if bundled_task(name) is not None:
            name = f"{name}_plus"
        result = build_task(
            src,
            dest,
            name=name,
            max_units=max_units,
            exclude=entry.exclude,
            deselect_failing=True,
            wheels=wheels,
            suite=suite,  # type: ignore[arg-type]
            tags=["bring-your-own", "make-suite"],
        )
        lap("make-task")
        out.task = str(dest)
        out.deselected = len(result.deselected)
        out.deselect_causes = result.deselection()
        task = result.task
        out.units = len(task.units)
        if not task.units:
            raise ProjectError("no units: no function whose stub its tests notice")
        rep = validate(task, check_units=not quick)
        lap("validate")
        if _flaky_only(rep):
            # A test that passed in one run of the reference and failed in the other (a
            # timing benchmark, say) is left out as make-task leaves out failing ones, and
            # the task is validated again; a second round of them rejects it.
            task = _deselect_flaky(dest, rep.flaky)
            out.deselected += len(rep.flaky)
            out.deselect_causes.append(f"{len(rep.flaky)} not deterministic here")
            rep = validate(task, check_units=not quick)
            lap("validate again")
        out.tests = rep.tests
        if rep.ok and rep.tests < min_tests:
            rep.problems.append(
                f"too few tests: {rep.tests} canonical tests (fewer than {min_tests}; see "
                "MAKE_TASK.md for the test files that do not collect)"
            )
        if not rep.ok:
            out.cause = cause_of(rep.problems[0])
            out.detail = "; ".join(rep.problems[:3])[:600]
            out.task = _reject(dest, folder)
            lap("end")
            return out
        out.valid = True
        for kind, count in instances:
            _instances(task, kind, count, instance_k, folder / INSTANCES, out)
        if instances:
            lap("instances")
    except (TaskError, ScoringError, OSError) as e:
        text = str(e)
        out.cause = cause_of(text)
        out.detail = "\n".join(text.strip().splitlines()[:8])[:1500]
    except Exception as e:  # noqa: BLE001 - one project's bug must not stop the suite
        out.cause = f"internal error: {type(e).__name__}"
        out.detail = traceback.format_exc()[-1500:]
    if not out.valid and out.task:
        out.task = _reject(Path(out.task), folder)
    lap("end")
    return out


#: the share of a task's tests that may be left out for not being deterministic
MAX_FLAKY_SHARE = 0.05


def _flaky_only(rep: Any) -> bool:
    """Whether validation's one problem is a few tests that differ between two runs."""
    return (
        len(rep.problems) == 1
        and bool(rep.flaky)
        and len(rep.flaky) <= max(1, int(MAX_FLAKY_SHARE * rep.tests))
    )


def _deselect_flaky(dest: Path, flaky: Sequence[str]) -> Any:
    """Deselect `flaky` in the task at `dest` (its manifest and MAKE_TASK.md): the task."""
    import tomli_w

    from swarm_envs.tasks import MANIFEST, Task

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    path = dest / MANIFEST
    manifest = tomllib.loads(path.read_text(encoding="utf-8"))
    tests = manifest.setdefault("tests", {})
    tests["deselect"] = sorted({*tests.get("deselect", []), *flaky})
    path.write_text(tomli_w.dumps(manifest), encoding="utf-8")
    report = dest / "MAKE_TASK.md"
    if report.is_file():
        lines = "".join(
            f"- deselected: {t} (not deterministic: its outcome differed between two runs of "
            "the reference in validation)\n"
            for t in sorted(flaky)
        )
        report.write_text(
            report.read_text(encoding="utf-8") + "\n## Deselected by make-suite\n\n" + lines,
            encoding="utf-8",
        )
    return Task(dest)


def _reject(dest: Path, folder: Path) -> str | None:
    """Move a task that is not valid out of the suite (kept to look at, never registered)."""
    if not dest.is_dir() or dest.parent.name != TASKS:
        return str(dest) if dest.is_dir() else None
    where = folder / REJECTED / dest.name
    if where.exists():
        shutil.rmtree(where)
    where.parent.mkdir(parents=True, exist_ok=True)
    os.replace(dest, where)
    return str(where)


def _instances(task: object, kind: str, count: int, k: int, into: Path, out: Outcome) -> None:
    from swarm_envs.generation.generators import generate
    from swarm_envs.generation.validation import validate
    from swarm_envs.tasks import Task

    assert isinstance(task, Task)
    k = min(k, len(task.units))
    for seed in range(count):
        name = f"{task.name}_{kind}{k}_s{seed}"
        try:
            inst = generate(task, kind, k=k, seed=seed, dest=into / name)  # type: ignore[arg-type]
            # An instance has the task's tests and reference: their order was checked.
            rep = validate(inst, check_units=False, check_order=False)
            out.instances[name] = rep.ok
            if not rep.ok:
                out.instance_problems[name] = "; ".join(rep.problems[:2])[:300]
        except (TaskError, OSError) as e:
            out.instances[name] = False
            out.instance_problems[name] = str(e).splitlines()[0][:300]


def _child(args: dict) -> None:
    """A worker process: one project; its outcome goes to the status file."""
    os.setsid()  # its own process group: a timeout ends it and everything it started
    entry = Entry(
        args["key"],
        args["name"],
        args["version"],
        Path(args["path"]) if args["path"] else None,
        tuple(args["exclude"]),
    )
    folder = Path(args["folder"])
    outcome = build_one(
        entry,
        folder,
        suite=args["suite"],
        wheels=Path(args["wheels"]) if args["wheels"] else None,
        quick=args["quick"],
        max_units=args["max_units"],
        instances=[(str(k), int(n)) for k, n in args["instances"]],
        instance_k=args["instance_k"],
        min_tests=int(args.get("min_tests", 10)),
    )
    _write_status(folder, outcome)


def _status_file(folder: Path, key: str) -> Path:
    return folder / STATUS / (re.sub(r"[^A-Za-z0-9._=-]+", "_", key)[:120] + ".json")


def _write_status(folder: Path, outcome: Outcome) -> None:
    path = _status_file(folder, outcome.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(outcome), indent=1), encoding="utf-8")
    os.replace(tmp, path)


def _read_status(folder: Path, key: str) -> Outcome | None:
    try:
        data = json.loads(_status_file(folder, key).read_text(encoding="utf-8"))
        return Outcome(**data)
    except (OSError, ValueError, TypeError):
        return None


# ---------------------------------------------------------------------------- the suite


def parse_instances(text: str | None) -> list[tuple[str, int]]:
    """`stub:2,bug:1` -> [("stub", 2), ("bug", 1)].

    Raises:
        ProjectError: not of that form (the message shows it).
    """
    if not text:
        return []
    out = []
    for part in text.split(","):
        kind, _, n = part.strip().partition(":")
        if kind not in ("stub", "bug") or not n.isdigit() or int(n) < 1:
            raise ProjectError(
                f"--instances {text!r}: expected KIND:COUNT pairs, KIND stub or bug, e.g. "
                "stub:2,bug:1"
            )
        out.append((kind, int(n)))
    return out


def make_suite(
    entries: Sequence[Entry],
    folder: Path | None = None,
    *,
    suite: str = "real-plus",
    workers: int = 1,
    wheels: Path | None = None,
    quick: bool = False,
    max_units: int | None = None,
    timeout_s: float = 1800.0,
    retry: bool = False,
    instances: Sequence[tuple[str, int]] = (),
    instance_k: int = 2,
    min_tests: int = 10,
    line: Line = print,
) -> list[Outcome]:
    """Build `entries` into tasks of `suite` under `folder` (see the module doc).

    Args:
        entries: the projects (`read_spec`).
        folder: the suite's folder (default: `suites_root() / suite`).
        suite: the suite's name, written into every task's manifest.
        workers: projects built at the same time, each in its own process.
        wheels: a folder of wheels for the projects' requirements (no index).
        quick: validate without the per-unit check.
        max_units: at most this many units per task.
        timeout_s: a project still running after this long is stopped (and says so).
        retry: build again the projects that failed before (valid ones are kept).
        instances: (kind, count) of instances to generate from each valid task.
        instance_k: units stubbed or broken in each instance.
        min_tests: a task with fewer canonical tests is not valid (too little to measure).
        line: called with each line of the report.

    Returns:
        One `Outcome` per entry, in the spec's order.
    """
    import multiprocessing

    folder = (folder or suites_root() / suite).absolute()
    folder.mkdir(parents=True, exist_ok=True)
    done: dict[str, Outcome] = {}
    todo: list[Entry] = []
    for e in entries:
        prev = _read_status(folder, e.key)
        too_few = prev is not None and prev.valid and prev.tests < min_tests
        if (
            prev is not None
            and (prev.valid or not retry)
            and not too_few
            and not _needs_instances(prev, instances)
        ):
            done[e.key] = prev
            state = "valid" if prev.valid else f"not valid: {prev.cause}"
            line(f"{e.key}: already built ({state})")
        else:
            todo.append(e)
    ctx = multiprocessing.get_context("spawn")
    _stop_on_sigterm()
    running: dict[str, tuple[Any, float]] = {}  # key -> (its process, when it started)
    queue = list(todo)
    width = max((len(e.key) for e in entries), default=10)
    try:
        while queue or running:
            while queue and len(running) < max(1, workers):
                e = queue.pop(0)
                prev = _read_status(folder, e.key)
                if prev is None or not prev.valid:
                    _status_file(folder, e.key).unlink(missing_ok=True)
                args = {
                    "key": e.key,
                    "name": e.name,
                    "version": e.version,
                    "path": str(e.path) if e.path else None,
                    "exclude": list(e.exclude),
                    "folder": str(folder),
                    "suite": suite,
                    "wheels": str(wheels) if wheels else None,
                    "quick": quick,
                    "max_units": max_units,
                    "instances": [list(i) for i in instances],
                    "instance_k": instance_k,
                    "min_tests": min_tests,
                }
                proc = ctx.Process(target=_child, args=(args,), daemon=False)
                proc.start()
                running[e.key] = (proc, time.monotonic())
            time.sleep(0.2)
            for key, (p, started) in list(running.items()):
                if p.is_alive() and time.monotonic() - started < timeout_s:
                    continue
                if p.is_alive():
                    _kill_group(p.pid)
                    p.join(10)
                    out = Outcome(key, cause="ran past its time limit")
                    out.detail = f"stopped after {timeout_s:.0f} s (--timeout)"
                    out.seconds["end"] = round(time.monotonic() - started, 1)
                    _write_status(folder, out)
                p.join()
                del running[key]
                got = _read_status(folder, key) or Outcome(
                    key, cause="the worker died", detail=f"exit code {p.exitcode}"
                )
                done[key] = got
                line(_one_line(got, width))
    finally:
        for _key, (proc, _) in running.items():
            if proc.is_alive():
                _kill_group(proc.pid)
                proc.join(10)
    outcomes = [done[e.key] for e in entries if e.key in done]
    for text in summary(outcomes):
        line(text)
    _write_index(folder, suite, outcomes)
    return outcomes


def _stop_on_sigterm() -> None:
    """SIGTERM stops the suite like Ctrl-C: the running projects are ended, nothing is left.

    (A background job's SIGINT is ignored, so `kill` is how a suite run is stopped.)
    """
    import threading

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def _needs_instances(prev: Outcome, instances: Sequence[tuple[str, int]]) -> bool:
    if not prev.valid or not instances:
        return False
    kinds = {
        name.rsplit("_s", 1)[0].rsplit("_", 1)[-1].rstrip("0123456789") for name in prev.instances
    }
    return any(kind not in kinds for kind, _ in instances)


def _kill_group(pid: int | None) -> None:
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _one_line(o: Outcome, width: int) -> str:
    time_s = f"{o.total_s:7.1f} s"
    if o.valid:
        inst = ""
        if o.instances:
            ok = sum(o.instances.values())
            inst = f", {ok}/{len(o.instances)} instances valid"
        return (
            f"{o.key:<{width}}  valid      {o.tests:4d} tests {o.units:3d} units "
            f"{o.deselected:3d} deselected{inst}  {time_s}"
        )
    first = (o.detail.strip().splitlines() or [""])[0]
    first = first.removeprefix(f"{o.cause}: ")[:100]  # the cause is said once
    return f"{o.key:<{width}}  not valid  {o.cause}: {first}  {time_s}"


def summary(outcomes: Iterable[Outcome]) -> list[str]:
    """The report's end: failures grouped by cause and a summary table."""
    outcomes = list(outcomes)
    valid = [o for o in outcomes if o.valid]
    failed = [o for o in outcomes if not o.valid]
    lines = [""]
    if failed:
        groups: dict[str, list[str]] = {}
        for o in failed:
            groups.setdefault(o.cause, []).append(o.key)
        lines.append("not valid, by cause:")
        for cause, keys in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  {len(keys):3d} x {cause}: {', '.join(keys)}")
        lines.append("")
    with_desel = [o for o in valid if o.deselected]
    times = sorted(o.total_s for o in outcomes)
    median = times[len(times) // 2] if times else 0.0
    n_inst = sum(len(o.instances) for o in valid)
    ok_inst = sum(sum(o.instances.values()) for o in valid)
    rows = [
        ("projects", str(len(outcomes))),
        ("valid", f"{len(valid)} of {len(outcomes)} valid"),
        ("valid with tests deselected", str(len(with_desel))),
        ("tests (valid tasks)", str(sum(o.tests for o in valid))),
        ("units (valid tasks)", str(sum(o.units for o in valid))),
        ("build time, median per project", f"{median:.1f} s"),
        ("build time, total", f"{sum(times):.1f} s"),
    ]
    if n_inst:
        rows.append(("instances valid", f"{ok_inst} of {n_inst}"))
    w = max(len(k) for k, _ in rows)
    lines += [f"{k:<{w}}  {v}" for k, v in rows]
    return lines


def _write_index(folder: Path, suite: str, outcomes: list[Outcome]) -> None:
    data = {
        "suite": suite,
        "projects": {o.key: {**asdict(o), "total_s": o.total_s} for o in outcomes},
    }
    (folder / "suite.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
