"""The bench's configuration: a grid of agents x swarm sizes x tasks x seeds, validated.

A configuration comes from flags (`swarm-envs bench --agent claim --sizes 1 8`), from a
TOML file (`swarm-envs bench --config bench.toml`), or both (flags win):

    tasks = ["standard"]          # task names or ids, or suites: mini, standard, long
    sizes = [1, 8]
    seeds = [0, 1, 2]
    token_budget_per_test = 300   # also run every configuration under this token budget
    ray = true                    # episodes in Ray actors (ray_address = "auto": a cluster)

    [[agents]]
    kind = "scripted"             # strategy: none, claim or leader
    strategy = "claim"
    p_wrong = 0.3

    [[agents]]
    kind = "llm"                  # any OpenAI-compatible chat-completions server
    model = "Qwen/Qwen3-8B"
    base_url = "http://localhost:8000/v1"

    [[agents]]
    kind = "import"               # your own agents: factory(**kwargs) -> one agent
    factory = "mypkg.agents:make_agent"

    [[agents]]
    kind = "mcp"                  # an external coding agent over MCP (workers = 1)
    port = 8100                   # its slots: http://127.0.0.1:8100/agent_K/mcp
    slots = 1                     # the last agent; the others scripted teammates

Everything is checked when the configuration is built: an unknown task, agent kind,
strategy or option fails at once, naming the field and the valid choices.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from swarm_envs.agents.protocol import parse_llm_spec
from swarm_envs.distributed import check_ray_address
from swarm_envs.error import ConfigError, Error, close_matches, describe_invalid
from swarm_envs.tasks import SUITES, Task, get_task, registered, resolve_tasks

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

STRATEGIES = ("none", "claim", "leader")

#: per suite: the default time cap and the unit of its @time budgets (virtual seconds);
#: the budgets are 0.5, 1, 2 and 4 units, as long-horizon benchmarks report @2h, @4h
SUITE_SCALE: dict[str, tuple[float, float]] = {
    "mini": (600.0, 60.0),
    "standard": (7200.0, 600.0),
    "long": (8 * 3600.0, 3600.0),
}
_DEFAULT_SCALE = SUITE_SCALE["standard"]
BUDGET_UNITS = (0.5, 1.0, 2.0, 4.0)


def suite_scale(suite: str) -> tuple[float, float]:
    """(default time cap, budget unit) of a suite, in virtual seconds."""
    return SUITE_SCALE.get(suite, _DEFAULT_SCALE)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _AgentSpec(_Model):
    """What every kind of agent spec has: a name, and from it a label and a family.

    `label` is what tables and plots call the agents; `family` is their name without a
    coordination strategy, which is what a swarm is compared with at size 1.
    """

    name: str | None = Field(
        default=None, description="label in tables and plots (default: from the settings)"
    )


class ScriptedAgents(_AgentSpec):
    """Scripted agents (`swarm_envs.agents.scripted`): a strategy and a work model."""

    kind: Literal["scripted"] = "scripted"
    strategy: Literal["none", "claim", "leader"] = "claim"
    p_wrong: float = Field(default=0.3, ge=0, le=1, description="a wrong attempt first")
    reasoning_tokens: int = Field(default=200, ge=0)
    edit_reasoning_tokens: int = Field(default=600, ge=0)
    context_tokens: int = Field(default=8000, ge=0)
    read_dependencies: bool = True
    work_model: Literal["flat", "conversation"] = Field(
        default="flat",
        description="input tokens per action: 'flat' (observations read, capped) or "
        "'conversation' (the prompt an LLMAgent would send, under its context policy)",
    )

    @model_validator(mode="after")
    def _context_holds_reply(self) -> ScriptedAgents:
        from swarm_envs.agents.scripted import REPLY_TOKENS

        if self.work_model == "conversation" and self.context_tokens <= REPLY_TOKENS:
            raise ValueError(
                f"context_tokens={self.context_tokens}: with work_model='conversation' it "
                f"must exceed the {REPLY_TOKENS} tokens an LLMAgent keeps free for its reply"
            )
        return self

    @property
    def family(self) -> str:
        """`scripted` and the work model's settings that differ from the defaults."""
        changed = [
            f"{k}={v}"
            for k, v in self.model_dump(exclude={"kind", "strategy", "name"}).items()
            if v != type(self).model_fields[k].default
        ]
        return "scripted" + (f" ({', '.join(changed)})" if changed else "")

    @property
    def label(self) -> str:
        """The strategy, with the family's settings when they are not the defaults."""
        if self.name:
            return self.name
        family = self.family
        return self.strategy + family[len("scripted") :]


class LLMAgents(_AgentSpec):
    """`swarm_envs.agents.LLMAgent`s over an OpenAI-compatible chat-completions server."""

    kind: Literal["llm"] = "llm"
    model: str = Field(min_length=1)
    base_url: str = Field(pattern=r"^https?://", description="e.g. http://localhost:8000/v1")
    api_key_env: str = Field(
        default="OPENAI_API_KEY", description="environment variable holding the key"
    )
    context_tokens: int = Field(default=32_768, ge=256)
    max_tokens: int = Field(default=512, ge=1)
    temperature: float | None = Field(default=None, ge=0)
    stop: list[str] | None = Field(
        default=None, description='stop sequences, e.g. ["</tool_call>"] for text-mode calls'
    )
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=2, ge=0)

    @property
    def label(self) -> str:
        """`llm MODEL`, or the given name."""
        return self.name or f"llm {self.model}"

    @property
    def family(self) -> str:
        """The label: LLM agents have no strategy of ours."""
        return self.label


