"""Command line: ``python -m lispy [FILE]``.

With a file, prints the transcript of running it (see :func:`lispy.run`).
Without one, starts an interactive REPL on standard input.
"""

from __future__ import annotations

import sys

from lispy.errors import ParseError
from lispy.interpreter import Interpreter, is_complete


def main(argv: list[str]) -> int:
    """Run a file given in `argv`, or an interactive REPL; return the exit status."""
    interp = Interpreter()
    if argv:
        with open(argv[0], encoding="utf-8") as f:
            sys.stdout.write(interp.run(f.read()))
        return 0
    pending = ""
    while True:
        try:
            line = input("... " if pending else "> ")
        except EOFError:
            print()
            return 0
        pending += line + "\n"
        try:
            if not is_complete(pending):
                continue
        except ParseError as exc:
            print(f"error: {exc}")
            pending = ""
            continue
        sys.stdout.write(interp.run(pending))
        pending = ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
