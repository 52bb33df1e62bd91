"""The reward book alone: counts, rescoring, the true start, the all-pass confirmation,
settling and attribution, against a scorer that reads a folder's files in this process.

The same defences run on the real scorer through whole episodes in test_final_recount.py;
here each rule of the book is one small, fast case, and what the book returns (rewards,
ends, corrections, findings, records) is checked as data.
"""

from __future__ import annotations

import itertools

import pytest
from support.memory_scorer import GCD_BODY, MEAN_BODY, RULES, MemoryScorer

from swarm_envs.envs.book import Rescore, RewardBook, Settlement

GCD_TESTS = [t for t in RULES if "gcd" in t]
_keys = itertools.count()


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def scorer(tmp_path):
    write(tmp_path, "calc/numbers.py", "def gcd(a, b):\n    raise NotImplementedError\n")
    return MemoryScorer(tmp_path)


def started(scorer, reward_ids=None, **options) -> RewardBook:
    """A book of `scorer`'s visible tests, started (its own true-start key)."""
    book = RewardBook(scorer.test_ids() if reward_ids is None else reward_ids, **options)
    assert book.start(scorer, key=("test_reward_book", next(_keys)))
    return book


def applied(book, agent="agent_0", files=("calc/numbers.py",), t=1.0):
    book.touched()
    book.applied({"agent": agent, "tool": "write_file", "files": list(files), "t": t})


def test_the_start_is_a_full_run_and_needs_no_second_one(scorer):
    book = started(scorer)
    assert scorer.calls == ["count"]  # every test ran: that run is the true start
    assert (book.passed, book.tests_total) == (0, 4)
    assert book.held_out == (0, 1) and book.verdict == "ok"


def test_a_start_from_the_cache_is_confirmed_by_a_fresh_run(scorer):
    scorer.evaluate(held_out=True)  # every outcome is in the cache now
    scorer.forge(GCD_TESTS)  # and two of them lie
    scorer.calls.clear()
    book = started(scorer)
    assert scorer.calls == ["count", "fresh"]
    assert book.passed == 0  # the fresh count, not the forged one


def test_nothing_is_scored_until_something_was_applied(scorer):
    book = started(scorer)
    scorer.calls.clear()
    assert book.rescore(scorer, now=1.0, step=1, ended=False) == Rescore()
    assert scorer.calls == []


def test_a_rescore_returns_the_reward_and_the_record_of_who_preceded_it(scorer, tmp_path):
    book = started(scorer)
    write(tmp_path, "calc/numbers.py", f"def gcd(a, b):\n    {GCD_BODY}\n")
    applied(book, agent="agent_1", t=3.0)
    out = book.rescore(scorer, now=3.0, step=1, ended=False)
    assert out.reward == 2 and out.end is None and out.findings == ()
    (record,) = out.attribution
    assert record["t"] == 3.0 and record["gained"] == GCD_TESTS and record["lost"] == []
    assert [a["agent"] for a in record["actions"]] == ["agent_1"]
    assert book.attribution == [record] and book.passed == 2 and not book.dirty
    # A change that moves no test is scored and adds no record.
    write(tmp_path, "other.py", "X = 1\n")
    applied(book, files=("other.py",))
    assert book.rescore(scorer, now=4.0, step=2, ended=False) == Rescore()
    assert book.attribution == [record]


def test_no_verdict_keeps_the_last_count_until_too_many(scorer, tmp_path):
    book = started(scorer, max_scorer_failures=2)
    write(tmp_path, "calc/numbers.py", f"def gcd(a, b):\n    {GCD_BODY}\n")
    applied(book)
    book.rescore(scorer, now=1.0, step=1, ended=False)
    scorer.close()
    applied(book)
    assert book.rescore(scorer, now=2.0, step=2, ended=False) == Rescore()
    assert book.verdict == "no_verdict" and book.verdict_error == "the scorer is closed"
    assert book.passed == 2  # the last verdict, never a silent zero
    out = book.rescore(scorer, now=3.0, step=3, ended=False)  # still dirty: tried again
    assert out.end == "scorer_failure" and out.reward == 0 and book.passed == 2


def test_an_all_pass_count_ends_only_when_a_fresh_run_agrees(scorer, tmp_path):
    book = started(scorer)
    write(tmp_path, "calc/numbers.py", f"def gcd(a, b):\n    {GCD_BODY}\n    {MEAN_BODY}\n")
    write(tmp_path, "NOTES.md", "done\n")
    applied(book)
    scorer.calls.clear()
    out = book.rescore(scorer, now=5.0, step=4, ended=False)
    assert out.end == "all_tests_pass" and out.reward == 4
    assert scorer.calls == ["count", "fresh"]
    # The confirmation is the end's count too: settling runs nothing more.
    assert book.settle(scorer, now=5.0) == Settlement() and scorer.calls == ["count", "fresh"]
    assert book.settled and book.recount is None


