"""The reward book of an episode: what the tests say, and what the swarm is owed.

`RewardBook` owns everything the reward is computed from: the reports it takes from the
scorer, the rescoring after the workspace changed, the true starting count, the all-pass
confirmation, the final fresh recount (settling), attribution, the return so far and the
integrity findings. It never calls back into the episode: each method returns what
happened (a `Rescore`, a `Settlement`: the reward or correction, an end reason, new
attribution records, new findings) and the episode acts on it (ends, records, observes).

The episode supplies the scorer at every call and the book decides which evaluation to
ask of it: the per-step count (`evaluate(held_out=True)`, which may come from a cache),
or a full, fresh run (`fresh=True`) when the count is authoritative. A policy of more
fresh runs (an audit every N rescorings) is a decision of `rescore`, nothing else.

See docs/integrity.md ("The last count") for why the last count is always fresh.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from swarm_envs.core.outcome import AppliedAction, Attribution, EndReason, Recount
from swarm_envs.scoring import TestReport
from swarm_envs.scoring.lru import LRU

#: fresh counts of starting states, by task, scorer, sandbox and snapshot (see `start`)
_TRUE_STARTS: LRU[tuple, TestReport] = LRU(64)


class EpisodeScorer(Protocol):
    """What an episode and its book use of a scorer (`swarm_envs.scoring.Scorer` has it).

    A scorer made for an episode by its scorer factory must answer these honestly: the
    outcomes of the canonical tests on the workspace's current files.
    """

    def evaluate(
        self, selection: Sequence[str] | None = None, *, held_out: bool = False, fresh: bool = False
    ) -> TestReport:
        """The selected tests' outcomes now (`fresh`: every one run, no cache)."""
        ...

    def take_snapshot(self) -> dict[str, str]:
        """The workspace's files now (relative path -> content hash)."""
        ...

    def test_ids(self) -> list[str]:
        """The visible canonical test ids."""
        ...

    def held_out_ids(self) -> list[str]:
        """The held-out canonical test ids."""
        ...

    def admit(self, rel: str, old_size: int | None, new_size: int) -> None:
        """Allow a write (the workspace's quota hook); raises `ActionError` to refuse it."""
        ...

    def quota_note(self) -> str:
        """Why the workspace is over its quota now, or ""."""
        ...

    def close(self) -> None:
        """Stop the scorer (twice-safe)."""
        ...


@dataclass(frozen=True)
class Rescore:
    """What one rescoring of the workspace changed.

    Attributes:
        reward: the change in the number of passing tests the reward counts.
        end: `"all_tests_pass"` (confirmed by a fresh run) or `"scorer_failure"` (too many
            scorings without a verdict in a row); None: the episode goes on.
        attribution: the records this rescoring added (see `Attribution`).
        findings: the integrity findings this rescoring added (`all_pass_recount`).
    """

    reward: float = 0.0
    end: EndReason | None = None
    attribution: tuple[Attribution, ...] = ()
    findings: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class Settlement:
    """What the final fresh recount changed.

    Attributes:
        correction: the difference from the per-step count, which the last reward absorbs.
        attribution: the record of the tests that differ, if any.
        findings: the `final_recount` finding, if the recount disagreed or gave no verdict.
    """

    correction: float = 0.0
    attribution: tuple[Attribution, ...] = ()
    findings: tuple[dict[str, str], ...] = ()


def _listed(tests: list[str], most: int = 20) -> str:
    """Test ids for a finding's `test` field: the first `most` of them."""
    return ", ".join(tests[:most]) + (" ..." if len(tests) > most else "")


