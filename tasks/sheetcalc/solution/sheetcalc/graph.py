"""The dependency graph between cells.

A cell's *precedents* are the cells its formula reads; its *dependents* are
the cells whose formulas read it.  Cells are ``(row, col)`` tuples.  The
graph only stores edges: it does not know which cells hold formulas.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

Cell = tuple[int, int]


class DependencyGraph:
    """Precedent/dependent edges between cells, kept consistent in both directions."""

    def __init__(self) -> None:
        self._precedents: dict[Cell, frozenset[Cell]] = {}
        self._dependents: dict[Cell, set[Cell]] = {}

    def precedents(self, cell: Cell) -> frozenset[Cell]:
        """The cells ``cell`` reads directly (empty if none)."""
        return self._precedents.get(cell, frozenset())

    def dependents(self, cell: Cell) -> frozenset[Cell]:
        """The cells that read ``cell`` directly (empty if none)."""
        return frozenset(self._dependents.get(cell, ()))

    def set_precedents(self, cell: Cell, precedents: Iterable[Cell]) -> None:
        """Replace the precedents of ``cell`` with ``precedents``.

        Edges from the old precedents are removed (so they no longer list
        ``cell`` among their dependents) and edges to the new ones are added.
        An empty iterable removes all of ``cell``'s precedents.  A cell may
        be its own precedent (a self-reference).
        """
        old = self._precedents.pop(cell, frozenset())
        for p in old:
            deps = self._dependents.get(p)
            if deps is not None:
                deps.discard(cell)
                if not deps:
                    del self._dependents[p]
        new = frozenset(precedents)
        if new:
            self._precedents[cell] = new
            for p in new:
                self._dependents.setdefault(p, set()).add(cell)

    def affected(self, cells: Iterable[Cell]) -> set[Cell]:
        """Return ``cells`` plus every cell that depends on them, transitively.

        These are the cells to recompute after ``cells`` change.  Cycles do
        not cause infinite loops.
        """
        seen = set(cells)
        stack = list(seen)
        while stack:
            c = stack.pop()
            for d in self._dependents.get(c, ()):
                if d not in seen:
                    seen.add(d)
                    stack.append(d)
        return seen

    def find_cycles(self, cells: Iterable[Cell]) -> set[Cell]:
        """Return the cells of ``cells`` that lie on a dependency cycle.

        Only edges between cells of ``cells`` are considered.  A cell is on
        a cycle when it belongs to a strongly connected component with more
        than one cell, or when it is its own precedent.  Cells that merely
        depend on a cycle are *not* included.
        """
        nodes = set(cells)
        index: dict[Cell, int] = {}
        low: dict[Cell, int] = {}
        on_stack: set[Cell] = set()
        stack: list[Cell] = []
        result: set[Cell] = set()
        counter = 0

        def _succ(c: Cell) -> list[Cell]:
            return sorted(p for p in self._precedents.get(c, ()) if p in nodes)

        for root in sorted(nodes):
            if root in index:
                continue
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack.add(root)
            work = [(root, iter(_succ(root)))]
            while work:
                v, it = work[-1]
                advanced = False
                for w in it:
                    if w not in index:
                        index[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on_stack.add(w)
                        work.append((w, iter(_succ(w))))
                        advanced = True
                        break
                    if w in on_stack:
                        low[v] = min(low[v], index[w])
                if advanced:
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1 or v in self._precedents.get(v, ()):
                        result.update(component)
        return result

    def evaluation_order(self, cells: Iterable[Cell]) -> tuple[list[Cell], set[Cell]]:
        """Order ``cells`` for recalculation.

        Returns ``(order, cyclic)`` where ``cyclic`` is
        :meth:`find_cycles` of ``cells`` and ``order`` lists every other cell
        of ``cells`` exactly once, each after all of its precedents that are
        also in ``order``.  Among cells that are ready at the same time the
        smallest ``(row, col)`` comes first, so the order is deterministic
        (e.g. independent cells come out sorted).
        """
        nodes = set(cells)
        cyclic = self.find_cycles(nodes)
        remaining = nodes - cyclic
        waiting = {c: len([p for p in self._precedents.get(c, ()) if p in remaining]) for c in remaining}
        ready = [c for c, n in waiting.items() if n == 0]
        heapq.heapify(ready)
        order: list[Cell] = []
        while ready:
            c = heapq.heappop(ready)
            order.append(c)
            for d in self._dependents.get(c, ()):
                if d in waiting and d != c:
                    waiting[d] -= 1
                    if waiting[d] == 0:
                        heapq.heappush(ready, d)
        return order, cyclic
