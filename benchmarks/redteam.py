"""Red team: every attack of the catalogue, through `env.step` only, on both scorers.

Each attack (tests/scoring/redteam_catalogue.py) writes the modules of the `calc` task (13 tests,
0 passing at the start) or of the catalogue's own `shapes` task (7 tests, its value types
compared), or runs commands, through the environment's tools, as a policy would. An
attack *holds* when the passing count stays within what its honest part earns (`allowed`,
0 for almost all), `step()` never raises, the guard reports exactly the finding kinds the
attack expects, the host is unchanged (installed harness and packages, the home's top
level, no file with the attack's marker in the home or /tmp), and the positive control
(the reference written through `env.step`) scores every test before and after (an
attack that follows one on the same task takes that one's control after as its own before).
Printed:
one row per attack and scorer, and the totals. Deterministic (no randomness); the seed
only names the episode.

    python benchmarks/redteam.py [--scorer fast|subprocess|both] [--only NAME ...]
        [--no-controls]
"""

from __future__ import annotations

import argparse
import pathlib
import sys

# The catalogue is test data, kept beside the scoring tests.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "scoring"))
from redteam_catalogue import ATTACKS, play_in_turn  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--scorer", choices=["fast", "subprocess", "both"], default="both")
    ap.add_argument("--only", nargs="*", default=None, help="attack names to run (default all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of each episode's reset")
    ap.add_argument(
        "--no-controls",
        action="store_true",
        help="skip the positive control before and after each attack (2x faster)",
    )
    args = ap.parse_args()
    kinds = ["fast", "subprocess"] if args.scorer == "both" else [args.scorer]
    attacks = [a for a in ATTACKS if not args.only or a.name in args.only]
    # One scorer after the other; an attack's control before is the previous attack's after.
    rows = [
        row
        for k in kinds
        for row in play_in_turn(attacks, k, args.seed, controls=not args.no_controls)
    ]
    head = (
        f"{'attack':44} {'class':9} {'scorer':10} {'passed':>6} {'held-out':>8} {'flags':>5}"
        f" {'control':>11}  held  kinds"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['attack']:44} {r['class']:9} {r['scorer']:10} {r['passed']:>6} "
            f"{r['held_out']:>8} {r['findings']:>5} {r['control']:>11}  "
            f"{'yes ' if r['held'] else 'NO  '}  {','.join(r['kinds']) or '-'}"  # type: ignore[arg-type]
            f"{'  raised ' + str(r['raised']) if r['raised'] else ''}"
            f"{'  host: ' + '; '.join(r['host']) if r['host'] else ''}"  # type: ignore[arg-type]
        )
    held = sum(1 for r in rows if r["held"])
    print(f"\n{len(attacks)} attacks x {len(kinds)} scorers = {len(rows)} tried, {held} held")
    print("held: no more passes than the attack's honest part earns, step() never raised,")
    print("the guard reported exactly the kinds the attack expects, the host is unchanged,")
    print("the reference scored every test before and after; for memorisation, held-out 0.")


if __name__ == "__main__":
    main()
