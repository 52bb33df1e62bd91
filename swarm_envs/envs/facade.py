"""What the parallel, AEC and Gymnasium forms share: configuration, task, reset, render.

Each form is a thin translation of its API to `Episode.step` and back; everything they
have in common lives here, so that the forms differ only in what their APIs differ in.
Readers outside the environments read a form's `view()` (an `EpisodeView`); `episode` is
the engine, for the forms and menu mode.
"""

from __future__ import annotations

import abc
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium.spaces import Space

from swarm_envs.core.channels import agent_names, agent_range
from swarm_envs.core.config import EnvConfig
from swarm_envs.core.outcome import EpisodeView
from swarm_envs.core.spaces import UnicodeText
from swarm_envs.envs.episode import Episode, SandboxFactory, ScorerFactory
from swarm_envs.envs.render import dashboard
from swarm_envs.error import ConfigError, Error
from swarm_envs.generation.instances import TaskDistribution
from swarm_envs.tasks import Task, get_task

#: the keys `reset(options=...)` accepts
RESET_OPTIONS = ("time_cap",)
#: the seed stream of unseeded resets and distribution draws (the episode's own is apart)
_DRAW_STREAM = 0x7A5C


class UnknownResetOption(UserWarning):
    """`reset(options=...)` got a key it does not know (a typo of `time_cap`?)."""


class Rebuilt:
    """Pickling by recipe, and the sticky time cap, which the episode holds (one owner).

    An environment crosses processes (vector-env workers, Ray actors, deepcopy) as the
    recipe it was built from (`_recipe`: its constructor's keyword arguments) plus its
    sticky settings: a running episode holds a sandbox and processes that cannot be
    copied, so the copy starts un-reset. The forms here and menu mode (which wraps a
    text env) share it; the cap itself is only ever the episode's.
    """

    _recipe: dict[str, Any]

    @property
    @abc.abstractmethod
    def episode(self) -> Episode:
        """The simulation behind the environment (clock, workspace, scorer, messages)."""

    def view(self) -> EpisodeView:
        """The running episode as a frozen snapshot: time, counts, end, attribution, ...

        What callers outside the environments read (rollout runners, servers, trainers,
        the bench): it does not change as the episode goes on, and changing nothing.
        """
        return self.episode.view()

    def set_time_cap(self, seconds: float) -> None:
        """Set the time cap (virtual seconds) of every later episode; `math.inf`: no cap.

        It holds for every later `reset`, including the automatic resets of vector
        environments (`vec_env.call("set_time_cap", s)`); `reset(options={"time_cap": s})`
        still overrides it for one episode. The running episode keeps its cap.
        """
        self.episode.set_time_cap(seconds)

    def __reduce__(self) -> tuple[Any, ...]:
        sticky = {"time_cap": self.episode.default_time_cap}
        return (_rebuild, (type(self), self._recipe, sticky))


