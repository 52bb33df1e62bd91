"""Recursive-descent parser: pattern text -> syntax tree (:mod:`tinyregex.nodes`).

Grammar, one method per level::

    alternation := sequence ("|" sequence)*
    sequence    := repeat*                     (stops at "|", ")" or the end)
    repeat      := atom [quantifier ["?"]]
    quantifier  := "*" | "+" | "?" | "{" m "}" | "{" m? "," n? "}"
    atom        := "(" alternation ")" | "(?:" alternation ")" | "[" class "]"
                 | "." | "^" | "$" | "\\" escape | literal character
"""

from __future__ import annotations

from tinyregex.errors import RegexError
from tinyregex.nodes import (
    Alternate,
    Anchor,
    AnyChar,
    CharClass,
    Concat,
    Empty,
    Group,
    Literal,
    Node,
    Repeat,
)

MAX_REPEAT = 1000
CATEGORY_ESCAPES = "dDwWsS"
CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}


class Parser:
    """Parse one pattern.

    Attributes:
        pattern: the pattern text.
        pos: the offset of the current character; each ``parse_*`` method starts
            at ``pos`` and leaves it just after what it parsed.
        group_count: the number of capturing groups opened so far; groups are
            numbered 1, 2, ... in the order of their opening parenthesis.
    """

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.pos = 0
        self.group_count = 0

    # -- helpers (not units) -------------------------------------------------------
    def peek(self, offset: int = 0) -> str:
        """The character at ``pos + offset``, or ``""`` past the end."""
        i = self.pos + offset
        return self.pattern[i] if i < len(self.pattern) else ""

    def at_end(self) -> bool:
        return self.pos >= len(self.pattern)

    def error(self, msg: str, pos: int | None = None) -> RegexError:
        """A :class:`RegexError` for this pattern at ``pos`` (default: the current position)."""
        return RegexError(msg, self.pattern, self.pos if pos is None else pos)

    # -- grammar -------------------------------------------------------------------
    def parse_escape(self, in_class: bool = False) -> Node:
        """Parse an escape sequence; the current character must be the backslash.

        Consumes the backslash and the character after it and returns:

        * ``\\d \\D \\w \\W \\s \\S`` -> ``CharClass(categories=(letter,))``;
        * ``\\n \\t \\r \\f \\v`` -> ``Literal`` of the control character;
        * ``\\b`` / ``\\B`` -> ``Anchor("b")`` / ``Anchor("B")``, only outside a
          character class (``in_class`` false);
        * a backslash followed by any character that is not an ASCII letter or
          digit -> ``Literal`` of that character (``\\.`` -> ``Literal(".")``,
          ``\\\\`` -> ``Literal("\\\\")``).

        Raises :class:`RegexError`, positioned at the backslash:
        ``"bad escape (end of pattern)"`` when the pattern ends after the
        backslash; ``"bad escape \\<c>"`` (e.g. ``"bad escape \\q"``) for any other
        ASCII letter or digit, and for ``\\b``/``\\B`` inside a class.
        """
        start = self.pos
        self.pos += 1
        if self.at_end():
            raise self.error("bad escape (end of pattern)", start)
        ch = self.pattern[self.pos]
        self.pos += 1
        if ch in CATEGORY_ESCAPES:
            return CharClass(categories=(ch,))
        if ch in CHAR_ESCAPES:
            return Literal(CHAR_ESCAPES[ch])
        if ch in "bB" and not in_class:
            return Anchor(ch)
        if ch.isascii() and ch.isalnum():
            raise self.error(f"bad escape \\{ch}", start)
        return Literal(ch)

    def parse_class(self) -> CharClass:
        """Parse a bracket expression; the current character must be ``[``.

        After ``[`` an optional ``^`` negates the set.  A ``]`` directly after ``[``
        or ``[^`` is a literal ``]``; otherwise ``]`` ends the set.  Items are single
        characters, escapes parsed with :meth:`parse_escape` (``in_class=True``),
        and ranges ``x-y``.  A ``-`` is literal when it is first, last (just before
        the closing ``]``) or directly follows a range.  Characters such as ``.``,
        ``*``, ``(`` and ``[`` are literal inside a class.

        Returns ``CharClass(ranges, categories, negated)`` with items in pattern
        order: every single character ``c`` as ``(c, c)``, every range as
        ``(x, y)``, and category escapes in ``categories``.  Example:
        ``[^a-c_\\d]`` -> ``CharClass((("a", "c"), ("_", "_")), ("d",), True)``.

        Raises :class:`RegexError`: ``"unterminated character set"`` at the ``[``
        if the pattern ends first; ``"bad character range <x>-<y>"`` at the start of
        the range when ``x > y`` or when either end is a category escape (the
        ends written as in the pattern, e.g. ``"bad character range z-a"``,
        ``"bad character range \\d-z"``); and the errors of :meth:`parse_escape`.
        """
        start = self.pos
        self.pos += 1
        negated = False
        if self.peek() == "^":
            negated = True
            self.pos += 1
        ranges: list[tuple[str, str]] = []
        categories: list[str] = []
        first = True

        def item() -> tuple[str | None, str, int]:
            """(char or None for a category, text as written, start offset)."""
            at = self.pos
            if self.peek() == "\\":
                node = self.parse_escape(in_class=True)
                text = self.pattern[at : self.pos]
                if isinstance(node, CharClass):
                    return None, text, at
                return node.char, text, at
            self.pos += 1
            return self.pattern[at], self.pattern[at], at

        while True:
            if self.at_end():
                raise self.error("unterminated character set", start)
            if self.peek() == "]" and not first:
                self.pos += 1
                return CharClass(tuple(ranges), tuple(categories), negated)
            first = False
            lo, lo_text, lo_at = item()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                hi, hi_text, _ = item()
                if lo is None or hi is None or lo > hi:
                    raise self.error(f"bad character range {lo_text}-{hi_text}", lo_at)
                ranges.append((lo, hi))
            elif lo is None:
                categories.append(lo_text[1])
            else:
                ranges.append((lo, lo))

    def parse_braces(self) -> tuple[int, int | None] | None:
        """Try to read a counted quantifier at the current position (a ``{``).

        The accepted forms are ``{m}`` (exactly ``m``), ``{m,}`` (at least ``m``),
        ``{m,n}`` and ``{,n}`` (at most ``n``), and also ``{,}`` (any number), with
        ``m`` and ``n`` runs of ASCII digits.  On success the braces are consumed and
        ``(min, max)`` returned, ``max`` being ``None`` when unbounded.  If the text
        at the current position does not have one of these forms (``{``, ``{}``,
        ``{a}``, ``{1,2``, ``{ 1}``, or no ``{`` at all) nothing is consumed and
        ``None`` is returned: the caller then treats ``{`` as a literal.

        Raises :class:`RegexError`, positioned at the ``{``:
        ``"min repeat greater than max repeat"`` (``{3,2}``) and
        ``"repeat count too large"`` when ``m`` or ``n`` exceeds ``MAX_REPEAT`` (1000).
        """
        if self.peek() != "{":
            return None
        start = self.pos
        i = start + 1
        text = self.pattern
        j = i
        while j < len(text) and text[j] in "0123456789":
            j += 1
        lo = text[i:j]
        if j < len(text) and text[j] == ",":
            k = j + 1
            while k < len(text) and text[k] in "0123456789":
                k += 1
            hi = text[j + 1 : k]
            j = k
        else:
            if not lo:
                return None
            hi = lo
        if j >= len(text) or text[j] != "}":
            return None
        lo_n = int(lo) if lo else 0
        hi_n = int(hi) if hi else None
        if lo_n > MAX_REPEAT or (hi_n is not None and hi_n > MAX_REPEAT):
            raise self.error("repeat count too large", start)
        if hi_n is not None and lo_n > hi_n:
            raise self.error("min repeat greater than max repeat", start)
        self.pos = j + 1
        return lo_n, hi_n

    def parse_atom(self) -> Node:
        """Parse one atom at the current position.

        * ``(`` starts a capturing group: its number is assigned when the ``(`` is
          read (increment :attr:`group_count`), the contents are parsed with
          :meth:`parse_alternation`, and ``Group(inner, number)`` is returned;
          ``(?:`` starts a non-capturing group, ``Group(inner, None)``;
        * ``[`` -> :meth:`parse_class`; ``\\`` -> :meth:`parse_escape`;
        * ``.`` -> ``AnyChar()``; ``^`` / ``$`` -> ``Anchor("^")`` / ``Anchor("$")``;
        * a ``{`` that does not start a counted quantifier (see
          :meth:`parse_braces`) -> ``Literal("{")``;
        * any other character (including ``]`` and ``}``) -> ``Literal(char)``.

        Raises :class:`RegexError`:

        * ``"nothing to repeat"`` at a ``*``, ``+``, ``?`` or a valid ``{m,n}``
          quantifier (nothing is consumed);
        * ``"missing ), unterminated subpattern"`` at the ``(`` of a group that is
          not closed;
        * ``"unknown extension ?<c>"`` at the ``(`` for ``(?`` followed by anything
          but ``:`` (``"unknown extension ?="``; ``"unknown extension ?"`` at the end);
        * ``"unbalanced parenthesis"`` at a ``)``, ``"unexpected |"`` at a ``|``
          and ``"unexpected end of pattern"`` at the end (places where no atom can
          start; :meth:`parse_sequence` never calls it there).
        """
        start = self.pos
        ch = self.peek()
        if ch == "":
            raise self.error("unexpected end of pattern")
        if ch == "(":
            self.pos += 1
            index: int | None
            if self.peek() == "?":
                if self.peek(1) != ":":
                    raise self.error(f"unknown extension ?{self.peek(1)}", start)
                self.pos += 2
                index = None
            else:
                self.group_count += 1
                index = self.group_count
            inner = self.parse_alternation()
            if self.peek() != ")":
                raise self.error("missing ), unterminated subpattern", start)
            self.pos += 1
            return Group(inner, index)
        if ch == ")":
            raise self.error("unbalanced parenthesis")
        if ch == "|":
            raise self.error("unexpected |")
        if ch == "[":
            return self.parse_class()
        if ch == "\\":
            return self.parse_escape()
        if ch in "*+?":
            raise self.error("nothing to repeat")
        if ch == "{":
            if self.parse_braces() is not None:
                self.pos = start
                raise self.error("nothing to repeat")
            self.pos += 1
            return Literal("{")
        self.pos += 1
        if ch == ".":
            return AnyChar()
        if ch in "^$":
            return Anchor(ch)
        return Literal(ch)

    def parse_repeat(self) -> Node:
        """Parse an atom (:meth:`parse_atom`) followed by an optional quantifier.

        ``*`` is ``{0,}``, ``+`` is ``{1,}``, ``?`` is ``{0,1}``, and counted forms are
        read with :meth:`parse_braces`.  A ``?`` right after the quantifier makes it
        lazy (``greedy=False``).  Returns ``Repeat(atom, min, max, greedy)``, or the
        atom itself when no quantifier follows.  ``{1}`` still gives a ``Repeat``.

        Raises :class:`RegexError`: ``"nothing to repeat"`` at the quantifier when
        the atom is an ``Anchor`` (``^*``, ``\\b+``); ``"multiple repeat"`` at a
        second quantifier (``a**``, ``a{2}{3}``, ``a*??``, ``a?+``).
        """
        atom = self.parse_atom()
        bounds = self._quantifier()
        if bounds is None:
            return atom
        quant_pos, lo, hi = bounds
        if isinstance(atom, Anchor):
            raise self.error("nothing to repeat", quant_pos)
        greedy = True
        if self.peek() == "?":
            self.pos += 1
            greedy = False
        second = self.pos
        if self._quantifier() is not None:
            raise self.error("multiple repeat", second)
        return Repeat(atom, lo, hi, greedy)

    def _quantifier(self) -> tuple[int, int, int | None] | None:
        """Consume a quantifier if one is here: (position, min, max); else None."""
        at = self.pos
        ch = self.peek()
        if ch == "*":
            self.pos += 1
            return at, 0, None
        if ch == "+":
            self.pos += 1
            return at, 1, None
        if ch == "?":
            self.pos += 1
            return at, 0, 1
        if ch == "{":
            braces = self.parse_braces()
            if braces is not None:
                return at, braces[0], braces[1]
        return None

    def parse_sequence(self) -> Node:
        """Parse items with :meth:`parse_repeat` until ``|``, ``)`` or the end.

        Returns ``Empty()`` for no item, the item itself for one, and
        ``Concat(items)`` for several (adjacent literals are not merged:
        ``ab`` -> ``Concat((Literal("a"), Literal("b")))``).  The stopping ``|``
        or ``)`` is not consumed.
        """
        items: list[Node] = []
        while not self.at_end() and self.peek() not in "|)":
            items.append(self.parse_repeat())
        if not items:
            return Empty()
        if len(items) == 1:
            return items[0]
        return Concat(tuple(items))

    def parse_alternation(self) -> Node:
        """Parse ``sequence ("|" sequence)*``.

        Returns the single sequence when there is no ``|``, otherwise
        ``Alternate(options)`` with the options in order; an empty option is
        ``Empty()`` (``a|`` -> ``Alternate((Literal("a"), Empty()))``).  Stops before
        a ``)`` or at the end, without consuming it.
        """
        options = [self.parse_sequence()]
        while self.peek() == "|":
            self.pos += 1
            options.append(self.parse_sequence())
        if len(options) == 1:
            return options[0]
        return Alternate(tuple(options))


def parse(pattern: str) -> tuple[Node, int]:
    """Parse a whole pattern and return ``(tree, number_of_capturing_groups)``.

    Raises :class:`RegexError` ``"unbalanced parenthesis"`` at a ``)`` that closes
    no group (``"a)b"`` -> position 1), and any error of the parser methods.
    ``parse("")`` is ``(Empty(), 0)``.
    """
    parser = Parser(pattern)
    tree = parser.parse_alternation()
    if not parser.at_end():
        raise parser.error("unbalanced parenthesis")
    return tree, parser.group_count
