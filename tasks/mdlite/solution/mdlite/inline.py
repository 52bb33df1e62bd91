"""The inline layer: raw text of a block -> a list of inline nodes.

Supported: backslash escapes, code spans, emphasis and strong emphasis with
``*`` or ``_``, links ``[text](href "title")``, images ``![alt](src "title")``
and hard line breaks. Raw HTML and autolinks are not supported (``<`` is just
text, escaped on output).

The helpers take the whole ``text`` and the index ``i`` where the construct
would start, and return ``(node, end)`` where ``end`` is the index just after
the construct, or ``None`` when there is no such construct at ``i``.
"""

from __future__ import annotations

from mdlite.nodes import Code, Emphasis, Image, LineBreak, Link, Strong, Text, plain_text

#: characters that a backslash can escape
ESCAPABLE = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


def _run_length(text: str, i: int, ch: str) -> int:
    j = i
    while j < len(text) and text[j] == ch:
        j += 1
    return j - i


def parse_code_span(text: str, i: int) -> tuple[Code, int] | None:
    """Parse a code span opening at ``text[i]`` (a backtick).

    The opener is the whole run of ``n`` backticks starting at ``i``. The span
    ends at the next run of *exactly* ``n`` backticks (longer or shorter runs in
    between are part of the content). Return ``None`` if there is none. The
    content is taken verbatim (backslashes are not escapes here), line breaks
    become spaces, and if the content both starts and ends with a space and is
    not only spaces, one space is removed from each end
    (`` `` `a` `` `` -> ``"`a`"``).
    """
    n = _run_length(text, i, "`")
    if n == 0:
        return None
    j = i + n
    while j < len(text):
        if text[j] == "`":
            m = _run_length(text, j, "`")
            if m == n:
                content = text[i + n : j].replace("\n", " ")
                if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
                    content = content[1:-1]
                return Code(content), j + n
            j += m
        else:
            j += 1
    return None


def find_closing_bracket(text: str, i: int) -> int | None:
    """Return the index of the ``]`` that matches the ``[`` at ``text[i]``.

    Brackets nest (``[a [b] c]``). A backslash escapes the next character (so
    ``\\]`` does not close), and a code span (see :func:`parse_code_span`) is
    skipped as a whole, so brackets inside backticks do not count. A backtick
    run that does not start a code span is ordinary text. Return ``None`` when
    the bracket is never closed. Raises ``ValueError`` if ``text[i]`` is not
    ``[``.
    """
    if i >= len(text) or text[i] != "[":
        raise ValueError(f"no '[' at index {i}")
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "`":
            span = parse_code_span(text, j)
            j = span[1] if span else j + _run_length(text, j, "`")
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _unescape(s: str) -> str:
    out = []
    k = 0
    while k < len(s):
        if s[k] == "\\" and k + 1 < len(s) and s[k + 1] in ESCAPABLE:
            out.append(s[k + 1])
            k += 2
        else:
            out.append(s[k])
            k += 1
    return "".join(out)


def parse_link_target(text: str, i: int) -> tuple[str, str | None, int] | None:
    """Parse the ``(destination "title")`` part of a link or image at ``text[i]``.

    Returns ``(destination, title, end)`` with ``end`` just after the ``)``, or
    ``None`` if ``text[i]`` is not ``(`` or the syntax is wrong. Inside the
    parentheses, in order:

    - optional spaces or line breaks;
    - the destination: either ``<...>`` (no ``<``, ``>`` or line break inside;
      the brackets are not part of the destination), or a possibly empty run of
      characters up to a space, line break or unbalanced ``)``: parentheses in
      it must balance (``(https://x.org/a_(b))`` keeps ``a_(b)``);
    - optionally, after at least one space or line break, a title in double
      quotes (``\\"`` stands for ``"``); ``None`` when absent;
    - optional spaces or line breaks, then ``)``.

    A backslash before an ASCII punctuation character is removed in both
    destination and title (``\\)`` gives ``)``).
    """
    n = len(text)
    if i >= n or text[i] != "(":
        return None
    j = i + 1

    def skip_ws(k: int) -> int:
        while k < n and text[k] in " \n":
            k += 1
        return k

    j = skip_ws(j)
    if j < n and text[j] == "<":
        k = j + 1
        while k < n and text[k] not in "<>\n":
            k += 2 if text[k] == "\\" and k + 1 < n else 1
        if k >= n or text[k] != ">":
            return None
        dest = text[j + 1 : k]
        j = k + 1
    else:
        depth = 0
        k = j
        while k < n and text[k] not in " \n":
            c = text[k]
            if c == "\\" and k + 1 < n:
                k += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            k += 1
        if depth != 0:
            return None
        dest = text[j:k]
        j = k
    title = None
    k = skip_ws(j)
    if k > j and k < n and text[k] == '"':
        m = k + 1
        while m < n and text[m] != '"':
            m += 2 if text[m] == "\\" and m + 1 < n else 1
        if m >= n:
            return None
        title = _unescape(text[k + 1 : m])
        k = skip_ws(m + 1)
    if k >= n or text[k] != ")":
        return None
    return _unescape(dest), title, k + 1


def parse_link(text: str, i: int) -> tuple[Link, int] | None:
    """Parse a link ``[text](destination "title")`` starting at the ``[`` at ``text[i]``.

    The link text runs to the matching ``]`` (:func:`find_closing_bracket`),
    which must be followed *immediately* by a link target
    (:func:`parse_link_target`). The link text is parsed with
    :func:`parse_inline` into the link's children. Return ``None`` (the caller
    then treats ``[`` as text) when any part is missing.
    """
    close = find_closing_bracket(text, i)
    if close is None:
        return None
    target = parse_link_target(text, close + 1)
    if target is None:
        return None
    href, title, end = target
    return Link(href, parse_inline(text[i + 1 : close]), title), end


