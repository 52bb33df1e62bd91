"""How long `swarm-envs --help` takes: the table of commands alone, or every command imported.

The dispatcher (`swarm_envs.cli`) builds the top-level help from its table of commands and
imports a command's module only when that command is used. The obvious alternative imports
every command's module first (as one module holding all the commands did). Each variant
runs in fresh interpreters, the variants alternating, and the median of the runs is
printed with its ratio to the table's, in wall seconds and in CPU seconds (user and system,
steadier on a shared machine). Two floors put the figures in scale: the bare
interpreter, and `import swarm_envs`, which any `swarm_envs.cli` pays (Python imports the
parent package first).

    python benchmarks/bench_cli.py             # 15 runs of each variant
    python benchmarks/bench_cli.py --runs 31
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

HELP = "from swarm_envs.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
EVERY_COMMAND = (
    "import importlib\nfrom swarm_envs.cli import COMMANDS\n"
    "for c in COMMANDS:\n    importlib.import_module(c.module)\n"
)

VARIANTS = {
    "interpreter alone": "pass",
    "import swarm_envs": "import swarm_envs",
    "swarm-envs --help (the table)": HELP.format(argv=["--help"]),
    "swarm-envs --help, every command imported": EVERY_COMMAND + HELP.format(argv=["--help"]),
    "swarm-envs run --help": HELP.format(argv=["run", "--help"]),
}


def timed(code: str) -> tuple[float, float]:
    """Wall and CPU seconds of a fresh interpreter running `code`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each variant")
    opts = parser.parse_args()
    for code in VARIANTS.values():  # warm the file cache and the bytecode
        timed(code)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    for _ in range(opts.runs):
        for name, code in VARIANTS.items():
            times[name].append(timed(code))
    base = [statistics.median(x) for x in zip(*times["swarm-envs --help (the table)"], strict=True)]
    print(f"{'variant':<45} {'wall s':>7} {'/ table':>8} {'CPU s':>7} {'/ table':>8}")
    for name, runs in times.items():
        wall, cpu = (statistics.median(x) for x in zip(*runs, strict=True))
        print(f"{name:<45} {wall:>7.3f} {wall / base[0]:>8.2f} {cpu:>7.3f} {cpu / base[1]:>8.2f}")
    print(f"medians of {opts.runs} runs, in fresh interpreters, the variants alternating")


if __name__ == "__main__":
    main()
