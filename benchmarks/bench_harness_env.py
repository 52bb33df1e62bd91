"""The first-use cost of the scorer's private pytest (swarm_envs.scoring.harness_env).

    python benchmarks/bench_harness_env.py [--wheels DIR] [--repeat 3]

Each row runs in a fresh process with a fresh cache folder (`SWARM_ENVS_CACHE`):

- first use: `harness_env()` installs the pinned, hash-checked wheels (from the index,
  or `--wheels DIR` with no index) and checks every file against its RECORD;
- later use: `harness_env()` in a new process over the built folder (the check alone);
- the obvious alternative: a fresh virtual environment with `pip install pytest==9.2.0`,
  what a user without the private harness would do.

Prints the median seconds of each and the ratio of the first use to the alternative.
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--wheels", help="install from this folder of wheels (no index)")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
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


if __name__ == "__main__":
    main()
