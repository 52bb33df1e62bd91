"""What the scorer's private pytest costs (swarm_envs.scoring.harness_env).

    python benchmarks/bench_harness_env.py [--wheels DIR] [--repeat 3] [--resets 10]
    python benchmarks/bench_harness_env.py --warm-only     # the second table alone

First use: each row runs in a fresh process with a fresh cache folder (`SWARM_ENVS_CACHE`):

- first use: `harness_env()` installs the pinned, hash-checked wheels (from the index,
  or `--wheels DIR` with no index) and checks every file against its RECORD;
- later use: `harness_env()` in a new process over the built folder (the check alone);
- the obvious alternative: a fresh virtual environment with `pip install pytest==9.2.0`,
  what a user without the private harness would do.

Prints the median seconds of each and the ratio of the first use to the alternative.

A warm reset (a second table, in this process, the harness built): what the harness adds
to each reset of `calc` (each reset a new sandbox): the check of its files against their
wheels (a stat of each), and showing it to the new sandbox's workers, by the way the
local sandbox does it (a read-only bind), by hard links into the scoring area (the default
elsewhere: Docker, the weaker local levels), and by the obvious alternative, a copy of its
bytes; each as a share of the warm reset itself.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

USE = (
    "import sys; from swarm_envs.scoring.harness_env import harness_env; "
    "harness_env(wheels=sys.argv[1] if len(sys.argv) > 1 else None)"
)


def _timed(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def warm(resets: int) -> None:
    """The second table: what the harness adds to a warm reset."""
    import swarm_envs
    from swarm_envs.sandboxes import make_sandbox
    from swarm_envs.sandboxes.base import ScoringHost
    from swarm_envs.scoring import harness
    from swarm_envs.scoring.harness_env import harness_env

    def median_of(fn, n: int = resets) -> float:
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    env = swarm_envs.parallel_env("calc", num_agents=1)
    env.reset(seed=0)  # the first: harness checked in full, canary, collection
    reset = median_of(lambda: env.reset(seed=0))
    env.close()
    h = harness_env()
    verify = median_of(harness.verify)

    def shown(how: str) -> None:
        with make_sandbox("local") as sb:
            host = sb.scoring_host()
            if how == "bind":
                host.show("harness", h.path)
            elif how == "links":
                ScoringHost.show(host, "harness", h.path)
            else:
                shutil.copytree(h.path, host.dir / "harness")

    base = median_of(lambda: make_sandbox("local").close())
    rows = [("check the harness's files (per scorer)", verify)]
    for how in ("bind", "links", "copy"):
        cost = median_of(lambda how=how: shown(how)) - base
        rows.append((f"show it to a new sandbox: {how}", max(0.0, cost)))
    files = len(h.files)
    print(f"\nwarm reset of calc: {reset * 1000:.1f} ms (median of {resets}); {files} files")
    print(f"{'':42}{'median ms':>10}{'/ reset':>10}")
    for name, sec in rows:
        print(f"{name:42}{sec * 1000:>10.1f}{sec / reset:>10.3f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--wheels", help="install from this folder of wheels (no index)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--resets", type=int, default=10, help="warm resets to take the median of")
    p.add_argument("--warm-only", action="store_true", help="skip the first-use table")
    args = p.parse_args()
    if args.warm_only:
        warm(args.resets)
        return
    extra = [args.wheels] if args.wheels else []
    first, later, venv = [], [], []
    baseline = _timed(
        [sys.executable, "-c", "import swarm_envs.scoring.harness_env"], dict(os.environ)
    )
    for _ in range(args.repeat):
        cache = tempfile.mkdtemp(prefix="harness-bench-")
        env = {**os.environ, "SWARM_ENVS_CACHE": cache}
        try:
            first.append(_timed([sys.executable, "-c", USE, *extra], env) - baseline)
            later.append(_timed([sys.executable, "-c", USE, *extra], env) - baseline)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        where = tempfile.mkdtemp(prefix="harness-bench-venv-")
        try:
            pip = [f"{where}/bin/python", "-m", "pip", "install", "-q", "pytest==9.2.0"]
            if args.wheels:
                pip += ["--no-index", "--find-links", args.wheels]
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "venv", where], check=True)
            subprocess.run(pip, check=True, capture_output=True)
            venv.append(time.perf_counter() - t0)
        finally:
            shutil.rmtree(where, ignore_errors=True)
    rows = [
        ("first use (install + check)", statistics.median(first)),
        ("later use (check only)", statistics.median(later)),
        ("alternative: venv + pip install pytest", statistics.median(venv)),
    ]
    print(
        f"{'':42}{'median s':>10}   ({args.repeat} runs, import time subtracted: {baseline:.2f} s)"
    )
    for name, s in rows:
        print(f"{name:42}{s:>10.2f}")
    print(f"first use / alternative: {rows[0][1] / rows[2][1]:.2f}")
    warm(args.resets)


if __name__ == "__main__":
    main()
