"""Scripted agents: explicit coordination strategies and a realistic work model, no model.

They make the environment's dynamics visible without an LLM. Each agent knows the
task's reference implementation of every unit (an *oracle*: it reads the task
definition, which real agents never see), so what varies is how the swarm organises
itself and how much a unit costs:

- `none`: every agent works through the units in its own shuffled order, with no
  messages: duplicated reading, duplicated attempts and edit conflicts;
- `claim`: before a unit, an agent posts `claim: <unit>` on #general and skips units
  that others claimed or finished (`done: <unit>`);
- `leader`: agent_0 assigns units round-robin with direct messages; the others wait for
  their assignments.

An agent alone coordinates with nobody: whatever the strategy, it posts nothing and
works in dependency order, so the three strategies are the same agent at size 1.

## One unit of work

1. `claim` posts the claim.
2. The agent reads the unit's file, then the files of the unit's dependencies that it
   has not read yet in this episode (the reading cost). If the file no longer holds the
   unit's starting text, a teammate got there first: it moves on.
3. The error model: with probability `p_wrong` the agent first applies one of the task's
   wrong-but-plausible candidates (`swarm_envs.generation.generators.candidates`: mutants that the
   unit's tests detect), runs the unit's tests, sees them fail and tries again; again
   wrong with probability `p_wrong` while untried wrong candidates remain, then right.
   (As an oracle it knows the failure is its own mistake and not a missing dependency.)
4. It runs the unit's tests after each attempt; `claim` and `leader` then post
   `done: <unit>`.

An edit that no longer matches (someone else changed that code) makes it drop the unit.
The edits come from the task's own starting state, so stub and bug instances work alike.

## Cost

Each action carries the usage an LLM client would report: output tokens = the call's
own tokens (an edit's new code included) + thinking, `edit_reasoning_tokens` before an
edit (working out the implementation) and `reasoning_tokens` before anything else.
Input tokens follow the `work_model`:

- `"flat"` (the default, the model of earlier results): the characters of the
  observations read so far, at 4 a token, at most `4 * context_tokens` characters;
- `"conversation"`: the prompt a `swarm_envs.agents.LLMAgent` would send for the same
  action (`ConversationCost`): its system prompt, every observation read and every
  action written, with the tool schemas, kept under `context_tokens` by the same
  `ContextPolicy` (the oldest tool results shortened first), tokens counted at
  `tokens_per_char` (calibrated on `LLMAgent` conversations:
  `benchmarks/calibrate_work_model.py`, docs/bench.md). So a lone agent's cost per
  action grows with what it has done, up to its context size; in a swarm each agent
  holds only its own part of the work.

Everything is deterministic under `seed`: the order of units, and per (agent, unit)
whether it errs and which wrong candidates it tries.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from swarm_envs.agents.conversation import (
    INSTRUCTIONS,
    ContextPolicy,
    Conversation,
    new_in_first,
    system_prompt,
)
from swarm_envs.agents.protocol import TaskInfo
from swarm_envs.agents.replies import llm_instructions
from swarm_envs.core.actions import estimate_tokens, tool_schemas
from swarm_envs.core.channels import agent_name, agent_names
from swarm_envs.core.text import truncation_marker
from swarm_envs.error import ConfigError
from swarm_envs.generation.candidates import wrong_candidates
from swarm_envs.generation.generators import Candidate, unit_patches
from swarm_envs.tasks import Task, Unit

logger = logging.getLogger("swarm_envs")

Strategy = Literal["none", "claim", "leader"]
#: how many times (30 virtual seconds each) an idle agent waits for the leader's assignment
MAX_WAITS = 10
STRATEGIES: tuple[str, ...] = ("none", "claim", "leader")
_CLAIM = re.compile(r"^(claim|done|assign): (\S+)$")
_CUT = truncation_marker(0).split("0", 1)[0].strip()  # how a capped observation says so

WorkModel = Literal["flat", "conversation"]
WORK_MODELS: tuple[str, ...] = get_args(WorkModel)
#: prompt tokens per character of a conversation's JSON: the environment's 4 characters
#: a token. benchmarks/calibrate_work_model.py fits 0.249 to `LLMAgent` conversations
#: counted by the test server and 0.27-0.30 by small BPE tokenizers (docs/bench.md)
TOKENS_PER_CHAR = 0.25
#: tokens an `LLMAgent` keeps free in its context for the reply (its default `max_tokens`)
REPLY_TOKENS = 512

Kind = Literal["coordinate", "read_own", "read", "edit", "test"]
Edit = tuple[str, str, str]  # (path, old, new) of one edit_file


def _call(name: str, tokens: int = 120, **arguments: Any) -> dict:
    return {"name": name, "arguments": arguments, "usage": {"output_tokens": tokens}}


class ConversationCost:
    """The prompt tokens an `LLMAgent` would send for each action of an agent, without a server.

    It holds the conversation the `LLMAgent` would hold (`Conversation`: the system
    prompt, then each observation and each reply) under the same `ContextPolicy`, with
    the same tool schemas; tokens are counted from characters at a fixed
    `tokens_per_char` (an `LLMAgent` learns its ratio from the server's usage).

    Args:
        context_tokens: the model's context size.
        tokens_per_char: prompt tokens per character of the messages' JSON.
        reply_tokens: tokens kept free for the reply (`LLMAgent`'s `max_tokens`).
    """

    def __init__(
        self,
        context_tokens: int,
        tokens_per_char: float = TOKENS_PER_CHAR,
        reply_tokens: int = REPLY_TOKENS,
    ):
        self.policy = ContextPolicy(context_tokens, reply_tokens)
        self.policy.tokens_per_char = tokens_per_char
        self.conversation = Conversation("")
        self.tools = tool_schemas()
        self._intro = ""

    def reset(self, agent_name: str, names: list[str], task_info: TaskInfo | None) -> None:
        """A new conversation, as `LLMAgent.reset` starts it (all tools without `task_info`)."""
        self._intro = task_info.intro if task_info is not None else ""
        agents = list(task_info.agent_names) if task_info is not None else names
        allowed = set(task_info.tools) if task_info is not None else None
        self.tools = [
            t for t in tool_schemas() if allowed is None or t["function"]["name"] in allowed
        ]
        self.conversation = Conversation(
            system_prompt(
                llm_instructions(INSTRUCTIONS, self.tools), agent_name, agents, self._intro
            )
        )

    def observe(self, observation: str) -> int:
        """Add an observation; the prompt tokens of the request that would follow."""
        conv = self.conversation
        if len(conv.messages) == 1:
            observation = new_in_first(observation, self._intro)
        conv.observe(observation)
        self.policy.fit(conv.messages, self.tools)
        return self.policy.tokens(conv.messages, self.tools)

    def reply(self, action: Mapping[str, Any]) -> None:
        """Add the reply that made `action` (a tool call, its arguments as JSON)."""
        arguments = json.dumps(action.get("arguments") or {})
        call = {"function": {"name": action["name"], "arguments": arguments}}
        self.conversation.reply(None, [call])


@dataclass
class _Step:
    action: dict
    kind: Kind


@dataclass
class ScriptedAgent:
    """One scripted agent (the agent protocol of `swarm_envs.agents`).

    Args:
        name: its agent name (`agent_3`); `reset` may give it another.
        task: the task (or generated instance) it works on.
        strategy: `none`, `claim` or `leader`.
        num_agents: the size of the swarm.
        seed: everything it decides follows from it.
        reasoning_tokens: output tokens of thinking per action other than an edit.
        edit_reasoning_tokens: output tokens of thinking before an edit.
        p_wrong: probability of a wrong attempt before each right one (0: an oracle).
        context_tokens: the most input tokens an action reports (its context window).
        read_dependencies: read the files of a unit's dependencies before editing it.
        wrong: the wrong candidates per unit name (default: `wrong_candidates(task)`,
            computed once and cached on disk, when `p_wrong` > 0).
        work_model: how input tokens are counted: `"flat"` or `"conversation"` (see
            the module docstring).
        tokens_per_char: the conversation model's tokens per character.
    """

    name: str
    task: Task
    strategy: Strategy = "claim"
    num_agents: int = 1
    seed: int = 0
    reasoning_tokens: int = 200
    edit_reasoning_tokens: int = 600
    p_wrong: float = 0.0
    context_tokens: int = 8000
    read_dependencies: bool = True
    wrong: Mapping[str, Sequence[Candidate]] | None = None
    work_model: WorkModel = "flat"
    tokens_per_char: float = TOKENS_PER_CHAR
    finished: set[str] = field(default_factory=set)
    claimed: set[str] = field(default_factory=set)
    assigned: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        _check_options(
            self.strategy,
            self.p_wrong,
            reasoning_tokens=self.reasoning_tokens,
            edit_reasoning_tokens=self.edit_reasoning_tokens,
            context_tokens=self.context_tokens,
        )
        _check_work_model(self.work_model, self.context_tokens, self.tokens_per_char)
        if self.p_wrong > 0 and self.wrong is None:
            self.wrong = wrong_candidates(self.task)
        self.cost = (
            ConversationCost(self.context_tokens, self.tokens_per_char)
            if self.work_model == "conversation"
            else None
        )
        self._units = {u.name: u for u in self.task.units}
        self._start_texts = self.task.start_files()
        self.reset(self.name)

    def reset(self, agent_name: str, task_info: TaskInfo | None = None) -> None:
        """A new episode (the agent protocol of `swarm_envs.agents`): start afresh."""
        self.name = agent_name
        self.index = int(agent_name.rsplit("_", 1)[1])
        self.finished, self.claimed, self.assigned = set(), set(), []
        self._got_assignment, self._waits = False, 0
        self._queue: list[_Step] = []
        self._last: Kind | None = None
        self._unit: str | None = None
        self._expect: list[str] = []  # starting text of the current unit, as read
        self._dropped = False
        self._read_files: set[str] = set()
        self._context = 0  # characters of observations in the agent's context (flat)
        if self.cost is not None:
            self.cost.reset(agent_name, agent_names(self.num_agents), task_info)
        self._said_done = self._assigned_out = False
        self._coordinating = self.strategy != "none" and self.num_agents > 1
        names = [u.name for u in self.task.units]
        if self._coordinating or self.num_agents == 1:
            # Dependencies first (alone, any strategy plans so), then for `claim` a
            # per-agent rotation to spread the work.
            names = _topological(self.task.units)
            if self.strategy == "claim":
                k = self.index * max(len(names) // max(self.num_agents, 1), 1)
                k %= max(len(names), 1)
                names = names[k:] + names[:k]
        else:
            random.Random(f"{self.seed}:{self.name}").shuffle(names)
        self._order = names

    # ------------------------------------------------------------------ messages

    def _read_messages(self, info: Mapping[str, Any]) -> None:
        for m in info.get("messages", []):
            for line in m["text"].splitlines():
                match = _CLAIM.match(line.strip())
                if not match:
                    continue
                verb, unit = match.groups()
                if verb == "claim":
                    self.claimed.add(unit)
                elif verb == "done":
                    self.finished.add(unit)
                elif verb == "assign" and m["channel"] is None:
                    self.assigned.append(unit)
                    self._got_assignment = True

    # ------------------------------------------------------------------ policy

    def act(self, observation: str, info: Mapping[str, Any]) -> dict:
        """The next action, given the agent's latest observation and info."""
        if self.cost is not None:
            input_tokens = self.cost.observe(observation)
            action = self._next(info)
            self.cost.reply(action)
        else:
            self._context = min(self._context + len(observation), 4 * self.context_tokens)
            action = self._next(info)
            input_tokens = estimate_tokens(max(self._context, len(observation)))
        edit = action["name"] == "edit_file"
        thinking = self.edit_reasoning_tokens if edit else self.reasoning_tokens
        usage = {
            "output_tokens": action["usage"]["output_tokens"] + thinking,
            "input_tokens": input_tokens,
        }
        return {**action, "usage": usage}

    def _next(self, info: Mapping[str, Any]) -> dict:
        self._read_messages(info)
        self._react(info)
        if self._queue:
            step = self._queue.pop(0)
            self._last = step.kind
            return step.action
        self._last = "coordinate"
        if self._unit is not None:
            finished, self._unit = self._unit, None
            self.finished.add(finished)
            if self._coordinating and not self._dropped:
                return _call("post", 30, channel="general", text=f"done: {finished}")
        if self.strategy == "leader" and self._coordinating and self.index == 0:
            assignment = self._assign()
            if assignment is not None:
                return assignment
        unit = self._pick()
        if unit is None:
            if self.strategy == "leader" and self.index != 0 and self._coordinating:
                # The leader sends every assignment at once: wait for that message, not
                # for the others' work (a unit dropped without a `done` post would keep
                # every idle agent waiting, and paying for its context, until the cap).
                if not self._said_done and not self._got_assignment:
                    if self._waits < MAX_WAITS and len(self.finished) < len(self._units):
                        self._waits += 1
                        return _call("wait", 20, seconds=30.0)
            self._said_done = True
            return _call("done", 20, summary=f"{self.name} finished")
        self._queue = self._plan(unit)
        step = self._queue.pop(0)
        self._last = step.kind
        return step.action

    def _react(self, info: Mapping[str, Any]) -> None:
        """Drop the rest of the current unit when its last action shows someone else did it."""
        if self._unit is None:
            return
        if self._last == "edit" and info.get("error"):
            self._drop()
        elif self._last == "read_own" and not info.get("error"):
            seen = info.get("result") or ""
            if _CUT not in seen and not all(text in seen for text in self._expect):
                self._drop()

    def _drop(self) -> None:
        self._queue, self._dropped = [], True

    def _plan(self, name: str) -> list[_Step]:
        """Every action of one unit: claim, reads, attempts with their test runs."""
        unit = self._units[name]
        self._unit, self._dropped = name, False
        attempts = self._attempts(unit)
        self._expect = [old for _, old, _ in attempts[0]]
        steps = []
        if self._coordinating and self.strategy == "claim":
            claim = _call("post", 30, channel="general", text=f"claim: {name}")
            steps.append(_Step(claim, "coordinate"))
        steps.append(_Step(_call("read_file", 40, path=unit.path), "read_own"))
        if self.read_dependencies:
            for path in self._dependency_files(unit):
                steps.append(_Step(_call("read_file", 40, path=path), "read"))
        for edits in attempts:
            for path, old, new in edits:
                edit = _call("edit_file", 150 + len(new) // 4, path=path, old=old, new=new)
                steps.append(_Step(edit, "edit"))
            steps.append(_Step(_call("run_tests", 40, selection=list(unit.tests)), "test"))
        return steps

    def _dependency_files(self, unit: Unit) -> list[str]:
        paths = []
        for dep in unit.depends_on:
            path = self._units[dep].path
            if path != unit.path and path not in self._read_files and path not in paths:
                paths.append(path)
        self._read_files.update(paths)
        self._read_files.add(unit.path)
        return paths

    def _attempts(self, unit: Unit) -> list[list[Edit]]:
        """The edits of each attempt at `unit`: wrong ones first (the error model), then right.

        The first attempt edits the starting state; each later one turns the file as the
        previous attempt left it into the next version.
        """
        start = self._start_texts[unit.path].decode("utf-8")
        right = [(p.path, p.old, p.new) for p in unit_patches(self.task, unit)]
        versions: list[tuple[list[Edit], str]] = []
        rng = random.Random(f"{self.seed}:{self.name}:{unit.name}")
        pool = list((self.wrong or {}).get(unit.name, ()))
        while pool and rng.random() < self.p_wrong:
            wrong = list(pool.pop(rng.randrange(len(pool))).patches)
            text = _applied(start, wrong)
            if text is not None:  # it edits the starting state as the right one does
                versions.append((wrong, text))
        versions.append((right, _applied(start, right) or start))
        attempts = [versions[0][0]]
        for (_, before), (_, after) in zip(versions, versions[1:], strict=False):
            attempts.append([(unit.path, *_hunk(before, after))])
        return attempts

    def _pick(self) -> str | None:
        if self.strategy == "leader" and self.index != 0 and self._coordinating:
            while self.assigned:
                unit = self.assigned.pop(0)
                if unit not in self.finished:
                    return unit
            return None
        if self.strategy == "leader" and self._coordinating:
            mine = [u for i, u in enumerate(self._order) if i % self.num_agents == 0]
            todo = [u for u in mine if u not in self.finished]
            return todo[0] if todo else None
        taken = self.finished | (self.claimed if self.strategy == "claim" else set())
        for unit in self._order:
            if unit not in taken:
                return unit
        return None

    def _assign(self) -> dict | None:
        """The leader's first message of assignments (the others queued), once."""
        if self._assigned_out:
            return None
        self._assigned_out = True
        lines: dict[int, list[str]] = {}
        for i, unit in enumerate(self._order):
            if i % self.num_agents:
                lines.setdefault(i % self.num_agents, []).append(f"assign: {unit}")
        msgs = [
            _Step(
                _call("send_message", 20 + 10 * len(v), to=agent_name(k), text="\n".join(v)),
                "coordinate",
            )
            for k, v in sorted(lines.items())
        ]
        if not msgs:
            return None
        self._queue = msgs[1:]
        return msgs[0].action


def _check_options(strategy: str, p_wrong: float, **counts: int) -> None:
    """Raise `ConfigError` naming the first invalid option."""
    if strategy not in STRATEGIES:
        raise ConfigError(f"strategy={strategy!r}: expected one of {list(STRATEGIES)}")
    if not 0.0 <= p_wrong <= 1.0:
        raise ConfigError(f"p_wrong={p_wrong!r}: expected a probability between 0 and 1")
    for name, value in counts.items():
        if value < 0:
            raise ConfigError(f"{name}={value!r}: expected a number of tokens >= 0")


def _check_work_model(work_model: str, context_tokens: int, tokens_per_char: float) -> None:
    """Raise `ConfigError` naming an invalid work model or one of its settings."""
    if work_model not in WORK_MODELS:
        raise ConfigError(f"work_model={work_model!r}: expected one of {list(WORK_MODELS)}")
    if not 0 < tokens_per_char <= 2:
        raise ConfigError(
            f"tokens_per_char={tokens_per_char!r}: expected a ratio in (0, 2] "
            f"(calibrated: {TOKENS_PER_CHAR})"
        )
    if work_model == "conversation" and context_tokens <= REPLY_TOKENS:
        raise ConfigError(
            f"context_tokens={context_tokens}: with work_model='conversation' it must exceed "
            f"the {REPLY_TOKENS} tokens an LLMAgent keeps free for its reply"
        )


def _applied(text: str, edits: Sequence[Edit]) -> str | None:
    """`text` after the edits (each must match once), or None if one does not."""
    for _, old, new in edits:
        if text.count(old) != 1:
            return None
        text = text.replace(old, new, 1)
    return text


def _hunk(before: str, after: str) -> tuple[str, str]:
    """One edit that turns `before` into `after`.

    The lines between their common head and tail, widened by a line at a time until the
    old text occurs once in `before`.
    """
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    while True:
        old = "".join(a[head : len(a) - tail])
        if (old and before.count(old) == 1) or (head == 0 and tail == 0):
            return old, "".join(b[head : len(b) - tail])
        head, tail = max(head - 1, 0), max(tail - 1, 0)


def _topological(units: list[Unit]) -> list[str]:
    done: list[str] = []
    seen: set[str] = set()
    by = {u.name: u for u in units}

    def visit(n: str) -> None:
        if n in seen:
            return
        seen.add(n)
        for d in by[n].depends_on:
            visit(d)
        done.append(n)

    for u in units:
        visit(u.name)
    return done


def make_team(
    task: Task,
    num_agents: int,
    strategy: Strategy = "claim",
    seed: int = 0,
    reasoning_tokens: int = 200,
    *,
    edit_reasoning_tokens: int = 600,
    p_wrong: float = 0.0,
    context_tokens: int = 8000,
    read_dependencies: bool = True,
    wrong: Mapping[str, Sequence[Candidate]] | None = None,
    work_model: WorkModel = "flat",
    tokens_per_char: float = TOKENS_PER_CHAR,
) -> dict[str, ScriptedAgent]:
    """One scripted agent per agent name (see `ScriptedAgent` for the arguments).

    The wrong candidates are found once for the whole team (when `p_wrong` > 0).
    """
    _check_options(
        strategy,
        p_wrong,
        reasoning_tokens=reasoning_tokens,
        edit_reasoning_tokens=edit_reasoning_tokens,
        context_tokens=context_tokens,
    )
    _check_work_model(work_model, context_tokens, tokens_per_char)
    if p_wrong > 0 and wrong is None:
        wrong = wrong_candidates(task)
    return {
        name: ScriptedAgent(
            name,
            task,
            strategy,
            num_agents,
            seed,
            reasoning_tokens=reasoning_tokens,
            edit_reasoning_tokens=edit_reasoning_tokens,
            p_wrong=p_wrong,
            context_tokens=context_tokens,
            read_dependencies=read_dependencies,
            wrong=wrong,
            work_model=work_model,
            tokens_per_char=tokens_per_char,
        )
        for name in agent_names(num_agents)
    }


@dataclass(frozen=True)
class ScriptedTeam:
    """A picklable team factory for rollout workers: `ScriptedTeam("claim")(env)`.

    What `swarm_envs.distributed.RolloutJob(agents=...)` takes: the team is built in the
    worker, for the env the worker holds.
    """

    strategy: Strategy = "claim"
    seed: int = 0
    reasoning_tokens: int = 200
    work_model: WorkModel = "flat"

    def __post_init__(self) -> None:
        _check_work_model(self.work_model, 8000, TOKENS_PER_CHAR)  # fail here, not in a worker

    def __call__(self, env: Any) -> dict[str, ScriptedAgent]:
        """One scripted agent per agent of `env` (a parallel swarm env)."""
        n = len(env.possible_agents)
        return make_team(
            env.task,
            n,
            self.strategy,
            self.seed,
            self.reasoning_tokens,
            work_model=self.work_model,
        )
