"""Private helper shared by the diff and patch modules."""

from __future__ import annotations


def split_lines(text: str) -> list[str]:
    """Split `text` after every ``"\\n"``, keeping it; a final partial line is kept too."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out
