"""The `swarm-envs train` command: the trainer of a policy, which parses its own options.

`swarm_envs.cli` reaches this module by name only (the library never imports the
baselines), and hands it the rest of the command line as it is: each trainer parses its
options (a dataclass, with tyro), `--help` and `--policy` included.
"""

from __future__ import annotations

import argparse

from swarm_envs.arguments import import_extra
from swarm_envs.error import ConfigError

#: `swarm-envs train --policy NAME`: the trainer of each policy
TRAINERS = {"menu": "swarm_envs.baselines.ppo", "lm": "swarm_envs.baselines.lm.train"}


def configure(parser: argparse.ArgumentParser) -> None:
    """Take the rest of the command line as the trainer's options."""
    parser.add_argument("options", nargs=argparse.REMAINDER)


def run(args: argparse.Namespace) -> int:
    """Train: PPO on menu mode (default), or language models with `--policy lm`."""
    options = list(args.options)
    policy = "menu"
    for k, opt in enumerate(options):
        if opt == "--policy" or opt.startswith("--policy="):
            policy = opt.partition("=")[2] if "=" in opt else (options[k + 1 : k + 2] or [""])[0]
            break
    if policy not in TRAINERS:
        raise ConfigError(f"--policy {policy!r}: expected one of {', '.join(TRAINERS)}")
    trainer = import_extra(TRAINERS[policy], "train", who="swarm-envs train")
    return int(trainer.main(options))