class SwarmBase(Rebuilt):
    """Configuration, task, episode, reset options, time cap, render and close."""

    metadata: dict[str, Any] = {
        "name": "swarm_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": True,
        "render_fps": 4,
    }

    def __init__(
        self,
        task: str | Task = "calc",
        *,
        instances: Mapping[str, Any] | Sequence[str | Task] | None = None,
        sandbox_factory: SandboxFactory | None = None,
        scorer_factory: ScorerFactory | None = None,
        **config: Any,
    ):
        self.config = EnvConfig.build(**config)
        self.task = get_task(task)
        self._recipe: dict[str, Any] = {"task": self.task, "instances": instances, **config}
        # The episode's collaborators, when not the defaults (a test's own scorer).
        parts: dict[str, Any] = {}
        if sandbox_factory is not None:
            parts["sandbox_factory"] = sandbox_factory
        if scorer_factory is not None:
            parts["scorer_factory"] = scorer_factory
        self._recipe.update(parts)
        self._distribution = (
            TaskDistribution(self.task, instances) if instances is not None else None
        )
        if self._distribution is not None and self._distribution.tasks:
            self.task = self._distribution.tasks[0]  # until the first draw
        # Seeds of unseeded resets and the draws of a distribution; every seeded reset
        # reseeds it, so that `reset(seed=s)` and the unseeded resets after it (a vector
        # env's autoresets) repeat as a whole.
        self._seeds = np.random.default_rng()
        self._seeded = False
        m = self.task.manifest
        self.metadata = {**type(self).metadata, "name": f"swarm_{m.name}_v{m.version}"}
        self.render_mode: str | None = self.config.render_mode
        self.possible_agents = agent_names(self.config.num_agents)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._episode = Episode(self.task, self.config, **parts)
        self.agents: list[str] = []

    @property
    def episode(self) -> Episode:
        """The simulation behind the environment (clock, workspace, scorer, messages)."""
        return self._episode

    def _reset_episode(self, seed: int | None, options: Mapping[str, Any] | None) -> None:
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise ConfigError(
                f"reset(options={options!r}): expected a dict with keys from {list(RESET_OPTIONS)}"
            )
        unknown = sorted(map(str, set(options) - set(RESET_OPTIONS)))
        if unknown:
            # A warning, not an error: PettingZoo's API tests probe `reset` with
            # `options={"options": 1}`, and its contract is that any options dict works.
            warnings.warn(
                f"reset(options=...): unknown option(s) {unknown} ignored; "
                f"allowed: {list(RESET_OPTIONS)}",
                UnknownResetOption,
                stacklevel=3,
            )
        if seed is not None and (not isinstance(seed, int | np.integer) or seed < 0):
            raise ConfigError(f"reset(seed={seed!r}): expected a non-negative int, or None")
        if seed is None and not self._seeded:
            seed = self.config.seed  # the config's seed seeds the first reset
        if seed is None:  # the next seed of the stream (entropy's, if never seeded)
            seed = int(self._seeds.integers(2**31))
        else:
            self._seeds = np.random.default_rng([seed, _DRAW_STREAM])
            self._seeded = True
        if self._distribution is not None:  # the same seed draws the same instance
            self.task = self._distribution.draw(self._seeds)
        self._episode.reset(seed=seed, time_cap=options.get("time_cap"), task=self.task)
        self.np_random = self._episode.np_random

    def render(self) -> str | None:
        """`ansi`: return the dashboard; `human`: print it."""
        if self.render_mode is None:
            return None
        if not self._episode.started:
            return "swarm-envs: call reset() first"
        text = dashboard(self._episode)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _rendered_step(self) -> None:
        if self.render_mode == "human":
            self.render()

    def close(self) -> None:
        """Release the sandbox (safe to call twice)."""
        self._episode.close()

    def agent_index(self, name: str) -> int:
        """The index of agent `name` in `possible_agents` (`"agent_3"` -> 3).

        Raises:
            Error: `name` is not one of this environment's agents (the message names them).
        """
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise Error(
                f"unknown agent {name!r}; agents are {agent_range(len(self.possible_agents))}"
            ) from None


def _rebuild(cls: type[Rebuilt], recipe: dict[str, Any], sticky: dict[str, Any]) -> Rebuilt:
    """Unpickle an environment: build it from its recipe, restore its sticky settings."""
    env = cls(**recipe)
    env.set_time_cap(sticky["time_cap"])
    return env


class AgentSpaces(SwarmBase):
    """PettingZoo's per-agent spaces: plain dicts, the same object back for every call."""

    def __init__(self, task: str | Task = "calc", **config: Any):
        super().__init__(task, **config)
        obs = UnicodeText(self.config.max_observation_chars)
        act = UnicodeText(self.config.max_action_chars)
        self.observation_spaces: dict[str, Space] = dict.fromkeys(self.possible_agents, obs)
        self.action_spaces: dict[str, Space] = dict.fromkeys(self.possible_agents, act)

    def observation_space(self, agent: str) -> Space:
        """Text observations: the tool result, new messages and a status line."""
        return self.observation_spaces[self.possible_agents[self.agent_index(agent)]]

    def action_space(self, agent: str) -> Space:
        """Text actions: one tool call as JSON (dicts and `ToolCall` models are also accepted)."""
        return self.action_spaces[self.possible_agents[self.agent_index(agent)]]
