"""`TestReport` and test selection."""

from __future__ import annotations

from swarm_envs.scoring import TestReport, select_tests
from swarm_envs.scoring.report import NOT_OBSERVED, no_verdict, outcomes

IDS = [
    "tests/test_a.py::TestX::test_one",
    "tests/test_a.py::test_two[1-2]",
    "tests/test_a.py::test_two[3-4]",
    "tests/sub/test_b.py::test_three",
]


def test_report_properties():
    r = TestReport({"a": True, "b": False}, {"b": "x"}, "ok", None, 0.1, False)
    assert (r.passed, r.total, r.ok) == (1, 2, True)
    assert r.summary() == "1/2 tests pass"
    nv = TestReport({"a": False}, {}, "no_verdict", "boom", 0.1, False)
    assert "no verdict: boom" == nv.summary()
    assert not nv.ok


def test_selection_by_file_directory_class_and_parameters():
    assert select_tests(IDS, None) == (IDS, [])
    assert select_tests(IDS, "tests/test_a.py")[0] == IDS[:3]
    assert select_tests(IDS, ["./tests/sub/"])[0] == IDS[3:]
    assert select_tests(IDS, ["tests/test_a.py::TestX"])[0] == IDS[:1]
    assert select_tests(IDS, ["tests/test_a.py::test_two"])[0] == IDS[1:3]
    assert select_tests(IDS, ["tests/test_a.py::test_two[3-4]"])[0] == IDS[2:3]
    # Suite order, whatever the order of the selection; unmatched entries are named.
    chosen, unmatched = select_tests(IDS, ["tests/sub", "nope.py", "tests/test_a.py::TestX"])
    assert chosen == [IDS[0], IDS[3]] and unmatched == ["nope.py"]
    # A prefix of a name is not a match: test_tw is not test_two.
    assert select_tests(IDS, ["tests/test_a.py::test_tw"]) == ([], ["tests/test_a.py::test_tw"])


def test_outcomes_fail_what_was_not_observed():
    per, fails = outcomes(
        IDS,
        {IDS[0]: (True, ""), IDS[1]: (False, "assert 1 == 2")},
        {"tests/sub/test_b.py": "ImportError: no module"},
    )
    assert per == {IDS[0]: True, IDS[1]: False, IDS[2]: False, IDS[3]: False}
    assert fails[IDS[1]] == "assert 1 == 2"
    assert fails[IDS[2]] == NOT_OBSERVED
    assert fails[IDS[3]].startswith("collection failed: ImportError")


def test_no_verdict_is_never_a_measurement():
    r = no_verdict(IDS[:2], "the worker died", 0.0)
    assert r.verdict == "no_verdict" and r.error == "the worker died"
    assert r.per_test == dict.fromkeys(IDS[:2], False) and not r.failures
