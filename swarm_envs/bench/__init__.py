"""The swarm benchmark: agents x swarm sizes x tasks x seeds, measured, plotted, reported.

    swarm-envs bench --tasks standard --agent claim --agent none --sizes 1 8 --seeds 0 1 2

or from Python:

    from swarm_envs.bench import build_config, run_bench, write_report

    run = run_bench(build_config(overrides={"tasks": ["calc"], "sizes": [1, 4]}))
    write_report(run)        # report.md, figures.json and the plots under run.out

`config` validates the grid, `runner` runs its episodes in worker processes and records
them, `measures` and `fit` turn progress curves into figures (pure functions), `plots`
draws them and `report` writes the Markdown report and the JSON of every figure;
`cli_bench` is the `swarm-envs bench` command.

Layer: the top, beside the checker harness: may import the agents (scripted ones among
them), the worker pool and everything below.
"""

from __future__ import annotations

from swarm_envs.bench.config import (
    BenchConfig,
    ImportedAgents,
    LLMAgents,
    ScriptedAgents,
    build_config,
    parse_agent,
)
from swarm_envs.bench.report import write_report
from swarm_envs.bench.runner import (
    BenchRun,
    EpisodeResult,
    EpisodeSpec,
    grid,
    load_results,
    map_episodes,
    run_bench,
)

__all__ = [
    "BenchConfig",
    "BenchRun",
    "EpisodeResult",
    "EpisodeSpec",
    "ImportedAgents",
    "LLMAgents",
    "ScriptedAgents",
    "build_config",
    "grid",
    "load_results",
    "map_episodes",
    "parse_agent",
    "run_bench",
    "write_report",
]
