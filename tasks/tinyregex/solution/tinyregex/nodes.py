"""The syntax tree of a pattern, as produced by :mod:`tinyregex.parser`."""

from __future__ import annotations

from dataclasses import dataclass

WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
DIGIT_CHARS = frozenset("0123456789")
SPACE_CHARS = frozenset(" \t\n\r\f\v")


@dataclass(frozen=True)
class Empty:
    """Matches the empty string (an empty pattern, or an empty alternative)."""


@dataclass(frozen=True)
class Literal:
    """Matches exactly the character ``char``."""

    char: str


@dataclass(frozen=True)
class AnyChar:
    """``.``: matches any character except a newline."""


@dataclass(frozen=True)
class CharClass:
    """A set of characters: ``[a-z_]``, ``[^0-9]``, ``\\d``, ``\\W``...

    ``ranges`` holds inclusive ``(low, high)`` character pairs (a single character
    ``c`` is ``(c, c)``), ``categories`` holds category letters among
    ``d D w W s S`` and ``negated`` inverts the whole set.
    """

    ranges: tuple[tuple[str, str], ...] = ()
    categories: tuple[str, ...] = ()
    negated: bool = False

    def matches(self, ch: str) -> bool:
        """Return True if the single character ``ch`` belongs to this set.

        ``ch`` is in the set if it lies in one of the inclusive ``ranges`` (by code
        point) or belongs to one of the ``categories``:

        * ``d``: an ASCII digit ``0-9``;
        * ``w``: an ASCII letter, ASCII digit or ``_``;
        * ``s``: one of space, ``\\t \\n \\r \\f \\v``;
        * ``D``, ``W``, ``S``: any character *not* in ``d``, ``w``, ``s`` respectively.

        The result is inverted when ``negated`` is true.  Examples:
        ``CharClass((("a", "z"),)).matches("q")`` is True,
        ``CharClass(categories=("d",), negated=True).matches("5")`` is False, and
        ``CharClass(categories=("W",)).matches("é")`` is True (non-ASCII letters
        are not word characters).
        """
        found = any(lo <= ch <= hi for lo, hi in self.ranges)
        if not found:
            for cat in self.categories:
                if cat.lower() == "d":
                    member = ch in DIGIT_CHARS
                elif cat.lower() == "w":
                    member = ch in WORD_CHARS
                else:
                    member = ch in SPACE_CHARS
                if cat.isupper():
                    member = not member
                if member:
                    found = True
                    break
        return found != self.negated


@dataclass(frozen=True)
class Anchor:
    """A zero-width assertion: ``"^"``, ``"$"``, ``"b"`` (``\\b``) or ``"B"`` (``\\B``)."""

    kind: str


@dataclass(frozen=True)
class Group:
    """A parenthesised sub-pattern; ``index`` is the group number, ``None`` for ``(?:...)``."""

    node: Node
    index: int | None


@dataclass(frozen=True)
class Concat:
    """A sequence of two or more items matched one after the other."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alternate:
    """Two or more alternatives separated by ``|``, tried left to right."""

    options: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    """``node`` repeated ``min`` to ``max`` times (``max`` is ``None`` for unbounded)."""

    node: Node
    min: int
    max: int | None
    greedy: bool = True


Node = Empty | Literal | AnyChar | CharClass | Anchor | Group | Concat | Alternate | Repeat
