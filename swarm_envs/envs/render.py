"""The `ansi` dashboard: a compact picture of an episode at the current time."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swarm_envs.envs.episode import Episode

MAX_ROWS = 12


def _bar(frac: float, width: int = 30) -> str:
    frac = min(max(frac, 0.0), 1.0)
    full = round(frac * width)
    return "#" * full + "." * (width - full)


def dashboard(ep: Episode) -> str:
    """The dashboard text of an episode at its current time."""
    passed, total_tests = ep.book.passed, ep.book.tests_total
    total = max(total_tests, 1)
    lines = [
        f"swarm-envs | {ep.task.id} | {len(ep.agents)} agents | sync={ep.config.sync}",
        f"time  [{_bar(ep.now / ep.time_cap)}] {ep.now:9.1f}s / {ep.time_cap:.0f}s",
        f"tests [{_bar(passed / total)}] {passed:5d} / {total_tests} passing",
        f"tokens {ep.tokens}" + (f" / {ep.config.token_budget}" if ep.config.token_budget else ""),
    ]
    rows = ep.agents[:MAX_ROWS]
    for st in rows:
        if st.done:
            state = "done"
        elif st.index in ep.ready:
            state = "ready"
        elif st.waiting:
            state = "waiting"
        else:
            due = ep.clock.due[st.index]
            state = f"busy until {due:.1f}s" if due is not None else "busy"
        last = st.last_tool or "-"
        err = " (error)" if st.error else ""
        lines.append(f"  {st.name:<10} {state:<22} last: {last}{err}  actions: {st.actions}")
    if len(ep.agents) > MAX_ROWS:
        counts = {
            "ready": len(ep.ready),
            "done": sum(s.done for s in ep.agents),
            "waiting": sum(s.waiting for s in ep.agents),
        }
        lines.append(
            f"  ... {len(ep.agents) - MAX_ROWS} more agents "
            f"(all: {counts['ready']} ready, {counts['waiting']} waiting, {counts['done']} done)"
        )
    if ep.ended:
        lines.append(f"episode {ep.ended}: {ep.end_reason}")
    return "\n".join(lines)
