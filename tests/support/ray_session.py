"""The one owner of the local Ray instance the Ray tests share (a session fixture uses it).

Tests never assume whether Ray was started before them: a test that needs Ray asks for it
(`up`), a test that needs it absent asks for that (`down`), and the owner starts or stops
it. Every test that uses Ray gets the same kind of instance: 2 CPUs, no dashboard, and
`tests/` on the actors' path (agents the bench imports by path, `support.bench_agents:...`,
must be importable where the actors run, as they are here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TESTS = str(Path(__file__).resolve().parents[1])


class RaySession:
    """Starts and stops this process's local Ray on demand; stops it at the end if it did."""

    def __init__(self, ray: Any) -> None:
        self.ray = ray
        self.started = False

    def up(self) -> Any:
        """Ray running here, with the suite's settings; returns the `ray` module."""
        if not self.ray.is_initialized():
            self.ray.init(
                num_cpus=2,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": TESTS}},
            )
            self.started = True
        return self.ray

    def down(self) -> None:
        """Ray not running in this process (whoever started it)."""
        if self.ray.is_initialized():
            self.ray.shutdown()
