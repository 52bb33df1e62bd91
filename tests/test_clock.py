import pytest

from swarm_envs.core.clock import Clock


def test_pops_in_time_order_ties_by_index():
    c = Clock(4)
    c.schedule(3, 5.0)
    c.schedule(1, 5.0)
    c.schedule(2, 2.0)
    c.schedule(0, 7.0)
    assert c.pop_due(100) == [2]
    assert c.now == 2.0
    assert c.pop_due(100) == [1, 3]
    assert c.now == 5.0
    assert c.pop_due(100) == [0]
    assert c.pop_due(100) == []


def test_reschedule_invalidates_old_entry():
    c = Clock(2)
    c.schedule(0, 10.0)
    c.schedule(0, 3.0)  # woken earlier
    c.schedule(1, 4.0)
    assert c.pop_due(100) == [0]
    assert c.now == 3.0
    assert c.pop_due(100) == [1]
    assert c.pop_due(100) == []  # the stale 10.0 entry is gone


def test_cancel_and_until():
    c = Clock(2)
    c.schedule(0, 1.0)
    c.cancel(0)
    c.schedule(1, 9.0)
    assert c.peek() == 9.0
    assert c.pop_due(8.0) == []  # beyond the horizon: nothing, time unchanged
    assert c.now == 0.0


def test_cannot_go_back():
    c = Clock(1)
    c.schedule(0, 2.0)
    c.pop_due(10)
    with pytest.raises(ValueError):
        c.schedule(0, 1.0)