class ImportedAgents(_AgentSpec):
    """Your own agents: `factory(**kwargs)` makes one agent (see `swarm_envs.agents`)."""

    kind: Literal["import"] = "import"
    factory: str = Field(pattern=r"^[\w.]+:[\w.]+$", description="'package.module:callable'")
    kwargs: dict[str, Any] = Field(default_factory=dict)

    @field_validator("factory")
    @classmethod
    def _importable(cls, v: str) -> str:
        resolve_factory(v)
        return v

    @property
    def label(self) -> str:
        """The factory's path, or the given name."""
        return self.name or self.factory

    @property
    def family(self) -> str:
        """The label: imported agents have no strategy of ours."""
        return self.label


class MCPAgents(_AgentSpec):
    """External agents over MCP (`swarm_envs.serve.mcp`, extra `serve`): the last `slots`.

    Each episode serves its slots at `http://host:port/<agent>/mcp`; the external agent
    (any MCP client) plays them, the other agents are scripted `teammates`. Episodes run
    one at a time (`workers = 1`), on the same endpoints.
    """

    kind: Literal["mcp"] = "mcp"
    port: int = Field(default=8100, ge=1, le=65535)
    host: str = "127.0.0.1"
    slots: int | None = Field(default=None, ge=1, description="MCP agents (default: all)")
    teammates: Literal["none", "claim", "leader"] = "claim"
    teammate_work_model: Literal["flat", "conversation"] = Field(
        default="flat", description="the scripted teammates' work model (as `work_model`)"
    )
    slot_timeout_s: float = Field(default=300.0, gt=0)

    @property
    def label(self) -> str:
        """`mcp PORT`, or the given name."""
        return self.name or f"mcp {self.port}"

    @property
    def family(self) -> str:
        """The label: an external agent has no strategy of ours."""
        return self.label


AgentSpec = Annotated[
    ScriptedAgents | LLMAgents | ImportedAgents | MCPAgents, Field(discriminator="kind")
]
AGENT_KINDS = ("scripted", "llm", "import", "mcp")


