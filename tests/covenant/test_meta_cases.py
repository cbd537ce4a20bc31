"""The §10 behaviour cases that meta-covenants, shell writes and the witness valve decide, run
through the session surface (`pdks covenant check`, IR on stdin) in process."""

import json
import time

import pytest

from agent_constitution.covenant.check import run_check

T = {"mutating": ["Edit", "Write", "MultiEdit", "NotebookEdit"], "shell": ["Bash"], "commandArgs": ["command"]}
BASE = "languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }\n"
NO_TODO = """\
disciplines:
  - id: 'no-todo'
    declare:
      mechanism: 'added-only'
      scope: { source: 'target.path', include: ['^src/'] }
      supply: { pre: 'empty', post: 'empty' }
      extract:
        before: [{ op: 'source', of: 'pre' }, { op: 'lines' }, { op: 'keyByPattern', re: '(TODO)' }]
        after: [{ op: 'source', of: 'post' }, { op: 'lines' }, { op: 'keyByPattern', re: '(TODO)' }]
        added: [{ op: 'onlyIn', of: 'after', notIn: 'before' }]
      relate:
        - { id: 'nothing-added', relation: { op: 'empty', of: 'added' }, message: 'adds {key}: {value}' }
"""


def ir(calls, **extra):
    return json.dumps({"toolCalls": calls, "subagentSpawns": [], "userMessages": [], **extra})


def bash(command):
    return {"name": "Bash", "args": {"command": command}}


def judge(root, config, text, posture="block"):
    (root / "polydeukes.config.yaml").write_text(BASE + config)
    log = root / ".polydeukes" / "roi.log"
    if log.exists():
        log.unlink()
    code = run_check(root, text, change_set=False, posture=posture)
    lines = log.read_text().splitlines() if log.exists() else []
    return code, [line.split("\t")[1:] for line in lines if line.split("\t")[2] != "baseline"]


def test_shell_append_into_a_protected_file(tmp_path, capsys):
    code, rows = judge(tmp_path, "protectedPaths: ['gate']\n", ir([bash("echo x >> gate/inner.txt")], tools=T))
    assert code == 2
    assert rows == [["passed", "self-mod", "gate"], ["blocked", "shell-mod", "gate"]]
    assert "redirect-write targets protected path gate" in capsys.readouterr().err


def test_parent_directory_destruction(tmp_path, capsys):
    code, rows = judge(tmp_path, "protectedPaths: ['packages/core/src']\n", ir([bash("rm -rf packages/core")], tools=T))
    assert code == 2 and ["blocked", "shell-mod", "packages/core/src"] in rows
    assert "rm mentions protected path packages/core/src without read-only proof" in capsys.readouterr().err


def test_empty_shell_roster_registers_no_shell_mod(tmp_path):
    tools = {"mutating": ["session-write"], "shell": [], "commandArgs": []}
    code, rows = judge(tmp_path, "protectedPaths: ['gate']\n", ir([bash("echo x >> gate/inner.txt")], tools=tools))
    assert code == 0 and not any(row[1] == "shell-mod" for row in rows)


def test_protected_path_only_in_the_content(tmp_path):
    write = {"name": "Write", "args": {"file_path": "notes/a.md", "content": "see packages/core/src/x.ts"},
             "fileChange": {"kind": "create", "path": "notes/a.md", "post": "see packages/core/src/x.ts"}}
    code, rows = judge(tmp_path, "protectedPaths: ['packages/core/src']\n", ir([write], tools=T))
    assert code == 0
    assert rows == [["passed", "self-mod", "packages/core/src"], ["passed", "shell-mod", "packages/core/src"]]


def test_unbalanced_quote_in_edit_content_routes_fail_closed(tmp_path):
    write = {"name": "Write", "args": {"file_path": "notes/a.md", "content": "don't panic"},
             "fileChange": {"kind": "create", "path": "notes/a.md", "post": "don't panic"}}
    code, rows = judge(tmp_path, "protectedPaths: ['gate']\n", ir([write], tools=T))
    assert code == 0
    assert rows == [["passed", "self-mod", "gate"], ["passed", "shell-mod", "gate"]]


