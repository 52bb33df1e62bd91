"""Red team: every attack of the catalogue, through `env.step` only, on both scorers.

Each attack (tests/scoring/attacks) writes the modules of the `calc` task (13 tests, 0
passing at the start) through the environment's write tools, as a policy would. An attack
*holds* when the passing count stays within what its honest part earns (`allowed`, 0 for
almost all), `step()` never raises, and, where the guard should see it, the finding is in
`infos["integrity"]`. Printed: one row per attack and scorer, and the totals. Deterministic
(no randomness); the seed only names the episode.

    python benchmarks/redteam.py [--scorer fast|subprocess|both] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
from scoring.attacks import ATTACKS, play  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--scorer", choices=["fast", "subprocess", "both"], default="both")
    ap.add_argument("--only", nargs="*", default=None, help="attack names to run (default all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of each episode's reset")
    args = ap.parse_args()
    kinds = ["fast", "subprocess"] if args.scorer == "both" else [args.scorer]
    attacks = [a for a in ATTACKS if not args.only or a.name in args.only]
    rows = [play(a, k, args.seed) for a in attacks for k in kinds]
    head = (
        f"{'attack':44} {'class':9} {'scorer':10} {'passed':>6} {'held-out':>8} {'flags':>5}"
        "  held  kinds"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['attack']:44} {r['class']:9} {r['scorer']:10} {r['passed']:>6} "
            f"{r['held_out']:>8} {r['findings']:>5}  {'yes ' if r['held'] else 'NO  '}  "
            f"{','.join(r['kinds']) or '-'}{'  raised ' + str(r['raised']) if r['raised'] else ''}"  # type: ignore[arg-type]
        )
    held = sum(1 for r in rows if r["held"])
    print(f"\n{len(attacks)} attacks x {len(kinds)} scorers = {len(rows)} tried, {held} held")
    print("held: no more passes than the attack's honest part earns, step() never raised,")
    print("the guard reported it where it should; for memorisation, held-out tests at 0.")


if __name__ == "__main__":
    main()