def test_an_all_pass_count_of_an_episode_that_ended_is_not_confirmed(scorer, tmp_path):
    book = started(scorer)
    write(tmp_path, "calc/numbers.py", f"def gcd(a, b):\n    {GCD_BODY}\n    {MEAN_BODY}\n")
    write(tmp_path, "NOTES.md", "done\n")
    applied(book)
    scorer.calls.clear()
    out = book.rescore(scorer, now=5.0, step=4, ended=True)  # the cap was reached first
    assert out.end is None and out.reward == 4 and scorer.calls == ["count"]


def test_a_forged_all_pass_goes_on_with_the_fresh_count_and_a_finding(scorer, tmp_path):
    book = started(scorer)
    write(tmp_path, "NOTES.md", "done\n")  # one true pass
    scorer.forge(list(RULES))  # and the cache says the rest pass too
    applied(book, files=("NOTES.md",))
    out = book.rescore(scorer, now=2.0, step=7, ended=False)
    assert out.end is None
    assert out.reward == 1 and book.passed == 1  # this step's reward has the fresh count
    (finding,) = out.findings
    assert finding["kind"] == "all_pass_recount" and "since step 7" in finding["detail"]
    assert finding in book.integrity
    # The finding stays in the book's findings after later counts.
    applied(book, files=("NOTES.md",))
    book.rescore(scorer, now=3.0, step=8, ended=False)
    assert finding in book.integrity


def test_settling_after_a_forged_count_takes_the_credit_back(scorer, tmp_path):
    book = started(scorer)
    scorer.forge(GCD_TESTS)
    write(tmp_path, "notes.py", "X = 1\n")  # an edit no test reads: the count is forged
    applied(book, files=("notes.py",))
    out = book.rescore(scorer, now=2.0, step=3, ended=False)
    assert out.reward == 2 and book.passed == 2
    book.pay(out.reward)
    settled = book.settle(scorer, now=9.0)
    assert settled.correction == -2 and book.passed == 0
    book.pay(settled.correction)
    assert book.total_reward == 0  # the return is the true change
    assert book.recount == {
        "per_step": 2,
        "final": 0,
        "correction": -2.0,
        "tests": GCD_TESTS,
        "since_step": 3,
    }
    (finding,) = settled.findings
    assert finding["kind"] == "final_recount" and finding["since_step"] == "3"
    (record,) = settled.attribution
    assert record["lost"] == GCD_TESTS and record["t"] == 9.0
    # Only the first call runs anything.
    scorer.calls.clear()
    assert book.settle(scorer, now=10.0) == Settlement() and scorer.calls == []


def test_settling_an_untouched_workspace_runs_nothing(scorer):
    book = started(scorer)
    scorer.calls.clear()
    assert book.settle(scorer, now=1.0) == Settlement() and scorer.calls == []
    assert book.settled


@pytest.mark.parametrize("touch", ["write", "test run"])
def test_settling_after_anything_touched_the_sandbox_runs_fresh(scorer, touch):
    book = started(scorer)
    if touch == "write":
        applied(book)
    else:
        book.touched()  # a test run, a command: nothing to attribute, but it ran code
    scorer.calls.clear()
    assert book.settle(scorer, now=1.0) == Settlement()
    assert scorer.calls == ["fresh"]


def test_settling_without_a_verdict_is_a_finding_not_a_zero(scorer, tmp_path):
    book = started(scorer)
    write(tmp_path, "calc/numbers.py", f"def gcd(a, b):\n    {GCD_BODY}\n")
    applied(book)
    book.rescore(scorer, now=1.0, step=1, ended=False)
    scorer.close()
    settled = book.settle(scorer, now=2.0)
    assert settled.correction == 0 and book.passed == 2
    (finding,) = settled.findings
    assert finding["kind"] == "final_recount" and "no fresh verdict" in finding["detail"]


def test_the_reward_counts_only_its_tests(scorer, tmp_path):
    # reward_tests="all": held-out tests count too; by default only the visible ones.
    write(tmp_path, "calc/numbers.py", f"def mean(values):\n    {MEAN_BODY}\n")
    visible = started(MemoryScorer(tmp_path))
    every = started(MemoryScorer(tmp_path), reward_ids=[*RULES, *scorer.held_out_ids()])
    assert (visible.passed, visible.tests_total) == (1, 4)
    assert (every.passed, every.tests_total) == (2, 5)
    assert visible.held_out == every.held_out == (1, 1)
