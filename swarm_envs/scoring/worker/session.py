"""One pytest session over a scoring tree, in the current process (inside the sandbox)."""

from __future__ import annotations

import os
import sys

import pytest

from . import guard, settings
from .codecache import CodeCache
from .reporter import Reporter, caller_codes


def base_args(ini: str, rootdir: str) -> list[str]:
    """The pytest command line of every scoring run (plugins that could interfere are off)."""
    return [
        "-c",
        ini,
        f"--rootdir={rootdir}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:stepwise",
        "-p",
        "no:pastebin",
        "-p",
        "no:junitxml",
        "-p",
        "no:legacypath",
        "-p",
        "no:faulthandler",
        # Both run gc.collect() over the whole heap at the end of a session (~40 ms each)
        # to report unraisable exceptions as warnings; warnings do not decide outcomes.
        "-p",
        "no:unraisableexception",
        "-p",
        "no:threadexception",
        "-q",
        "--tb=short",
        "-o",
        "console_output_style=classic",
        "--import-mode=prepend",
        "--continue-on-collection-errors",
        # Plugins of the task's environment its tests need (named in the manifest).
        *settings.plugins(),
    ]


def redirect_std(keep_stdin: bool = False) -> None:
    """Point fds 0-2 (1-2 with `keep_stdin`) at /dev/null.

    Code under test never holds the real channel, so what it prints counts for nothing.
    """
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2) if keep_stdin else (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def set_limits(lim: dict) -> None:
    """CPU seconds and address space of this process (and what it starts)."""
    import resource

    cpu = int(lim.get("cpu_s", 0))
    if cpu > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = int(lim.get("memory_mb", 0))
    if mem > 0:
        b = mem * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or b <= hard:
            resource.setrlimit(resource.RLIMIT_AS, (b, hard))


def run_pytest(
    tree: str,
    ini: str,
    targets: list[str],
    select_ids: list[str] | None,
    out_fd: int,
    *,
    code_cache: CodeCache,
    trace: bool = False,
) -> str:
    """Run pytest on `targets` of `tree` under the guard, which reports to `out_fd`.

    Returns the folder the run gave hypothesis (`hypothesis_storage`), for the caller to
    remove where the run's temporary directory is not removed with it.

    With `trace`, the guard records what each test executed (`guard`'s tracer).
    Canonical tests must already be compiled (`code_cache.prepare`): the guard is installed
    now, before any code under test is imported, and knows their code from then on.
    """
    import _pytest.runner

    # Which test is running is nobody's business but the guard's.
    _pytest.runner._update_current_test_var = _no_current_test
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    # The project's own packages come from the tree; any other name from the standard
    # library and installed packages first: a workspace json.py cannot shadow json.
    settings.use_tree(tree)
    storage = hypothesis_storage()
    codes, keep = code_cache.canonical_codes()
    callers = [*caller_codes(), run_pytest.__code__]
    guard.install(
        out_fd=out_fd,
        tree=tree,
        canonical_codes=codes,
        keep=keep,
        caller_codes=frozenset(map(id, callers)),
        # The worker's bin/: this package and the bootstrap that started it.
        harness_dir=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        canonical_imports=tuple(sorted(code_cache.imports)),
        trace=trace,
    )
    del codes, keep
    os.chdir(tree)
    code_cache.install_finder(tree)
    try:
        reporter = Reporter(select_ids, tests_root=os.path.join(tree, "tests") + os.sep)
        pytest.main([*base_args(ini, tree), *targets], plugins=[settings.Deselect(), reporter])
    except BaseException as e:  # noqa: BLE001 - anything the code under test raised
        sys.audit(guard.REPORT_EVENT, "error", f"{type(e).__name__}: {e}"[:500])
    return storage


def hypothesis_storage() -> str:
    """Give hypothesis a storage folder of this run's own (its example database included).

    By default hypothesis keeps the failing examples it finds in `.hypothesis/` of the
    directory it was imported from, and replays them first in later runs: an outcome would
    depend on earlier runs, and the folder would land in whatever directory the worker has
    (read-only in a private view: an in-memory fallback and a warning, an error under a
    suite's `filterwarnings = ["error"]`). A new folder under this run's temporary
    directory starts empty and goes with the run. Hypothesis reads
    `HYPOTHESIS_STORAGE_DIRECTORY` the first time it needs the folder; one imported
    already (the fork server imports what the tests import) is told directly.
    """
    import tempfile

    path = tempfile.mkdtemp(prefix="hypothesis-")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = path
    configuration = sys.modules.get("hypothesis.configuration")
    if configuration is not None:
        configuration.set_hypothesis_home_dir(path)
    return path


#: whether this process built hypothesis' tables (`warm_hypothesis`)
_hypothesis_warm = False


def warm_hypothesis() -> None:
    """Build hypothesis' Unicode tables once, in the fork server, for every run to inherit.

    `st.text()` and `st.characters()` need the code points of each Unicode category and
    those UTF-8 encodes, which hypothesis derives by walking all 1.1 million of them (7-12 s
    on one core) and caches on disk in its storage folder. Each run has a new, empty
    folder (`hypothesis_storage`), so every run of a suite that draws text paid the walk
    again, and a suite of two such tests went past a 20 s time limit under load. The
    tables are also cached in memory (module globals and `functools.cache`), which a
    forked child inherits: made here, from the standard library's `unicodedata` by
    hypothesis' own code, before any code under test exists. The files hypothesis writes
    meanwhile go to a folder of their own, removed at once.
    """
    global _hypothesis_warm
    charmap = sys.modules.get("hypothesis.internal.charmap")
    configuration = sys.modules.get("hypothesis.configuration")
    if charmap is None or configuration is None or _hypothesis_warm:
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hypothesis-warm-") as path:
        configuration.set_hypothesis_home_dir(path)
        try:
            charmap.charmap()
            charmap.categories()
            from_codec = getattr(charmap, "intervals_from_codec", None)  # hypothesis >= 6.88
            if from_codec is not None:
                from_codec("utf-8")
        except Exception:  # noqa: BLE001 - an older or newer hypothesis: the runs build them
            pass
        finally:
            configuration.set_hypothesis_home_dir(None)
    _hypothesis_warm = True


def _no_current_test(item: object, when: object) -> None:
    return None
