"""Does a coordinated swarm overtake a single agent? Scripted agents, through the bench.

A thin script over `swarm-envs bench` (`swarm_envs.bench`): one scripted agent, then
swarms of each size with each coordination strategy (`none`, `claim`, `leader`), on the
tasks of a suite, seeded. Prints, per swarm, the virtual time to 90 and 100 percent of
the tests, the speed-up over the single agent (the ratio) and when the swarm overtakes
it; the full report, figures and plots are under --out.

    .venv/bin/python benchmarks/bench_swarm_vs_single.py --tasks jsonkit stackvm --sizes 8
    .venv/bin/python benchmarks/bench_swarm_vs_single.py --tasks minidb --time-cap 14400
"""

from __future__ import annotations

import argparse

from swarm_envs.bench import build_config, run_bench, write_report
from swarm_envs.bench.measures import speedup, time_to
from swarm_envs.bench.report import configurations, duration


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--tasks", nargs="+", default=["long"], help="tasks or suites")
    p.add_argument("--sizes", type=int, nargs="+", default=[8], help="swarm sizes")
    p.add_argument("--strategies", nargs="+", default=["none", "claim", "leader"])
    p.add_argument("--time-cap", type=float, help="virtual seconds (default: per suite)")
    p.add_argument("--p-wrong", type=float, default=0.0, help="chance of a wrong attempt first")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default="bench_out/swarm_vs_single")
    args = p.parse_args()
    config = build_config(
        overrides={
            "tasks": args.tasks,
            "sizes": sorted({1, *args.sizes}),
            "seeds": args.seeds,
            "agents": [
                {"kind": "scripted", "strategy": s, "p_wrong": args.p_wrong}
                for s in args.strategies
            ],
            "time_cap_s": args.time_cap,
            "workers": args.workers,
            "out": args.out,
        }
    )
    run = run_bench(config)
    report = write_report(run)
    configs = configurations(run.results)
    single = {(c.suite, c.family): c for c in configs if c.size == 1}
    print(f"virtual time to 90% / 100% of the tests (mean curve over tasks and seeds {args.seeds})")
    header = ("suite", "agents", "to 90%", "to 100%", "speed-up 90%", "tokens")
    print("{:<9} {:<24} {:>8} {:>8} {:>12} {:>10}".format(*header))
    for c in configs:
        one = single[(c.suite, c.family)].band.curve()
        curve = c.band.curve()
        ratio = speedup(time_to(one, 0.9), time_to(curve, 0.9))
        tokens = sum(r.tokens for r in c.results) / max(len(c.results), 1)
        print(
            f"{c.suite:<9} {c.name:<24} {duration(time_to(curve, 0.9)):>8} "
            f"{duration(time_to(curve, 1.0)):>8} "
            f"{'-' if ratio is None else f'{ratio:.2f}x':>12} {tokens:>10,.0f}"
        )
    print(f"report: {report}")


if __name__ == "__main__":
    main()
