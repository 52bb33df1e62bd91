"""The scoring channel's wire format, imported by both sides (standard library only).

A channel is a stream of lines from a worker to its reader. The writer's first line is a
fresh nonce that it drew itself, before any code under test existed in its process; every
later line is `<nonce> <json record>`. A reader takes the first line as the nonce and keeps
only lines tagged with it, so text that code under test prints, or writes to a descriptor it
guessed, is noise unless it also holds the nonce.

`RunState` reads the records of one pytest process and checks that they are plausible.
"""

from __future__ import annotations

import json
import os

try:  # the C encoder of JSON strings: no Python code of the json package on the write path
    from _json import encode_basestring_ascii as _encode_str
except ImportError:  # pragma: no cover - CPython always has it
    from json.encoder import py_encode_basestring_ascii as _encode_str

PROTOCOL = 2
#: findings whose effect outlives the test during which they were made (the harness, a
#: canonical module or the plugins were changed): that test and every later one fail
PERSISTENT = frozenset({"harness_changed", "test_module_changed", "plugin_added", "guard_error"})
#: `test` of a finding made while no test ran (collection, between tests, the end)
NO_TEST = ("", "(collection)")
#: longest line a reader keeps; a longer one is dropped (a worker never writes one)
MAX_LINE = 16 * 1024 * 1024


#: lines of a trace (`guard`'s tracer): a workspace file opened for reading (its whole
#: content counts), and a thread or process started (the trace is incomplete)
OPENED = -1
SPAWNED = -2


def new_nonce() -> bytes:
    """A fresh channel nonce (32 hex digits)."""
    return os.urandom(16).hex().encode()


class Framer:
    """Writes records to a file descriptor: the nonce first, then one tagged line per record.

    Records written from a fork of the owning process (code under test called `os.fork`)
    are dropped: only the process that announced the nonce speaks on the channel.
    """

    def __init__(self, fd: int, nonce: bytes | None = None):
        self._fd = fd
        self._nonce = nonce or new_nonce()
        self._owner = os.getpid()
        self._write(self._nonce + b"\n")

    def emit(self, record: dict) -> None:
        """Write one record (a dict of plain data: str, int, float, bool, None, lists, dicts)."""
        if os.getpid() != self._owner:
            return
        line = dumps(record).encode("ascii")
        self._write(self._nonce + b" " + line + b"\n")

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]


def dumps(  # noqa: ANN201
    value,  # noqa: ANN001
    _type=type,
    _str=str,
    _int=int,
    _float=float,
    _bool=bool,
    _list=list,
    _tuple=tuple,
    _dict=dict,
    _none=None.__class__,
    _enc=_encode_str,
    _int_repr=int.__repr__,
    _float_repr=float.__repr__,
    _join=",".join,
):
    """JSON text of plain data, calling no method of any other type (see `Framer.emit`).

    Anything else is written as its type's name: it was never data worth reporting.
    """
    t = _type(value)
    if t is _str:
        return _enc(value)
    if t is _bool:
        return "true" if value else "false"
    if t is _int:
        return _int_repr(value)
    if t is _float:
        return _float_repr(value) if value == value and value - value == 0.0 else "null"
    if t is _none:
        return "null"
    if t is _list or t is _tuple:
        return "[" + _join([dumps(v) for v in value]) + "]"
    if t is _dict:
        return "{" + _join([_enc(plain(k)) + ":" + dumps(v) for k, v in value.items()]) + "}"
    return _enc("<" + plain(t.__name__, 80) + ">")


class Deframer:
    """Splits a channel's bytes into records; the first line is the nonce."""

    def __init__(self) -> None:
        self.nonce: bytes | None = None
        self._buf = b""
        self._skipping = False

    def feed(self, data: bytes) -> list[dict]:
        """The records completed by `data` (lines without the nonce are dropped)."""
        out: list[dict] = []
        self._buf += data
        if b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                self._buf, self._skipping = b"", True
            return out
        *lines, self._buf = self._buf.split(b"\n")
        for line in lines:
            if self._skipping:
                self._skipping = False
                continue
            if self.nonce is None:
                self.nonce = line.strip()
                continue
            tag, _, rest = line.partition(b" ")
            if tag != self.nonce or not self.nonce:
                continue
            try:
                rec = json.loads(rest)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out


def plain(value: object, limit: int = 4000) -> str:
    """`value` as an exact `str` (never calling a method of a `str` subclass), capped."""
    if type(value) is not str:
        value = str.__str__(value) if isinstance(value, str) else "<not text>"
    return value[:limit]


