"""The `swarm-envs` command: a table of its commands, and the dispatch to them.

Each command lives in a module beside the code it drives (`COMMANDS` says where), of one
shape: `configure(parser)` gives the command's parser its description and flags, and
`run(args) -> int` does the work and returns the exit status, its heavy imports inside.
Flags that several commands take are defined once, in `swarm_envs.arguments`.

A command's module is imported when its parser is first used, never to build the top-level
help: `swarm-envs --help` reads the table alone. Every module is named by a string, so that
the dispatcher reaches `train`, whose module sits with the trainers in `swarm_envs.baselines`,
as it reaches the others (the library never imports the baselines: a contract checks it).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from swarm_envs.error import Error


@dataclass(frozen=True)
class Command:
    """One command of `swarm-envs`.

    Attributes:
        name: what the user types.
        help: its line in `swarm-envs --help`.
        module: the module that holds its `configure(parser)` and `run(args)`.
        sandboxed: runs agents' code: its first line says so when the sandbox is weakened.
        own_options: the rest of the line goes as it is to the command, which parses it
            (and answers `--help`) itself.
    """

    name: str
    help: str
    module: str
    sandboxed: bool = False
    own_options: bool = False


COMMANDS = (
    Command("list", "list the tasks and suites", "swarm_envs.generation.cli_list"),
    Command(
        "run",
        "run a scripted demo swarm on a task",
        "swarm_envs.agents.cli_run",
        sandboxed=True,
    ),
    Command("validate", "check that tasks are valid", "swarm_envs.generation.cli_validate"),
    Command(
        "make-task",
        "turn your own project (a folder with a pytest suite) into a task",
        "swarm_envs.project.cli_make_task",
    ),
    Command(
        "make-suite",
        "build many real projects (name==version or sdists) into a validated suite",
        "swarm_envs.project.cli_make_suite",
    ),
    Command(
        "generate",
        "generate task instances (stubbed units or injected bugs)",
        "swarm_envs.generation.cli_generate",
    ),
    Command(
        "bench",
        "benchmark agents: swarm sizes x tasks x seeds, with a report and plots",
        "swarm_envs.bench.cli_bench",
        sandboxed=True,
    ),
    Command(
        "serve",
        "serve a task over OpenEnv (one sandboxed episode per WebSocket session)",
        "swarm_envs.serve.cli_serve",
    ),
    Command(
        "mcp",
        "serve agent slots of a swarm over MCP, for external coding agents",
        "swarm_envs.serve.cli_mcp",
    ),
    Command("replay", "summarise a recorded episode", "swarm_envs.envs.cli_replay"),
    Command(
        "train",
        "train a swarm's policy with PPO: menu mode (default) or --policy lm "
        "(see `train --help`, `train --policy lm --help`)",
        "swarm_envs.baselines.cli_train",
        sandboxed=True,
        own_options=True,
    ),
)


class CommandParser(argparse.ArgumentParser):
    """The parser of one command: its module adds the flags when the parser is first used."""

    def __init__(self, *args: Any, command: Command, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.command = command
        self._module: ModuleType | None = None

    @property
    def module(self) -> ModuleType:
        """The command's module, imported and its flags added on first use."""
        if self._module is None:
            self._module = importlib.import_module(self.command.module)
            self._module.configure(self)
        return self._module

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Parse the command's arguments, its flags added first."""
        _ = self.module
        return super().parse_known_args(args, namespace)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `swarm-envs`: each command's flags come with its first use."""
    parser = argparse.ArgumentParser(
        prog="swarm-envs",
        description="Environments in which a swarm of agents works on one software project.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=CommandParser
    )
    for command in COMMANDS:
        # A command that parses its own options gets all of them, `--help` too: with "\0" as
        # the only prefix, argparse takes no argument for an option.
        sub.add_parser(
            command.name,
            help=command.help,
            command=command,
            add_help=not command.own_options,
            prefix_chars="\0" if command.own_options else "-",
        )
    return parser


def _version() -> str:
    from swarm_envs import __version__

    return f"swarm-envs {__version__}"


def _say_if_sandbox_weakened() -> None:
    """First line of a run: a weaker sandbox asked for by name (the environment variable)."""
    from swarm_envs.arguments import console
    from swarm_envs.sandboxes.probe import FULL, confinement, requested_isolation

    level = requested_isolation()
    if level != FULL:
        console.print(confinement(level).weakness(), style="bold red", markup=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `swarm-envs`; returns the exit status."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command: CommandParser = commands.choices[args.command]
    if unknown:  # the command's usage, not the top level's
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        if command.command.sandboxed:
            _say_if_sandbox_weakened()
        return command.module.run(args)
    except Error as e:
        print(f"swarm-envs {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
