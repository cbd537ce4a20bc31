"""`check --output-format`: concise, github (workflow-command syntax and escaping, the job summary),
gitlab (validated against GitLab's code-quality format), and colour on and off."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_constitution import console
from agent_constitution.checks import formats
from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import Outcome
from agent_constitution.checks.report import json_report, summary
from tests.checks.test_report import result

GITLAB = json.loads((Path(__file__).parent / "gitlab-code-quality.schema.json").read_text())


RESULTS = [
    result("ac:3", Outcome.VIOLATION, "svc/api", findings=(Finding("no lock", "uv.lock", 2, 5), Finding("whole"))),
    result("ac:1", Outcome.PASS),
    result("ac:2", Outcome.UNDECIDABLE, cause="missing tool: go (not found on PATH)"),
    result("ac:4", None),
    result("ac:10", Outcome.VIOLATION, title="Odd, title: 100%",
           findings=(Finding("bad\nfile, 50%: here", "a b.py", 7), Finding("in the record", "/tmp/session.jsonl", 3))),
]
REPORT = json.loads(json_report(RESULTS, not_run=["ac:9 in .: checks a change"]))
COUNTS = "5 rules checked: 1 passed, 2 violated, 1 undecidable, 1 without a check"


def test_concise_is_one_line_per_finding_then_the_counts():
    # In the summary's order; a line break in a message is shown, never written (`printable`).
    assert formats.concise(REPORT) == (
        "rules.toml: ac:2 undecidable: missing tool: go (not found on PATH)\n"
        "a b.py:7: ac:10 bad\\x0afile, 50%: here\n"
        "rules.toml: ac:10 in the record (/tmp/session.jsonl)\n"
        "svc/api/uv.lock:2:5: ac:3 no lock\n"
        "rules.toml: ac:3 whole\n"
        f"{COUNTS}\n"
    )


# A workflow command as GitHub's runner reads it: `::name key=value,key=value::message`, no raw line break.
COMMAND = re.compile(r"::(?P<name>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<message>[^\r\n]*)")
PROPERTY = re.compile(r"(?P<key>file|line|endLine|col|endColumn|title)=(?P<value>[^,:]*)")


def unescape(text: str) -> str:
    return text.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def parse_commands(text: str) -> list[dict]:
    commands = []
    for line in text.splitlines():
        if not line.startswith("::"):
            continue
        match = COMMAND.fullmatch(line)
        assert match, line
        props = {}
        for part in match["props"].split(","):
            prop = PROPERTY.fullmatch(part)
            assert prop, part
            props[prop["key"]] = unescape(prop["value"])
        commands.append({"name": match["name"], **props, "message": unescape(match["message"])})
    return commands


def test_github_annotates_each_finding_with_escaped_properties_and_message():
    text = formats.github(REPORT)
    assert text.endswith(f"{COUNTS}\n")
    assert "::error file=a b.py,line=7,title=ac%3A10 Odd%2C title%3A 100%25::bad\\x0afile, 50%25: here\n" in text
    assert parse_commands(text) == [
        {"name": "warning", "file": "rules.toml", "title": "ac:2 Title of ac:2",
         "message": "undecidable: missing tool: go (not found on PATH)"},
        {"name": "error", "file": "a b.py", "line": "7", "title": "ac:10 Odd, title: 100%",
         "message": "bad\\x0afile, 50%: here"},
        {"name": "error", "file": "rules.toml", "title": "ac:10 Odd, title: 100%",
         "message": "in the record (/tmp/session.jsonl)"},
        {"name": "error", "file": "svc/api/uv.lock", "line": "2", "col": "5", "title": "ac:3 Title of ac:3",
         "message": "no lock"},
        {"name": "error", "file": "rules.toml", "title": "ac:3 Title of ac:3", "message": "whole"},
    ]


@given(st.text())
def test_escaping_round_trips_and_leaves_no_separator(text):
    assert unescape(formats.escape_property(text)) == text
    assert not set(formats.escape_property(text)) & {",", ":", "\r", "\n"}
    assert unescape(formats.escape_data(text)) == text and not set(formats.escape_data(text)) & {"\r", "\n"}


def test_the_job_summary_is_a_markdown_table_of_the_findings():
    text = formats.job_summary(REPORT)
    assert text.startswith(f"## agent-constitution check\n\n{COUNTS}\n\n| | rule | where | finding |\n|---|---|---|---|\n")
    assert "| ❌ | ac:10 Odd, title: 100% | `a b.py:7` | bad\\\\x0afile, 50%: here |" in text
    assert "| ⚠️ | ac:2 Title of ac:2 | `rules.toml` | undecidable: missing tool: go (not found on PATH) |" in text
    assert "<summary>not run (1)</summary>" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") == 3 for line in rows[1:])  # no cell's `|` breaks its row


def test_gitlab_is_a_valid_code_quality_report_with_stable_fingerprints():
    issues = json.loads(formats.gitlab(REPORT))
    jsonschema.validate(issues, GITLAB)
    assert [(i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [
        ("ac:2", "info", "rules.toml", 1), ("ac:10", "major", "a b.py", 7), ("ac:10", "major", "rules.toml", 1),
        ("ac:3", "major", "svc/api/uv.lock", 2), ("ac:3", "major", "rules.toml", 1)]
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)
    # The same finding on another line is the same finding; another reason is another.
    moved = [result("ac:3", Outcome.VIOLATION, "svc/api", findings=(Finding("no lock", "uv.lock", 40),))]
    again = json.loads(formats.gitlab(json.loads(json_report(moved))))
    assert again[0]["fingerprint"] == issues[3]["fingerprint"]
    assert jsonschema.Draft7Validator(GITLAB).is_valid([{**issues[0], "severity": "error"}]) is False


def test_a_fingerprint_in_the_report_is_used_as_it_is():
    # The finding's entry in the report, when it carries one, is the one identity of the finding.
    assert formats.fingerprint(RESULTS[0], RESULTS[0].findings[0], {"fingerprint": "given"}) == "given"
    assert formats.fingerprint(RESULTS[0], RESULTS[0].findings[0], {}) == formats.fingerprint(
        RESULTS[0], RESULTS[0].findings[0])


def test_json_and_sarif_are_the_files_as_written():
    assert formats.render("json", "{\"a\": 1}\n") == "{\"a\": 1}\n"
    assert formats.render("sarif", "{}", "{\"runs\": []}\n") == "{\"runs\": []}\n"


@pytest.fixture
def colour(monkeypatch):
    monkeypatch.setattr(console.settings, "color", True)


def test_colour_on_paints_headings_and_rules_and_off_writes_plain_text(colour, monkeypatch):
    painted = summary(RESULTS)
    assert "\x1b[1;31mviolations (2)\x1b[0m\n" in painted and "\x1b[36m  ac:10 Odd, title: 100%\x1b[0m" in painted
    assert "\x1b[1;33mundecidable (1)\x1b[0m" in painted
    assert "\n\x1b[1ma b.py:7\x1b[0m: \x1b[1;31mac:10\x1b[0m bad" in formats.concise(REPORT)
    assert formats.concise(REPORT).startswith("\x1b[1mrules.toml\x1b[0m: \x1b[1;33mac:2\x1b[0m undecidable")
    monkeypatch.setattr(console.settings, "color", False)
    assert "\x1b" not in summary(RESULTS) and "\x1b" not in formats.concise(REPORT)
    # A control code in a rule's text never reaches the terminal, colour or not.
    hostile = [result("ac:5", Outcome.VIOLATION, title="t\x1b[2J", findings=(Finding("r"),))]
    monkeypatch.setattr(console.settings, "color", True)
    assert "\x1b[2J" not in summary(hostile)


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("choice,tty,environ,expected", [
    ("auto", True, {}, True),
    ("auto", False, {}, False),
    ("auto", True, {"NO_COLOR": "1"}, False),
    ("auto", False, {"FORCE_COLOR": "1"}, True),
    ("auto", True, {"NO_COLOR": ""}, True),  # an empty NO_COLOR is not set (no-color.org)
    ("auto", True, {"TERM": "dumb"}, False),
    ("always", False, {"NO_COLOR": "1"}, True),
    ("never", True, {"FORCE_COLOR": "1"}, False),
])
def test_when_colour_is_on(choice, tty, environ, expected):
    assert console.use_color(choice, Stream(tty), environ) is expected


def test_the_summary_lists_the_rules_not_run_only_in_detail():
    brief = summary(RESULTS, not_run=["ac:9 in .: checks a change"], detail=False)
    assert "without a check, for the reviewer" not in brief and "ac:9 in ." not in brief
    assert "1 rule not run: they judge a change or a session record (-v lists them)\n" in brief
    assert brief.endswith(f"{COUNTS}\n")
