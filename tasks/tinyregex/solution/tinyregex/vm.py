"""The Pike VM: simulate the NFA on all threads in lock-step (no backtracking).

Threads are kept in priority order, which gives the same leftmost-first
results as a backtracking engine: of all matches starting at the leftmost
possible position, the one a backtracking matcher would find first wins.
Running time is O(len(text) * len(program)).
"""

from __future__ import annotations

from tinyregex.compiler import Assert, Char, Dot, Jmp, Match, Program, Save, Set, Split
from tinyregex.nodes import WORD_CHARS

Thread = tuple[int, tuple[int, ...]]


def assertion_holds(kind: str, text: str, pos: int) -> bool:
    """Return whether the zero-width assertion ``kind`` holds at offset ``pos`` of ``text``.

    * ``"^"``: ``pos`` is the very start of the text (``pos == 0``);
    * ``"$"``: ``pos`` is the very end of the text (``pos == len(text)``; unlike
      Python's ``re``, not before a final newline);
    * ``"b"``: a word boundary: exactly one of the characters before and at
      ``pos`` is a word character (ASCII letter, digit or ``_``); positions
      outside the text count as non-word characters;
    * ``"B"``: the opposite of ``"b"``.

    Raises ``ValueError`` for any other ``kind``.
    """
    if kind == "^":
        return pos == 0
    if kind == "$":
        return pos == len(text)
    if kind in ("b", "B"):
        before = pos > 0 and text[pos - 1] in WORD_CHARS
        after = pos < len(text) and text[pos] in WORD_CHARS
        return (before != after) == (kind == "b")
    raise ValueError(f"unknown assertion {kind!r}")


class PikeVM:
    """Run a compiled :class:`~tinyregex.compiler.Program` over texts."""

    def __init__(self, program: Program):
        self.program = program
        self.nslots = 2 * (program.ngroups + 1)

    def add_thread(
        self,
        threads: list[Thread],
        visited: set[int],
        pc: int,
        caps: tuple[int, ...],
        text: str,
        pos: int,
    ) -> None:
        """Add the thread at ``pc`` to ``threads``, following all non-consuming steps.

        This is the epsilon closure, computed depth-first in priority order:

        * a ``pc`` already in ``visited`` is ignored; otherwise it is added to
          ``visited`` before anything else is done (so each instruction is entered
          at most once per position and loops that consume nothing terminate);
        * ``Jmp(x)`` continues at ``x``;
        * ``Split(x, y)`` continues at ``x`` and, once everything reachable from
          ``x`` has been added, at ``y``;
        * ``Save(slot)`` continues at ``pc + 1`` with a copy of ``caps`` in which
          ``slot`` is set to ``pos`` (``caps`` itself is a tuple and never changes);
        * ``Assert(kind)`` continues at ``pc + 1`` only if
          :func:`assertion_holds` is true at ``pos``;
        * ``Char``, ``Dot``, ``Set`` and ``Match`` end the closure: ``(pc, caps)``
          is appended to ``threads``.

        Example: for the program of ``a*`` with ``Save``s, ``[Save(0), Split(2, 4),
        Char(a), Jmp(1), Save(1), Match()]``, ``add_thread(threads, set(), 0,
        (-1, -1), "x", 0)`` appends ``(2, (0, -1))`` and then ``(5, (0, 0))``.
        Must not recurse per instruction (long chains of ``Split``/``Save`` must
        not hit Python's recursion limit).
        """
        prog = self.program.instructions
        stack: list[Thread] = [(pc, caps)]
        while stack:
            pc, caps = stack.pop()
            if pc in visited:
                continue
            visited.add(pc)
            inst = prog[pc]
            if isinstance(inst, Jmp):
                stack.append((inst.x, caps))
            elif isinstance(inst, Split):
                stack.append((inst.y, caps))
                stack.append((inst.x, caps))
            elif isinstance(inst, Save):
                stack.append((pc + 1, caps[: inst.slot] + (pos,) + caps[inst.slot + 1 :]))
            elif isinstance(inst, Assert):
                if assertion_holds(inst.kind, text, pos):
                    stack.append((pc + 1, caps))
            else:
                threads.append((pc, caps))

    def run(
        self,
        text: str,
        pos: int = 0,
        *,
        anchored: bool = False,
        full: bool = False,
        must_advance: bool = False,
    ) -> tuple[int, ...] | None:
        """Find the leftmost-first match in ``text`` starting at or after ``pos``.

        Returns the capture slots of the match (a tuple of ``2 * (ngroups + 1)``
        offsets, ``-1`` for groups that did not participate) or ``None``.

        Threads start at pc 0 at offset ``pos`` with all slots ``-1``.  Then, for
        each offset ``i`` from ``pos``: every thread in the current list, in
        priority order, either consumes ``text[i]`` (``Char``, ``Dot``, ``Set``,
        when ``i < len(text)`` and the character fits) and is added with
        :meth:`add_thread` at ``pc + 1`` and offset ``i + 1`` to the next list,
        or dies; a ``Match`` thread records its slots as the best match so far
        and cuts off all lower-priority threads of the current list (higher
        priority threads already moved on may still produce a better match
        later).  Unless ``anchored``, and as long as no match has been recorded,
        a new lowest-priority thread is started at offset ``i + 1`` after the
        current list has been processed.  The run stops once the text is
        exhausted, or when the next list is empty and no new thread can start
        any more (``anchored``, or a match has been recorded).

        * ``anchored``: the match must start at ``pos`` (no new start threads).
        * ``full``: a ``Match`` thread counts only at ``i == len(text)``; others
          are skipped (and do not cut off lower-priority threads).
        * ``must_advance``: an empty match at ``pos`` itself does not count (it is
          skipped the same way); empty matches at later offsets do.  Used to find
          successive matches without looping forever.
        """
        prog = self.program.instructions
        n = len(text)
        init = (-1,) * self.nslots
        clist: list[Thread] = []
        self.add_thread(clist, set(), 0, init, text, pos)
        matched: tuple[int, ...] | None = None
        i = pos
        while True:
            nlist: list[Thread] = []
            nvisited: set[int] = set()
            ch = text[i] if i < n else None
            for pc, caps in clist:
                inst = prog[pc]
                if isinstance(inst, Match):
                    if full and i != n:
                        continue
                    if must_advance and caps[0] == pos and i == pos:
                        continue
                    matched = caps
                    break
                if ch is None:
                    continue
                if isinstance(inst, Char):
                    ok = inst.char == ch
                elif isinstance(inst, Dot):
                    ok = ch != "\n"
                elif isinstance(inst, Set):
                    ok = inst.cls.matches(ch)
                else:  # pragma: no cover - add_thread only leaves these
                    ok = False
                if ok:
                    self.add_thread(nlist, nvisited, pc + 1, caps, text, i + 1)
            if i >= n:
                break
            if not anchored and matched is None:
                self.add_thread(nlist, nvisited, 0, init, text, i + 1)
            if not nlist and (anchored or matched is not None):
                break
            clist = nlist
            i += 1
        return matched
