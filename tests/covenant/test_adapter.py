"""Host payloads into the input IR: Claude Code, Codex, Grok (POLYDEUKES §9, §10.7, §10.8)."""

import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.covenant import transcript as transcripts
from agent_constitution.covenant.adapters import claude_code, codex, grok
from agent_constitution.covenant.adapters.common import Refusal, apply_edit, hook, ir_text


def claude(tmp_path, tool_name, tool_input, **extra):
    payload = {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": str(tmp_path),
               "tool_name": tool_name, "tool_input": tool_input, **extra}
    return claude_code.translate(json.dumps(payload), tmp_path)


def human(text, timestamp="2026-09-15T10:00:00.000Z"):
    return {"type": "user", "origin": {"kind": "human"}, "message": {"content": text}, "timestamp": timestamp}


def test_worked_translation_matches_upstream_byte_for_byte(tmp_path):
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.ts").write_text("a\n")
    transcript = tmp_path / "projects" / "s1.jsonl"
    transcript.parent.mkdir()
    transcript.write_text(json.dumps(human("pdks witness\nfix it")) + "\n")
    target = str(project / "src" / "a.ts")
    ir = claude(project, "Edit", {"file_path": target, "old_string": "a", "new_string": "b"},
                transcript_path=str(transcript))
    assert ir_text(ir) == (
        '{"toolCalls":[{"name":"Edit","args":{"file_path":"' + target + '","old_string":"a","new_string":"b"},'
        '"fileChange":{"kind":"modify","path":"' + target + '","pre":"a\\n","post":"b\\n"}}],'
        '"subagentSpawns":[],"userMessages":[],"actor":{},'
        '"tools":{"mutating":["Edit","Write","MultiEdit","NotebookEdit"],"shell":["Bash"],"commandArgs":["command"]},'
        '"session":{"evidencePath":"' + str(transcript) + '","userMessages":[{"text":"pdks witness\\nfix it",'
        '"timestampMs":1789466400000}],"toolCalls":[]}}'
    )


@pytest.mark.parametrize(
    ("content", "edit", "expected"),
    [
        ("a a", {"old_string": "a", "new_string": "b"}, None),  # ambiguous without replace_all
        ("a a", {"old_string": "a", "new_string": "b", "replace_all": True}, "b b"),
        ("a", {"old_string": "", "new_string": "b"}, None),
        ("a", {"old_string": "a", "new_string": "a"}, None),
        ("a", {"old_string": "z", "new_string": "b"}, None),
        ("a", {"old_string": "a", "new_string": "$&$$"}, "$&$$"),  # literal, no pattern expansion
        ("a", {"old_string": "a", "new_string": "b", "replace_all": "yes"}, None),
    ],
)
def test_edit_acceptance_rules(content, edit, expected):
    assert apply_edit(content, edit) == expected


def test_write_creates_or_modifies(tmp_path):
    (tmp_path / "old.txt").write_text("x")
    assert claude(tmp_path, "Write", {"file_path": "new.txt", "content": "n"})["toolCalls"][0]["fileChange"] == {
        "kind": "create", "path": "new.txt", "post": "n"}
    assert claude(tmp_path, "Write", {"file_path": "old.txt", "content": "n"})["toolCalls"][0]["fileChange"] == {
        "kind": "modify", "path": "old.txt", "pre": "x", "post": "n"}


def test_edit_without_a_file_or_a_match_carries_no_evidence(tmp_path):
    (tmp_path / "a.txt").write_text("abc")
    assert "fileChange" not in claude(tmp_path, "Edit", {"file_path": "missing", "old_string": "a", "new_string": "b"})["toolCalls"][0]
    assert "fileChange" not in claude(tmp_path, "Edit", {"file_path": "a.txt", "old_string": "z", "new_string": "b"})["toolCalls"][0]


def test_multi_edit_applies_in_order_and_can_create(tmp_path):
    (tmp_path / "a.txt").write_text("one two")
    edits = [{"old_string": "one", "new_string": "1"}, {"old_string": "1 two", "new_string": "1 2"}]
    assert claude(tmp_path, "MultiEdit", {"file_path": "a.txt", "edits": edits})["toolCalls"][0]["fileChange"]["post"] == "1 2"
    create = [{"old_string": "", "new_string": "seed"}, {"old_string": "seed", "new_string": "grown"}]
    assert claude(tmp_path, "MultiEdit", {"file_path": "b.txt", "edits": create})["toolCalls"][0]["fileChange"] == {
        "kind": "create", "path": "b.txt", "post": "grown"}
    broken = [edits[0], {"old_string": "absent", "new_string": "x"}]
    assert "fileChange" not in claude(tmp_path, "MultiEdit", {"file_path": "a.txt", "edits": broken})["toolCalls"][0]


