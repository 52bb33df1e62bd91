"""What validation's order-dependence check costs (swarm_envs.generation.validation, check 3).

Validation runs a bounded sample of the tests alone (`alone_sample`: at most
`ALONE_PER_MODULE` tests of a test module, `ALONE_PER_TASK` of the task), each in a run of
its own, and compares each outcome with the full suite's. This times `validate(task)` with
the check and without it (`check_order=False`, the obvious alternative: what validation did
before), alternating between the two so that a change in the machine's load hits both
alike, and prints the medians, the difference and its share.

    python benchmarks/bench_validation.py [--tasks calc,humanize] [--repeats 3] [--units]

`--units` keeps the per-unit check in both (the default leaves it out of both: it does not
depend on the order check and would only add the same seconds to each side).
"""

from __future__ import annotations

import argparse
import statistics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="calc,humanize", help="comma-separated task ids")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--units", action="store_true", help="keep the per-unit check")
    args = parser.parse_args()

    from swarm_envs.generation.validation import alone_sample, validate
    from swarm_envs.scoring.runner import ProjectRunner
    from swarm_envs.tasks import get_task

    print(f"{'task':<12} {'tests':>6} {'alone':>6} {'without s':>10} {'with s':>8} {'added s':>8}")
    for name in args.tasks.split(","):
        task = get_task(name)
        with ProjectRunner(task) as r:
            ids = r.test_ids()
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.repeats):
            for order in (False, True):
                rep = validate(task, check_units=args.units, check_order=order)
                if not rep.ok:
                    raise SystemExit(f"{name}: not valid: {rep.problems}")
                times[order].append(rep.seconds)
        without, with_ = (statistics.median(times[o]) for o in (False, True))
        print(
            f"{name:<12} {len(ids):>6} {len(alone_sample(ids)):>6} {without:>10.2f} "
            f"{with_:>8.2f} {with_ - without:>+8.2f} ({(with_ - without) / without:+.0%})"
        )


if __name__ == "__main__":
    main()
