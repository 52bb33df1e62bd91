"""Physical dimensions as vectors of integer exponents of the seven SI base dimensions."""

from __future__ import annotations

import re
from dataclasses import astuple, dataclass

BASE_DIMENSIONS = ("length", "mass", "time", "current", "temperature", "amount", "luminosity")
"""The base dimensions, in canonical order (the order of `Dimension`'s fields)."""


@dataclass(frozen=True)
class Dimension:
    """A dimension: one integer exponent per base dimension.

    ``Dimension(length=1, time=-2)`` is acceleration; ``Dimension()`` is
    dimensionless. Instances are immutable, hashable and compare equal when all
    exponents are equal.
    """

    length: int = 0
    mass: int = 0
    time: int = 0
    current: int = 0
    temperature: int = 0
    amount: int = 0
    luminosity: int = 0

    @property
    def is_dimensionless(self) -> bool:
        """True when every exponent is 0."""
        return not any(astuple(self))

    def __mul__(self, other: Dimension) -> Dimension:
        """Return the dimension of a product: exponents are added element-wise.

        Returns ``NotImplemented`` when `other` is not a `Dimension` (so ``*`` then
        raises ``TypeError``).

        >>> Dimension(length=1) * Dimension(length=1, time=-1)
        Dimension(length=2, mass=0, time=-1, current=0, temperature=0, amount=0, luminosity=0)
        """
        if not isinstance(other, Dimension):
            return NotImplemented
        return Dimension(*(a + b for a, b in zip(astuple(self), astuple(other))))

    def __truediv__(self, other: Dimension) -> Dimension:
        """Return the dimension of a quotient: exponents are subtracted element-wise.

        Returns ``NotImplemented`` when `other` is not a `Dimension`.

        >>> (Dimension(length=1) / Dimension(time=1)).time
        -1
        """
        if not isinstance(other, Dimension):
            return NotImplemented
        return Dimension(*(a - b for a, b in zip(astuple(self), astuple(other))))

    def __pow__(self, n: int) -> Dimension:
        """Return the dimension raised to the integer power `n` (exponents times `n`).

        Raises:
            TypeError: if `n` is not an ``int`` (``bool`` is rejected too).

        >>> (Dimension(length=1, time=-1) ** 2).time
        -2
        """
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"dimension exponent must be an int, got {n!r}")
        return Dimension(*(a * n for a in astuple(self)))

    def __str__(self) -> str:
        """Return a readable form such as ``"length*time^-2"``.

        Base dimensions with a non-zero exponent are listed in canonical order
        (`BASE_DIMENSIONS`) and joined by ``"*"``; an exponent other than 1 is
        written as ``"^n"`` (negative exponents included, e.g. ``"time^-1"``).
        The dimensionless dimension is written ``"dimensionless"``.
        """
        parts = []
        for name, exp in zip(BASE_DIMENSIONS, astuple(self)):
            if exp == 1:
                parts.append(name)
            elif exp:
                parts.append(f"{name}^{exp}")
        return "*".join(parts) if parts else "dimensionless"

    @classmethod
    def parse(cls, text: str) -> Dimension:
        """Parse the form written by `__str__` back into a `Dimension`.

        The text is base-dimension names joined by ``"*"``, each optionally followed
        by ``"^n"`` with a (possibly negative) integer `n`; whitespace around names
        and operators is ignored. A name may appear more than once (its exponents
        add up). ``"dimensionless"`` (alone) gives ``Dimension()``.

        Raises:
            ValueError: for an empty text, an unknown name or malformed syntax.

        >>> Dimension.parse("length * time^-2") == Dimension(length=1, time=-2)
        True
        """
        text = text.strip()
        if text == "dimensionless":
            return cls()
        if not text:
            raise ValueError("empty dimension")
        exps = dict.fromkeys(BASE_DIMENSIONS, 0)
        for part in text.split("*"):
            m = re.fullmatch(r"\s*([a-z]+)\s*(?:\^\s*([+-]?\d+))?\s*", part)
            if m is None:
                raise ValueError(f"malformed dimension term {part.strip()!r}")
            name = m[1]
            if name not in exps:
                raise ValueError(f"unknown base dimension {name!r}")
            exps[name] += int(m[2]) if m[2] is not None else 1
        return cls(**exps)


DIMENSIONLESS = Dimension()
LENGTH = Dimension(length=1)
MASS = Dimension(mass=1)
TIME = Dimension(time=1)
CURRENT = Dimension(current=1)
TEMPERATURE = Dimension(temperature=1)
AMOUNT = Dimension(amount=1)
LUMINOSITY = Dimension(luminosity=1)
