"""Exceptions raised by textkit."""


class PatchError(ValueError):
    """A unified patch is malformed or does not apply to the given text."""
