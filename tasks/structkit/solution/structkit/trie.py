"""A prefix tree (trie) holding a set of strings.

Each node maps single characters to child nodes and carries a flag saying whether
the path from the root to it spells a stored word. The root node stands for the
empty string, which may itself be stored.
"""

from __future__ import annotations

from collections.abc import Iterable


class _Node:
    __slots__ = ("children", "terminal")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.terminal = False


class Trie:
    """A set of strings with fast prefix queries.

    >>> t = Trie(["car", "cart", "care", "dog"])
    >>> t.keys_with_prefix("car")
    ['car', 'care', 'cart']
    >>> t.longest_prefix_of("cartoon")
    'cart'
    """

    def __init__(self, words: Iterable[str] = ()) -> None:
        """Create a trie holding ``words`` (each inserted with :meth:`insert`)."""
        self._root = _Node()
        self._size = 0
        for w in words:
            self.insert(w)

    def __len__(self) -> int:
        """Number of distinct words stored."""
        return self._size

    def node_count(self) -> int:
        """Number of nodes in the tree, the root included (an empty trie has 1)."""
        count = 0
        stack = [self._root]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(node.children.values())
        return count

    def insert(self, word: str) -> bool:
        """Add ``word``; return True if it was not stored yet, False otherwise.

        The empty string is a valid word. Raises TypeError if ``word`` is not a str.
        """
        if not isinstance(word, str):
            raise TypeError(f"trie words must be str, not {type(word).__name__}")
        node = self._root
        for ch in word:
            nxt = node.children.get(ch)
            if nxt is None:
                nxt = node.children[ch] = _Node()
            node = nxt
        if node.terminal:
            return False
        node.terminal = True
        self._size += 1
        return True

    def __contains__(self, word: object) -> bool:
        """True if ``word`` is a stored word (not merely a prefix of one).

        Anything that is not a str is never contained (no error is raised).
        """
        if not isinstance(word, str):
            return False
        node = self._root
        for ch in word:
            node = node.children.get(ch)
            if node is None:
                return False
        return node.terminal

    def keys_with_prefix(self, prefix: str) -> list[str]:
        """All stored words starting with ``prefix`` (the prefix itself included when
        stored), sorted in ascending string order. The empty prefix lists every word.
        """
        node = self._root
        for ch in prefix:
            node = node.children.get(ch)
            if node is None:
                return []
        out: list[str] = []
        stack = [(node, prefix)]
        while stack:
            n, s = stack.pop()
            if n.terminal:
                out.append(s)
            for ch, child in n.children.items():
                stack.append((child, s + ch))
        out.sort()
        return out

    def longest_prefix_of(self, text: str) -> str | None:
        """The longest stored word that is a prefix of ``text`` (``text`` itself
        included), or None when no stored word is. The empty word, when stored, is
        a prefix of every text.
        """
        node = self._root
        best = "" if node.terminal else None
        for i, ch in enumerate(text):
            node = node.children.get(ch)
            if node is None:
                break
            if node.terminal:
                best = text[: i + 1]
        return best

    def remove(self, word: str) -> None:
        """Remove ``word`` from the trie.

        Nodes that no longer lead to any stored word are deleted, so that after
        removing every word only the root node is left. Other words, including
        words that are prefixes or extensions of ``word``, are unaffected.
        Raises KeyError(word) if ``word`` is not stored.
        """
        if not isinstance(word, str):
            raise KeyError(word)
        path = [self._root]
        node = self._root
        for ch in word:
            node = node.children.get(ch)
            if node is None:
                raise KeyError(word)
            path.append(node)
        if not node.terminal:
            raise KeyError(word)
        node.terminal = False
        self._size -= 1
        for i in range(len(word), 0, -1):
            child = path[i]
            if child.terminal or child.children:
                break
            del path[i - 1].children[word[i - 1]]