def test_notebook_edit_is_judged_on_the_cell(tmp_path):
    notebook = {"cells": [{"id": "c1", "cell_type": "code", "source": ["import os\n", "print(1)"]}]}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    change = lambda **edit: claude(tmp_path, "NotebookEdit", {"notebook_path": "n.ipynb", **edit})["toolCalls"][0].get("fileChange")  # noqa: E731
    assert change(cell_id="c1", new_source="print(2)") == {
        "kind": "modify", "path": "n.ipynb", "pre": "import os\nprint(1)", "post": "print(2)"}
    assert change(cell_id="c1", new_source="x", edit_mode="delete")["post"] == ""
    assert change(new_source="x", edit_mode="insert", cell_type="code") == {
        "kind": "modify", "path": "n.ipynb", "pre": "", "post": "x"}
    assert change(new_source="x", edit_mode="insert") is None
    assert change(cell_id="nope", new_source="x") is None


def test_task_is_a_spawn_and_the_actor_comes_from_agent_type(tmp_path):
    ir = claude(tmp_path, "Task", {"subagent_type": "tdd-test-writer", "prompt": "x"}, agent_type="")
    assert ir["toolCalls"] == [] and ir["subagentSpawns"] == [{"kind": "tdd-test-writer"}]
    assert ir["actor"] == {}
    assert claude(tmp_path, "Bash", {"command": "ls"}, agent_type="reviewer")["actor"] == {"agentType": "reviewer"}


@pytest.mark.parametrize(
    "raw",
    ["not json", "null", "[]", '{"tool_name": 1, "tool_input": {}}', '{"tool_name": "Edit"}',
     '{"tool_name": "Task", "tool_input": {}}'],
)
def test_claude_refuses_what_it_cannot_translate(tmp_path, raw):
    with pytest.raises(Refusal) as refused:
        claude_code.translate(raw, tmp_path)
    assert str(refused.value).startswith(("the payload is not JSON (", "the payload is not a PreToolUse envelope"))


def test_an_unreadable_pre_state_is_refused(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(Refusal, match="^the pre-state of the target could not be read"):
        claude(tmp_path, "Write", {"file_path": "dir", "content": "x"})


def test_transcript_joins_results_and_keeps_only_human_messages(tmp_path):
    path = tmp_path / "s.jsonl"
    entries = [
        human("first", "2026-09-15T10:00:00Z"),
        {"type": "user", "message": {"content": "no origin"}},
        {"type": "user", "origin": {"kind": "agent"}, "message": {"content": "pdks witness"}},
        human("bad stamp", "yesterday"),
        {"type": "assistant", "message": {"content": [
            {"type": "text", "text": "running"},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "npm view x"}},
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "false"}},
            {"type": "tool_use", "id": "t3", "name": "Read", "input": "odd"},
        ]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "1.0.0"},
            {"type": "tool_result", "tool_use_id": "t2", "is_error": True},
        ]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t2", "is_error": False}]}},
    ]
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n{broken line\n")
    messages, calls = transcripts.read_transcript(str(path))
    assert messages == [{"text": "first", "timestampMs": 1789466400000}, {"text": "bad stamp"}]
    assert calls == [
        {"name": "Bash", "args": {"command": "npm view x"}, "succeeded": True},
        {"name": "Bash", "args": {"command": "false"}, "succeeded": False},  # the first result wins
        {"name": "Read", "args": {}, "succeeded": False},
    ]
    assert transcripts.read_transcript(str(tmp_path / "missing.jsonl")) == ([], [])


def test_sidecar_channel(tmp_path):
    transcript = tmp_path / "s1.jsonl"
    transcript.write_text("")
    assert transcripts.read_sidecar(str(transcript)) is None  # no directory: no channel
    assert transcripts.read_sidecar("relative/s1.jsonl") is None
    subagents = tmp_path / "s1" / "subagents"
    subagents.mkdir(parents=True)
    assert transcripts.read_sidecar(str(transcript)) == "[]"
    (subagents / "agent-b.meta.json").write_text('{"agentType":"writer-agent"}')
    (subagents / "agent-a.meta.json").write_text('{"agentType":"reviewer"}')
    (subagents / "agent-c.meta.json").write_text("{half")
    (subagents / "other.json").write_text("{}")
    assert transcripts.read_sidecar(str(transcript)) == '[{"agentType":"reviewer"},{"agentType":"writer-agent"}]'
    ir = claude(tmp_path, "Bash", {"command": "ls"}, transcript_path=str(transcript))
    assert ir["session"]["channels"] == {"sidecar": '[{"agentType":"reviewer"},{"agentType":"writer-agent"}]'}


def codex_payload(tool_name, command, cwd):
    return json.dumps({"cwd": str(cwd), "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
                       "session_id": "s", "tool_input": {"command": command}, "tool_name": tool_name,
                       "tool_use_id": "u", "transcript_path": "/tmp/t.jsonl", "turn_id": "t"})


def test_codex_multi_file_patch(tmp_path):
    (tmp_path / "gate").mkdir()
    (tmp_path / "gate" / "x").write_text("secret\n")
    (tmp_path / "m.py").write_text("def f():\n    return 1\n\nprint(f())\n")
    patch = ("*** Begin Patch\n*** Add File: a.txt\n+hello\n+world\n*** Delete File: gate/x\n"
             "*** Update File: m.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n")
    ir = codex.translate(codex_payload("apply_patch", patch, tmp_path), tmp_path)
    assert [c["fileChange"] for c in ir["toolCalls"]] == [
        {"kind": "create", "path": "a.txt", "post": "hello\nworld\n"},
        {"kind": "delete", "path": "gate/x", "pre": "secret\n"},
        {"kind": "modify", "path": "m.py", "pre": "def f():\n    return 1\n\nprint(f())\n",
         "post": "def f():\n    return 2\n\nprint(f())\n"},
    ]
    assert {c["name"] for c in ir["toolCalls"]} == {"apply_patch"}
    assert "session" not in ir and "actor" not in ir


def test_codex_move_and_refusals(tmp_path):
    (tmp_path / "a.txt").write_text("x\n")
    moved = codex.translate(codex_payload("apply_patch", "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** End Patch", tmp_path), tmp_path)
    assert [c["fileChange"] for c in moved["toolCalls"]] == [
        {"kind": "delete", "path": "a.txt", "pre": "x\n"}, {"kind": "create", "path": "b.txt", "post": "y\n"}]
    assert codex.translate(codex_payload("Bash", "ls", tmp_path), tmp_path)["toolCalls"] == [{"name": "Bash", "args": {"command": "ls"}}]
    with pytest.raises(Refusal, match="does not translate tool 'shell'; the roster is apply_patch, Bash"):
        codex.translate(codex_payload("shell", "ls", tmp_path), tmp_path)
    with pytest.raises(Refusal, match="outside the project"):
        codex.translate(codex_payload("apply_patch", "*** Begin Patch\n*** Add File: ../x\n+a\n*** End Patch", tmp_path), tmp_path)
    with pytest.raises(Refusal, match="the payload is missing the required key 'cwd'"):
        codex.translate('{"tool_name": "Bash"}', tmp_path)


def test_grok_envelopes_carry_no_session(tmp_path):
    (tmp_path / "a.txt").write_text("old text")
    ir = grok.translate(json.dumps({"toolName": "search_replace", "toolInput": {
        "file_path": "a.txt", "old_string": "old", "new_string": "new"}}), tmp_path)
    assert ir["toolCalls"][0]["fileChange"] == {"kind": "modify", "path": "a.txt", "pre": "old text", "post": "new text"}
    assert ir["tools"]["shell"] == ["run_terminal_command"]
    assert "session" not in ir and "actor" not in ir
    snake = grok.translate(json.dumps({"tool_name": "write", "tool_input": {"file_path": "b.txt", "content": "c"}}), tmp_path)
    assert snake["toolCalls"][0]["fileChange"] == {"kind": "create", "path": "b.txt", "post": "c"}
    with pytest.raises(Refusal):
        grok.translate('{"toolName": "write"}', tmp_path)


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
       st.integers(min_value=-14 * 60, max_value=14 * 60))
