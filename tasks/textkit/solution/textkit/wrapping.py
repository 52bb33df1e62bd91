"""Word wrapping, paragraph filling and full justification."""

from __future__ import annotations


def wrap(
    text: str,
    width: int = 70,
    *,
    initial_indent: str = "",
    subsequent_indent: str = "",
    break_long_words: bool = True,
) -> list[str]:
    """Wrap `text` into lines of at most `width` characters and return them.

    The text is split into words on any run of whitespace (spaces, tabs and newlines
    all count; leading and trailing whitespace is ignored). Lines are filled greedily:
    a word goes on the current line if the line, including its indent and one single
    space between consecutive words, still fits in `width` characters; otherwise a
    new line is started. The first line is prefixed by `initial_indent`, every later
    line by `subsequent_indent`; indents count towards `width`.

    A word that does not fit even on an empty line (``len(indent) + len(word) >
    width``) is handled according to `break_long_words`:

    * ``True``: the current line is finished first (if it holds any word), then the
      word is cut into pieces exactly as long as the room on a fresh line; each full
      piece becomes a line of its own and the remaining piece is treated like a new
      word (so following words may join its line).
    * ``False``: the word is put alone on its own line, which is then longer than
      `width`; the next word starts a new line.

    Returns an empty list when `text` contains no words. No line has trailing spaces.

    Raises:
        ValueError: if `width` < 1, or if `initial_indent` or `subsequent_indent` is
            `width` characters long or longer (no room would be left for text).

    >>> wrap("The quick brown fox", 10)
    ['The quick', 'brown fox']
    """
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    if len(initial_indent) >= width or len(subsequent_indent) >= width:
        raise ValueError("indent leaves no room for text")
    lines: list[str] = []
    current: list[str] = []
    used = 0

    def indent() -> str:
        return subsequent_indent if lines else initial_indent

    def flush() -> None:
        nonlocal current, used
        lines.append(indent() + " ".join(current))
        current, used = [], 0

    for word in text.split():
        while True:
            room = width - len(indent())
            needed = len(word) if not current else used + 1 + len(word)
            if needed <= room:
                current.append(word)
                used = needed
                break
            if current:
                flush()
                continue
            if not break_long_words:
                current, used = [word], len(word)
                flush()
                break
            current, used = [word[:room]], room
            flush()
            word = word[room:]
    if current:
        flush()
    return lines


def fill(
    text: str,
    width: int = 70,
    *,
    initial_indent: str = "",
    subsequent_indent: str = "",
    break_long_words: bool = True,
) -> str:
    """Wrap every paragraph of `text` and return the result as one string.

    Paragraphs are runs of consecutive non-blank lines; they are separated by one or
    more blank lines (lines that are empty or contain only whitespace). Each paragraph
    is wrapped independently with `wrap` using the same options (so `initial_indent`
    starts every paragraph). Wrapped lines are joined with ``"\\n"`` and paragraphs
    are separated by exactly one empty line (``"\\n\\n"``). The result has no
    trailing newline; a text without words gives ``""``.

    Raises:
        ValueError: for the same invalid arguments as `wrap`.

    >>> fill("one two three\\n\\nfour", 8)
    'one two\\nthree\\n\\nfour'
    """
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    if len(initial_indent) >= width or len(subsequent_indent) >= width:
        raise ValueError("indent leaves no room for text")
    paragraphs: list[list[str]] = []
    current: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    if current:
        paragraphs.append(current)
    out = []
    for para in paragraphs:
        lines = wrap(
            "\n".join(para),
            width,
            initial_indent=initial_indent,
            subsequent_indent=subsequent_indent,
            break_long_words=break_long_words,
        )
        out.append("\n".join(lines))
    return "\n\n".join(out)


def justify(text: str, width: int = 70) -> list[str]:
    """Wrap `text` to `width` (as `wrap(text, width)`) and fully justify the lines.

    Every line except the last is padded to exactly `width` characters by widening
    the gaps between its words: the extra spaces are spread as evenly as possible and,
    when they do not divide evenly, the leftmost gaps get one more space than the
    rightmost ones. A line holding a single word is left as it is (not padded), and
    the last line is left-aligned with single spaces. Returns ``[]`` for a text
    without words.

    Raises:
        ValueError: if `width` < 1.

    >>> justify("a bb ccc dddd eeeee", 10)
    ['a  bb  ccc', 'dddd eeeee']
    """
    lines = wrap(text, width)
    out = []
    for n, line in enumerate(lines):
        words = line.split(" ")
        if n == len(lines) - 1 or len(words) == 1:
            out.append(line)
            continue
        gaps = len(words) - 1
        spaces = width - sum(len(w) for w in words)
        base, extra = divmod(spaces, gaps)
        parts = []
        for i, word in enumerate(words[:-1]):
            parts.append(word + " " * (base + (1 if i < extra else 0)))
        parts.append(words[-1])
        out.append("".join(parts))
    return out
