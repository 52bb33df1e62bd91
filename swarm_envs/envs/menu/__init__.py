"""Menu mode: a swarm that chooses among discrete moves over a task's units.

Text mode is for language models; menu mode is for classic multi-agent RL and for
learning on a CPU in minutes. It is a layer over the text environment, not a second
engine: every move becomes tool calls of the text env (a claim is a `post` on
#general, applying a candidate is `edit_file`, running a unit's tests is
`run_tests`), so the clock, the workspace, the sandbox, the messages, the scorer
and the collective reward are the text env's own.

The candidate implementations of each unit (the reference and wrong-but-plausible
mutants that the unit's tests detect) come from `swarm_envs.generation.candidates`; they
are computed once per task and cached in memory and on disk, so a reset costs what a
text-mode reset costs.

Layer: inside `swarm_envs.envs`, above the text forms it wraps and below registration;
may import the text env's public API, `swarm_envs.generation` (candidates),
`swarm_envs.scoring` (test selection), `swarm_envs.task` and `swarm_envs.core`.
"""

from __future__ import annotations

import ast
import functools
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from swarm_envs.core.actions import Action, Usage
from swarm_envs.core.config import EnvConfig, over_defaults
from swarm_envs.core.outcome import AgentInfo
from swarm_envs.envs.facade import SwarmBase
from swarm_envs.envs.parallel import SwarmParallelEnv
from swarm_envs.error import ConfigError, ResetNeeded, close_matches, describe_invalid
from swarm_envs.generation.candidates import task_candidates
from swarm_envs.generation.generators import Candidate
from swarm_envs.scoring import select_tests
from swarm_envs.task import Task, get_task
from swarm_envs.task.stubbing import body_span, find_symbol
from swarm_envs.task.stubbing import functions_of as _functions_of

logger = logging.getLogger("swarm_envs")

MoveKind = Literal["claim", "apply", "run_tests", "wait", "done"]
MOVE_KINDS: tuple[str, ...] = ("claim", "apply", "run_tests", "wait", "done")
UNIT_FEATURES = (
    "stubbed",
    "implemented_passing",
    "implemented_failing",
    "claimed_by_other",
    "claimed_by_me",
    "current",
)
GLOBAL_FEATURES = ("time_left", "tests_passing", "agent_rank")
AGENT_ID_SLOTS = 16  # one-hot of i % 16: a teammate's identity, as text mode's status line gives
_CLAIM = re.compile(r"^claim: (\S+)$")


def _default_move_tokens() -> dict[str, int]:
    # Thinking tokens of each move, as an LLM agent would spend them deciding; apply
    # also pays for the code it writes (4 characters a token, text mode's estimate).
    return {"claim": 50, "apply": 200, "run_tests": 50, "wait": 20, "done": 20}