def parse_image(text: str, i: int) -> tuple[Image, int] | None:
    """Parse an image ``![alt](source "title")`` starting at the ``!`` at ``text[i]``.

    Like :func:`parse_link` with the bracket at ``i + 1``; return ``None`` if
    ``text[i:i+2]`` is not ``"!["`` or the link syntax fails. ``alt`` is the
    plain text (:func:`~mdlite.nodes.plain_text`) of the bracket content parsed
    with :func:`parse_inline`, so ``![*big* cat](c.png)`` has alt ``"big cat"``.
    """
    if text[i : i + 2] != "![":
        return None
    close = find_closing_bracket(text, i + 1)
    if close is None:
        return None
    target = parse_link_target(text, close + 1)
    if target is None:
        return None
    src, title, end = target
    return Image(src, plain_text(parse_inline(text[i + 2 : close])), title), end


def parse_emphasis(text: str, i: int) -> tuple[Emphasis | Strong, int] | None:
    """Parse emphasis opening with the run of ``*`` or ``_`` that starts at ``text[i]``.

    Let ``c`` be ``text[i]`` and ``n`` the length of the run of ``c`` starting at
    ``i``. Return ``None`` unless ``c`` is ``*`` or ``_``, ``1 <= n <= 3`` and the
    run can open: it is followed by a character that is not whitespace, and,
    for ``_`` only, it is not preceded by a letter or digit (so ``snake_case``
    stays text).

    The closer is the first later run of ``c`` of *exactly* length ``n`` that
    can close: preceded by a non-whitespace character and, for ``_`` only, not
    followed by a letter or digit. While searching, runs of ``c`` of another
    length are skipped whole, a backslash skips the next character, and code
    spans (:func:`parse_code_span`) are skipped whole. Without a closer, return
    ``None``.

    The content between opener and closer is parsed with :func:`parse_inline`.
    ``n == 1`` gives ``Emphasis``, ``n == 2`` ``Strong``, and ``n == 3``
    ``Emphasis([Strong(children)])``. ``end`` is just after the closer.
    """
    if i >= len(text) or text[i] not in "*_":
        return None
    c = text[i]
    n = _run_length(text, i, c)
    after = i + n
    if n > 3 or after >= len(text) or text[after].isspace():
        return None
    if c == "_" and i > 0 and text[i - 1].isalnum():
        return None
    j = after
    while j < len(text):
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "`":
            span = parse_code_span(text, j)
            j = span[1] if span else j + _run_length(text, j, "`")
            continue
        if ch == c:
            m = _run_length(text, j, c)
            if m == n and not text[j - 1].isspace():
                follow = j + m
                if not (c == "_" and follow < len(text) and text[follow].isalnum()):
                    children = parse_inline(text[after:j])
                    if n == 1:
                        node: Emphasis | Strong = Emphasis(children)
                    elif n == 2:
                        node = Strong(children)
                    else:
                        node = Emphasis([Strong(children)])
                    return node, j + m
            j += m
            continue
        j += 1
    return None


def parse_inline(text: str) -> list:
    """Parse raw inline ``text`` into a list of inline nodes.

    Scanning left to right:

    - ``\\`` before an ASCII punctuation character (:data:`ESCAPABLE`) gives that
      character as text; ``\\`` before a line break gives a ``LineBreak``; any
      other backslash is text;
    - ``` ` ``` tries :func:`parse_code_span`; on failure the whole backtick run
      is text;
    - ``![`` tries :func:`parse_image`; on failure ``!`` is text;
    - ``[`` tries :func:`parse_link`; on failure ``[`` is text;
    - ``*`` or ``_`` tries :func:`parse_emphasis`; on failure the whole run of
      that character is text;
    - a line break preceded by two or more spaces gives a ``LineBreak`` (the
      spaces are dropped); otherwise the spaces before a line break are dropped
      and the ``"\\n"`` stays in the text;
    - anything else is text.

    Adjacent text is merged into one ``Text`` node; there are never empty
    ``Text`` nodes. The empty string gives ``[]``.
    """
    nodes: list = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            nodes.append(Text("".join(buf)))
            buf.clear()

    def emit(node) -> None:
        flush()
        nodes.append(node)

    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in ESCAPABLE:
            buf.append(text[i + 1])
            i += 2
        elif c == "\\" and i + 1 < n and text[i + 1] == "\n":
            emit(LineBreak())
            i += 2
        elif c == "`":
            found = parse_code_span(text, i)
            if found:
                emit(found[0])
                i = found[1]
            else:
                run = _run_length(text, i, "`")
                buf.append("`" * run)
                i += run
        elif c == "!" and text[i + 1 : i + 2] == "[":
            found = parse_image(text, i)
            if found:
                emit(found[0])
                i = found[1]
            else:
                buf.append("!")
                i += 1
        elif c == "[":
            found = parse_link(text, i)
            if found:
                emit(found[0])
                i = found[1]
            else:
                buf.append("[")
                i += 1
        elif c in "*_":
            found = parse_emphasis(text, i)
            if found:
                emit(found[0])
                i = found[1]
            else:
                run = _run_length(text, i, c)
                buf.append(c * run)
                i += run
        elif c == "\n":
            current = "".join(buf)
            stripped = current.rstrip(" ")
            buf.clear()
            buf.append(stripped)
            if len(current) - len(stripped) >= 2:
                emit(LineBreak())
            else:
                buf.append("\n")
            i += 1
        else:
            buf.append(c)
            i += 1
    flush()
    return [node for node in nodes if not (isinstance(node, Text) and node.value == "")]
