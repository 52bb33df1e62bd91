"""Configuration of a swarm environment: one pydantic model, validated at construction."""

from __future__ import annotations

import numbers
import re
from typing import Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from swarm_envs.core.tools import TOOLS
from swarm_envs.error import ConfigError, close_matches, describe_invalid


def _default_tool_seconds() -> dict[str, float]:
    # Modelled durations of the tools themselves (thinking time is separate).
    return {name: tool.cost_s for name, tool in TOOLS.items()}


#: the role of every agent when the configuration names none
DEFAULT_ROLE = "agent"
#: tools every role may call, whatever its whitelist: they change nothing, and without
#: them an agent could neither idle nor finish
ALWAYS_ALLOWED = ("wait", "done")
_ROLE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
#: a role's count: a number of agents, or "fill" (every agent the other roles leave)
RoleCount = int | Literal["fill"]


N = TypeVar("N", int, float)


def over_defaults(
    given: dict[str, N], defaults: dict[str, N], keys: str, values: str
) -> dict[str, N]:
    """`given` over `defaults`: a partial table of numbers >= 0 with known keys.

    Raises:
        ValueError: an unknown key (naming the allowed ones), or a negative number.
    """
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(f"unknown {keys} {unknown}; allowed: {list(defaults)}")
    bad = {k: x for k, x in given.items() if not x >= 0}
    if bad:
        raise ValueError(f"{values} must be >= 0, got {bad}")
    return {**defaults, **given}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class TimeModel(_Model):
    """How long actions take, in virtual seconds.

    An action's duration is its thinking time (output tokens x `output_token_s` +
    input tokens x `input_token_s`) plus its tool's duration.
    """

    output_token_s: float = Field(
        default=0.02, ge=0, description="seconds per generated token (0.02 = 50 tokens/s)"
    )
    input_token_s: float = Field(
        default=0.0005, ge=0, description="seconds per prompt token (prefill)"
    )
    tool_s: dict[str, float] = Field(
        default_factory=_default_tool_seconds,
        description="modelled duration of each tool; unspecified tools keep their default. "
        "A full run_tests takes the task's modelled suite duration, a selection its share "
        "of it, at least tool_s['run_tests'] (default 0.5)",
    )
    message_latency_s: float = Field(
        default=1.0, ge=0, description="delay between sending a message and its delivery"
    )
    measured: bool = Field(
        default=False,
        description="use the measured wall time of tool execution instead of the model "
        "(for benchmarking real servers; not reproducible)",
    )

    @field_validator("tool_s")
    @classmethod
    def _tools(cls, v: dict[str, float]) -> dict[str, float]:
        return over_defaults(v, _default_tool_seconds(), "tools", "durations")


class WorkspaceQuota(_Model):
    """What the shared workspace may hold.

    A write that would break the quota is refused (an error observation); a workspace
    that breaks it anyway (through a command) fails every test until it is cleaned up.
    """

    max_mb: float = Field(default=128.0, gt=0, description="all files together, in MiB")
    max_files: int = Field(default=20_000, ge=1, description="number of files")
    max_file_mb: float = Field(default=16.0, gt=0, description="one file, in MiB")


class ScoringSettings(_Model):
    """How the fast scorer selects the tests to re-run, and what it checks (issue 30).

    The final recount of an episode is a fresh run whatever these say: they change when
    credit lands during an episode, never the collective return.
    """

    keys: Literal["dynamic", "static"] = Field(
        default="static",
        description="'static': a test re-runs when code the host's analysis of the source "
        "says it can reach changed (no runtime facts); 'dynamic': when code it executed in "
        "its last run changed (the static key is the ceiling and the fallback; traced, "
        "so each run costs more: measured in docs/integrity.md)",
    )
    memo: bool = Field(
        default=True,
        description="keep outcomes across episodes of the process and on disk (LRU-bounded)",
    )
    audit_every: int = Field(
        default=25,
        ge=0,
        description="with dynamic keys, a full fresh run every N rescorings; a disagreement "
        "is charged at that step and recorded in infos['integrity'] (0: no audits)",
    )