@pytest.mark.parametrize(("disk", "event"), [("x\n", "advised"), ("TODO\n", "passed")])
def test_computed_shell_write_is_judged_as_the_change_it_makes(tmp_path, capsys, disk, event):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text(disk)
    session = {"userMessages": [], "toolCalls": []}
    code, rows = judge(tmp_path, NO_TODO, ir([bash("echo 'TODO' >> src/a.ts")], tools=T, session=session))
    assert code == 0
    assert [row[:3] for row in rows if row[1] == "no-todo"] == [[event, "no-todo", "src/a.ts"]]
    if event == "advised":
        assert "adds TODO: TODO" in capsys.readouterr().err


def test_an_uncomputable_write_in_scope_is_skipped(tmp_path):
    session = {"userMessages": [], "toolCalls": []}
    code, rows = judge(tmp_path, NO_TODO, ir([bash("sed -i s/a/TODO/ src/a.ts")], tools=T, session=session))
    assert code == 0
    assert ["skipped", "no-todo", "src/a.ts", "no-observation"] in rows


def test_unknown_write_target(tmp_path):
    # A computed program may write anything: shell-mod judges it as writing every protected path
    # (issue 37); the declarations still record it as one they could not observe.
    code, rows = judge(tmp_path, "", ir([bash('eval "$CMD"')], tools=T))
    assert code == 2
    assert ["blocked", "shell-mod", "polydeukes.config.yaml"] in rows
    assert ["skipped", "shell-unjudgeable", "-", "no-observation"] in rows


def test_transcript_via_a_home_spelling(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", "/home/u")
    transcript = "/home/u/.claude/projects/p/s.jsonl"
    session = {"evidencePath": transcript, "userMessages": [], "toolCalls": []}
    code, rows = judge(tmp_path, "", ir([bash("rm ~/.claude/projects/p/s.jsonl")], tools=T, session=session))
    assert code == 2 and ["blocked", "transcript-mod", transcript] in rows
    assert f"rm names the session transcript {transcript} without read-only proof" in capsys.readouterr().err


WITNESS = "protectedPaths: ['gate']\nwitness: { token: 'pdks witness', ttlMinutes: 10 }\n"
EDIT_GATE = {"name": "Edit", "args": {"file_path": "gate/x"}, "fileChange": {"kind": "modify", "path": "gate/x", "pre": "a", "post": "b"}}


def now_ms():
    return int(time.time() * 1000)


@pytest.mark.parametrize(
    ("message", "event"),
    [
        ({"text": "pdks witness\nfix the gate", "timestampMs": "now"}, "witnessed"),
        ({"text": "pdks witness"}, "blocked"),  # no timestamp
        ({"text": "pdks witness", "timestampMs": -11 * 60_000}, "blocked"),  # older than ttl
        ({"text": "pdks witness", "timestampMs": 60_000}, "blocked"),  # in the future
        ({"text": "is `pdks witness` still open?", "timestampMs": "now"}, "blocked"),
    ],
)
def test_witness_valve_through_the_session_surface(tmp_path, message, event):
    if "timestampMs" in message:
        offset = 0 if message["timestampMs"] == "now" else message["timestampMs"]
        message = {**message, "timestampMs": now_ms() + offset}
    session = {"userMessages": [message], "toolCalls": []}
    code, rows = judge(tmp_path, WITNESS, ir([EDIT_GATE], tools=T, session=session))
    assert rows[0] == [event, "self-mod", "gate"]
    assert code == (0 if event == "witnessed" else 2)


def test_token_outside_the_session_never_opens(tmp_path):
    code, rows = judge(tmp_path, WITNESS, ir([EDIT_GATE], tools=T, userMessages=[{"text": "pdks witness"}]))
    assert code == 2 and rows[0] == ["blocked", "self-mod", "gate"]
    token_in_args = {**EDIT_GATE, "args": {"file_path": "gate/x", "note": "pdks witness"}}
    session = {"userMessages": [], "toolCalls": [{"name": "Bash", "args": {"command": "echo pdks witness"}}]}
    code, rows = judge(tmp_path, WITNESS, ir([token_in_args], tools=T, session=session))
    assert code == 2 and rows[0] == ["blocked", "self-mod", "gate"]


def test_the_valve_never_touches_passed_or_advised(tmp_path):
    session = {"userMessages": [{"text": "pdks witness", "timestampMs": now_ms()}], "toolCalls": []}
    code, rows = judge(tmp_path, WITNESS, ir([EDIT_GATE], tools=T, session=session), posture="advise")
    assert code == 0 and rows[0] == ["advised", "self-mod", "gate"]
