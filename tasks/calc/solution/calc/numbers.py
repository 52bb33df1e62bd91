"""Small number helpers."""


def gcd(a, b):
    """Greatest common divisor of two integers; always >= 0, and gcd(0, 0) == 0."""
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


def mean(values):
    """Arithmetic mean of a non-empty sequence of numbers.

    Raises:
        ValueError: if `values` is empty.
    """
    values = list(values)
    if not values:
        raise ValueError("mean of an empty sequence")
    return sum(values) / len(values)
