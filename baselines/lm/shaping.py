"""An opt-in format reward: a small bonus for each turn whose reply is a valid tool call.

The test reward of a small model on a real task is sparse: a 135M model rarely makes a
test pass, so most updates would see no signal at all. The standard shaping for tool use
is a bonus per well-formed call. It is off by default (`--format-reward 0`), it is added
to the turns' rewards only (the learner's signal), never to the episode's return, and it
is reported on its own (`shaping/format_bonus`), so every chart of the test reward stays
the environment's.

A call is *valid* when it names a known tool with arguments its schema accepts
(`swarm_envs.core.actions.parse_action`), read from the reply as the trainer reads it
(`swarm_envs.agents.replies.read_tool_call`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from swarm_envs.agents.replies import read_tool_call
from swarm_envs.baselines.lm.rollout import EpisodeRecord
from swarm_envs.core.actions import parse_action
from swarm_envs.error import ActionError


def valid_call(text: str) -> bool:
    """Whether `text` holds a tool call that the environment would accept as an action."""
    call = read_tool_call(text).call
    if call is None:
        return False
    try:
        parse_action(dict(call))
    except ActionError:
        return False
    return True


def add_format_reward(records: Sequence[EpisodeRecord], bonus: float) -> dict[str, float]:
    """Add `bonus` to the reward of every turn with a valid call; returns the metrics.

    With `bonus == 0` nothing changes, and the valid-call share is still measured.
    """
    turns = [t for r in records for t in r.all_turns()]
    good = 0
    for t in turns:
        if valid_call(t.text):
            good += 1
            t.reward += bonus
    out: dict[str, Any] = {
        "charts/valid_call_share": good / len(turns) if turns else 0.0,
        "shaping/format_bonus": bonus * good / max(len(records), 1),  # per episode
    }
    return out
