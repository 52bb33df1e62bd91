"""What one step of an episode produced, in the terms every API form translates from.

`Episode.step` returns a `StepOutcome`; the parallel, AEC and Gymnasium forms turn it
into their own return values. The end of an episode is a kind (`terminated` or
`truncated`, as in Gymnasium: a time limit is a truncation, never a termination) and a
reason, each a closed set of names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

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
            tests, the same for every agent.
        changed: indices of the agents whose observation or info changed in the step
            (every agent when the episode ended); the others keep what they had.
        end: `"terminated"`, `"truncated"`, or None while the episode runs.
        reason: why it ended (see `EndReason`), or None while it runs.
    """

    reward: float
    changed: Sequence[int]
    end: EndKind | None = None
    reason: EndReason | None = None

    @property
    def terminated(self) -> bool:
        """True when the episode reached a terminal state (all tests pass, all done)."""
        return self.end == "terminated"

    @property
    def truncated(self) -> bool:
        """True when the episode was cut short (time cap, token budget, scorer failure)."""
        return self.end == "truncated"
