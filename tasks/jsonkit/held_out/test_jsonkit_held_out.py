"""Held-out tests of jsonkit: the standard library's json as the reference, on seeded
random documents. Never copied into the workspace; scored only by the scorer."""

import json
import random

import pytest

from jsonkit import ParseError, dumps, loads


def value(rng: random.Random, depth: int = 0):
    kinds = ["int", "float", "str", "bool", "null"] + (["list", "dict"] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.randint(-(10**12), 10**12)
    if kind == "float":
        return rng.choice([0.5, -2.25, 1e-7, 3.0e20, rng.uniform(-1e3, 1e3)])
    if kind == "str":
        return "".join(rng.choice('ab "\\/\n\t\u00e9\u4e2d\U0001f600') for _ in range(rng.randrange(8)))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{rng.randrange(50)}": value(rng, depth + 1) for _ in range(rng.randrange(4))}


DOCUMENTS = [value(random.Random(seed)) for seed in range(40)]


@pytest.mark.parametrize("seed", range(0, 40, 5))
def test_loads_agrees_with_the_standard_library(seed):
    for doc in DOCUMENTS[seed : seed + 5]:
        for text in (json.dumps(doc), json.dumps(doc, indent=2), json.dumps(doc, ensure_ascii=False)):
            assert loads(text) == json.loads(text)


@pytest.mark.parametrize("seed", range(0, 40, 10))
def test_dumps_agrees_with_the_standard_library(seed):
    for doc in DOCUMENTS[seed : seed + 10]:
        assert loads(dumps(doc)) == doc
        assert json.loads(dumps(doc, indent=3, sort_keys=True)) == doc
        assert dumps(doc, sort_keys=True) == json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize(
    "text",
    ["[1, 2", '{"a" 1}', "[01]", '"\\x41"', "tru", "[1,]", '{"a": 1,}', "1 2", "", "--1", "'a'"],
)
def test_invalid_documents_are_rejected(text):
    with pytest.raises(ParseError):
        loads(text)


def test_error_positions_are_lines_and_columns():
    with pytest.raises(ParseError) as info:
        loads('{\n  "a": [1,\n   x]\n}')
    assert (info.value.lineno, info.value.colno) == (3, 4)