class EnvConfig(_Model):
    """Everything that configures a swarm environment.

    Pass the fields as keyword arguments to `swarm_envs.parallel_env`, `swarm_envs.env`
    or `gymnasium.make`; nested models accept dicts (`time={"message_latency_s": 2}`).
    """

    num_agents: int = Field(default=4, ge=1, le=4096, description="agents in the swarm")
    sync: Literal["event", "round"] = Field(
        default="event",
        description="'event': step returns when any agent is ready; 'round': a barrier",
    )
    time: TimeModel = Field(default_factory=TimeModel)
    time_cap_s: float = Field(
        default=3600.0,
        description="virtual seconds before the episode is truncated (math.inf: no cap)",
    )
    token_budget: int | None = Field(
        default=None,
        gt=0,
        description="tokens of all agents together; the episode is truncated at the end of "
        "the step in which the total reaches it",
    )
    latency_penalty_per_s: float = Field(
        default=0.0,
        ge=0,
        allow_inf_nan=False,
        description="a latency penalty: each step's collective reward is the change in "
        "passing tests minus this much per virtual second the step lasted, so an episode's "
        "return is (final - start passing) - penalty x its virtual duration; 0: none, the "
        "time cap alone puts time pressure on the swarm. When set, infos[agent] has the "
        "step's 'latency_penalty' and its 'tests_reward' (reward = tests_reward - "
        "latency_penalty)",
    )
    max_observation_chars: int = Field(
        default=12_000, ge=512, le=1_000_000, description="cap on one observation's text"
    )
    max_action_chars: int = Field(
        default=200_000, ge=64, description="cap on one action's text (longer is an error)"
    )
    render_mode: Literal["ansi", "human"] | None = None
    seed: int | None = Field(
        default=None,
        ge=0,
        description="seed of the first reset() given none (later ones continue its stream)",
    )
    sandbox: Literal["local", "docker"] = Field(
        default="local", description="sandbox backend: 'local' (default) or 'docker'"
    )
    sandbox_isolation: Literal["bwrap", "unshare", "none"] | None = Field(
        default=None,
        description="a weaker local isolation asked for by name ('unshare', 'none'; said "
        "in every introduction and infos); default: SWARM_ENVS_SANDBOX_ISOLATION, else "
        "full confinement or a SandboxError saying why not",
    )
    scorer: Literal["fast", "subprocess"] = Field(
        default="fast", description="'fast' (cached fork server) or 'subprocess' (naive)"
    )
    workspace_quota: WorkspaceQuota = Field(default_factory=WorkspaceQuota)
    scoring: ScoringSettings = Field(default_factory=ScoringSettings)
    reward_tests: Literal["visible", "all"] = Field(
        default="visible",
        description="tests the reward counts: 'visible' (those in the workspace) or 'all' "
        "(held-out tests too); infos report both counts either way",
    )
    record_path: str | None = Field(
        default=None, description="write every episode to this JSON Lines file"
    )
    max_scorer_failures: int = Field(
        default=3, ge=1, description="consecutive 'no verdict' scorings before ending cleanly"
    )
    roles: dict[str, RoleCount] | None = Field(
        default=None,
        description="agents per role, assigned in order: {'implementer': 3, 'reviewer': 1} "
        "makes agent_0..2 implementers and agent_3 the reviewer; one count may be 'fill' "
        "(every agent the others leave). None: every agent has the role 'agent'",
    )
    role_intros: dict[str, str] = Field(
        default_factory=dict,
        description="text that introduces a role in its agents' first observation "
        "(default: 'Your role: <role>.')",
    )
    role_tools: dict[str, list[str]] = Field(
        default_factory=dict,
        description="the tools a role may call (wait and done are always allowed); a call "
        "of another tool is an error observation. Roles not named may call every tool",
    )

    @field_validator("time_cap_s", mode="before")
    @classmethod
    def _time_cap(cls, v: object) -> float:
        try:
            return check_time_cap(v, "time_cap_s")
        except ConfigError as e:  # pydantic reports it with the field and the value
            raise ValueError(str(e).split(": ", 1)[1]) from None

    @field_validator("roles", mode="before")
    @classmethod
    def _role_counts(cls, v: object) -> object:
        if isinstance(v, dict):
            for role, n in v.items():
                if n != "fill" and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
                    raise ValueError(
                        f"roles.{role} = {n!r}: expected a number of agents >= 1, or 'fill'"
                    )
        return v

    @model_validator(mode="after")
    def _roles(self) -> EnvConfig:
        roles = self.roles or {DEFAULT_ROLE: self.num_agents}
        for name in roles:
            if not _ROLE_NAME.match(name):
                raise ValueError(
                    f"roles: role name {name!r} is not valid; use lowercase letters, digits, "
                    "'_' and '-', starting with a letter (at most 32 characters)"
                )
        fills = [r for r, n in roles.items() if n == "fill"]
        counted = sum(n for n in roles.values() if n != "fill")
        if len(fills) > 1:
            raise ValueError(f"roles={self.roles}: only one role may be 'fill', got {fills}")
        if fills and counted >= self.num_agents:
            raise ValueError(
                f"roles={self.roles}: the counted roles take {counted} of num_agents="
                f"{self.num_agents} agents, which leaves none for {fills[0]!r} ('fill')"
            )
        if not fills and counted != self.num_agents:
            raise ValueError(
                f"roles={self.roles}: the counts add up to {counted} agents but "
                f"num_agents={self.num_agents}; make them agree, or give one role 'fill'"
            )
        for option in ("role_intros", "role_tools"):
            unknown = sorted(set(getattr(self, option)) - set(roles))
            if unknown:
                hint = close_matches(unknown[0], roles, 1)
                said = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise ValueError(
                    f"{option}: unknown role {unknown[0]!r}{said}; roles are {list(roles)}"
                )
        for role, tools in self.role_tools.items():
            bad = [t for t in tools if t not in TOOLS]
            if bad:
                hint = close_matches(bad[0], TOOLS, 1)
                said = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise ValueError(
                    f"role_tools.{role}: unknown tool {bad[0]!r}{said}; tools are {list(TOOLS)}"
                )
        return self

    def agent_roles(self) -> list[str]:
        """The role of each agent, in agent order (see `roles`)."""
        if not self.roles:
            return [DEFAULT_ROLE] * self.num_agents
        counted = sum(n for n in self.roles.values() if n != "fill")
        out: list[str] = []
        for role, n in self.roles.items():
            out += [role] * (self.num_agents - counted if n == "fill" else n)
        return out

    def allowed_tools(self, role: str) -> list[str]:
        """The tools agents of `role` may call, in the order of the tool table."""
        listed = self.role_tools.get(role)
        if listed is None:
            return list(TOOLS)
        return [t for t in TOOLS if t in listed or t in ALWAYS_ALLOWED]

    @classmethod
    def build(cls, **kwargs: object) -> EnvConfig:
        """Validate keyword arguments, raising `ConfigError` that names the field."""
        try:
            return cls.model_validate(kwargs)
        except ValidationError as e:
            raise ConfigError(_explain(e)) from None


def check_time_cap(value: object, name: str = "time_cap") -> float:
    """A time cap in virtual seconds: a positive number, `math.inf` for no cap.

    The same rule as `EnvConfig.time_cap_s`, for the caps given to `reset` and
    `set_time_cap`.

    Raises:
        ConfigError: naming `name` and the value.
    """
    if not isinstance(value, bool) and isinstance(value, numbers.Real):
        seconds = float(value)
        if seconds > 0:
            return seconds
    raise ConfigError(
        f"{name}={value!r}: expected a positive number of virtual seconds (math.inf: no cap)"
    )


def _explain(e: ValidationError) -> str:
    allowed = {
        "": EnvConfig.model_fields,
        "time": TimeModel.model_fields,
        "workspace_quota": WorkspaceQuota.model_fields,
    }
    return "invalid configuration: " + describe_invalid(e, noun="option", allowed=allowed)
