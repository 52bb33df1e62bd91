"""The one owner of cache folders: where each kind lives, and what `off` turns off."""

import os
from pathlib import Path

import pytest

from swarm_envs import cache


@pytest.fixture
def no_override(monkeypatch, tmp_path):
    monkeypatch.delenv("SWARM_ENVS_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def test_every_kind_is_a_folder_of_the_one_root(monkeypatch, tmp_path):
    monkeypatch.setenv("SWARM_ENVS_CACHE", str(tmp_path))
    assert {cache.path(k) for k in cache.KINDS} == {tmp_path.resolve() / k for k in cache.KINDS}


def test_the_user_cache_folder_follows_the_xdg_rule(no_override, monkeypatch):
    home = no_override / "home"
    monkeypatch.setenv("XDG_CACHE_HOME", str(no_override / "xdg"))
    assert cache.path("scoring") == (no_override / "xdg" / "swarm-envs" / "scoring").resolve()
    # Empty or relative: ignored (never a folder relative to the working directory).
    for value in ("", "  ", "relative/dir", "."):
        monkeypatch.setenv("XDG_CACHE_HOME", value)
        assert cache.root() == (home / ".cache" / "swarm-envs").resolve()
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.root() == (home / ".cache" / "swarm-envs").resolve()


def test_off_turns_off_the_optional_caches_and_keeps_the_others_private(monkeypatch):
    monkeypatch.setenv("SWARM_ENVS_CACHE", "off")
    assert cache.disabled()
    assert cache.path("scoring") is None and cache.path("candidates") is None
    kept = cache.folder("environments")
    assert kept.parent == cache.root() and Path(cache.root()).name.startswith("swarm-envs-cache-")
    assert not str(kept).startswith(os.path.expanduser("~"))


def test_wrong_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown cache kind 'scorin'"):
        cache.path("scorin")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="may be turned off"):
        cache.folder("scoring")
