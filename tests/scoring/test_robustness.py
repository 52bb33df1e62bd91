"""A host that never crashes or stalls: whatever the workspace holds, `step()` returns.

Everything goes through `env.step` (the agents' tools), on both scorers: deeply nested
expressions, names that are not UTF-8, paths too long for a scoring tree, thousands of
star-importing modules, a workspace over its quota; and a fuzz test of random content.
"""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import swarm_envs


def _write(path: str, content: str) -> str:
    return json.dumps({"name": "write_file", "arguments": {"path": path, "content": content}})


def _run(command: str) -> str:
    return json.dumps({"name": "run_command", "arguments": {"command": command}})


def _python(code: str) -> str:
    """A run_command action that runs `code` with the sandbox's Python."""
    b64 = base64.b64encode(code.encode()).decode()
    return _run(f"echo {b64} | base64 -d > /tmp/x.py && python /tmp/x.py")


@pytest.fixture(params=["fast", pytest.param("subprocess", marks=pytest.mark.slow)])
def env(request):
    env = swarm_envs.parallel_env(
        "calc",
        num_agents=1,
        scorer=request.param,
        time_cap_s=1e6,
        workspace_quota={"max_mb": 8, "max_files": 3000, "max_file_mb": 0.1},
    )
    env.reset(seed=0)
    yield env
    env.close()


def _step(env, action):
    _, _, _, _, infos = env.step({"agent_0": action})
    return infos["agent_0"]


SOLUTION = swarm_envs.get_task("calc").solution_files()


PARTLY = 9  # core.py solved (numbers.py left stubbed: solving all would end the episode)


def _solve(env):
    return _step(env, _write("calc/core.py", SOLUTION["calc/core.py"].decode()))


@pytest.mark.timeout(300)
def test_odd_workspace_content_never_crashes_the_host(env):
    assert _solve(env)["tests_passed"] == PARTLY
    attacks = [
        # A 5,000-term expression: the host's analysis must not recurse over it.
        _write("calc/deep.py", "X = " + "1 + " * 5000 + "1\n"),
        _write("calc/nested.py", "X = " + "[" * 90 + "]" * 90 + "\n"),
        # A name that is not UTF-8, and a path too long for any scoring tree.
        _run("touch \"$(printf 'calc/bad\\377name.py')\" \"$(printf 'data\\376.txt')\""),
        _python(
            "import os\np = 'calc/' + '/'.join(['d' * 200] * 16)\n"
            "os.makedirs(p)\nopen(p + '/m.py', 'w').write('x = 1')\n"
        ),
        # Files that are not files: a FIFO, a symlink loop, an unreadable directory.
        _run(
            "mkfifo calc/pipe.py; ln -s loop loop; mkdir -p locked; touch locked/a.py; chmod 000 locked"
        ),
    ]
    for action in attacks:
        info = _step(env, action)
        assert info["verdict"] == "ok", info
        assert info["tests_passed"] == PARTLY, (action[:80], info["tests_passed"])


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_thousands_of_star_importing_modules_are_analysed_in_linear_time(env):
    _solve(env)
    info = _step(
        env,
        _python(
            "import os\nos.makedirs('gen', exist_ok=True)\nopen('gen/__init__.py', 'w').close()\n"
            "for i in range(2500):\n"
            "    open(f'gen/m{i}.py', 'w').write('from gen import *\\n')\n"
        ),
    )
    assert info["verdict"] == "ok" and info["tests_passed"] == PARTLY


@pytest.mark.timeout(300)
def test_a_workspace_over_its_quota_fails_every_test_and_says_why(env):
    _solve(env)
    info = _step(env, _run("head -c 3000000 /dev/zero > big.bin"))
    assert info["tests_passed"] == 0 and info["verdict"] == "ok"
    assert "over its quota" in (info["result"] or "")
    info = _step(env, _run("rm big.bin"))
    assert info["tests_passed"] == PARTLY
    # The write tools refuse a write that would break it, and write nothing.
    info = _step(env, _write("calc/huge.py", "#" * 150_000))
    assert "quota" in (info["error"] or "") and info["tests_passed"] == PARTLY
    info = _step(env, json.dumps({"name": "list_files", "arguments": {"path": "calc"}}))
    assert "huge.py" not in info["result"]


names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
    min_size=1,
    max_size=40,
)
contents = st.one_of(st.binary(max_size=2000), st.text(max_size=2000).map(str.encode))
trees = st.lists(
    st.tuples(st.lists(names, min_size=1, max_size=6), contents), min_size=1, max_size=8
)


@pytest.mark.timeout(600)
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(tree=trees, raw_name=st.binary(min_size=1, max_size=30))
@pytest.mark.slow
def test_fuzzed_workspace_content_never_crashes_step(env, tree, raw_name):
    files = [("/".join(parts), data) for parts, data in tree]
    script = (
        "import base64, os, json\n"
        f"files = json.loads(base64.b64decode({base64.b64encode(json.dumps([[p, base64.b64encode(d).decode()] for p, d in files]).encode())!r}))\n"
        "for path, data in files:\n"
        "    path = os.path.normpath('fuzz/' + path)\n"
        "    if not path.startswith('fuzz/') or '..' in path.split('/'):\n"
        "        continue\n"
        "    try:\n"
        "        os.makedirs(os.path.dirname(path), exist_ok=True)\n"
        "        open(path, 'wb').write(base64.b64decode(data))\n"
        "    except OSError:\n"
        "        pass\n"
        f"raw = {raw_name!r}.replace(b'/', b'_').replace(b'\\x00', b'_') or b'x'\n"
        "try:\n"
        "    open(b'fuzz/' + raw, 'wb').write(b'x')\n"
        "except OSError:\n"
        "    pass\n"
    )
    info = _step(env, _python(script))
    assert info["verdict"] in ("ok", "no_verdict")
    assert isinstance(info["tests_passed"], int)
    _step(env, _run("rm -rf fuzz"))
