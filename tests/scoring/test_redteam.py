"""One regression test per attack class (issue 8), through `env.step`, against both scorers.

The whole catalogue (tests/scoring/attacks) runs in the slow suite and in
benchmarks/redteam.py.
"""

from __future__ import annotations

import pytest

from .attacks import ATTACKS, BY_NAME, play

REPRESENTATIVES = {
    "semantic: an always-equal object": "always_equal",
    "semantic: pytest.raises replaced at import": "pytest_raises_replaced_at_import",
    "semantic: builtins replaced at import": "builtins_exceptions_replaced_at_import",
    "semantic: reading the calling test's frame": "frame_oracle_getframe",
    "semantic: reading a test's code": "test_code_constants_oracle",
    "harness: every item's runtest replaced": "runtest_replaced_on_every_item",
    "harness: a pytest code object swapped": "pytest_code_object_swapped",
    "harness: the reporter replaced": "reporter_replaced",
    "harness: the channel hunted with gc": "channel_hunted_with_gc",
    "harness: the channel hunted from a signal handler": "channel_hunted_from_a_signal_handler",
    "harness: reports forged on the audit event": "report_forged_through_the_audit_event",
    "cache: a hidden import": "hidden_import_through_builtins",
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("scorer", ["fast", "subprocess"])
@pytest.mark.parametrize("attack", sorted(REPRESENTATIVES), ids=lambda s: s.split(": ")[1])
def test_attack_class_does_not_pay(attack, scorer):
    row = play(BY_NAME[REPRESENTATIVES[attack]], scorer)
    assert not row["raised"], row
    assert row["passed"] == 0, row
    if BY_NAME[REPRESENTATIVES[attack]].flagged:
        assert row["findings"], row


@pytest.mark.slow
@pytest.mark.timeout(3000)
@pytest.mark.parametrize("scorer", ["fast", "subprocess"])
def test_the_whole_catalogue_holds(scorer):
    rows = [play(a, scorer) for a in ATTACKS]
    broken = [r for r in rows if not r["held"]]
    assert not broken, broken
