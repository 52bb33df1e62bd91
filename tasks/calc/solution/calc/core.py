"""Tokenizing and evaluating reverse Polish notation."""

OPERATORS = "+-*/"


def tokenize(text):
    """Split `text` on whitespace into tokens: floats for numbers, strings for operators.

    Raises:
        ValueError: for a token that is neither a number nor one of ``+ - * /``.
    """
    tokens = []
    for word in text.split():
        if word in OPERATORS:
            tokens.append(word)
            continue
        try:
            tokens.append(float(word))
        except ValueError:
            raise ValueError(f"bad token: {word!r}") from None
    return tokens


def evaluate_rpn(tokens):
    """Evaluate a list of RPN tokens (as made by `tokenize`) and return a float.

    Raises:
        ValueError: when an operator lacks operands or operands are left over.
        ZeroDivisionError: on division by zero.
    """
    stack = []
    for tok in tokens:
        if isinstance(tok, float):
            stack.append(tok)
            continue
        if len(stack) < 2:
            raise ValueError(f"operator {tok!r} needs two operands")
        b, a = stack.pop(), stack.pop()
        if tok == "+":
            stack.append(a + b)
        elif tok == "-":
            stack.append(a - b)
        elif tok == "*":
            stack.append(a * b)
        else:
            stack.append(a / b)
    if len(stack) != 1:
        raise ValueError(f"expected one result, got {len(stack)}")
    return stack[0]
