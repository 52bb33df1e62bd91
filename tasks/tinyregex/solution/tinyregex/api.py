"""The public interface: :func:`compile`, :class:`Pattern` and :class:`Match`."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tinyregex.compiler import compile_program
from tinyregex.errors import RegexError
from tinyregex.parser import parse
from tinyregex.vm import PikeVM


class Match:
    """The result of a successful match.

    Args:
        string: the text that was searched.
        slots: the capture slots, ``2 * (groups + 1)`` offsets: group ``k`` spans
            ``slots[2k]:slots[2k+1]``, and ``-1`` marks a group that did not take
            part in the match.  Group 0 (the whole match) is always set.
        pattern: the :class:`Pattern` that produced the match, if any.

    Attributes: ``string``, ``slots`` (a tuple), ``re`` (the pattern) and
    ``ngroups`` (the number of capturing groups).
    """

    def __init__(self, string: str, slots: tuple[int, ...], pattern: Pattern | None = None):
        if len(slots) < 2 or len(slots) % 2:
            raise ValueError("slots must hold an even number (at least 2) of offsets")
        self.string = string
        self.slots = tuple(slots)
        self.re = pattern
        self.ngroups = len(slots) // 2 - 1

    def span(self, group: int = 0) -> tuple[int, int]:
        """Return ``(start, end)`` of ``group``; ``(-1, -1)`` if it did not participate.

        Raises ``IndexError("no such group")`` unless ``group`` is an ``int``
        (``bool`` excluded) between 0 and :attr:`ngroups`.
        """
        if isinstance(group, bool) or not isinstance(group, int) or not 0 <= group <= self.ngroups:
            raise IndexError("no such group")
        return self.slots[2 * group], self.slots[2 * group + 1]

    def start(self, group: int = 0) -> int:
        """``span(group)[0]``."""
        return self.span(group)[0]

    def end(self, group: int = 0) -> int:
        """``span(group)[1]``."""
        return self.span(group)[1]

    def group(self, *groups: int) -> str | None | tuple[str | None, ...]:
        """Return the text of one or more groups.

        With no argument, the whole match (group 0).  With one argument, that
        group's text, or ``None`` if the group did not participate.  With several
        arguments, a tuple with one entry per argument.  ``m[k]`` is ``m.group(k)``.

        Raises ``IndexError("no such group")`` for an invalid group number (see
        :meth:`span`).
        """
        if not groups:
            groups = (0,)
        texts = []
        for g in groups:
            start, end = self.span(g)
            texts.append(None if start < 0 else self.string[start:end])
        return texts[0] if len(texts) == 1 else tuple(texts)

    def __getitem__(self, group: int) -> str | None:
        return self.group(group)

    def groups(self, default: str | None = None) -> tuple[str | None, ...]:
        """Return a tuple with the text of groups 1 to :attr:`ngroups`.

        Groups that did not participate are given as ``default``.  A pattern
        without groups gives ``()``.
        """
        result = []
        for g in range(1, self.ngroups + 1):
            start, end = self.slots[2 * g], self.slots[2 * g + 1]
            result.append(default if start < 0 else self.string[start:end])
        return tuple(result)

    def expand(self, template: str) -> str:
        """Return ``template`` with group references replaced, as used by :meth:`Pattern.sub`.

        Template syntax:

        * ``\\g<N>`` (``N`` one or more digits) and ``\\N`` (one or two digits, so
          ``\\12`` is group 12 and ``\\1`` followed by ``x`` is group 1): the text of
          group ``N``; ``\\0`` and ``\\g<0>`` are the whole match; a group that did
          not participate gives ``""``;
        * ``\\\\`` -> a backslash, ``\\n`` -> newline, ``\\t`` -> tab;
        * a backslash followed by a character that is neither an ASCII letter nor
          a digit is kept as-is (both characters: ``\\.`` stays ``\\.``);
        * every other character is copied.

        Raises :class:`~tinyregex.errors.RegexError` (with the template as
        ``pattern`` and the offset of the backslash as ``pos``):
        ``"invalid group reference <N>"`` if ``N`` > :attr:`ngroups`;
        ``"bad group reference"`` for a ``\\g`` not followed by ``<digits>``;
        ``"bad escape \\<c>"`` for any other ASCII letter ``c``;
        ``"bad escape (end of template)"`` for a final lone backslash.
        """
        out: list[str] = []
        i = 0
        n = len(template)
        while i < n:
            ch = template[i]
            if ch != "\\":
                out.append(ch)
                i += 1
                continue
            if i + 1 >= n:
                raise RegexError("bad escape (end of template)", template, i)
            nxt = template[i + 1]
            number: int | None = None
            if nxt.isascii() and nxt.isdigit():
                j = i + 2
                if j < n and template[j].isascii() and template[j].isdigit():
                    j += 1
                number = int(template[i + 1 : j])
                end = j
            elif nxt == "g":
                close = template.find(">", i + 3)
                digits = template[i + 3 : close] if close >= 0 else ""
                if (
                    template[i + 2 : i + 3] != "<"
                    or not digits
                    or not (digits.isascii() and digits.isdigit())
                ):
                    raise RegexError("bad group reference", template, i)
                number = int(digits)
                end = close + 1
            elif nxt == "\\":
                out.append("\\")
                i += 2
                continue
            elif nxt == "n":
                out.append("\n")
                i += 2
                continue
            elif nxt == "t":
                out.append("\t")
                i += 2
                continue
            elif nxt.isascii() and nxt.isalpha():
                raise RegexError(f"bad escape \\{nxt}", template, i)
            else:
                out.append(template[i : i + 2])
                i += 2
                continue
            if number > self.ngroups:
                raise RegexError(f"invalid group reference {number}", template, i)
            out.append(self.group(number) or "")
            i = end
        return "".join(out)

    def __repr__(self) -> str:
        return f"<tinyregex.Match object; span={self.span()!r}, match={self.group()!r}>"


class Pattern:
    """A compiled regular expression.

    Construction parses ``pattern`` (raising :class:`~tinyregex.errors.RegexError`
    if it is invalid), compiles it and prepares a :class:`~tinyregex.vm.PikeVM`.

    Attributes: ``pattern`` (the source text), ``groups`` (the number of
    capturing groups) and ``program`` (the compiled NFA).

    For every method, ``pos`` is clamped to ``0..len(string)``; ``^`` still only
    matches at offset 0 of the string, not at ``pos``.
    """

    def __init__(self, pattern: str):
        if not isinstance(pattern, str):
            raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
        self.pattern = pattern
        tree, ngroups = parse(pattern)
        self.groups = ngroups
        self.program = compile_program(tree, ngroups)
        self._vm = PikeVM(self.program)

    def __repr__(self) -> str:
        return f"tinyregex.compile({self.pattern!r})"

    def _match(self, string: str, slots: tuple[int, ...] | None) -> Match | None:
        return None if slots is None else Match(string, slots, self)

    @staticmethod
    def _clamp(string: str, pos: int) -> int:
        return max(0, min(pos, len(string)))

    def match(self, string: str, pos: int = 0) -> Match | None:
        """Match the pattern at exactly offset ``pos``; return a :class:`Match` or ``None``.

        The match need not reach the end of the string: ``compile("a+").match("aab")``
        spans ``(0, 2)``; ``compile("b").match("ab")`` is ``None``.
        """
        pos = self._clamp(string, pos)
        return self._match(string, self._vm.run(string, pos, anchored=True))

    def search(self, string: str, pos: int = 0) -> Match | None:
        """Return the leftmost-first match starting at any offset ``>= pos``, or ``None``.

        Among matches starting at the leftmost possible offset, greedy/lazy
        quantifiers and alternation order decide as in a backtracking engine
        (``compile("a|ab").search("xab")`` spans ``(1, 2)``).
        """
        pos = self._clamp(string, pos)
        return self._match(string, self._vm.run(string, pos))

    def fullmatch(self, string: str, pos: int = 0) -> Match | None:
        """Return a match that starts at ``pos`` and ends exactly at the end of ``string``.

        Alternatives that would end earlier are not preferred over one that fits:
        ``compile("a|ab").fullmatch("ab")`` matches ``"ab"``.
        """
        pos = self._clamp(string, pos)
        return self._match(string, self._vm.run(string, pos, anchored=True, full=True))

    def finditer(self, string: str, pos: int = 0) -> Iterator[Match]:
        """Yield the successive non-overlapping matches from left to right.

        Each search starts where the previous match ended.  Empty matches are
        included, but after an empty match the next one may not be an empty match
        at the same offset (the search uses ``must_advance``), so
        ``compile("a*").finditer("baa")`` gives the spans ``(0, 0)``, ``(1, 3)``,
        ``(3, 3)`` and ``compile("a*|b").finditer("b")`` gives ``(0, 0)``,
        ``(0, 1)``, ``(1, 1)``.
        """
        pos = self._clamp(string, pos)
        must_advance = False
        while pos <= len(string):
            slots = self._vm.run(string, pos, must_advance=must_advance)
            if slots is None:
                return
            yield Match(string, slots, self)
            must_advance = slots[0] == slots[1]
            pos = slots[1]

    def findall(self, string: str, pos: int = 0) -> list[str] | list[tuple[str, ...]]:
        """Return all non-overlapping matches (as found by :meth:`finditer`) as a list.

        Without capturing groups each entry is the matched text; with exactly one
        group it is that group's text; with several groups it is a tuple of all
        groups' texts.  Groups that did not participate give ``""``.
        Example: ``compile(r"(\\w)=(\\d)").findall("a=1, b=2")`` ->
        ``[("a", "1"), ("b", "2")]``.
        """
        result: list = []
        for m in self.finditer(string, pos):
            if self.groups == 0:
                result.append(m.group())
            elif self.groups == 1:
                result.append(m.group(1) or "")
            else:
                result.append(m.groups(""))
        return result

    def sub(self, repl: str | Callable[[Match], str], string: str, count: int = 0) -> str:
        """Return ``string`` with matches (as found by :meth:`finditer`) replaced.

        ``repl`` is either a template expanded with :meth:`Match.expand` for each
        match, or a function called with the :class:`Match` that returns the
        replacement text.  ``count`` > 0 limits the number of replacements
        (``0`` means all).  Text between matches is copied unchanged, so
        ``compile("x*").sub("-", "abxd")`` is ``"-a-b--d-"``.

        Raises ``ValueError`` for a negative ``count`` and the errors of
        :meth:`Match.expand`.
        """
        if count < 0:
            raise ValueError("count must be non-negative")
        out: list[str] = []
        last = 0
        done = 0
        for m in self.finditer(string):
            if count and done >= count:
                break
            start, end = m.span()
            out.append(string[last:start])
            out.append(repl(m) if callable(repl) else m.expand(repl))
            last = end
            done += 1
        out.append(string[last:])
        return "".join(out)


_cache: dict[str, Pattern] = {}


def compile(pattern: str | Pattern) -> Pattern:
    """Return the :class:`Pattern` for ``pattern`` (cached: the same text gives the
    same object; a ``Pattern`` is returned unchanged).

    Raises :class:`~tinyregex.errors.RegexError` for an invalid pattern and
    ``TypeError`` if ``pattern`` is neither a ``str`` nor a ``Pattern``.
    """
    if isinstance(pattern, Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
    cached = _cache.get(pattern)
    if cached is None:
        cached = _cache[pattern] = Pattern(pattern)
    return cached


def match(pattern: str, string: str) -> Match | None:
    """``compile(pattern).match(string)``."""
    return compile(pattern).match(string)


def search(pattern: str, string: str) -> Match | None:
    """``compile(pattern).search(string)``."""
    return compile(pattern).search(string)


def fullmatch(pattern: str, string: str) -> Match | None:
    """``compile(pattern).fullmatch(string)``."""
    return compile(pattern).fullmatch(string)


def findall(pattern: str, string: str) -> list:
    """``compile(pattern).findall(string)``."""
    return compile(pattern).findall(string)


def sub(pattern: str, repl: str | Callable[[Match], str], string: str, count: int = 0) -> str:
    """``compile(pattern).sub(repl, string, count)``."""
    return compile(pattern).sub(repl, string, count)