class MenuConfig(BaseModel):
    """The options of menu mode (the text env's options are those of `EnvConfig`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_units: int = Field(
        default=128, ge=1, le=4096, description="unit slots of the observation and actions"
    )
    n_wrong: int = Field(default=3, ge=0, le=16, description="wrong candidates per unit")
    candidate_seed: int = Field(default=0, description="seed of the candidate mutants and order")
    move_tokens: dict[str, int] = Field(
        default_factory=_default_move_tokens,
        description="thinking tokens of each move kind (claim, apply, run_tests, wait, done)",
    )
    wait_s: float = Field(default=5.0, gt=0, description="longest wait of the wait move")
    dict_obs: bool = Field(
        default=True,
        description="observation {'observation', 'action_mask'} (True) or the Box alone "
        "(False; the mask stays in infos)",
    )

    @field_validator("move_tokens")
    @classmethod
    def _tokens(cls, v: dict[str, int]) -> dict[str, int]:
        return over_defaults(v, _default_move_tokens(), "move kinds", "token counts")

    @property
    def n_candidates(self) -> int:
        """The candidates of a unit: the right one and `n_wrong` wrong ones."""
        return self.n_wrong + 1


def split_config(config: Mapping[str, Any]) -> tuple[MenuConfig, dict[str, Any]]:
    """Split keyword options into the menu's and the text env's, naming unknown ones."""
    menu_keys, env_keys = set(MenuConfig.model_fields), set(EnvConfig.model_fields)
    unknown = sorted(set(config) - menu_keys - env_keys)
    if unknown:
        allowed = sorted(menu_keys | env_keys)
        said = ", ".join(
            f"{k!r}" + (f" (did you mean {h[0]!r}?)" if (h := close_matches(k, allowed, 1)) else "")
            for k in unknown
        )
        raise ConfigError(f"unknown option {said} for mode='menu'; allowed options: {allowed}")
    try:
        menu = MenuConfig.model_validate({k: v for k, v in config.items() if k in menu_keys})
    except ValidationError as e:
        raise ConfigError(
            "invalid menu option: " + describe_invalid(e, noun="option", allowed={"": menu_keys})
        ) from None
    return menu, {k: v for k, v in config.items() if k in env_keys}


# ---------------------------------------------------------------------------- moves


@dataclass(frozen=True)
class Move:
    """A decoded move: its kind, and the unit slot and candidate it names."""

    kind: MoveKind
    unit: int | None = None
    candidate: int | None = None


@dataclass(frozen=True)
class MenuLayout:
    """Where each move and each feature lives, for `max_units` slots of `n_candidates`.

    Moves of unit slot `u` start at `u * (n_candidates + 2)`: claim, apply candidate
    0 .. n_candidates-1, run its tests. Then `wait`, then `done`.
    """

    max_units: int
    n_candidates: int

    @property
    def per_unit(self) -> int:
        """Moves per unit slot: claim, one apply per candidate, run its tests."""
        return self.n_candidates + 2

    @property
    def n_moves(self) -> int:
        """The size of the action space."""
        return self.max_units * self.per_unit + 2

    @property
    def wait(self) -> int:
        """The index of the wait move."""
        return self.max_units * self.per_unit

    @property
    def done(self) -> int:
        """The index of the done move."""
        return self.wait + 1

    @property
    def obs_size(self) -> int:
        """The length of the observation `Box`."""
        return self.max_units * len(UNIT_FEATURES) + len(GLOBAL_FEATURES) + AGENT_ID_SLOTS

    def claim(self, u: int) -> int:
        """The index of the move that claims unit slot `u`."""
        return u * self.per_unit

    def apply(self, u: int, k: int) -> int:
        """The index of the move that applies candidate `k` of unit slot `u`."""
        return u * self.per_unit + 1 + k

    def run_tests(self, u: int) -> int:
        """The index of the move that runs the tests of unit slot `u`."""
        return u * self.per_unit + self.n_candidates + 1

    def decode(self, index: int) -> Move:
        """The move of an action index (its kind, unit slot and candidate)."""
        if index == self.wait:
            return Move("wait")
        if index == self.done:
            return Move("done")
        u, r = divmod(index, self.per_unit)
        if r == 0:
            return Move("claim", u)
        if r == self.per_unit - 1:
            return Move("run_tests", u)
        return Move("apply", u, r - 1)


# ---------------------------------------------------------------------------- unit state


@functools.lru_cache(maxsize=512)
def _bodies(source: str, symbol: str) -> tuple[tuple[int, int, int], ...] | None:
    """(def line, first body line, last body line) of each function of `symbol`, or None."""
    try:
        node = find_symbol(ast.parse(source), symbol)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if node is None:
        return None
    spans = []
    for fn in _functions_of(node):
        start, end = body_span(fn)
        if start:
            spans.append((fn.lineno, start, end))
    return tuple(spans)


@dataclass
class _UnitView:
    """What the workspace says about one unit right now."""

    bodies: tuple[str, ...] | None  # the current body text of each function
    spans: tuple[tuple[int, int, int], ...] | None
    lines: list[str] = field(default_factory=list)


class WorkMeter:
    """Duplicated work: unit edits made on a unit that a teammate had already edited.

    Every completed edit attempt counts, whether it applied or not (a failed edit is
    a second agent's work on a unit someone else changed first). A swarm that splits
    the units among its agents duplicates nothing; one in which every agent does
    every unit duplicates `agents - 1` of every `agents` edits. `rate` is the share
    of edits that were duplicated, comparable across swarms that edit more or less.
    """

    def __init__(self) -> None:
        self.editors: dict[str, set[int]] = {}
        self.edits = 0
        self.duplicated = 0

    def edited(self, agent: int, unit: str) -> bool:
        """Record one completed edit attempt of `agent` on `unit`; True if duplicated."""
        editors = self.editors.setdefault(unit, set())
        dup = bool(editors - {agent})
        editors.add(agent)
        self.edits += 1
        self.duplicated += dup
        return dup

    @property
    def rate(self) -> float:
        """The share of unit edits that were duplicated (0 before any edit)."""
        return self.duplicated / self.edits if self.edits else 0.0


# ---------------------------------------------------------------------------- env


@dataclass
class _Plan:
    """The tool calls left of an agent's move."""

    move: Move
    steps: list[int]  # function indices still to edit (apply), or [0] for one call
    invalid: bool = False  # a move outside the mask: only its thinking time, as a wait
    started: bool = False


class MenuParallelEnv(ParallelEnv):
    """A swarm choosing discrete moves over a task's units, as a PettingZoo `ParallelEnv`.

    ## Description

    The text env (`swarm_envs.parallel_env`) with a menu in front: every move
    becomes tool calls of the text env, so the clock, the shared workspace, the
    sandbox, the messages and the collective reward are the same. Agents act at
    different virtual times: `infos[agent]["ready"]` says who must choose a move;
    the moves of the others are ignored.

    ## Action Space

    `Discrete(max_units * (n_candidates + 2) + 2)`, with `n_candidates = n_wrong + 1`.
    For unit slot `u` (the task's units in manifest order, padded to `max_units`):

    | index (`P = n_candidates + 2`) | move | tool calls |
    | --- | --- | --- |
    | `u*P` | claim unit `u` | `post` of `claim: <unit>` on #general |
    | `u*P + 1 + k` | apply candidate `k` of unit `u` | one `edit_file` per function |
    | `u*P + n_candidates + 1` | run unit `u`'s tests | `run_tests` of the unit's tests |
    | `max_units*P` | wait | `wait` until a message or `wait_s` |
    | `max_units*P + 1` | done | `done` |

    The candidates of a unit are its reference implementation and up to `n_wrong`
    mutants that its tests detect, shuffled once per task (`candidate_seed`). An
    edit replaces the unit's current code (stub or earlier candidate) as it is in
    the workspace when the call is made; if a teammate changes it first, the edit
    fails, as concurrent text-mode edits do.

    The action mask (`obs["action_mask"]` and `infos[agent]["action_mask"]`, int8)
    allows, for a ready agent: claiming a unit it has not claimed, applying a
    candidate that exists and is not the one in place, running a unit's tests,
    wait and done. For an agent that is not ready it allows only `wait` (a no-op:
    the action is ignored). A move outside the mask is an agent mistake: it costs
    the move's thinking time (as a `wait`) and `infos[agent]["move_error"]` says why.

    ## Observation Space

    `Dict(observation=Box(0, 1, (max_units * 6 + 19,), float32), action_mask=Box(0, 1,
    (n_moves,), int8))`, or the `Box` alone with `dict_obs=False`. The `Box` holds
    one row of 6 features per unit slot (zeros for padding), then 3 globals and the
    agent's identity:

    | index | feature |
    | --- | --- |
    | `6u + 0` | unit `u` is stubbed in the workspace |
    | `6u + 1` | implemented, and every one of its tests passes |
    | `6u + 2` | implemented, and some of its tests fail |
    | `6u + 3` | claimed by another agent (a claim on #general delivered to this agent) |
    | `6u + 4` | claimed by this agent |
    | `6u + 5` | this agent's current unit (of its latest claim, apply or run-tests move) |
    | `6*max_units + 0` | fraction of the time cap left |
    | `6*max_units + 1` | fraction of the task's tests passing |
    | `6*max_units + 2` | this agent's rank, `i / num_agents` for `agent_i` |
    | `6*max_units + 3 + j` | 1 for `j = i % 16` (agent identity, one-hot), else 0 |

    Rank and identity are what text mode's status line tells each agent ("you are
    agent_i", and its teammates): without them, agents of one shared policy that see
    the same state cannot tell themselves apart, and can split work only by chance.

    Test outcomes are those of `infos[agent]["per_test"]` (as in text mode), seen at
    the agent's observation time; an agent that is not ready keeps its observation.

    ## Rewards

    Collective, as in text mode: each agent receives the change in the number of
    passing tests during the step. A step may contain several tool calls of the
    agents' moves; its reward is their sum.

    ## Starting State

    The task's starting state (every unit stubbed for bundled tasks), no claims,
    every agent ready.

    ## Episode End

    As in text mode: terminated when every test passes or every agent is done;
    truncated at the time cap (`time_cap_s`, `set_time_cap`, or
    `reset(options={"time_cap": ...})`) or the token budget.

    ## Info

    The text env's info (`tests_passed`, `tests_total`, `per_test`, `time`, ...) with
    `ready` (ready to choose a move), `action_mask`, `move` (the latest move's
    index), `move_error`, and, for the episode so far, `unit_edits` (edit attempts),
    `duplicated_work` (those on a unit a teammate had already edited) and
    `duplicated_share` (their share; see `WorkMeter`).

    ## Arguments

    `task`, `num_agents`, the options of `MenuConfig` (`max_units`, `n_wrong`,
    `candidate_seed`, `move_tokens`, `wait_s`, `dict_obs`) and those of `EnvConfig`.

    ## Version History

    * v0: initial release.
    """

    metadata: dict[str, Any] = {**SwarmBase.metadata, "name": "swarm_menu_v0"}

    def __init__(self, task: str | Task = "calc", **config: Any):
        self.task = get_task(task)
        self.menu, env_config = split_config(config)
        self._config = dict(config)
        units = self.task.units
        if not units:
            raise ConfigError(
                f"mode='menu': task {self.task.id} has no units to choose among; "
                "use mode='text' or a task whose manifest lists units"
            )
        if len(units) > self.menu.max_units:
            raise ConfigError(
                f"max_units={self.menu.max_units}: task {self.task.id} has {len(units)} units; "
                f"pass max_units={len(units)} or more"
            )
        self._text = SwarmParallelEnv(self.task, **env_config)
        self.config = self._text.config
        self.layout = MenuLayout(self.menu.max_units, self.menu.n_candidates)
        m = self.task.manifest
        self.metadata = {**type(self).metadata, "name": f"swarm_{m.name}_menu_v{m.version}"}
        self.render_mode = self._text.render_mode
        self.possible_agents = list(self._text.possible_agents)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._unit_index = {u.name: i for i, u in enumerate(units)}
        self._time_cap: float | None = None  # the sticky cap, for the pickled recipe
        box = spaces.Box(0.0, 1.0, (self.layout.obs_size,), np.float32)
        mask = spaces.Box(0, 1, (self.layout.n_moves,), np.int8)
        obs_space: spaces.Space = (
            spaces.Dict({"observation": box, "action_mask": mask}) if self.menu.dict_obs else box
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(
            self.possible_agents, spaces.Discrete(self.layout.n_moves)
        )
        self._candidates: tuple[tuple[Candidate, ...], ...] | None = None
        self._unit_tests: list[np.ndarray] | None = None
        self.agents: list[str] = []

    # ------------------------------------------------------------------ pickling

    def __reduce__(self):
        # The live episode (sandbox, scorer processes) cannot cross processes; the
        # recipe can, and a fresh env from it behaves the same after its reset.
        return (_rebuild, (str(self.task.root), self._config, self._time_cap))

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        """Unit features and globals (see the class docstring), with the action mask."""
        return self.observation_spaces[self.possible_agents[self._agent(agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        """One move out of the menu (see the class docstring)."""
        return self.action_spaces[self.possible_agents[self._agent(agent)]]

    @property
    def episode(self):
        """The text env's episode (clock, workspace, scorer, messages)."""
        return self._text.episode

    @property
    def text_env(self):
        """The text environment every move goes through."""
        return self._text

    @property
    def candidates(self) -> tuple[tuple[Candidate, ...], ...]:
        """Every unit's candidates (computed on first use, then cached for the task)."""
        if self._candidates is None:
            self._candidates = task_candidates(
                self.task, self.menu.n_wrong, self.menu.candidate_seed
            )
        return self._candidates

    def set_time_cap(self, seconds: float) -> None:
        """Set the time cap (virtual seconds) of every later episode, automatic resets included.

        The text env's own sticky cap: `reset(options={"time_cap": s})` still overrides
        it for one episode; the running episode keeps its cap.
        """
        self._text.set_time_cap(seconds)
        self._time_cap = float(seconds)

    # ------------------------------------------------------------------ reset

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start an episode (the text env's reset); returns every agent's observation and info."""
        cands = self.candidates  # before the episode: computing them needs no sandbox of ours
        _, text_infos = self._text.reset(seed=seed, options=options)
        self.np_random = self._text.np_random
        ep = self._text.episode
        if self._unit_tests is None:
            ids = list(ep.per_test)
            pos = {t: j for j, t in enumerate(ids)}
            self._test_ids = ids
            self._unit_tests = [
                np.array([pos[t] for t in select_tests(ids, u.tests)[0]], dtype=np.int64)
                for u in self.task.units
            ]
        n, U = len(self.possible_agents), self.layout.max_units
        self.agents = list(self.possible_agents)
        self._n_cands = np.array([len(c) for c in cands], dtype=np.int64)
        self._claimed_other = np.zeros((n, U), dtype=bool)
        self._claimed_mine = np.zeros((n, U), dtype=bool)
        self._current = np.full(n, -1, dtype=np.int64)
        self._plans: list[_Plan | None] = [None] * n
        self._last_move = [-1] * n
        self._move_error: list[str | None] = [None] * n
        self._meter = WorkMeter()
        self._inflight: set[int] = set()
        self._text_infos: dict[str, AgentInfo] = dict(text_infos)
        self._scan()
        self._obs: dict[str, Any] = {}
        self._infos: dict[str, dict[str, Any]] = {}
        for i in range(n):
            self._observe(i)
        return dict(self._obs), dict(self._infos)

    # ------------------------------------------------------------------ step

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Start the ready agents' moves and run the text env until some agent must choose.

        Moves of agents that are not ready are ignored; an unknown agent name raises
        `Error` before anything is applied.

        Raises:
            ResetNeeded: the episode has not started or has already ended.
        """
        if not self.agents:
            raise ResetNeeded("step() on a finished or unstarted episode; call reset() first")
        text = self._text
        ready = set(self._menu_ready())
        acted = []
        for name, action in actions.items():
            i = self._agent(name)
            if i in ready:
                self._start(i, action)
                acted.append(i)
        reward = 0.0
        completed: set[int] = set()
        ended = False
        while True:
            calls = {}
            for name in text.ready_agents:
                i = self._index[name]
                plan = self._plans[i]
                if plan is not None:
                    calls[name] = self._call(i, plan)
            if not calls:
                break
            for name in calls:
                self._inflight.add(self._index[name])
            _, rewards, _, _, text_infos = text.step(calls)
            reward += next(iter(rewards.values()), 0.0)
            ended = not text.agents
            completed |= self._absorb(text_infos, ended)
            if ended or any(self._plans[self._index[a]] is None for a in text.ready_agents):
                break
        ep = text.episode
        changed: Sequence[int]
        if ended:
            changed = range(len(self.possible_agents))
        else:
            changed = sorted(i for i in completed if self._plans[i] is None)
        if changed:
            self._scan()
            for i in changed:
                self._observe(i, final=ended)
        for i in acted:
            if not ended and i not in changed:
                self._mark_busy(i)
        live = self.agents
        rewards = dict.fromkeys(live, reward)
        terminated = dict.fromkeys(live, ended and ep.ended == "terminated")
        truncated = dict.fromkeys(live, ended and ep.ended == "truncated")
        obs, infos = dict(self._obs), dict(self._infos)
        if ended:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminated, truncated, infos

    @property
    def ready_agents(self) -> list[str]:
        """The agents that must choose a move now."""
        return [self.possible_agents[i] for i in self._menu_ready()] if self.agents else []

    def _menu_ready(self) -> list[int]:
        return [
            self._index[a] for a in self._text.ready_agents if self._plans[self._index[a]] is None
        ]

    def _agent(self, name: str) -> int:
        return self._text._agent(name)  # the text env's lookup, and its error

    # ------------------------------------------------------------------ moves -> calls

    def _start(self, i: int, action: Any) -> None:
        self._move_error[i] = None
        index = int(action) if isinstance(action, int | np.integer) else None
        if index is None or not 0 <= index < self.layout.n_moves:
            self._invalid(i, f"move {action!r}: expected an integer 0..{self.layout.n_moves - 1}")
            return
        self._last_move[i] = index
        mask = self._mask(i)
        if not mask[index]:
            self._invalid(
                i,
                f"move {index} ({self.describe(index)}) is not allowed now: {self._why(i, index)}",
            )
            return
        move = self.layout.decode(index)
        steps = [0]
        if move.unit is not None:
            self._current[i] = move.unit
            if move.kind == "apply":
                steps = list(range(len(self.candidates[move.unit][0].patches)))
        self._plans[i] = _Plan(move, steps)

    def _invalid(self, i: int, why: str) -> None:
        self._move_error[i] = why
        self._plans[i] = _Plan(Move("wait"), [0], invalid=True)

    def describe(self, index: int) -> str:
        """A move's index in words, e.g. `apply candidate 2 of unit 'gcd'`."""
        move = self.layout.decode(index)
        if move.unit is None:
            return move.kind
        units = self.task.units
        unit = f"unit {units[move.unit].name!r}" if move.unit < len(units) else None
        unit = unit or f"empty unit slot {move.unit}"
        if move.kind == "apply":
            return f"apply candidate {move.candidate} of {unit}"
        return f"run the tests of {unit}" if move.kind == "run_tests" else f"claim {unit}"

    def _why(self, i: int, index: int) -> str:
        move = self.layout.decode(index)
        if move.unit is not None and move.unit >= len(self.task.units):
            return (
                f"the task has {len(self.task.units)} units (slots 0..{len(self.task.units) - 1})"
            )
        if move.kind == "claim":
            return "you already claimed it"
        if move.kind == "apply" and move.candidate is not None:
            if move.candidate >= self._n_cands[move.unit]:
                return f"the unit has {self._n_cands[move.unit]} candidates"
            return "that candidate is already in place"
        return "not ready"

    def _call(self, i: int, plan: _Plan) -> Action:
        """The next tool call of agent `i`'s move, built from the workspace as it is now.

        The menu is a trusted caller of the text env: it reports each call's thinking
        tokens as usage (a move's tokens on its first call; code costs 4 characters a
        token), and the env charges them, never below the estimate from the call's text.
        """
        move, first = plan.move, not plan.started
        plan.started = True
        kind: str | None = "wait" if plan.invalid else move.kind
        name, args, code = self._move_call(move, plan)
        if name == "edit_file" and not first:
            kind = None  # the move's thinking was paid by its first edit
        tokens = (self.menu.move_tokens[kind] if kind else 0) + (code + 3) // 4
        return Action(
            tool_call={"name": name, "arguments": args},
            usage=Usage(output_tokens=tokens, input_tokens=0),
        )

    def _move_call(self, move: Move, plan: _Plan) -> tuple[str, dict[str, Any], int]:
        """(tool, arguments, characters of code written) of the move's next call."""
        if plan.invalid:
            plan.steps.clear()
            return "wait", {"seconds": 1e-6}, 0
        if move.kind != "apply":
            plan.steps.clear()
        if move.kind in ("wait", "done"):
            return move.kind, {"seconds": self.menu.wait_s} if move.kind == "wait" else {}, 0
        assert move.unit is not None
        unit = self.task.units[move.unit]
        if move.kind == "claim":
            return "post", {"channel": "general", "text": f"claim: {unit.name}"}, 0
        if move.kind == "run_tests":
            return "run_tests", {"selection": list(unit.tests)}, 0
        assert move.candidate is not None
        j = plan.steps.pop(0)
        path, _, body = self.candidates[move.unit][move.candidate].patches[j]
        view = self._view(unit)
        if view.spans is None or j >= len(view.spans):
            # The unit's code is not where it should be: the edit is made against the
            # stub text, and fails with the text env's own error if it is gone.
            old = self._right(move.unit).patches[j][1]
            new = body
        else:
            def_line, start, end = view.spans[j]
            old = "".join(view.lines[def_line - 1 : end])
            new = "".join(view.lines[def_line - 1 : start - 1]) + body
        return "edit_file", {"path": path, "old": old, "new": new}, len(body)

    def _right(self, u: int) -> Candidate:
        return next(c for c in self.candidates[u] if c.correct)

    # ------------------------------------------------------------------ results

    def _absorb(self, infos: Mapping[str, AgentInfo], ended: bool) -> set[int]:
        """Process the calls that completed in a text step; returns their agents."""
        done: set[int] = set()
        for i in sorted(self._inflight):
            name = self.possible_agents[i]
            info = infos[name]
            if not (info.get("ready") or info.get("done")):
                continue
            self._inflight.discard(i)
            done.add(i)
            self._text_infos[name] = info
            self._read_messages(i, info)
            plan = self._plans[i]
            if plan is None:
                continue
            ok = info.get("error") is None
            move = plan.move
            if move.kind == "claim" and ok:
                self._claimed_mine[i, move.unit] = True
            if move.kind == "apply" and not plan.invalid and move.unit is not None:
                self._meter.edited(i, self.task.units[move.unit].name)
                if not ok:
                    self._move_error[i] = (
                        f"{self.describe(self._last_move[i])}: {info.get('error')}"
                    )
                    plan.steps.clear()
            if not plan.steps:
                self._plans[i] = None
        if ended:
            for name in self.possible_agents:
                self._text_infos[name] = infos[name]
            self._inflight.clear()
        return done

    def _read_messages(self, i: int, info: AgentInfo) -> None:
        me = self.possible_agents[i]
        for m in info.get("messages") or ():
            if m.get("channel") != "general" or m.get("from") == me:
                continue
            for line in str(m.get("text", "")).splitlines():
                hit = _CLAIM.match(line.strip())
                if hit and hit.group(1) in self._unit_index:
                    self._claimed_other[i, self._unit_index[hit.group(1)]] = True

    # ------------------------------------------------------------------ observations

    def _view(self, unit, files: dict[str, str | None] | None = None) -> _UnitView:
        files = {} if files is None else files
        if unit.path not in files:
            root = self._text.episode.workspace.root
            try:
                files[unit.path] = (root / unit.path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                files[unit.path] = None
        source = files[unit.path]
        if source is None:
            return _UnitView(None, None)
        spans = _bodies(source, unit.symbol)
        if spans is None:
            return _UnitView(None, None)
        lines = source.splitlines(keepends=True)
        bodies = tuple("".join(lines[s - 1 : e]) for _, s, e in spans)
        return _UnitView(bodies, spans, lines)

    def _scan(self) -> None:
        """The state of every unit in the workspace and in the scorer, now."""
        n_units, U = len(self.task.units), self.layout.max_units
        self._stubbed = np.zeros(U, dtype=bool)
        self._in_place = np.full(U, -1, dtype=np.int64)
        files: dict[str, str | None] = {}
        for u, unit in enumerate(self.task.units):
            view = self._view(unit, files)
            right = self._right(u)
            stubs = tuple(p[1] for p in right.patches)
            if view.bodies is None:
                continue
            self._stubbed[u] = any(b == s for b, s in zip(view.bodies, stubs, strict=False))
            for k, cand in enumerate(self.candidates[u]):
                if view.bodies == tuple(p[2] for p in cand.patches):
                    self._in_place[u] = k
        per_test = self._text.episode.per_test
        outcome = np.fromiter((per_test.get(t, False) for t in self._test_ids), dtype=bool)
        self._passing = np.zeros(U, dtype=bool)
        assert self._unit_tests is not None  # set by the first reset
        for u in range(n_units):
            idx = self._unit_tests[u]
            self._passing[u] = bool(outcome[idx].all()) if idx.size else False

    def _mask(self, i: int) -> np.ndarray:
        L, n_units = self.layout, len(self.task.units)
        mask = np.zeros(L.n_moves, dtype=np.int8)
        rows = mask[: L.wait].reshape(L.max_units, L.per_unit)
        rows[:n_units, 0] = ~self._claimed_mine[i, :n_units]
        k = np.arange(L.n_candidates)
        allowed = (k[None, :] < self._n_cands[:, None]) & (
            k[None, :] != self._in_place[:n_units, None]
        )
        rows[:n_units, 1 : 1 + L.n_candidates] = allowed
        rows[:n_units, L.per_unit - 1] = 1
        mask[L.wait] = mask[L.done] = 1
        return mask

    def _observe(self, i: int, final: bool = False) -> None:
        name = self.possible_agents[i]
        L, ep = self.layout, self._text.episode
        text_info = self._text_infos[name]
        ready = not final and bool(text_info.get("ready")) and self._plans[i] is None
        x = np.zeros(L.obs_size, dtype=np.float32)
        rows = x[: L.max_units * len(UNIT_FEATURES)].reshape(L.max_units, len(UNIT_FEATURES))
        n_units = len(self.task.units)
        stubbed, passing = self._stubbed[:n_units], self._passing[:n_units]
        rows[:n_units, 0] = stubbed
        rows[:n_units, 1] = ~stubbed & passing
        rows[:n_units, 2] = ~stubbed & ~passing
        rows[:n_units, 3] = self._claimed_other[i, :n_units]
        rows[:n_units, 4] = self._claimed_mine[i, :n_units]
        if self._current[i] >= 0:
            rows[self._current[i], 5] = 1.0
        cap = ep.time_cap
        g = L.max_units * len(UNIT_FEATURES)
        x[g] = min(max(cap - ep.now, 0.0) / cap, 1.0) if cap > 0 else 0.0
        x[g + 1] = ep.passed / ep.tests_total if ep.tests_total else 0.0
        x[g + 2] = i / len(self.possible_agents)
        x[g + len(GLOBAL_FEATURES) + i % AGENT_ID_SLOTS] = 1.0
        if ready:
            mask = self._mask(i)
        else:
            mask = np.zeros(L.n_moves, dtype=np.int8)
            mask[L.wait] = 1
        self._obs[name] = {"observation": x, "action_mask": mask} if self.menu.dict_obs else x
        info = dict(text_info)
        info.update(
            ready=ready,
            action_mask=mask,
            move=self._last_move[i],
            move_error=self._move_error[i],
            duplicated_work=self._meter.duplicated,
            duplicated_share=self._meter.rate,
            unit_edits=self._meter.edits,
        )
        self._infos[name] = info

    def _mark_busy(self, i: int) -> None:
        """An agent whose move is under way: same observation, may only wait (a no-op)."""
        name = self.possible_agents[i]
        mask = np.zeros(self.layout.n_moves, dtype=np.int8)
        mask[self.layout.wait] = 1
        if self.menu.dict_obs:
            self._obs[name] = {**self._obs[name], "action_mask": mask}
        self._infos[name] = {
            **self._infos[name],
            "ready": False,
            "action_mask": mask,
            "move": self._last_move[i],
            "move_error": self._move_error[i],
            "messages": [],  # already reported with the previous observation
        }

    # ------------------------------------------------------------------ rest

    def render(self) -> str | None:
        """The text env's dashboard (`ansi`: returned; `human`: printed)."""
        return self._text.render()

    def close(self) -> None:
        """Release the sandbox (safe to call twice)."""
        self._text.close()


def _rebuild(task_root: str, config: dict, time_cap: float | None) -> MenuParallelEnv:
    env = MenuParallelEnv(task_root, **config)
    if time_cap is not None:
        env.set_time_cap(time_cap)
    return env


class MenuGymEnv(gymnasium.Env):
    """One agent alone on a task in menu mode, as a `gymnasium.Env`.

    ## Description

    The one-agent case of `MenuParallelEnv` (see it for moves, observation, rewards
    and episode end). Made with `gymnasium.make("swarm_envs:swarm/<task>-menu-v<N>")`.

    ## Action Space

    `Discrete(max_units * (n_candidates + 2) + 2)`; the mask is in `obs["action_mask"]`
    and `info["action_mask"]`.

    ## Observation Space

    `Dict(observation=Box(0, 1, (max_units * 6 + 19,)), action_mask=Box(0, 1, (n_moves,), int8))`.

    ## Rewards

    The change in the number of passing tests during the step.

    ## Episode End

    Terminated when every test passes or the agent says done; truncated at the time cap.

    ## Arguments

    `task` and the options of `MenuConfig` and `EnvConfig` (`num_agents` must be 1).

    ## Version History

    * v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, task: str | Task = "calc", **config: Any):
        if config.get("num_agents", 1) != 1:
            raise ConfigError(
                f"num_agents={config['num_agents']!r}: the Gymnasium form has exactly one "
                "agent; use swarm_envs.parallel_env(..., mode='menu') for a swarm"
            )
        self._env = MenuParallelEnv(task, **{**config, "num_agents": 1})
        self._agent = self._env.possible_agents[0]
        self.observation_space = self._env.observation_space(self._agent)
        self.action_space = self._env.action_space(self._agent)
        self.render_mode = self._env.render_mode

    def set_time_cap(self, seconds: float) -> None:
        """See `MenuParallelEnv.set_time_cap`."""
        self._env.set_time_cap(seconds)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; returns the agent's observation and info."""
        super().reset(seed=seed)
        obs, infos = self._env.reset(seed=seed, options=options)
        return _fresh(obs[self._agent]), _fresh(infos[self._agent])

    def step(self, action: Any):
        """Make one move; returns observation, reward, terminated, truncated, info."""
        if not self._env.agents:
            raise ResetNeeded("step() on a finished or unstarted episode; call reset() first")
        obs, rewards, terms, truncs, infos = self._env.step({self._agent: action})
        a = self._agent
        return _fresh(obs[a]), rewards[a], terms[a], truncs[a], _fresh(infos[a])

    def render(self) -> str | None:
        """The text env's dashboard (`ansi`: returned; `human`: printed)."""
        return self._env.render()

    def close(self) -> None:
        """Release the sandbox (safe to call twice)."""
        self._env.close()


def _fresh(x: Any) -> Any:
    # Gymnasium users keep what they are given: return data that shares no object.
    if isinstance(x, dict):
        return {k: _fresh(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_fresh(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.copy()
    return x


def menu_aec_env(task: str | Task = "calc", num_agents: int = 4, **config: Any):
    """Menu mode as a PettingZoo `AECEnv` (PettingZoo's own conversion of the parallel form)."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(MenuParallelEnv(task, num_agents=num_agents, **config))
