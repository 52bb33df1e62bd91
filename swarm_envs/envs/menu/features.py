"""What a menu-mode agent observes, and the metric of duplicated work.

The observation's features (per unit slot, global, and the agent's identity slots) and
`WorkMeter` (unit edits made on a unit a teammate had already edited). Pure: imports
nothing of the library.
"""

from __future__ import annotations

UNIT_FEATURES = (
    "stubbed",
    "implemented_passing",
    "implemented_failing",
    "claimed_by_other",
    "claimed_by_me",
    "current",
)
DEPENDENCY_FEATURE = "dependencies_pass"  # one more per unit slot, with dependency_feature=True
GLOBAL_FEATURES = ("time_left", "tests_passing", "agent_rank")
AGENT_ID_SLOTS = 16  # one-hot of i % 16: a teammate's identity, as text mode's status line gives


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
