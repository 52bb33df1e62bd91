"""textkit: text wrapping, diffing and patching in pure Python.

Wrapping (`wrap`, `fill`, `justify`), indentation (`dedent`, `indent`), edit
distances (`levenshtein`, `hamming`, `similarity`, `closest_matches`), sequence
matching (`lcs_matches`, `myers_matches`), diffs (`diff_lines`, `diff_words`,
`render_word_diff`), unified diffs (`group_hunks`, `format_hunk_header`,
`unified_diff`) and patches (`parse_patch`, `apply_patch`).
"""

from textkit.diff import diff_lines, diff_words, render_word_diff
from textkit.distance import closest_matches, hamming, levenshtein, similarity
from textkit.errors import PatchError
from textkit.indentation import dedent, indent
from textkit.lcs import lcs_matches
from textkit.myers import myers_matches
from textkit.patch import apply_patch, parse_patch
from textkit.unified import Hunk, format_hunk_header, group_hunks, unified_diff
from textkit.wrapping import fill, justify, wrap

__all__ = [
    "Hunk",
    "PatchError",
    "apply_patch",
    "closest_matches",
    "dedent",
    "diff_lines",
    "diff_words",
    "fill",
    "format_hunk_header",
    "group_hunks",
    "hamming",
    "indent",
    "justify",
    "lcs_matches",
    "levenshtein",
    "myers_matches",
    "parse_patch",
    "render_word_diff",
    "similarity",
    "unified_diff",
    "wrap",
]
