"""The public entry points: ``loads``/``load`` and ``dumps``/``dump``."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from jsonkit.errors import ParseError
from jsonkit.parser import DEFAULT_MAX_DEPTH, Parser
from jsonkit.serializer import Encoder


def loads(
    s: str | bytes | bytearray,
    *,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Any:
    """Decode the JSON document ``s`` and return the Python value.

    ``bytes``/``bytearray`` input is decoded as UTF-8, and a leading UTF-8 byte
    order mark is skipped; error positions then refer to the decoded text
    (without the BOM).  ``object_hook`` and ``max_depth`` are passed to
    :class:`~jsonkit.parser.Parser`.

    Raises:
        ParseError: for malformed JSON, and ``"Unexpected UTF-8 BOM"`` at
            position 0 if a ``str`` starts with U+FEFF.
        TypeError: if ``s`` is not ``str``, ``bytes`` or ``bytearray``
            (``"the JSON object must be str, bytes or bytearray, not <type name>"``).
        UnicodeDecodeError: for bytes that are not valid UTF-8.
    """
    if isinstance(s, (bytes, bytearray)):
        s = bytes(s).decode("utf-8-sig")
    elif not isinstance(s, str):
        raise TypeError(f"the JSON object must be str, bytes or bytearray, not {type(s).__name__}")
    elif s.startswith("\ufeff"):
        raise ParseError("Unexpected UTF-8 BOM", s, 0)
    return Parser(s, object_hook=object_hook, max_depth=max_depth).parse()


def load(fp: IO[Any], **kwargs: Any) -> Any:
    """Read all of the file-like object ``fp`` and decode it with :func:`loads`."""
    return loads(fp.read(), **kwargs)


def dumps(
    obj: Any,
    *,
    indent: int | str | None = None,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """Return the JSON text of ``obj``.

    The keyword arguments configure an :class:`~jsonkit.serializer.Encoder` (see
    there for their meaning and defaults).  Examples::

        dumps({"a": [1, 2]})            == '{"a": [1, 2]}'
        dumps([1, {"b": None}], indent=2) == '[\\n  1,\\n  {\\n    "b": null\\n  }\\n]'

    Raises ``TypeError`` for values that cannot be encoded and ``ValueError`` for
    NaN/infinite floats and circular references.
    """
    encoder = Encoder(
        indent=indent,
        sort_keys=sort_keys,
        ensure_ascii=ensure_ascii,
        separators=separators,
        default=default,
    )
    return encoder.encode(obj)


def dump(obj: Any, fp: IO[str], **kwargs: Any) -> None:
    """Write ``dumps(obj, **kwargs)`` to the text file-like object ``fp``."""
    fp.write(dumps(obj, **kwargs))
