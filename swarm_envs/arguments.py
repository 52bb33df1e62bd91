"""What the `swarm-envs` commands share: argument types, the flags several take, the console.

Each command's module (`configure(parser)`, `run(args)`; see `swarm_envs.cli`) adds its own
flags; a flag that more than one command takes is defined here once, so that its spelling,
type and help are the same everywhere: the positive-number types, the task a command runs,
`--quiet`, `--suite`, `--wheels`, the environment's configuration of the serving commands
(`--time-cap`, `--sync`, `--seed`, `--env-config`) and their address (`--host`, `--port`).
`import_extra` turns a missing optional dependency into the error that names the extra.

Layer: just above `swarm_envs.tasks` (it reads the suites' names), below everything that
holds a command; only the command modules and `swarm_envs.cli` import it (a contract checks
it).
"""

from __future__ import annotations

import argparse
import importlib
import json
from types import ModuleType
from typing import Any

from rich.console import Console

from swarm_envs.error import ConfigError
from swarm_envs.tasks import SUITES

#: where every command prints its tables, progress and messages
console = Console()

#: the top-level names of the packages of each extra that a command needs, as imported
EXTRAS = {
    "serve": ("openenv", "mcp", "fastapi", "uvicorn"),
    "train": ("torch", "tyro", "tensorboard", "transformers", "tokenizers", "peft"),
}

#: the task argument of the commands that run episodes (`run`, `serve`, `mcp`)
TASK_HELP = "task id or name (see `swarm-envs list`), or a task folder"


def positive_int(text: str) -> int:
    """An argument type: an integer of at least 1."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def positive_float(text: str) -> float:
    """An argument type: a number of seconds greater than 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {v}")
    return v


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """`--quiet`/`-q`: no progress bar."""
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def add_suite_filter(parser: argparse.ArgumentParser) -> None:
    """`--suite NAME`: only the tasks of this suite."""
    parser.add_argument("--suite", choices=SUITES, help="only this suite")


def add_wheels(parser: argparse.ArgumentParser) -> None:
    """`--wheels DIR`: install a project's requirements from local wheels."""
    parser.add_argument(
        "--wheels", metavar="DIR", help="take the requirements' wheels from DIR (no index)"
    )


def add_serving_flags(parser: argparse.ArgumentParser, port: int) -> None:
    """The task, the address and the environment's configuration of a serving command."""
    parser.add_argument("task", help=TASK_HELP)
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1; any other needs SWARM_ENVS_TOKEN set)",
    )
    parser.add_argument(
        "--port", type=port_number, default=port, help=f"port (default {port}; 0: any free port)"
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        metavar="ORIGIN",
        help="answer requests from web pages of this origin too (repeatable; "
        "'http://name:*' for any port, '*' for any page); by default only pages served "
        "from this machine's loopback names, and clients that send no Origin",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        metavar="HOST",
        help="answer requests under this Host name too (repeatable; 'name:*' for any port, "
        "'*' for any); by default the loopback names and the --host address",
    )
    add_env_config_flags(parser)


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a port, 0 to 65535")
    return value


def add_env_config_flags(parser: argparse.ArgumentParser) -> None:
    """`--time-cap`, `--sync`, `--seed` and `--env-config JSON`: read with `env_config`."""
    parser.add_argument("--time-cap", type=positive_float, help="virtual seconds per episode")
    parser.add_argument("--sync", choices=["event", "round"], help="clock mode")
    parser.add_argument("--seed", type=int, help="seed of the first episode")
    parser.add_argument(
        "--env-config", metavar="JSON", help='more EnvConfig fields, e.g. \'{"scorer": "fast"}\''
    )


def env_config(args: argparse.Namespace) -> dict[str, Any]:
    """The environment's configuration from the flags of `add_env_config_flags`.

    Raises:
        ConfigError: `--env-config` is not a JSON object.
    """
    config: dict[str, Any] = {}
    if args.env_config:
        try:
            config = json.loads(args.env_config)
        except json.JSONDecodeError as e:
            raise ConfigError(f"--env-config: not valid JSON: {e}") from None
        if not isinstance(config, dict):
            raise ConfigError("--env-config: expected a JSON object of EnvConfig fields")
    for key, value in (("time_cap_s", args.time_cap), ("sync", args.sync), ("seed", args.seed)):
        if value is not None:
            config[key] = value
    return config


def import_extra(module: str, extra: str, who: str = "this command") -> ModuleType:
    """Import `module`, which needs the optional dependencies of `extra`.

    Args:
        module: the module to import.
        extra: the extra of swarm-envs that installs its dependencies (in `EXTRAS`).
        who: what needs the extra, as the error message says it.

    Raises:
        ConfigError: a package of the extra is missing; the message says what to install.
            Another missing module is a bug, raised as it is.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] not in EXTRAS[extra]:
            raise
        raise ConfigError(
            f"{who} needs the {extra} extra ({e.name} is missing): "
            f"pip install 'swarm-envs[{extra}]'"
        ) from None