def resolve_factory(path: str) -> Any:
    """The callable `path` names (`package.module:callable`), or `ValueError` saying why."""
    module, _, attr = path.partition(":")
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as e:
        raise ValueError(f"cannot import {module!r}: {e}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"module {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"{path!r} is not callable")
    return obj


def _default_agents() -> ScriptedAgents | LLMAgents | ImportedAgents | MCPAgents:
    return ScriptedAgents()


def _default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


class BenchConfig(_Model):
    """A bench: every agent spec x every size x every task x every seed.

    Attributes:
        agents: the agents to compare (scripted, LLM, imported).
        sizes: swarm sizes; 1 is the single agent every swarm is compared with.
        tasks: task names, ids or folders, or suite names (a suite is all its tasks).
        seeds: the seeds of every configuration.
        time_cap_s: virtual seconds per episode (default: per suite, see `SUITE_SCALE`).
        budgets_s: the @time budgets of the scores (default: per suite).
        token_budget_per_test: run every configuration again under an equal total token
            budget of this many tokens per canonical test (all agents together share it).
        wall_clock: measured tool times and model latency (for real servers).
        workers: episodes run side by side in worker processes (Ray actors with `ray`).
        ray: run the episodes in Ray actors (extra `ray`) instead of worker processes.
        ray_address: the Ray cluster to join ('auto', 'host:port', 'ray://host:port');
            implies `ray`. Without it, `ray` starts a Ray instance on this machine.
        out: the folder for episodes, trajectories, the report and the plots.
        plots: draw the PNG plots.
    """

    agents: list[AgentSpec] = Field(default_factory=lambda: [_default_agents()], min_length=1)
    sizes: list[Annotated[int, Field(ge=1, le=4096)]] = Field(
        default_factory=lambda: [1, 4], min_length=1
    )
    tasks: list[str] = Field(default_factory=lambda: ["mini"], min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [0, 1, 2], min_length=1)
    time_cap_s: float | None = Field(default=None, gt=0)
    budgets_s: list[Annotated[float, Field(gt=0)]] | None = None
    token_budget_per_test: float | None = Field(default=None, gt=0)
    wall_clock: bool = False
    workers: int = Field(default_factory=_default_workers, ge=1, le=256)
    ray: bool = False
    ray_address: str | None = None
    out: str = "bench_out"
    plots: bool = True

    @field_validator("tasks")
    @classmethod
    def _tasks_exist(cls, v: list[str]) -> list[str]:
        for name in v:
            if name not in SUITES:
                _task(name)
        return v

    @field_validator("ray_address")
    @classmethod
    def _ray_address(cls, v: str | None) -> str | None:
        try:
            return check_ray_address(v)
        except ConfigError as e:  # pydantic names the field; the reason is enough
            raise ValueError(str(e).partition(": ")[2]) from None

    @field_validator("sizes", "seeds")
    @classmethod
    def _distinct(cls, v: list[int]) -> list[int]:
        return sorted(set(v))

    @model_validator(mode="after")
    def _labels_unique(self) -> BenchConfig:
        labels = [a.label for a in self.agents]
        twice = sorted({x for x in labels if labels.count(x) > 1})
        if twice:
            raise ValueError(
                f"agents: more than one entry is called {twice}; give each a distinct `name`"
            )
        return self

    @model_validator(mode="after")
    def _mcp_one_at_a_time(self) -> BenchConfig:
        if any(isinstance(a, MCPAgents) for a in self.agents) and (self.workers > 1 or self.on_ray):
            raise ValueError(
                f"agents of kind 'mcp' share their endpoints, so episodes run one at a time: "
                f"set workers = 1 (got {self.workers}) and no ray"
            )
        return self

    @property
    def on_ray(self) -> bool:
        """Episodes run in Ray actors (`ray`, or a `ray_address`)."""
        return self.ray or self.ray_address is not None

    def resolved_tasks(self) -> list[Task]:
        """Every task of the bench, suites expanded, each once, in the order given."""
        try:
            return resolve_tasks(self.tasks)
        except Error as e:
            raise ConfigError(f"tasks={self.tasks}: {e}") from None

    def time_cap(self, task: Task) -> float:
        """The time cap of an episode on `task`."""
        return self.time_cap_s or suite_scale(task.manifest.suite)[0]

    def budgets(self, suite: str) -> list[float]:
        """The @time budgets for tasks of `suite`."""
        if self.budgets_s:
            return sorted(self.budgets_s)
        unit = suite_scale(suite)[1]
        return [unit * k for k in BUDGET_UNITS]

    def token_budget(self, task: Task, tests_total: int) -> int | None:
        """The equal token budget of an episode on `task` (None: unbudgeted)."""
        if self.token_budget_per_test is None:
            return None
        return max(1, math.ceil(self.token_budget_per_test * tests_total))


def _task(name: str) -> Task:
    try:
        return get_task(name)
    except Error as e:
        known = sorted({t.rsplit("-v", 1)[0] for t in registered()})
        said = str(e)  # names the task, and what went wrong (name, version or folder)
        hint = close_matches(name, [*known, *SUITES]) if "did you mean" not in said else []
        did = f"; did you mean: {', '.join(hint)}?" if hint else ""
        raise ValueError(f"{said}{did}; valid: suites {list(SUITES)} or tasks {known}") from None


# ---------------------------------------------------------------------- flags and files


def parse_agent(text: str) -> dict[str, Any]:
    """An agent spec from its flag form.

    - `claim`, `none`, `leader` or `scripted:claim`: scripted agents with that strategy;
    - `llm:MODEL@URL`: LLM agents, e.g. `llm:Qwen/Qwen3-8B@http://localhost:8000/v1`;
    - `mcp:PORT`: external agents over MCP, every agent a slot at 127.0.0.1:PORT;
    - `package.module:callable` (or `import:package.module:callable`): your own agents.
    """
    kind, _, rest = text.partition(":")
    if not rest and text in STRATEGIES:
        return {"kind": "scripted", "strategy": text}
    if kind == "scripted":
        if rest not in STRATEGIES:
            raise ConfigError(
                f"--agent {text!r}: unknown strategy {rest!r}; expected one of {list(STRATEGIES)}"
            )
        return {"kind": "scripted", "strategy": rest}
    if kind == "llm":
        model, url = parse_llm_spec(text)
        return {"kind": "llm", "model": model, "base_url": url}
    if kind == "import":
        return {"kind": "import", "factory": rest}
    if kind == "mcp":
        if not rest.isdigit():
            raise ConfigError(f"--agent {text!r}: expected mcp:PORT")
        return {"kind": "mcp", "port": int(rest)}
    if rest:
        return {"kind": "import", "factory": text}
    raise ConfigError(
        f"--agent {text!r}: expected a strategy ({', '.join(STRATEGIES)}), scripted:STRATEGY, "
        "llm:MODEL@URL or package.module:factory"
    )


def build_config(
    path: str | Path | None = None, overrides: Mapping[str, Any] | None = None
) -> BenchConfig:
    """A validated `BenchConfig` from a TOML file and/or overrides (the flags).

    Raises:
        ConfigError: naming the file, the field, the value and what was expected.
    """
    data: dict[str, Any] = {}
    where = "bench configuration"
    if path is not None:
        where = str(path)
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"no such bench configuration file: {path}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: not valid TOML: {e}") from None
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    try:
        return BenchConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{where}: {_explain(e)}") from None


def _explain(e: ValidationError) -> str:
    problems = describe_invalid(e, allowed={"": BenchConfig.model_fields})
    if "union_tag_invalid" in str(e) or "union_tag_not_found" in str(e):
        problems += f" (agent kinds: {list(AGENT_KINDS)})"
    return problems
