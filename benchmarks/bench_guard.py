"""The integrity guard's cost: the scoring worker's guarded run against lean pytest.

Both run every canonical test of a task's reference solution, warm, with the scorer's
pytest options:

- `lean`: plain pytest in a child forked from a process that imported pytest and its
  plugins (no guard, no reporter, pytest's own assertion rewriting);
- `guarded`: one request to the scoring worker's fork server (`worker.server`), exactly
  as the fast scorer sends it: a forked child under the audit-hook guard, the reporter,
  hardened canonical code, records on the channel.

The ratio guarded / lean is the guard's overhead (target: at most 1.3x at ~1,000 tests).
`--profile` runs the worker's one-shot mode under cProfile (started before the guard
exists) and prints the hottest functions.

This runs the reference solution on the host, outside any sandbox: trusted code only.

    python benchmarks/bench_guard.py [--task sheetcalc] [--repeats 5] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from swarm_envs.scoring import collect_test_ids
from swarm_envs.scoring.channel import _worker_files, task_settings
from swarm_envs.tasks import get_task


def make_area(task_id: str, root: Path, start: bool = False) -> tuple[str, str, list[str], int]:
    """(tree, ini, targets, tests): a scoring area like the sandbox's, on the host.

    Every canonical test runs, held-out ones included (as at an episode's end), on the
    reference solution, or with `start` on the task's starting state (most tests fail).
    """
    task = get_task(task_id)
    tree = root / "tree"
    coll = collect_test_ids(task)
    code = task.solution_files()
    if start:
        task.materialize(root / "start")
        code = {
            p.relative_to(root / "start").as_posix(): p.read_bytes()
            for p in (root / "start").rglob("*")
            if p.is_file()
        }
    for rel, data in {**code, **coll.test_files}.items():
        p = tree / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    settings = {**task_settings(task), "hash_seed": None, "site": None}  # no re-exec
    for rel, data in {
        **_worker_files(),
        "pytest.ini": task.pytest_ini(),
        "task.json": json.dumps(settings).encode(),
    }.items():
        p = root / "bin" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    n_tests = sum(len(ids) for ids in coll.by_file.values())
    return str(tree), str(root / "bin" / "pytest.ini"), sorted(coll.by_file), n_tests


class Server:
    """The worker's fork server, started as the fast scorer starts it (`run.py serve`)."""

    def __init__(self, root: Path, ini: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-B", str(root / "bin" / "run.py"), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.send({"ini": ini, "limits": {}, "pidns": False})
        self.nonce = self.proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert self.read(lambda r: r.get("ev") == "ready")
        self.seq = 0

    def send(self, record: dict) -> None:
        self.proc.stdin.write(json.dumps(record).encode() + b"\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def read(self, want) -> dict:  # noqa: ANN001 - a predicate over records
        for line in self.proc.stdout:  # type: ignore[union-attr]
            tag, _, body = line.rstrip(b"\n").partition(b" ")
            if tag == self.nonce:
                rec = json.loads(body)
                if want(rec):
                    return rec
        raise SystemExit("the scoring worker stopped")

    def run(self, tree: str, targets: list[str]) -> tuple[float, dict]:
        self.seq += 1
        t0 = time.perf_counter()
        self.send({"id": self.seq, "tree": tree, "targets": targets, "select": None})
        rec = self.read(lambda r: r.get("id") == self.seq)
        return time.perf_counter() - t0, rec

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def lean_run(tree: str, ini: str, targets: list[str]) -> float:
    """Seconds of plain pytest over `targets` in a child forked from this warm process."""
    from swarm_envs.scoring.worker.session import base_args, redirect_std

    out = Path(tree).parent / "lean.time"
    out.unlink(missing_ok=True)
    pid = os.fork()
    if pid == 0:
        try:
            import pytest

            redirect_std()
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # as the worker runs it
            sys.path.insert(0, tree)
            os.chdir(tree)
            t0 = time.perf_counter()
            pytest.main([*base_args(ini, tree), *targets])
            out.write_text(repr(time.perf_counter() - t0))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return float(out.read_text())


def profile(root: Path, tree: str, ini: str, targets: list[str], top: int = 25) -> None:
    """The worker's one-shot mode sampled by py-spy: where the guarded session's time goes.

    Prints the functions with the most samples on top of the stack (self time), and the
    share of all samples inside the guard's hook and the reporter's hooks (inclusive).
    """
    import collections
    import shutil

    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("--profile needs py-spy (pip install py-spy)")
        return
    raw = root / "guarded.txt"
    hello = {"tree": tree, "ini": ini, "targets": targets, "select": None}
    subprocess.run(
        [spy, "record", "--format", "raw", "--rate", "250", "-o", str(raw), "--"]
        + [sys.executable, "-B", str(root / "bin" / "run.py"), "once"],
        input=json.dumps(hello).encode() + b"\n",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    own: collections.Counter[str] = collections.Counter()
    inside: collections.Counter[str] = collections.Counter()
    harness: collections.Counter[str] = collections.Counter()  # per function, inclusive
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        total += n
        frames = stack.split(";")
        own[frames[-1].split(" (")[0] + " (" + frames[-1].rpartition("/")[2]] += n
        names = {f.split(" (")[0] + "@" + f.rpartition("/")[2].split(":")[0] for f in frames}
        if any(x.endswith("@guard.py") for x in names):
            inside["the guard (its audit hook and checks)"] += n
        if any(x.endswith("@reporter.py") for x in names):
            inside["the reporter's pytest hooks"] += n
        if any(x.endswith("@hardened.py") for x in names):
            inside["hardened canonical code (strict comparisons, markers)"] += n
        for x in names:
            if x.endswith(("@guard.py", "@reporter.py")):
                harness[x.partition("@")[0].rpartition(".")[2]] += n
    print(f"py-spy: {total} samples of one guarded run (`run.py once`, cold start included)")
    for what, n in inside.most_common():
        print(f"  {100 * n / total:5.1f}%  in {what}")
    print("  inclusive, the guard's and the reporter's functions:")
    for fn, n in harness.most_common(12):
        print(f"  {100 * n / total:5.1f}%  {fn}")
    print("  self time, top functions:")
    for fn, n in own.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {fn}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--task", default="sheetcalc", help="a bundled task (its reference solution)")
    ap.add_argument("--repeats", type=int, default=5, help="runs of each (median)")
    ap.add_argument("--profile", action="store_true", help="profile one guarded run")
    ap.add_argument(
        "--start", action="store_true", help="the starting state (failing tests), not the solution"
    )
    args = ap.parse_args()
    import pytest  # noqa: F401 - warm: the lean children start with pytest imported

    from swarm_envs.scoring.worker.main import preimport

    preimport()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tree, ini, targets, n_tests = make_area(args.task, root, args.start)
        server = Server(root, ini)
        try:
            server.run(tree, targets)  # the worker's first run compiles the canonical tests
            lean, guarded = [], []
            passed = 0
            for _ in range(args.repeats):
                lean.append(lean_run(tree, ini, targets))
                wall, rec = server.run(tree, targets)
                guarded.append(wall)
                passed = sum(1 for v in rec.get("results", {}).values() if v[0])
        finally:
            server.close()
        if args.profile:
            profile(root, tree, ini, targets)
    lm, gm = statistics.median(lean), statistics.median(guarded)
    print(
        f"guard benchmark: {args.task}{' (starting state)' if args.start else ''}, "
        f"{n_tests} tests ({passed} passed under the guard), "
        f"median of {args.repeats}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'lean pytest':>12} {'guarded':>9} {'overhead':>9}")
    print(f"{lm * 1e3:>10.0f}ms {gm * 1e3:>7.0f}ms {gm / lm:>8.2f}x   (target: <= 1.3x)")


if __name__ == "__main__":
    main()
