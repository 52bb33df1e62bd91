"""Reading tool calls out of reply text: the shapes models write, and real replies recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarm_envs.agents.replies import NO_CALL, call_instructions, read_tool_call
from swarm_envs.core.actions import parse_action, tool_schemas
from swarm_envs.error import ActionError

FIXTURE = Path(__file__).parent / "fixtures" / "smollm2_replies.jsonl"

READ = {"name": "read_file", "arguments": {"path": "calc/core.py"}}


@pytest.mark.parametrize(
    ("text", "shape", "content"),
    [
        (
            '<tool_call>{"name": "read_file", "arguments": {"path": "calc/core.py"}}</tool_call>',
            "tag",
            "",
        ),
        (
            'I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "calc/core.py"}}\n</tool_call>',
            "tag",
            "I will read it.",
        ),
        # cut at the token limit: no closing tag
        ('<tool_call>{"name": "read_file", "arguments": {"path": "calc/core.py"}}', "tag", ""),
        (
            '```json\n{"name": "read_file", "arguments": {"path": "calc/core.py"}}\n```\nThat reads it.',
            "fence",
            "That reads it.",
        ),
        ('```\n{"name": "read_file", "arguments": {"path": "calc/core.py"}}\n```', "fence", ""),
        (
            'Sure: {"name": "read_file", "arguments": {"path": "calc/core.py"}} and then I test.',
            "json",
            "Sure:  and then I test.",
        ),
        ('{"name": "read_file", "parameters": {"path": "calc/core.py"}}', "json", ""),
        (
            '{"type": "function", "function": {"name": "read_file", "arguments": {"path": "calc/core.py"}}}',
            "json",
            "",
        ),
        ('{"read_file": {"path": "calc/core.py"}}', "json", ""),
        ("{'name': 'read_file', 'arguments': {'path': 'calc/core.py'}}", "repaired", ""),
        ('{"name": "read_file", "arguments": {"path": "calc/core.py"}', "repaired", ""),
        ('{"name": "read_file", "arguments": {"path": "calc/core.py",},}', "repaired", ""),
        (
            '<tool_call>{"name": "read_file", "arguments": {"path": "calc/core.py"}</tool_call>',
            "repaired",
            "",
        ),
        ('read_file(path="calc/core.py")', "python", ""),
        ('Let me look: read_file(path="calc/core.py")', "python", "Let me look:"),
    ],
)
def test_every_shape_of_a_call_is_read(text, shape, content):
    got = read_tool_call(text)
    assert got.call == READ
    assert got.shape == shape
    assert got.content == content
    assert parse_action(got.call)[0] == "read_file"


def test_code_with_raw_newlines_in_a_json_string_is_read():
    text = (
        '{"name": "write_file", "arguments": {"path": "a.py", "content": "def f():\n\treturn 1\n"}}'
    )
    got = read_tool_call(text)
    assert got.call == {
        "name": "write_file",
        "arguments": {"path": "a.py", "content": "def f():\n\treturn 1\n"},
    }


def test_a_reply_cut_inside_a_string_keeps_what_was_written():
    got = read_tool_call('{"name": "write_file", "arguments": {"path": "a.py", "content": "x = 1\n')
    assert got.call == {"name": "write_file", "arguments": {"path": "a.py", "content": "x = 1\n"}}


def test_of_several_calls_the_first_is_the_action_and_all_are_counted():
    got = read_tool_call('[{"name": "list_files", "arguments": {}}, {"name": "run_tests"}]')
    assert got.call == {"name": "list_files", "arguments": {}} and got.calls == 2
    tags = '<tool_call>{"name": "a", "arguments": {}}</tool_call> ok <tool_call>{"name": "b"}</tool_call>'
    got = read_tool_call(tags)
    assert got.call == {"name": "a", "arguments": {}} and got.calls == 2 and got.content == "ok"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Here is a list of the files of the project:\n# README.md\n# README.txt",
        "{not json at all",
        '{"path": "calc/core.py"}',  # arguments without a tool
        "<tool_call>oops</tool_call>",
        "print(read_file)",  # a name, not a call
        'read_file("calc/core.py")',  # positional: which argument is ambiguous
        "{" * 5000,  # a long run of braces is cheap and finds nothing
    ],
)
def test_anything_else_is_no_call(text):
    got = read_tool_call(text)
    assert got.call is None and got.shape == "none" and got.content == text.strip()


def test_an_unknown_tool_is_read_so_that_the_environment_can_name_it():
    got = read_tool_call('{"name": "read_files", "arguments": {"path": "x"}}')
    assert got.call == {"name": "read_files", "arguments": {"path": "x"}}
    with pytest.raises(ActionError, match="did you mean 'read_file'"):
        parse_action(got.call)


def test_the_error_for_a_message_without_a_call_shows_the_shape():
    with pytest.raises(ActionError) as e:
        parse_action({"role": "assistant", "content": "hello", "tool_calls": []})
    assert '{"name": "read_file", "arguments": {"path": "README.md"}}' in str(e.value)
    assert "read_file" in NO_CALL


def test_the_instructions_list_each_tool_with_its_arguments():
    text = call_instructions(tool_schemas())
    assert "- read_file(path, start_line?, end_line?):" in text
    assert "- edit_file(path, old, new):" in text
    assert "<tool_call>" in text and text.count("\n- ") == len(tool_schemas())


# ---------------------------------------------------------------------------- recorded


def _recorded() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


def test_recorded_replies_of_the_real_model_read_as_labelled():
    """Replies SmolLM2-135M-Instruct wrote on calc at temperature 1 (the trainer's), labelled.

    Each was read by eye: none holds a tool call. Several hold braces, code fences or a
    tool's name in prose (near misses the reader must not take for a call).
    """
    rows = _recorded()
    assert len(rows) >= 20
    for row in rows:
        got = read_tool_call(row["text"])
        assert got.call == row["call"], row["text"][:200]
        assert got.shape == row["shape"], row["text"][:200]


def test_the_recorded_replies_hold_near_misses():
    texts = [r["text"] for r in _recorded()]
    assert sum("{" in t for t in texts) >= 3 and any("```" in t for t in texts)
    assert any("read_file" in t or "list_file" in t for t in texts)
