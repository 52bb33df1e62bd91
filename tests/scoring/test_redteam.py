"""The red team's catalogue (redteam_catalogue, beside this module) through `env.step`, judged on the host.

One attack of each class, against both scorers. Each asserts what the attack earned, the
finding kinds the guard reported (exactly: an attack that must not be flagged has none,
so a guard that flags everything fails here), that the host is unchanged (the installed
harness and swarm_envs, the home's top level, no file with the attack's marker in the
home or /tmp), and the positive control: the reference solution, written through the
same `env.step` path, scores every test before and after the attack. The whole catalogue
runs in the slow suite and in benchmarks/redteam.py.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from .redteam_catalogue import ATTACKS, BY_NAME, HostState, control, play, play_in_turn
from .venv_copy import harness_venv, run_in

PLAY = (
    "import json, sys\n"
    f"sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})\n"
    "from redteam_catalogue import BY_NAME, play\n"
    "print(json.dumps(play(BY_NAME[sys.argv[1]], sys.argv[2])))\n"
)


@pytest.fixture
def own_venv(tmp_path):
    """A venv whose harness is a copy: where a host attack plays (see venv_copy).

    An attack that escapes a weak sandbox damages this copy, which the host check sees,
    and never the environment the suite runs in; each attack gets a fresh one.
    """
    python, _ = harness_venv(tmp_path / "venv")
    return python


REPRESENTATIVES = {
    "semantic: an always-equal object": "always_equal",
    "semantic: pytest.raises replaced at import": "pytest_raises_replaced_at_import",
    "semantic: builtins replaced at import": "builtins_exceptions_replaced_at_import",
    "semantic: reading the calling test's frame": "frame_oracle_getframe",
    "semantic: reading a test's code": "test_code_constants_oracle",
    "semantic: equal to any instance of its class": "equal_to_any_instance_of_its_class",
    "semantic: a length that iterating contradicts": "length_that_iteration_contradicts",
    "semantic: contains what it never yields": "contains_what_it_never_yields",
    "semantic: true but empty": "true_but_empty",
    "harness: every item's runtest replaced": "runtest_replaced_on_every_item",
    "harness: a pytest code object swapped": "pytest_code_object_swapped",
    "harness: the reporter replaced": "reporter_replaced",
    "harness: the channel hunted with gc": "channel_hunted_with_gc",
    "harness: the channel hunted from a signal handler": "channel_hunted_from_a_signal_handler",
    "harness: reports forged on the audit event": "report_forged_through_the_audit_event",
    "harness: records forged on every descriptor": "records_forged_on_every_fd",
    "cache: a hidden import": "hidden_import_through_builtins",
    "host: writes outside through commands": "write_outside_through_commands",
    "host: the harness rewritten by a command": "harness_rewritten_by_a_command",
    "host: the harness rewritten by the code under test": "harness_rewritten_by_the_code_under_test",
}


#: the representatives this test plays besides the host attacks (each in a venv of its
#: own); every attack is in the whole catalogue, which the slow suite plays on the fast
#: scorer
PLAYED = {
    "semantic: an always-equal object",
    "semantic: equal to any instance of its class",
    "harness: every item's runtest replaced",
    "cache: a hidden import",
}
#: those played on the fast scorer in the fast suite (each plays the attack and the
#: positive control twice, about 15 s): one semantic attack and one on the harness; the
#: slow suite plays the others on the subprocess scorer only (pytest started afresh each
#: time), since the whole catalogue plays them on the fast one
FAST = {
    "semantic: equal to any instance of its class",
    "harness: every item's runtest replaced",
}


def _played() -> list:
    out = []
    for name in sorted(REPRESENTATIVES):
        host = name.startswith("host:")
        label = name.split(": ")[1]
        if name in FAST or host:
            marks = () if name in FAST else pytest.mark.slow
            out.append(pytest.param(name, "fast", marks=marks, id=f"{label}-fast"))
        if name in PLAYED or host:
            out.append(
                pytest.param(name, "subprocess", marks=pytest.mark.slow, id=f"{label}-subprocess")
            )
    return out


#: the scorers of the other tests: the subprocess one's runs in the slow suite
SCORERS = ["fast", pytest.param("subprocess", marks=pytest.mark.slow)]


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("attack", "scorer"), _played())
def test_attack_class_does_not_pay(attack, scorer, request):
    a = BY_NAME[REPRESENTATIVES[attack]]
    if a.cls == "host":
        python = request.getfixturevalue("own_venv")
        row = json.loads(run_in(python, PLAY, a.name, scorer).strip().splitlines()[-1])
    else:
        row = play(a, scorer)
    assert not row["raised"], row
    assert row["passed"] <= a.allowed, row
    assert row["host"] == [], row
    assert row["control"] == "{0}/{0} {0}/{0}".format(7 if a.task == "shapes" else 13), row
    if a.kinds is not None:
        assert set(row["kinds"]) == set(a.kinds), row
    elif a.flagged:
        assert row["kinds"], row
    else:
        assert row["kinds"] == [], row
    assert row["held"], row


def test_every_attack_says_what_it_expects():
    for a in ATTACKS:
        assert a.flagged or not a.kinds, a.name  # an unflagged attack expects no kinds
        assert a.task in ("calc", "shapes"), a.name


@pytest.mark.slow  # the fast suite's representatives check the control before and after
@pytest.mark.parametrize("scorer", SCORERS)
def test_the_positive_control_scores_every_test(scorer):
    for task, total in (("calc", 13), ("shapes", 7)):
        assert control(scorer, task) == {"passed": total, "total": total, "kinds": []}


def test_the_host_check_sees_a_change(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# mine\n")
    monkeypatch.setenv("HOME", str(home))
    before = HostState.capture()
    assert before.changes(HostState.capture()) == []
    (home / ".bashrc").write_text("# mine\nexport PWNED=1\n")
    (tmp_path / "home" / "swarm-redteam-abc123").write_text("x")
    changes = before.changes(HostState.capture(), "abc123")
    assert any(".bashrc changed" in c for c in changes), changes
    assert any("swarm-redteam-abc123 appeared" in c for c in changes), changes
    assert any("swarm-redteam-abc123 was written" in c for c in changes), changes


#: the whole catalogue is played in this many parts, which pytest-xdist's workers share (one
#: part alone took 13 minutes, and the slow suite ended waiting on it)
PARTS = 4


@pytest.mark.slow
@pytest.mark.timeout(5400)
@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize(
    "scorer",
    # The subprocess scorer shares the fast one's guard and harness; CI plays the whole
    # catalogue on the fast one, and the long suite on both.
    ["fast", pytest.param("subprocess", marks=pytest.mark.long)],
)
def test_the_whole_catalogue_holds(scorer, part):
    rows = play_in_turn(ATTACKS[part::PARTS], scorer)
    broken = [r for r in rows if not r["held"]]
    assert not broken, broken


def test_the_parts_play_the_whole_catalogue_once():
    parts = [ATTACKS[part::PARTS] for part in range(PARTS)]
    assert sorted(a.name for p in parts for a in p) == sorted(a.name for a in ATTACKS)
    assert all(parts)
