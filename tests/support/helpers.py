"""What many test modules share: tool calls as clients send them, calc's code, a time model.

Test modules import these (`from support.helpers import call`); the fixtures built on
them live in `tests/conftest.py`, which pytest loads by itself.
"""

import json
import os
import textwrap
from pathlib import Path

import swarm_envs

# Reported usage is never below the estimate from the call's own text (4 characters a
# token), so tests that set thinking time exactly report it in units of TOKEN tokens,
# far above any test call's text; under SIMPLE_TIME one unit thinks for one second.
TOKEN = 2**16


def call(name: str, tokens: int | None = None, **arguments) -> str | swarm_envs.Action:
    """A tool call as JSON text, the way an LLM client sends it.

    With `tokens`, the text comes wrapped in an `Action` whose trusted usage reports
    `tokens` x TOKEN output tokens: `tokens` seconds of thinking under SIMPLE_TIME.
    """
    text = json.dumps({"name": name, "arguments": arguments})
    if tokens is None:
        return text
    usage = {"output_tokens": tokens * TOKEN, "input_tokens": 0}
    return swarm_envs.Action(tool_call=text, usage=usage)


# Implementations and stubs of calc's `gcd` and `mean` (2 tests each).
GCD = "def gcd(a, b):\n    a, b = abs(a), abs(b)\n    while b:\n        a, b = b, a % b\n    return a\n"
MEAN = (
    "def mean(values):\n    values = list(values)\n    if not values:\n"
    "        raise ValueError('empty')\n    return sum(values) / len(values)\n"
)
STUB_GCD = "def gcd(a, b):\n    raise NotImplementedError\n"
STUB_MEAN = "def mean(values):\n    raise NotImplementedError\n"


# A time model in which every action is easy to reason about: thinking costs exactly
# `tokens` x 1 s when usage is reported, tools take fixed round numbers.
SIMPLE_TIME = {
    "output_token_s": 1.0 / TOKEN,
    "input_token_s": 0.0,
    "message_latency_s": 2.0,
    "tool_s": {
        "list_files": 1.0,
        "read_file": 1.0,
        "write_file": 1.0,
        "edit_file": 1.0,
        "run_command": 1.0,
        "send_message": 1.0,
        "post": 1.0,
        "subscribe": 1.0,
    },
}


def snapshot(root):
    """Every directory and file under `root` with its content (caches left out)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out[os.path.relpath(dirpath, root)] = None
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def step_one(env, action):
    """Single-agent parallel env: one action, returns (obs, reward, info)."""
    obs, rew, _, _, infos = env.step({"agent_0": action})
    return obs["agent_0"], rew["agent_0"], infos["agent_0"]


def expect_error(env, action, fragment=None):
    """The action is an error observation that costs time and changes no file."""
    before = snapshot(env.view().workspace_root)
    t0 = env.view().time
    obs, _, info = step_one(env, action)
    assert info["error"] is not None and obs.startswith("ERROR:")
    if fragment:
        assert fragment in info["error"], info["error"]
    assert snapshot(env.view().workspace_root) == before
    assert env.view().time > t0 and env.agents == ["agent_0"]
    return info


def act(env, agent, action):
    """Give one action to `agent` (the other ready agents wait) and step until it is ready."""
    others = {a: call("wait", tokens=1) for a in env.ready_agents if a != agent}
    obs, rew, term, trunc, infos = env.step({agent: action, **others})
    while not infos[agent]["ready"] and env.agents:
        obs, rew, term, trunc, infos = env.step({})
    return obs[agent], infos[agent]


#: `swarm-envs train` with tiny swarms and networks: each run in seconds (add --task etc.)
TINY_TRAIN = [
    "train",
    "--num-envs",
    "2",
    "--time-cap",
    "8",
    "--hidden",
    "16",
    "--num-minibatches",
    "2",
    "--update-epochs",
    "1",
    "--no-progress",
]


# A two-unit task in which `quad` (tower/top.py) depends on `double` (tower/base.py).
TOWER = {
    "task.toml": """
        name = "tower"
        suite = "custom"
        description = "Two layers: quad builds on double."
        [tests]
        duration_s = 2.0
        [[units]]
        name = "double"
        path = "tower/base.py"
        symbol = "double"
        tests = ["tests/test_base.py"]
        [[units]]
        name = "quad"
        path = "tower/top.py"
        symbol = "quad"
        tests = ["tests/test_top.py"]
        depends_on = ["double"]
    """,
    "solution/tower/__init__.py": "",
    "solution/tower/base.py": '''
        def double(x):
            """Twice x."""
            return x * 2
    ''',
    "solution/tower/top.py": '''
        from tower.base import double


        def quad(x):
            """Four times x."""
            return double(x) + double(x)
    ''',
    "tests/test_base.py": """
        from tower.base import double

        def test_small():
            assert double(3) == 6

        def test_negative():
            assert double(-4) == -8
    """,
    "tests/test_top.py": """
        from tower.top import quad

        def test_small():
            assert quad(3) == 12

        def test_zero():
            assert quad(1) == 4
    """,
}


def write_files(root: Path, files: dict[str, str], *, lstrip: bool = True) -> Path:
    """Write `files` ({relative path: text, dedented}) under `root`; returns `root`.

    `lstrip` drops what precedes a text's first line (the newline after opening quotes).
    """
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        text = textwrap.dedent(text)
        (root / rel).write_text(text.lstrip() if lstrip else text, encoding="utf-8")
    return root


class KeptScorers:
    """A scorer factory for an env (`scorer_factory=`) that keeps every scorer it makes.

    The scorers are the real ones (`swarm_envs.scoring.make_scorer`); a test that attacks
    or breaks the scorer of an episode (forges its cache, closes it, counts its runs)
    reaches it here, and reads the episode through `env.view()`.
    """

    def __init__(self, on_make=None):
        self.made = []
        self.on_make = on_make  # called with each new scorer, before the episode uses it

    def __call__(self, task, sandbox, **options):
        from swarm_envs.scoring import make_scorer

        scorer = make_scorer(task, sandbox, **options)
        self.made.append(scorer)
        if self.on_make is not None:
            self.on_make(scorer)
        return scorer

    @property
    def last(self):
        """The scorer of the running episode."""
        return self.made[-1]
