"""The workspace: paths confined to the project, protected files, exact edits, atomic writes."""

import pytest
from support.helpers import call, expect_error, step_one


def test_edit_with_lone_surrogate_is_an_error_not_a_crash(solo):
    expect_error(
        solo, call("edit_file", tokens=1, path="calc/numbers.py", old="def gcd", new="\ud800")
    )


@pytest.mark.parametrize("tool", ["read_file", "list_files"])
def test_path_with_lone_surrogate_is_an_error_not_a_crash(solo, tool):
    expect_error(solo, call(tool, tokens=1, path="calc/\ud800.py"))


def test_edit_overlapping_matches_are_ambiguous(solo):
    step_one(solo, call("write_file", tokens=1, path="notes.txt", content="aaa"))
    expect_error(solo, call("edit_file", tokens=1, path="notes.txt", old="aa", new="b"), "2 times")


def test_failed_write_leaves_the_workspace_unchanged(solo):
    expect_error(solo, call("write_file", tokens=1, path="newdir/" + "a" * 300, content="x"))


def test_edit_is_exact_and_reports_conflicts_without_change(solo):
    step_one(solo, call("write_file", tokens=1, path="notes.txt", content="one two one\n"))
    expect_error(solo, call("edit_file", tokens=1, path="notes.txt", old="one", new="1"), "2 times")
    expect_error(solo, call("edit_file", tokens=1, path="notes.txt", old="One", new="1"))
    _, _, info = step_one(solo, call("edit_file", tokens=1, path="notes.txt", old="two", new="2"))
    assert info["error"] is None
    assert (solo.view().workspace_root / "notes.txt").read_text() == "one 2 one\n"


def test_links_planted_by_run_command_are_refused(solo):
    cmd = (
        "ln -s /etc/passwd pw && ln -s .. up && ln -s tests tt && "
        "ln calc/numbers.py hard.py && echo planted"
    )
    obs, _, info = step_one(solo, call("run_command", tokens=1, command=cmd))
    assert "planted" in obs, obs
    test_file = (solo.view().workspace_root / "tests" / "test_calc.py").read_bytes()
    expect_error(solo, call("read_file", tokens=1, path="pw"), "outside the project")
    expect_error(solo, call("list_files", tokens=1, path="up"), "outside the project")
    expect_error(solo, call("read_file", tokens=1, path="hard.py"), "hard link")
    expect_error(solo, call("edit_file", tokens=1, path="hard.py", old="gcd", new="g"))
    expect_error(solo, call("write_file", tokens=1, path="tt/test_calc.py", content="x"))
    expect_error(solo, call("write_file", tokens=1, path="tt/test_new.py", content="x"))
    assert (solo.view().workspace_root / "tests" / "test_calc.py").read_bytes() == test_file


def test_protected_paths_after_normalisation(solo):
    for path in ("calc/../tests/test_calc.py", "./conftest.py", "calc/conftest.py", "tests"):
        expect_error(solo, call("write_file", tokens=1, path=path, content="x"), "protected")
