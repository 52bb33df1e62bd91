"""The channel's wire format and the plausibility checks of `RunState` (both sides use them)."""

from __future__ import annotations

import os

from swarm_envs.scoring.worker.protocol import MAX_LINE, Deframer, Framer, RunState, plain


def _written(records: list[dict]) -> bytes:
    r, w = os.pipe()
    try:
        f = Framer(w)
        for rec in records:
            f.emit(rec)
        os.close(w)
        chunks = []
        while chunk := os.read(r, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(r)


def test_records_round_trip_in_any_chunking():
    data = _written([{"ev": "start", "id": "a"}, {"ev": "done", "id": "a", "passed": True}])
    for size in (1, 7, len(data)):
        d = Deframer()
        got = []
        for i in range(0, len(data), size):
            got.extend(d.feed(data[i : i + size]))
        assert got == [{"ev": "start", "id": "a"}, {"ev": "done", "id": "a", "passed": True}]


def test_lines_without_the_announced_nonce_are_noise():
    data = _written([{"ev": "finish"}])
    nonce = data.split(b"\n", 1)[0]
    d = Deframer()
    forged = [
        b'00000000000000000000000000000000 {"ev": "done", "id": "a", "passed": true}\n',
        b"7 passed in 0.01s\n",
        nonce + b" not json\n",
        nonce + b' ["a list"]\n',
    ]
    assert d.feed(data.split(b"\n", 1)[0] + b"\n") == []
    assert d.feed(b"".join(forged)) == []
    assert d.feed(data.split(b"\n", 1)[1]) == [{"ev": "finish"}]


def test_an_endless_line_is_dropped_not_buffered():
    d = Deframer()
    d.feed(b"nonce\n")
    d.feed(b"x" * (MAX_LINE + 1))
    assert d.feed(b"y" * 10 + b'\nnonce {"ev": "finish"}\n') == [{"ev": "finish"}]


def test_plain_never_calls_methods_of_a_str_subclass():
    class Sneaky(str):
        def __str__(self):
            raise AssertionError("called")

    assert plain(Sneaky("hello")) == "hello" and type(plain(Sneaky("hello"))) is str
    assert plain(42) == "<not text>"
    assert plain("x" * 10, limit=3) == "xxx"


def _run(records: list[dict]) -> RunState:
    st = RunState()
    for rec in records:
        st.feed(rec)
    return st


def test_run_state_in_order():
    st = _run(
        [
            {"ev": "collect", "file": "tests/test_a.py"},
            {"ev": "collected", "ids": ["a", "b"]},
            {"ev": "start", "id": "a"},
            {"ev": "done", "id": "a", "passed": True},
            {"ev": "start", "id": "b"},
            {"ev": "bad", "id": "b", "text": "assert 1 == 2"},
            {"ev": "done", "id": "b", "passed": False},
            {"ev": "finish"},
        ]
    )
    assert st.finished and not st.tampered
    assert st.final_results() == {"a": [True, ""], "b": [False, "assert 1 == 2"]}


def test_run_state_flags_impossible_sequences():
    base = [{"ev": "collected", "ids": ["a"]}, {"ev": "start", "id": "a"}]
    forgeries = [
        [*base, {"ev": "done", "id": "b", "passed": True}],  # not the running test
        [*base, {"ev": "done", "id": "a", "passed": True}, {"ev": "done", "id": "a"}],
        [{"ev": "collected", "ids": ["a"]}, {"ev": "collected", "ids": ["a"]}],
        [{"ev": "collected", "ids": ["a"]}, {"ev": "start", "id": "zzz"}],
        [*base, {"ev": "done", "id": "a", "passed": True}, {"ev": "finish"}, {"ev": "start"}],
    ]
    for records in forgeries:
        st = _run(records)
        assert st.tampered, records
        assert all(not ok for ok, _ in st.final_results().values())
