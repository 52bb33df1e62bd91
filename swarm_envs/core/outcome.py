"""What one step of an episode produced, in the terms every API form translates from.

`Episode.step` returns a `StepOutcome`; the parallel, AEC and Gymnasium forms turn it
into their own return values. The end of an episode is a kind (`terminated` or
`truncated`, as in Gymnasium: a time limit is a truncation, never a termination) and a
reason, each a closed set of names. `AgentInfo` is the structured half of what an
agent observes: the `infos[agent]` of every form. `EpisodeView` is what a caller outside the
environments reads of a running episode (`env.view()`): a frozen snapshot, never the
engine itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple, TypedDict

from swarm_envs.core.channels import MessageInfo

EndKind = Literal["terminated", "truncated"]

#: why an episode ended: every test passes or every agent said `done` (terminations);
#: the time cap, the token budget, repeated scorer failures, or nothing left that could
#: ever happen under an infinite cap (truncations)
EndReason = Literal[
    "all_tests_pass", "all_done", "time_cap", "token_budget", "scorer_failure", "stalled"
]

END_KIND: dict[EndReason, EndKind] = {
    "all_tests_pass": "terminated",
    "all_done": "terminated",
    "time_cap": "truncated",
    "token_budget": "truncated",
    "scorer_failure": "truncated",
    "stalled": "truncated",
}


class StepOutcome(NamedTuple):
    """The result of `Episode.step`.

    Attributes:
        reward: the collective reward of the step: the change in the number of passing
            tests (minus `penalty`), the same for every agent.
        changed: indices of the agents whose observation or info changed in the step
            (every agent when the episode ended); the others keep what they had.
        end: `"terminated"`, `"truncated"`, or None while the episode runs.
        reason: why it ended (see `EndReason`), or None while it runs.
        penalty: the latency penalty subtracted from `reward`
            (`EnvConfig.latency_penalty_per_s` x the virtual seconds the step lasted).
    """

    reward: float
    changed: Sequence[int]
    end: EndKind | None = None
    reason: EndReason | None = None
    penalty: float = 0.0

    @property
    def terminated(self) -> bool:
        """True when the episode reached a terminal state (all tests pass, all done)."""
        return self.end == "terminated"

    @property
    def truncated(self) -> bool:
        """True when the episode was cut short (time cap, token budget, scorer failure)."""
        return self.end == "truncated"


class AppliedAction(TypedDict):
    """One completed action that could change the workspace (see `Attribution`).

    Attributes:
        agent: who acted.
        tool: `write_file`, `edit_file` or `run_command`.
        files: the workspace files it wrote (relative paths); None for a command, whose
            effects are not traced.
        t: the virtual time at which it was applied.
    """

    agent: str
    tool: str
    files: list[str] | None
    t: float


class Attribution(TypedDict):
    """The tests whose outcome changed at one rescore, and the actions that preceded it.

    `actions` are every successful write, edit or command applied since the previous
    verdict, in completion order: in event mode usually one agent's action, in round
    mode everything of the round. Credit-assignment research and the bench's
    duplicated-work figures read it; the reward stays collective.

    Attributes:
        t: the virtual time of the rescore.
        gained: tests that pass now and did not before.
        lost: tests that passed before and fail now.
        actions: what was applied since the previous verdict (see `AppliedAction`).
    """

    t: float
    gained: list[str]
    lost: list[str]
    actions: list[AppliedAction]


class SandboxInfo(TypedDict):
    """The sandbox of the episode, in the infos of `reset`."""

    backend: str
    protections: dict[str, bool]
    #: None at full confinement; else what a weaker level asked for by name gives up
    weakened: str | None


class EpisodeStats(TypedDict):
    """`infos[agent]["swarm_episode"]` at the end of an episode.

    The keys of Gymnasium's `RecordEpisodeStatistics`, in virtual time, under a key of
    its own: the wrapper (CleanRL wraps every env in it) writes `info["episode"]` itself,
    and asserts that the env has not.
    """

    #: the episode's return for this agent (the collective reward summed)
    r: float
    #: the agent's actions in the episode
    l: int  # noqa: E741 - Gymnasium's name
    #: the episode's length in virtual seconds (Gymnasium's wrapper: wall seconds)
    t: float


class _AgentInfoExtras(TypedDict, total=False):
    #: when a busy agent's action completes (virtual seconds); only while it is busy
    busy_until: float | None
    #: the sandbox backend and its active protections; only in the infos of `reset`
    sandbox: SandboxInfo
    #: True: the agent was busy and the action sent for it in this step was not applied
    ignored: bool
    #: return, actions and virtual seconds of the episode; only when it ended
    swarm_episode: EpisodeStats
    #: with `latency_penalty_per_s` set, in every step's infos: the step's latency
    #: penalty, and the change in passing tests (reward = tests_reward - latency_penalty)
    latency_penalty: float
    tests_reward: float


class AgentInfo(_AgentInfoExtras):
    """`infos[agent]`: what the agent's observation says, as data.

    A busy agent keeps the info of its last observation (with `ready` False and
    `busy_until`); the agents that observed at the latest time see the current score.

    Attributes:
        task: the id of the episode's task (the instance drawn, for a distribution).
        ready: the agent must act next (it is idle; its action would be accepted).
        time: the virtual time of the agent's observation, in seconds.
        time_left: seconds until the time cap (0 once it is reached; inf without a cap).
        tests_passed: canonical tests passing in the shared workspace (those the reward
            counts: the visible ones, or all with `reward_tests="all"`).
        tests_total: canonical tests the reward counts.
        per_test: test node id -> passing, for every test the reward counts.
        verdict: "ok", or "no_verdict" when the scorer failed and the counts are the
            last verdict's.
        verdict_error: the scorer's reason for "no_verdict", or None.
        integrity: what the scorer's integrity guard flagged in the runs behind the
            counts, one dict per finding ("kind", "test", "detail"); empty when clean. At
            the episode's end, a "final_recount" finding (with "since_step") says that the
            fresh final count disagreed with the per-step one (docs/integrity.md).
        visible_passed: visible canonical tests (those in the workspace) passing.
        held_out_passed: held-out tests passing (tests the agents never see);
            held_out_total: their number (0 when the task has none).
        tool: the tool of the agent's last completed action (None before any).
        error: why the last action failed (also the observation, after "ERROR:"), or None.
        result: the last action's result text, or None.
        messages: messages delivered with this observation.
        attribution: the rescores that changed some test's outcome since the agent's
            previous observation, each with the actions that preceded it (see
            `Attribution`; the whole episode's are in `env.view().attribution`).
        tokens: tokens this agent used so far; team_tokens: all agents together.
        done: the agent said `done` (it acts no more; it shares the reward still).
        role: the agent's role (`EnvConfig.roles`; "agent" when none are configured).
        termination: why the episode terminated ("all_tests_pass", "all_done"), or None.
        truncation: why it was truncated ("time_cap", "token_budget",
            "scorer_failure", "stalled"), or None.
    """

    task: str
    ready: bool
    time: float
    time_left: float
    tests_passed: int
    tests_total: int
    per_test: dict[str, bool]
    verdict: Literal["ok", "no_verdict"]
    verdict_error: str | None
    integrity: list[dict[str, str]]
    visible_passed: int
    held_out_passed: int
    held_out_total: int
    tool: str | None
    error: str | None
    result: str | None
    messages: list[MessageInfo]
    attribution: list[Attribution]
    tokens: int
    team_tokens: int
    done: bool
    role: str
    termination: EndReason | None
    truncation: EndReason | None


class Recount(TypedDict):
    """The final fresh recount of an episode, when it disagreed with the per-step count.

    Attributes:
        per_step: tests passing by the per-step count.
        final: tests passing by the fresh run (the authoritative count).
        correction: `final - per_step`, which the last reward absorbed.
        tests: the tests whose outcomes differ.
        since_step: the earliest step at which the per-step count changed one of them.
    """

    per_step: int
    final: int
    correction: float
    tests: list[str]
    since_step: int


@dataclass(frozen=True)
class EpisodeView:
    """A running episode as its readers outside the environments see it: a snapshot.

    `env.view()` (every form, menu mode too) takes one; it does not change as the episode
    goes on, and it holds nothing of the engine (no sandbox, no scorer), so reading it can
    neither change the episode nor depend on how the engine is built. Building one costs
    O(agents) (the names of the busy ones) plus the attribution records.

    Attributes:
        task: the id of the episode's task (the instance drawn, for a distribution).
        seed: the seed of the episode (`reset(seed=...)`, or the stream's next one).
        started: `reset()` has started the episode (and `close()` not ended it).
        time: the virtual time now, in seconds.
        time_cap: this episode's time cap (virtual seconds; `math.inf`: none).
        step: steps taken so far in this episode.
        tests_passed: tests passing that the reward counts; tests_total: their number.
        per_test: test id -> passing, for every test the reward counts (read-only).
        verdict: "ok", or "no_verdict" when the last scoring failed (the counts are then
            the last verdict's).
        visible_passed: visible canonical tests passing.
        held_out_passed: held-out tests passing; held_out_total: their number.
        end: `"terminated"`, `"truncated"`, or None while the episode runs.
        end_reason: why it ended (see `EndReason`), or None.
        tokens: tokens of all agents together.
        messages_sent: messages delivered or on their way (a post counts once per
            recipient).
        total_reward: the collective return so far (with the end's correction once settled).
        agents: every agent's name, in index order; roles: their roles, in the same order.
        ready: the agents that must act next.
        busy: the agents whose action has not completed (at the end: those cut off).
        done: the agents that said `done`.
        attribution: every rescore that changed some test's outcome, in time order, with
            the actions applied before it (see `Attribution`).
        integrity: what the scorer's guard and the episode's recounts flagged.
        settled: the final fresh recount has run (the counts are authoritative).
        recount: the final recount, when it disagreed with the per-step count; else None.
        audits: full, fresh runs the episode made as audits (`scoring.audit_every`), and
            audit_disagreements: how many of them disagreed with the per-step count.
        workspace_root: the host folder of the shared workspace (None before `reset` and
            after `close`).
    """

    task: str
    seed: int | None
    started: bool
    time: float
    time_cap: float
    step: int
    tests_passed: int
    tests_total: int
    per_test: Mapping[str, bool]
    verdict: Literal["ok", "no_verdict"]
    visible_passed: int
    held_out_passed: int
    held_out_total: int
    end: EndKind | None
    end_reason: EndReason | None
    tokens: int
    messages_sent: int
    total_reward: float
    agents: tuple[str, ...]
    roles: tuple[str, ...]
    ready: tuple[str, ...]
    busy: tuple[str, ...]
    done: tuple[str, ...]
    attribution: tuple[Attribution, ...]
    integrity: tuple[Mapping[str, str], ...]
    settled: bool
    recount: Recount | None
    workspace_root: Path | None
    audits: int = 0
    audit_disagreements: int = 0

    @property
    def time_left(self) -> float:
        """Seconds until the time cap (0 once it is reached)."""
        return max(self.time_cap - self.time, 0.0)
