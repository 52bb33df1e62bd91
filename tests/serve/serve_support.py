"""What the serving tests share: free ports, servers they start and stop, polling."""

import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the longest any server of these tests may take to start (openenv-core imports gradio)
START_S = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def poll(predicate, timeout_s: float = 60.0, every_s: float = 0.05, what: str = "condition"):
    """Wait until `predicate()` is truthy; returns it, or fails naming `what`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(every_s)


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        return True
    except OSError:
        return False


@contextmanager
def app_server(app, port: int | None = None):
    """Serve an ASGI app on 127.0.0.1 from a thread of this process; yields the port."""
    import uvicorn

    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        poll(lambda: server.started or not thread.is_alive(), START_S, what="the server")
        assert thread.is_alive(), "the server thread died while starting"
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def cli(*args: str, **kw) -> subprocess.Popen:
    """`swarm-envs ARGS` in a process of its own (stopped by the caller)."""
    return subprocess.Popen(
        [sys.executable, "-m", "swarm_envs.cli", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        **kw,
    )


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)