class RunState:
    """Outcomes of one pytest process, from its records, checking that they are plausible.

    Records arrive in a fixed order (collect..., collected, then start/bad.../done per test,
    loaded, finish). Anything else (a second collection, a result for a test that is not
    running, a second result, records after the end) means the records were forged: the
    whole run counts as failing (`tampered`). An `integrity` record is a finding of the
    guard: it fails the test during which it was made; one made while no test ran, or
    whose effect outlives its test (`PERSISTENT`: the harness was changed), fails every
    test of the run from then on (`final_results`).
    """

    def __init__(self) -> None:
        self.results: dict[str, list] = {}
        self.bad: dict[str, str] = {}
        self.collect_errors: dict[str, str] = {}
        self.collected: list[str] | None = None
        self.current = ""
        self.current_file = ""
        self.finished = False
        self.tampered = ""
        self.notes: list[str] = []
        self.findings: list[dict] = []
        self.loaded: dict | None = None
        self.traces: dict[str, dict | None] = {}  # what each test executed (guard's tracer)
        self._started: set[str] = set()
        self._order: list[str] = []  # tests in the order they started
        #: when the server first heard from the child, saw its collection end, and saw the
        #: run end (`time.monotonic()`): where a run's time goes (`Server.handle`'s phases)
        self.heard: dict[str, float] = {}

    def _anomaly(self, why: str) -> None:
        if not self.tampered:
            self.tampered = f"the test run's report channel was tampered with ({why})"

    def feed(self, rec: dict) -> None:
        """Take one record."""
        ev = rec.get("ev")
        nid = str(rec.get("id", ""))
        if self.finished:
            self._anomaly(f"a {ev!r} record after the end of the run")
        elif ev == "collect":
            if self.collected is not None:
                self._anomaly("collection after the collection finished")
            self.current_file = str(rec.get("file", ""))
        elif ev == "collect_error":
            self.collect_errors.setdefault(str(rec.get("file", "")), str(rec.get("text", "")))
        elif ev == "collected":
            if self.collected is not None:
                self._anomaly("two collections")
            self.collected = [str(i) for i in rec.get("ids", [])]
            self.current_file = ""
        elif ev == "start":
            if self.collected is None or nid not in self.collected:
                self._anomaly(f"a test that was not collected started: {nid}")
            if self.current or nid in self._started:
                self._anomaly(f"{nid} started twice or while another test ran")
            self._started.add(nid)
            self._order.append(nid)
            self.current = nid
        elif ev == "bad":
            if nid != self.current:
                self._anomaly(f"a failure record for {nid}, which is not running")
            self.bad.setdefault(nid, str(rec.get("text", "")))
        elif ev == "done":
            if nid != self.current or nid in self.results:
                self._anomaly(f"a result for {nid}, which is not running")
            else:
                ok = bool(rec.get("passed"))
                self.results[nid] = [ok, "" if ok else self.bad.get(nid, "failed")]
                if "trace" in rec:
                    got = rec["trace"]
                    self.traces[nid] = got if isinstance(got, dict) else None
            self.current = ""
        elif ev == "loaded":
            if self.loaded is not None:
                self._anomaly("two records of loaded files")
            self.loaded = rec
        elif ev == "integrity":
            finding = {k: plain(rec.get(k, ""), 500) for k in ("kind", "test", "detail")}
            self.findings.append(finding)
        elif ev == "error":
            self.notes.append(str(rec.get("text", "")))
        elif ev == "finish":
            self.finished = True
        else:
            self._anomaly(f"an unknown record {plain(ev, 40)!r}")

    def flagged(self) -> dict[str, str]:
        """The tests the guard's findings fail, with why: see the class docstring."""
        out: dict[str, str] = {}
        for f in self.findings:
            test, kind = f["test"], f["kind"]
            why = f"integrity check failed: {f['detail']}" + (
                f" (in {test})" if test and test not in NO_TEST else ""
            )
            if test in NO_TEST or test not in self._started:
                for nid in self._order:
                    out.setdefault(nid, why)
                for nid in self.results:
                    out.setdefault(nid, why)
            elif kind in PERSISTENT:
                for nid in self._order[self._order.index(test) :]:
                    out.setdefault(nid, why)
            else:
                out.setdefault(test, why)
        return out

    def final_results(self) -> dict[str, list]:
        """Outcomes by node id: all fail if the records were forged, flagged tests fail."""
        if self.tampered:
            return {k: [False, self.tampered] for k in self.results}
        bad = self.flagged()
        return {k: ([False, bad[k]] if k in bad else v) for k, v in self.results.items()}
