"""The session-record readers: any text is a record or an unreadable one, never an exception."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.checks.api import SHELL, Record, Undecidable

read_record = Record.read  # the record at a path, in whichever supported format it is written

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                         st.sampled_from(["type", "payload", "message", "content", "name", "arguments", "input",
                                          "action", "command", "toolCalls", "args", "messages", "parts", "role"]),
                         inner, max_size=4), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(st.lists(_json, max_size=4) | st.text(max_size=40))
def test_any_text_reads_to_a_record_or_an_unreadable_one(tmp_path_factory, content):
    path = Path(tmp_path_factory.mktemp("r")) / "s.jsonl"
    path.write_text(content if isinstance(content, str) else "".join(json.dumps(item) + "\n" for item in content))
    record = read_record(path)
    assert isinstance(record, Record)
    try:
        calls = list(record.tool_calls())
    except Undecidable:
        assert record.unreadable
    else:
        assert all(isinstance(call.input.get("command", ""), str) for call in calls if call.tool == SHELL)


def test_a_record_that_is_not_utf8_is_unreadable(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xff\xfe{}\n")
    assert "not UTF-8" in read_record(path).unreadable


def test_an_empty_record_has_no_calls(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text("\n")
    assert list(read_record(path).tool_calls()) == []