def test_transcript_timestamps_agree_with_datetime(moment, offset_minutes):
    zone = timezone(timedelta(minutes=offset_minutes))
    stamped = moment.replace(microsecond=moment.microsecond // 1000 * 1000, tzinfo=zone)
    text = stamped.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert transcripts.timestamp_ms(text) == round(stamped.timestamp() * 1000)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
_payloads = st.one_of(
    st.text(max_size=40),
    _json_values.map(json.dumps),
    st.fixed_dictionaries(
        {"tool_name": st.sampled_from(["Edit", "Write", "MultiEdit", "NotebookEdit", "Task", "Bash", "write",
                                       "search_replace", "apply_patch"]),
         "tool_input": st.dictionaries(st.sampled_from(["file_path", "old_string", "new_string", "edits", "content",
                                                        "command", "subagent_type", "notebook_path", "new_source"]),
                                       _json_values, max_size=4)},
        optional={"transcript_path": _json_values, "agent_type": _json_values, "cwd": _json_values},
    ).map(json.dumps),
)


@settings(max_examples=150, deadline=None)
@given(_payloads)
def test_adapters_translate_or_refuse_never_crash(tmp_path_factory, raw):
    root = tmp_path_factory.getbasetemp()
    for module in (claude_code, codex, grok):
        try:
            ir = module.translate(raw, root)
        except Refusal:
            continue
        assert isinstance(ir["toolCalls"], list)
        json.loads(ir_text(ir))


def test_an_adapter_crash_fails_closed(tmp_path, capsys):
    def boom(raw, root, mutating):
        raise RuntimeError("boom")

    (tmp_path / "polydeukes.config.yaml").write_text("languages: { ts: { productionGlob: 'src/**', testCmd: 't' } }\n")
    assert hook("adapter-test failed before spawn:", boom, "{}", tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith("adapter-test failed before spawn: RuntimeError: boom\n")
    assert "covenant check failed closed" in err
    row = (tmp_path / ".polydeukes" / "roi.log").read_text().split("\t")
    assert row[1:4] == ["blocked", "covenant-check", "-\n"]
