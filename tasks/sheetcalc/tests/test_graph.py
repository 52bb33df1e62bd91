"""Layer 4: the dependency graph (sheetcalc.graph)."""

from sheetcalc.graph import DependencyGraph

A1, B1, C1, D1, E1 = (0, 0), (0, 1), (0, 2), (0, 3), (0, 4)
A2, B2 = (1, 0), (1, 1)


def chain(*pairs):
    g = DependencyGraph()
    for cell, precedents in pairs:
        g.set_precedents(cell, precedents)
    return g


class TestSetPrecedents:
    def test_both_directions(self):
        g = chain((C1, {A1, B1}))
        assert g.precedents(C1) == {A1, B1}
        assert g.dependents(A1) == {C1}
        assert g.dependents(B1) == {C1}

    def test_replace_removes_old_edges(self):
        g = chain((C1, {A1}), (C1, {B1}))
        assert g.precedents(C1) == {B1}
        assert g.dependents(A1) == frozenset()
        assert g.dependents(B1) == {C1}

    def test_clear(self):
        g = chain((C1, {A1}), (C1, set()))
        assert g.precedents(C1) == frozenset()
        assert g.dependents(A1) == frozenset()

    def test_shared_precedent(self):
        g = chain((B1, {A1}), (C1, {A1}), (B1, set()))
        assert g.dependents(A1) == {C1}

    def test_self_reference(self):
        g = chain((A1, {A1}))
        assert g.precedents(A1) == {A1}
        assert g.dependents(A1) == {A1}

    def test_accepts_any_iterable(self):
        g = chain((C1, [A1, A1, B1]))
        assert g.precedents(C1) == {A1, B1}


class TestAffected:
    def test_includes_given_cells(self):
        assert DependencyGraph().affected([A1]) == {A1}

    def test_transitive(self):
        g = chain((B1, {A1}), (C1, {B1}), (D1, {C1}))
        assert g.affected([A1]) == {A1, B1, C1, D1}

    def test_only_downstream(self):
        g = chain((B1, {A1}), (C1, {B1}))
        assert g.affected([B1]) == {B1, C1}

    def test_diamond(self):
        g = chain((B1, {A1}), (C1, {A1}), (D1, {B1, C1}))
        assert g.affected([A1]) == {A1, B1, C1, D1}

    def test_cycle_terminates(self):
        g = chain((A1, {B1}), (B1, {A1}))
        assert g.affected([A1]) == {A1, B1}

    def test_several_sources(self):
        g = chain((B1, {A1}), (B2, {A2}))
        assert g.affected([A1, A2]) == {A1, B1, A2, B2}


class TestFindCycles:
    def test_no_cycle(self):
        g = chain((B1, {A1}), (C1, {B1}))
        assert g.find_cycles({A1, B1, C1}) == set()

    def test_self_loop(self):
        g = chain((A1, {A1}))
        assert g.find_cycles({A1}) == {A1}

    def test_two_cycle(self):
        g = chain((A1, {B1}), (B1, {A1}))
        assert g.find_cycles({A1, B1}) == {A1, B1}

    def test_downstream_not_included(self):
        g = chain((A1, {B1}), (B1, {A1}), (C1, {B1}))
        assert g.find_cycles({A1, B1, C1}) == {A1, B1}

    def test_upstream_not_included(self):
        g = chain((B1, {A1, C1}), (C1, {B1}))
        assert g.find_cycles({A1, B1, C1}) == {B1, C1}

    def test_long_cycle_and_separate_chain(self):
        g = chain((A1, {B1}), (B1, {C1}), (C1, {A1}), (E1, {D1}))
        assert g.find_cycles({A1, B1, C1, D1, E1}) == {A1, B1, C1}

    def test_only_edges_inside_the_set(self):
        g = chain((A1, {B1}), (B1, {A1}))
        assert g.find_cycles({A1}) == set()

    def test_long_chain_no_recursion_limit(self):
        g = DependencyGraph()
        cells = [(i, 0) for i in range(5000)]
        for prev, cell in zip(cells, cells[1:]):
            g.set_precedents(cell, {prev})
        g.set_precedents(cells[0], {cells[-1]})
        assert len(g.find_cycles(cells)) == 5000


class TestEvaluationOrder:
    def test_chain(self):
        g = chain((C1, {B1}), (B1, {A1}))
        assert g.evaluation_order({A1, B1, C1}) == ([A1, B1, C1], set())

    def test_precedents_first_even_when_later_in_sheet(self):
        g = chain((A1, {B2}), (B2, {C1}))
        order, cyclic = g.evaluation_order({A1, B2, C1})
        assert order == [C1, B2, A1]
        assert cyclic == set()

    def test_independent_cells_sorted(self):
        g = DependencyGraph()
        assert g.evaluation_order({B2, A2, C1, A1}) == ([A1, C1, A2, B2], set())

    def test_diamond(self):
        g = chain((D1, {B1, C1}), (B1, {A1}), (C1, {A1}))
        order, _ = g.evaluation_order({A1, B1, C1, D1})
        assert order == [A1, B1, C1, D1]

    def test_cycle_excluded_and_downstream_ordered(self):
        g = chain((A1, {B1}), (B1, {A1}), (C1, {B1}), (D1, {C1}))
        order, cyclic = g.evaluation_order({A1, B1, C1, D1})
        assert cyclic == {A1, B1}
        assert order == [C1, D1]

    def test_precedents_outside_set_ignored(self):
        g = chain((C1, {A1, B1}))
        assert g.evaluation_order({C1}) == ([C1], set())