class RewardBook:
    """The counts behind an episode's reward, from its start to its settled end.

    One book per episode. The reward's tests are fixed when it is made (`reward_ids`: the
    visible tests, or all with `reward_tests="all"`).

    Args:
        reward_ids: the test ids the reward counts.
        max_scorer_failures: scorings without a verdict in a row that end the episode.
        audit_every: a full, fresh run every this many rescorings (0: none); see `rescore`.
    """

    def __init__(
        self,
        reward_ids: Iterable[str] = (),
        *,
        max_scorer_failures: int = 3,
        audit_every: int = 0,
    ):
        self.reward_ids = list(reward_ids)
        # Audits (issue 30): every `audit_every`-th rescoring is also a full, fresh run; a
        # disagreement with the per-step count is charged at that step (kind `audit`).
        self.audit_every = max(0, int(audit_every))
        self.rescorings = 0
        self.audits = 0
        self.audit_disagreements = 0
        self._reward_set = frozenset(self.reward_ids)
        self.max_scorer_failures = max_scorer_failures
        self.total_reward = 0.0  # the collective return so far
        self.scorer_failures = 0
        self.dirty = False  # the workspace changed since the last verdict
        self.verdict: Literal["ok", "no_verdict"] = "ok"
        self.verdict_error: str | None = None  # the scorer's reason for "no_verdict"
        self.passed = 0
        self.per_test: dict[str, bool] = {}  # replaced, never changed in place
        self.visible_passed = 0
        self.held_out = (0, 0)  # held-out tests passed, and their number
        self.integrity: list[dict[str, str]] = []  # what the scorer's guard flagged
        # The authoritative end (see `settle`): the step at which the per-step count last
        # changed each test's outcome, and whether it was settled.
        self._changed_at: dict[str, int] = {}
        self.settled = False
        self.recount: Recount | None = None  # the final recount's record
        # The last full, fresh run (of the starting state, or of a state the per-step count
        # said passes every test), and whether any action has touched the sandbox since (a
        # write, a command, a test run): while none has, that run is the authoritative
        # final count too, and `settle` runs nothing.
        self._fresh: TestReport | None = None
        self._touched = False
        self._recounts: list[dict[str, str]] = []  # fresh runs that overruled the count
        # Attribution: the writes applied since the last verdict, and every rescore that
        # changed some test's outcome with the writes that preceded it.
        self._applied: list[AppliedAction] = []
        self.attribution: list[Attribution] = []

    @property
    def tests_total(self) -> int:
        """The number of tests the reward counts."""
        return len(self.reward_ids)

    # ------------------------------------------------------------------ what the episode did

    def touched(self) -> None:
        """An action touched the sandbox (a write, a command, a test run).

        The final count must then run again. Called before the action runs, since a
        failed write may have written.
        """
        self._touched = True

    def applied(self, action: AppliedAction) -> None:
        """A write or command was applied: the workspace needs a new verdict.

        The next change of outcomes is attributed to it, with the others applied since
        the last verdict.
        """
        self.dirty = True
        self._applied.append(action)

    def pay(self, reward: float) -> None:
        """Add a step's reward (or the end's correction) to the return."""
        self.total_reward += reward

    # ------------------------------------------------------------------ counts

    def start(self, scorer: EpisodeScorer, key: tuple) -> bool:
        """Take the starting count; False when the scorer gave no verdict (`verdict_error`).

        The count is a full, fresh run, once per process and starting state (`key` names
        the task, scorer and sandbox; the workspace's snapshot completes it): the return
        of an episode is its true final count minus this one (see `settle`), so it never
        comes from a cache keyed by reach.
        """
        report = self._score(scorer)
        if report is None:
            return False
        self._take(self._true_start(scorer, report, key))
        return True

    def _true_start(self, scorer: EpisodeScorer, report: TestReport, key: tuple) -> TestReport:
        if report.ran >= len(report.per_test):
            self._fresh = report
            return report  # every test ran now
        snapshot = tuple(sorted(scorer.take_snapshot().items()))
        hit = _TRUE_STARTS.get((*key, snapshot))
        if hit is None:
            fresh = scorer.evaluate(held_out=True, fresh=True)
            if fresh.verdict != "ok":
                return report
            hit = _TRUE_STARTS.put((*key, snapshot), fresh)
        self._fresh = hit
        return hit

    def rescore(self, scorer: EpisodeScorer, *, now: float, step: int, ended: bool) -> Rescore:
        """Score the workspace if it changed since the last verdict.

        When the count says every test passes (and the episode has not ended otherwise), a
        full, fresh run must say so too before the episode may end on it.

        Args:
            scorer: the episode's scorer.
            now: the virtual time (of attribution records).
            step: the episode's step (of findings: since when a count was wrong).
            ended: the episode has already ended (then no all-pass confirmation).
        """
        if not self.dirty:
            self.verdict, self.verdict_error = "ok", None
            return Rescore()
        report = self._score(scorer)
        if report is None:
            # "No verdict": keep the last known score, retry next step.
            if self.scorer_failures >= self.max_scorer_failures:
                return Rescore(end="scorer_failure")
            return Rescore()
        self.dirty = False
        before, outcomes = self.passed, self.per_test
        self._take(report)
        self.rescorings += 1
        audit: tuple[dict[str, str], ...] = ()
        if self.audit_every and self.rescorings % self.audit_every == 0 and not ended:
            audit = self._audit(scorer, report, step)
        added: list[Attribution] = []
        if self.per_test != outcomes:  # the same count can hide other changes
            added += self._attribute(outcomes, self.per_test, now)
            was = outcomes.get
            for t, ok in self.per_test.items():
                if was(t, False) != ok:
                    self._changed_at[t] = step
        self._applied = []
        end: EndReason | None = None
        findings: tuple[dict[str, str], ...] = ()
        if self.passed == self.tests_total and self.tests_total and not ended:
            end, findings, more = self._confirm_all_pass(scorer, now, step)
            added += more
        return Rescore(float(self.passed - before), end, tuple(added), (*audit, *findings))

    def _audit(
        self, scorer: EpisodeScorer, report: TestReport, step: int
    ) -> tuple[dict[str, str], ...]:
        """A full, fresh run of the state just counted; its count is taken if it differs.

        The per-step count may come from keys that runtime facts narrowed (`scoring=
        {"keys": "dynamic"}`) or from the memo: the audit bounds how long a wrong count
        can stand (the final recount bounds the return). A count that ran every test
        fresh needs no audit. Returns the `audit` finding, if the counts disagreed.
        """
        if report.ran >= len(report.per_test):
            return ()
        fresh = scorer.evaluate(held_out=True, fresh=True)
        if fresh.verdict != "ok":
            return ()
        self.audits += 1
        outcomes = self.per_test
        self._take(fresh)
        self._fresh, self._touched = fresh, False  # the end's recount, if nothing changes
        differ = sorted(t for t in outcomes if outcomes[t] != self.per_test.get(t, False))
        if not differ:
            return ()
        self.audit_disagreements += 1
        for t in differ:
            self._changed_at[t] = step
        finding = {
            "kind": "audit",
            "test": _listed(differ),
            "detail": (
                f"the per-step count differed from a fresh run on {len(differ)} tests "
                f"(step {step}): the fresh count is taken now"
            ),
        }
        self._recounts.append(finding)  # kept in every later step's findings
        self.integrity = [*self.integrity, finding]
        return (finding,)

    def _confirm_all_pass(
        self, scorer: EpisodeScorer, now: float, step: int
    ) -> tuple[EndReason | None, tuple[dict[str, str], ...], list[Attribution]]:
        """End on every test passing only if a full, fresh run says so too.

        The per-step count may come from the fast scorer's cache; an episode never
        terminates on it alone. When the fresh run disagrees, its count is taken now (this
        step's reward has the difference), the disagreement is recorded in
        `infos["integrity"]` (kind `all_pass_recount`) and the episode goes on.
        """
        report = scorer.evaluate(held_out=True, fresh=True)
        if report.verdict != "ok":
            return None, (), []  # no fresh verdict: no termination on a count nothing confirmed
        outcomes = self.per_test
        self._take(report)
        self._fresh, self._touched = report, False  # the end's recount is this run
        differ = sorted(t for t in outcomes if outcomes[t] != self.per_test.get(t, False))
        if not differ:
            return "all_tests_pass", (), []
        for t in differ:
            self._changed_at[t] = step
        finding = {
            "kind": "all_pass_recount",
            "test": _listed(differ),
            "detail": (
                f"the per-step count said every test passes, a fresh run {self.passed} of "
                f"{self.tests_total} (since step {step}): the episode goes on"
            ),
        }
        self._recounts.append(finding)  # kept in every later step's findings
        self.integrity = [*self.integrity, finding]
        return None, (finding,), self._attribute(outcomes, self.per_test, now)

    def settle(self, scorer: EpisodeScorer, *, now: float) -> Settlement:
        """The authoritative count of the episode's end; returns its correction.

        The per-step counts may come from the fast scorer's cache. The last count of an
        episode never does: this runs every test the reward counts, fresh and under the
        guard, and the difference from the per-step count is the correction that the
        episode adds to the last step's reward, so that the episode's return is always the
        true final count minus the true starting count. A disagreement is recorded in
        `integrity` (kind `final_recount`: which tests, since which step) and in
        `recount`. Only the first call runs anything, and nothing runs when no action has
        touched the sandbox since a fresh run (that run is then the final one: the
        workspace and everything that could run in it are as they were).
        """
        if self.settled:
            return Settlement()
        self.settled = True
        if self._fresh is not None and not self._touched:
            report = self._fresh
        else:
            report = scorer.evaluate(held_out=True, fresh=True)
        if report.verdict != "ok":
            finding = {
                "kind": "final_recount",
                "test": "",
                "detail": f"no fresh verdict at the end: {report.error}",
            }
            self.integrity = [*self.integrity, finding]
            return Settlement(findings=(finding,))
        before, outcomes = self.passed, self.per_test
        self._take(report)
        differ = sorted(
            t
            for t in outcomes.keys() | self.per_test.keys()
            if outcomes.get(t, False) != self.per_test.get(t, False)
        )
        if not differ:
            return Settlement()
        since = min(self._changed_at.get(t, 0) for t in differ)
        correction = float(self.passed - before)
        self.recount = {
            "per_step": before,
            "final": self.passed,
            "correction": correction,
            "tests": differ,
            "since_step": since,
        }
        finding = {
            "kind": "final_recount",
            "test": _listed(differ),
            "detail": (
                f"the per-step count said {before} passing, a fresh run {self.passed}: "
                f"{len(differ)} tests differ, since step {since}; the last reward "
                f"absorbs {correction:+g}"
            ),
            "since_step": str(since),
        }
        self.integrity = [*self.integrity, finding]
        added = self._attribute(outcomes, self.per_test, now)
        return Settlement(correction, tuple(added), (finding,))

    # ------------------------------------------------------------------ inside

    def _score(self, scorer: EpisodeScorer) -> TestReport | None:
        """The per-step count of the whole workspace, or None without a verdict."""
        report = scorer.evaluate(held_out=True)
        if report.verdict != "ok":
            self.scorer_failures += 1
            self.verdict = "no_verdict"
            self.verdict_error = report.error or "(the scorer gave no reason)"
            return None
        self.scorer_failures = 0
        self.verdict, self.verdict_error = "ok", None
        return report

    def _take(self, report: TestReport) -> None:
        """The reward's counts and the held-out ones from a report (which has both)."""
        reward_ids = self._reward_set
        self.per_test = {t: ok for t, ok in report.per_test.items() if t in reward_ids}
        self.passed = sum(self.per_test.values())
        self.visible_passed = report.visible_passed
        self.held_out = (report.held_out_passed, report.held_out_total)
        self.integrity = [*report.integrity, *self._recounts]

    def _attribute(
        self, old: Mapping[str, bool], per_test: Mapping[str, bool], now: float
    ) -> list[Attribution]:
        """Record which of the reward's tests changed and the writes since the last verdict.

        Called only when the outcomes differ (a dict comparison done anyway); the cost is
        one pass over the outcomes plus the writes since the last verdict, never a
        function of the number of agents. Returns the record, if any test changed.
        """
        gained: list[str] = []
        lost: list[str] = []
        was = old.get
        for test, ok in per_test.items():
            if was(test, False) != ok:
                (gained if ok else lost).append(test)
        if not gained and not lost:
            return []  # only tests that were not scored before (all failing) appeared
        record: Attribution = {"t": now, "gained": gained, "lost": lost, "actions": self._applied}
        self.attribution.append(record)
        return [record]
