"""Menu mode's parallel form: `MenuParallelEnv`, a layer over the text environment.

Every move becomes tool calls of the text env, through its public API only
(`reset`, `step`, `agent_index`, `episode`, the workspace's `read_file`); pickling and
the sticky time cap are `swarm_envs.envs.facade.Rebuilt`'s, so the cap has one owner,
the text env's episode.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from swarm_envs.core.actions import Action, Usage
from swarm_envs.core.outcome import AgentInfo
from swarm_envs.envs.facade import Rebuilt, SwarmBase
from swarm_envs.envs.menu.code import UnitView, bodies
from swarm_envs.envs.menu.config import split_config
from swarm_envs.envs.menu.features import AGENT_ID_SLOTS, GLOBAL_FEATURES, WorkMeter
from swarm_envs.envs.menu.layout import MenuLayout, Move
from swarm_envs.envs.parallel import SwarmParallelEnv
from swarm_envs.error import ActionError, ConfigError, ResetNeeded
from swarm_envs.generation.candidates import task_candidates
from swarm_envs.generation.generators import Candidate
from swarm_envs.scoring import select_tests
from swarm_envs.tasks import Task, get_task

logger = logging.getLogger("swarm_envs")

_CLAIM = re.compile(r"^claim: (\S+)$")


@dataclass
class _Plan:
    """The tool calls left of an agent's move."""

    move: Move
    steps: list[int]  # function indices still to edit (apply), or [0] for one call
    invalid: bool = False  # a move outside the mask: only its thinking time, as a wait
    started: bool = False


class MenuParallelEnv(Rebuilt, ParallelEnv):
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

    With `dependency_feature=True` each unit slot has a 7th feature, `7u + 6`: every
    unit it depends on (`depends_on` in the manifest) passes all its tests (1 for a
    unit without dependencies), and the row width is 7 (the globals start at
    `7*max_units`). Without it, a unit whose right candidate waits for a stubbed
    dependency looks like one with a wrong candidate in place ("implemented, some
    tests failing").

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
    `candidate_seed`, `move_tokens`, `wait_s`, `dependency_feature`, `dict_obs`) and those of
    `EnvConfig`.

    ## Version History

    * v0: initial release.
    """

    metadata: dict[str, Any] = {**SwarmBase.metadata, "name": "swarm_menu_v0"}

    def __init__(self, task: str | Task = "calc", **config: Any):
        if "instances" in config:
            raise ConfigError(
                "instances=: not in mode='menu'; the menu (its unit slots, candidates and "
                "observation size) is laid out for one task's units, and the instances of "
                "a distribution have units of their own; make one menu env per instance "
                "(parallel_env(instance, mode='menu')), or use mode='text'"
            )
        self.task = get_task(task)
        self.menu, env_config = split_config(config)
        self._recipe = {"task": self.task, **config}
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
        self.layout = MenuLayout(
            self.menu.max_units, self.menu.n_candidates, self.menu.dependency_feature
        )
        m = self.task.manifest
        self.metadata = {**type(self).metadata, "name": f"swarm_{m.name}_menu_v{m.version}"}
        self.render_mode = self._text.render_mode
        self.possible_agents = list(self._text.possible_agents)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._unit_index = {u.name: i for i, u in enumerate(units)}
        self._depends = [[self._unit_index[d] for d in u.depends_on] for u in units]
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

    # `Rebuilt` (the text forms' own): the recipe, and the cap the text env's episode holds.

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

    # ------------------------------------------------------------------ reset

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start an episode (the text env's reset); returns every agent's observation and info."""
        cands = self.candidates  # before the episode: computing them needs no sandbox of ours
        _, text_infos = self._text.reset(seed=seed, options=options)
        self.np_random = self._text.np_random
        ep = self._text.episode
        if self._unit_tests is None:
            ids = list(ep.book.per_test)
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
        return self._text.agent_index(name)  # the text env's lookup, and its error

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

    def _view(self, unit, files: dict[str, str | None] | None = None) -> UnitView:
        files = {} if files is None else files
        if unit.path not in files:
            try:  # as the agents read it: inside the workspace, links checked
                files[unit.path] = self._text.episode.workspace.read_file(unit.path)
            except ActionError:
                files[unit.path] = None
        source = files[unit.path]
        if source is None:
            return UnitView(None, None)
        spans = bodies(source, unit.symbol)
        if spans is None:
            return UnitView(None, None)
        lines = source.splitlines(keepends=True)
        texts = tuple("".join(lines[s - 1 : e]) for _, s, e in spans)
        return UnitView(texts, spans, lines)

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
        per_test = self._text.episode.book.per_test
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
        width = len(L.unit_features)
        rows = x[: L.max_units * width].reshape(L.max_units, width)
        n_units = len(self.task.units)
        stubbed, passing = self._stubbed[:n_units], self._passing[:n_units]
        rows[:n_units, 0] = stubbed
        rows[:n_units, 1] = ~stubbed & passing
        rows[:n_units, 2] = ~stubbed & ~passing
        rows[:n_units, 3] = self._claimed_other[i, :n_units]
        rows[:n_units, 4] = self._claimed_mine[i, :n_units]
        if self._current[i] >= 0:
            rows[self._current[i], 5] = 1.0
        if L.dependency_feature:
            rows[:n_units, 6] = [all(passing[d] for d in ds) for ds in self._depends]
        cap = ep.time_cap
        g = L.max_units * width
        x[g] = min(max(cap - ep.now, 0.0) / cap, 1.0) if cap > 0 else 0.0
        x[g + 1] = ep.book.passed / ep.book.tests_total if ep.book.tests_total else 0.0
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

    def action_mask(self, agent: str) -> np.ndarray:
        """The moves `agent` may make now, as booleans (its `infos[agent]["action_mask"]`).

        Raises:
            ResetNeeded: before the first `reset`.
        """
        i = self._agent(agent)
        info = getattr(self, "_infos", {}).get(self.possible_agents[i])
        if info is None:
            raise ResetNeeded("action_mask() before reset(); call reset() first")
        return np.asarray(info["action_mask"], dtype=bool)

    def render(self) -> str | None:
        """The text env's dashboard (`ansi`: returned; `human`: printed)."""
        return self._text.render()

    def close(self) -> None:
        """Release the sandbox (safe to call twice)."""
        self._text.close()
