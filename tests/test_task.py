"""Task lookup: the name first (with suggestions), the version second, folders."""

import pytest

import swarm_envs
from swarm_envs.error import TaskError, UnknownTask, VersionNotFound
from swarm_envs.tasks import BUNDLED_ROOT, get_task, task_roots


@pytest.mark.parametrize(
    "name, suggestion",
    [("clac", "calc"), ("json", "jsonkit"), ("calk-v0", "calc"), ("sheet", "sheetcalc")],
)
def test_a_misspelt_name_suggests_the_closest(name, suggestion):
    with pytest.raises(UnknownTask, match=f"did you mean: {suggestion}") as e:
        get_task(name)
    assert "swarm-envs list" in str(e.value)


def test_a_missing_version_lists_the_versions():
    with pytest.raises(VersionNotFound, match=r"'calc' has no version 7; it has calc-v0") as e:
        get_task("calc-v7")
    assert isinstance(e.value, UnknownTask) and e.value.version == 7


@pytest.mark.parametrize("given", ["calc", "calc-v0", "swarm/calc-v0", str(BUNDLED_ROOT / "calc")])
def test_names_ids_gym_ids_and_folders_find_the_task(given):
    assert get_task(given).id == "calc-v0"


def test_folders_that_are_not_tasks(tmp_path):
    with pytest.raises(TaskError, match="no such folder: './no/such/task'"):
        get_task("./no/such/task")
    (tmp_path / "file").write_text("x")
    with pytest.raises(TaskError, match="is not a folder"):
        get_task(str(tmp_path / "file"))
    with pytest.raises(TaskError, match="expected a task id"):
        get_task(3)


def test_envs_report_lookup_errors_the_same_way():
    with pytest.raises(UnknownTask, match="did you mean: calc"):
        swarm_envs.parallel_env("clac")


def test_task_roots_cover_every_known_task_folder():
    roots = task_roots()
    for path in swarm_envs.registered().values():
        assert any(path.resolve() == r or r in path.resolve().parents for r in roots)
