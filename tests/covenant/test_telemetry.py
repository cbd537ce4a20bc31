"""Telemetry rows: format, reader rules, path resolution and fail-open writing (POLYDEUKES §7, §10.6)."""

import io
import json
import sys

import pytest

from agent_constitution.covenant import cli
from agent_constitution.covenant.telemetry import Row, append, format_row, log_path, parse_line, timestamp

BASE = "languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }\n"
EDIT = {
    "toolCalls": [
        {
            "name": "staged-write",
            "args": {"file_path": "gate/x"},
            "fileChange": {"kind": "modify", "path": "gate/x", "pre": "a", "post": "b"},
        }
    ],
    "subagentSpawns": [],
    "userMessages": [],
}


def test_row_format():
    assert timestamp(1789466645.123) == "2026-09-15T10:04:05.123Z"
    assert (
        format_row(Row("skipped", "x", "-", "supply-pass"), 1789466645.123)
        == "2026-09-15T10:04:05.123Z\tskipped\tx\t-\tsupply-pass\n"
    )
    assert format_row(Row("passed", "a\tb", "c\nd"), 0) == "1970-01-01T00:00:00.000Z\tpassed\ta b\tc d\n"


@pytest.mark.parametrize(
    ("line", "event"),
    [
        ("ts\tskipped\tx\t-\tsupply-pass", "skipped"),
        ("ts\tskipped\tx\t-\tconfig-fault", "skipped"),
        ("ts\tskipped\tx\t-\t[]", None),
        ("ts\tpassed\tx\t-\tnot-json", None),
        ("ts\tbypassed\tx\t-", "witnessed"),
        ('ts\tadvised\tx\t-\t[{"id":"r"}]', "advised"),
        ("ts\tnope\tx\t-", None),
        ("ts\tpassed\tx", None),
    ],
)
def test_reading_rows_back(line, event):
    parsed = parse_line(line)
    assert (parsed[1].event if parsed else None) == event


def test_log_path_resolution(tmp_path, monkeypatch):
    monkeypatch.delenv("POLYDEUKES_TELEMETRY_PATH", raising=False)
    assert log_path(tmp_path, None) == tmp_path / ".polydeukes" / "roi.log"
    assert log_path(tmp_path, " logs/roi.tsv ") == tmp_path / "logs" / "roi.tsv"
    monkeypatch.setenv("POLYDEUKES_TELEMETRY_PATH", "env.log")
    assert log_path(tmp_path, "logs/roi.tsv") == tmp_path / "env.log"


def run(root, monkeypatch, capsys, flags=()):
    monkeypatch.chdir(root)
    sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps(EDIT).encode()))
    try:
        code = cli.main(["covenant", "check", *flags])
    finally:
        sys.stdin = sys.__stdin__
    return code, capsys.readouterr().err


def test_configured_log_path_receives_rows(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("POLYDEUKES_TELEMETRY_PATH", raising=False)
    (tmp_path / "polydeukes.config.yaml").write_text(
        BASE + "protectedPaths: [gate]\ntelemetry: {logPath: 'obs/rows.log'}\n"
    )
    assert run(tmp_path, monkeypatch, capsys, ["--enforce", "block"])[0] == 2
    rows = (tmp_path / "obs" / "rows.log").read_text().splitlines()
    assert [r.split("\t")[1:] for r in rows] == [["blocked", "self-mod", "gate"]]


def test_write_failure_never_changes_a_verdict(tmp_path, monkeypatch, capsys):
    (tmp_path / "blocker").write_text("a file where the log's folder should be")
    monkeypatch.setenv("POLYDEUKES_TELEMETRY_PATH", "blocker/roi.log")
    (tmp_path / "polydeukes.config.yaml").write_text(BASE + "protectedPaths: [gate]\n")
    code, err = run(tmp_path, monkeypatch, capsys, ["--enforce", "block"])
    assert code == 2 and "staged-write would modify protected path gate/x" in err
    code, _ = run(tmp_path, monkeypatch, capsys)
    assert code == 0
    append(tmp_path / "blocker" / "x.log", [Row("passed", "x", "-")])  # swallowed


def test_witness_serialisation_failure_writes_four_fields(tmp_path):
    from agent_constitution.covenant.telemetry import witnesses_text

    assert witnesses_text([{"id": "r", "witnesses": [{"key": "0", "value": object()}], "total": 1}]) is None
    assert (
        witnesses_text([{"id": "r", "witnesses": [{"key": "0", "value": 1.0}], "total": 1}])
        == '[{"id":"r","witnesses":[{"key":"0","value":1}],"total":1}]'
    )
