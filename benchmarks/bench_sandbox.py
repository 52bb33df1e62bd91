"""Sandbox benchmark: what confinement costs per command, and how fast limits bite.

Each backend runs the same commands as the obvious alternative, a plain
`subprocess.run(["/bin/sh", "-c", ...])` with no confinement at all, in the same run:

  (a) `true` in an empty workspace: the fixed cost of one command;
  (b) `true` in a workspace of `--files` files the host has just rewritten: what handing
      the workspace to the sandbox's unprivileged uid adds (`local-bwrap` does it as root;
      `local-bwrap-root` is the same sandbox with dedicated uids off, for comparison);
  (c) when a `sleep 30` under a wall-clock limit of 1 s comes back (killed);
  (d) how long a command that leaves a background `sleep` behind takes to return;
  (e) how long a CPU-bound loop under a CPU limit of 1 s takes to be killed;
  (f) how long a fork bomb (40 processes at most) takes to end; 10.0 means the wall-clock
      limit of 10 s ended it, its processes contained until then.

(a) and (b) are medians over `--repeats` runs (the host files rewritten at random, seeded,
before each run of b) with the ratio to the plain subprocess; (c)-(f) are single runs,
in seconds. The Docker backend is measured when an engine answers (`DOCKER_HOST`).
`--image` also times `ensure_image` with the image present (the warm path of every run).

    python benchmarks/bench_sandbox.py [--repeats 20] [--files 1000] [--seed 0] [--image]
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from swarm_envs.error import BackendUnavailable
from swarm_envs.sandboxes import SandboxLimits, make_sandbox
from swarm_envs.sandboxes.local import ISOLATIONS, LocalSandbox


class Plain:
    """The alternative: a shell in a directory, nothing confined."""

    backend = "plain"

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="bench-plain-"))

    def run(self, command: str, timeout_s: float | None = None) -> None:
        try:
            subprocess.run(["/bin/sh", "-c", command], cwd=self.root, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def makers() -> dict[str, Callable[[SandboxLimits | None], object]]:
    out: dict[str, Callable[[SandboxLimits | None], object]] = {"plain": lambda _lim: Plain()}
    for iso in ISOLATIONS:
        try:
            LocalSandbox(isolation=iso).close()
        except BackendUnavailable:
            continue  # stronger than this machine offers
        out[f"local-{iso}"] = functools.partial(LocalSandbox, isolation=iso)
    if os.geteuid() == 0 and "local-bwrap" in out:

        def root_bwrap(lim: SandboxLimits | None) -> object:
            os.environ["SWARM_ENVS_SANDBOX_UIDS"] = "off"
            try:
                return LocalSandbox(lim, isolation="bwrap")
            finally:
                del os.environ["SWARM_ENVS_SANDBOX_UIDS"]

        out["local-bwrap-root"] = root_bwrap
    try:
        make_sandbox("docker").close()
        out["docker"] = lambda lim: make_sandbox("docker", limits=lim)
    except BackendUnavailable as e:
        print(f"(docker not measured: {str(e)[:120]})")
    return out


def median_ms(fn: Callable[[], object], repeats: int, before: Callable[[], object] = lambda: None):
    times = []
    for _ in range(repeats):
        before()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def once_s(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


LIMITED = {
    "c": (SandboxLimits(wall_s=1), "sleep 30"),
    "d": (None, "sleep 31 > /dev/null 2>&1 & echo started"),
    "e": (SandboxLimits(cpu_s=1), "python3 -c 'while True: pass'"),
    "f": (SandboxLimits(max_procs=40), "bash -c ':(){ :|:& };:'"),
}


def measure(name: str, make: Callable, args: argparse.Namespace, rng: random.Random):
    """(a) and (b) in ms, then (c)-(f) in seconds, for one backend."""
    sb = make(None)
    root: Path = sb.root
    try:
        sb.run("true")  # warm caches
        a = median_ms(lambda: sb.run("true"), args.repeats)
        for i in range(args.files):
            (root / f"d{i % 20}").mkdir(exist_ok=True)
            (root / f"d{i % 20}" / f"f{i}.py").write_text(f"x = {i}\n")

        def rewrite() -> None:
            for i in rng.sample(range(args.files), 10):
                (root / f"d{i % 20}" / f"f{i}.py").write_text(f"x = {rng.random()}\n")

        b = median_ms(lambda: sb.run("true"), args.repeats, before=rewrite)
    finally:
        sb.close()
    timed = {}
    for key, (lim, cmd) in LIMITED.items():
        if name == "plain" and key != "d":
            timed[key] = float("nan")  # nothing would stop it
            continue
        limited = make(lim)
        # (c) runs into its own wall-clock limit; the others would end by 10 s at the latest.
        timeout = None if key == "c" else 10
        try:
            timed[key] = once_s(lambda: limited.run(cmd, timeout_s=timeout))  # noqa: B023
        finally:
            limited.close()
    return a, b, timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=20, help="runs per median (a, b)")
    ap.add_argument("--files", type=int, default=1000, help="workspace size for (b)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the host rewrites in (b)")
    ap.add_argument("--image", action="store_true", help="also time ensure_image (warm)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows = [(name, *measure(name, make, args, rng)) for name, make in makers().items()]
    base_a, base_b = rows[0][1], rows[0][2]
    print(f"\ncommand cost (median of {args.repeats}; ratio to plain) and limits (seconds)")
    head = f"{'backend':18} {'(a) true':>15} {f'(b) {args.files} files':>17}"
    head += f" {'(c) wall 1s':>12} {'(d) bg':>8} {'(e) cpu 1s':>11} {'(f) forks':>10}"
    print(head)
    for name, a, b, t in rows:
        print(
            f"{name:18} {a:8.1f} ms {a / base_a:4.1f}x {b:9.1f} ms {b / base_b:4.1f}x"
            f" {t['c']:12.2f} {t['d']:8.2f} {t['e']:11.2f} {t['f']:10.2f}"
        )
    if args.image:
        import docker

        from swarm_envs.sandboxes.docker_image import ensure_image

        client = docker.from_env()
        ms = median_ms(lambda: ensure_image(client), 5)
        print(f"\nensure_image with the image present: {ms:.1f} ms (median of 5)")


if __name__ == "__main__":
    main()
