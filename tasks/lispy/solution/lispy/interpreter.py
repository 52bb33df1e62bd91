"""The user-facing entry points: :class:`Interpreter`, :func:`run` and the REPL helpers."""

from __future__ import annotations

import io
from collections.abc import Iterable

from lispy.datatypes import VOID
from lispy.errors import LispError, ParseError
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.prelude import load_prelude
from lispy.printer import to_string
from lispy.reader import read_all


class Interpreter:
    """A global environment plus an output buffer.

    ``Interpreter()`` creates a fresh global environment (see
    :func:`lispy.globals.standard_env`) whose ``display`` / ``write`` /
    ``newline`` write to ``self.output`` (an ``io.StringIO``) and, unless
    ``prelude=False``, loads the prelude into it.  Definitions persist between
    calls on the same interpreter.
    """

    def __init__(self, prelude: bool = True):
        self.output = io.StringIO()
        self.env = standard_env(self.output)
        if prelude:
            load_prelude(self.env)

    def take_output(self) -> str:
        """Return everything written to the output buffer so far and clear it."""
        text = self.output.getvalue()
        self.output.seek(0)
        self.output.truncate()
        return text

    def eval(self, source: str) -> object:
        """Read every form of `source` and evaluate them in order in the global
        environment; return the value of the last one (VOID if there are none).

        The whole source is read before anything is evaluated, so a syntax error
        anywhere means nothing runs.  :class:`~lispy.errors.LispError` exceptions
        propagate (forms before a failing one keep their effects).  Output written
        by the program stays in the buffer (see :meth:`take_output`).
        """
        value: object = VOID
        for form in read_all(source):
            value = evaluate(form, self.env)
        return value

    def run(self, source: str) -> str:
        """Evaluate `source` like a REPL would and return the transcript text.

        If `source` cannot be read, the transcript is just ``"error: <str(exc)>\\n"``
        for the :class:`~lispy.errors.ParseError` and nothing runs.  Otherwise each
        form is evaluated in turn and contributes, in order:

        1. whatever it wrote to the output buffer (which is consumed);
        2. if it raised a :class:`~lispy.errors.LispError`: ``"error: <str(exc)>\\n"``
           (evaluation then continues with the next form); if it raised Python's
           RecursionError: ``"error: maximum recursion depth exceeded\\n"``;
        3. otherwise, unless the value is VOID: its written form
           (:func:`~lispy.printer.to_string`) followed by ``"\\n"``.

        Example: ``run('(define x 2) (display "x=") (* x 21)')`` → ``"x=42\\n"``.
        """
        try:
            forms = read_all(source)
        except ParseError as exc:
            return f"error: {exc}\n"
        parts = []
        for form in forms:
            try:
                value = evaluate(form, self.env)
            except LispError as exc:
                parts.append(self.take_output())
                parts.append(f"error: {exc}\n")
                continue
            except RecursionError:
                parts.append(self.take_output())
                parts.append("error: maximum recursion depth exceeded\n")
                continue
            parts.append(self.take_output())
            if value is not VOID:
                parts.append(to_string(value) + "\n")
        return "".join(parts)


def run(source: str, prelude: bool = True) -> str:
    """The transcript of :meth:`Interpreter.run` on `source` in a fresh interpreter."""
    return Interpreter(prelude=prelude).run(source)


_INCOMPLETE = ("unterminated string", "unterminated block comment", "unclosed '('")


def is_complete(source: str) -> bool:
    """Whether `source` is complete input that a REPL can evaluate now.

    True if it reads without error (empty and comment-only input included).
    False if reading fails only because the input stops too early: an unclosed
    list, an unterminated string or block comment, or a quote-like prefix or
    ``#;`` at the very end (ParseErrors whose message is ``"unclosed '('"``,
    ``"unterminated string"``, ``"unterminated block comment"`` or starts with
    ``"unexpected end of input"``).  Any other ParseError (e.g. ``"unexpected
    ')'"``) propagates, since more input cannot fix it.
    """
    try:
        read_all(source)
    except ParseError as exc:
        if exc.message in _INCOMPLETE or exc.message.startswith("unexpected end of input"):
            return False
        raise
    return True


def repl_session(lines: Iterable[str], prelude: bool = True) -> str:
    """Simulate an interactive session fed with `lines`; return the transcript.

    One interpreter is used for the whole session.  For every line: the
    transcript gets the prompt (``"> "`` when no input is pending, ``"... "``
    while continuing an incomplete form), the line and ``"\\n"``; the line plus
    ``"\\n"`` is added to the pending input.  Then, per :func:`is_complete`:

    * complete: the pending input is evaluated with :meth:`Interpreter.run`, its
      transcript appended, and the pending input cleared;
    * incomplete: nothing more (the next line continues it);
    * a ParseError: ``"error: <str(exc)>\\n"`` is appended and the pending input
      discarded.

    If input is still pending (and not just whitespace) after the last line,
    ``"error: incomplete input\\n"`` is appended.
    """
    interp = Interpreter(prelude=prelude)
    transcript: list[str] = []
    pending = ""
    for line in lines:
        transcript.append(("... " if pending else "> ") + line + "\n")
        pending += line + "\n"
        try:
            complete = is_complete(pending)
        except ParseError as exc:
            transcript.append(f"error: {exc}\n")
            pending = ""
            continue
        if complete:
            transcript.append(interp.run(pending))
            pending = ""
    if pending.strip():
        transcript.append("error: incomplete input\n")
    return "".join(transcript)
