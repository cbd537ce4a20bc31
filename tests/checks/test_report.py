"""The summary, the JSON report and the SARIF log (validated against the vendored SARIF 2.1.0 schema)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import Outcome, Result, Suppression
from agent_constitution.checks.report import json_report, rule_pages, sarif, summary

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())


def result(ref: str, outcome: Outcome | None, segment: str = ".", **fields) -> Result:
    defaults = {"check": None if outcome is None else "python:r1", "title": f"Title of {ref}", "text": "Text."}
    return Result(segment=segment, ref=ref, outcome=outcome, **{**defaults, **fields})


RESULTS = [
    result("ac:3", Outcome.VIOLATION, "svc/api", findings=(Finding("no lock", "uv.lock", 2, 5), Finding("whole"))),
    result("ac:1", Outcome.PASS),
    result("ac:2", Outcome.UNDECIDABLE, cause="missing tool: go (not found on PATH)"),
    result("ac:4", None),
    result("ac:10", Outcome.VIOLATION, findings=(Finding("bad file", "a b.py"),)),
]


def test_summary_groups_by_outcome_with_locations():
    text = summary(RESULTS, not_run=["ac:9 in .: checks a change"])
    assert text == (
        "violations (2)\n"
        "  ac:10 Title of ac:10\n"
        "    a b.py: bad file\n"
        "  ac:3 Title of ac:3  [svc/api]\n"
        "    svc/api/uv.lock:2:5: no lock\n"
        "    whole\n"
        "undecidable (1)\n"
        "  ac:2 Title of ac:2\n"
        "    missing tool: go (not found on PATH)\n"
        "without a check, for the reviewer (1)\n"
        "  ac:4 Title of ac:4\n"
        "not run (1)\n"
        "  ac:9 in .: checks a change\n"
        "5 rules checked: 1 passed, 2 violated, 1 undecidable, 1 without a check\n"
    )


def test_json_report_round_trips_and_is_stable():
    document = json.loads(json_report(RESULTS))
    assert document["summary"] == {"pass": 1, "violation": 2, "undecidable": 1, "no-check": 1}
    assert [r["ref"] for r in document["results"]] == ["ac:1", "ac:2", "ac:4", "ac:10", "ac:3"]
    assert {Result.from_json(r) for r in document["results"]} == set(RESULTS)
    assert json_report(list(reversed(RESULTS))) == json_report(RESULTS)


def test_sarif_holds_only_failing_results_each_located():
    log = json.loads(sarif(RESULTS))
    jsonschema.validate(log, SCHEMA)
    run = log["runs"][0]
    kinds = [(r["ruleId"], r["kind"], r["level"]) for r in run["results"]]
    assert kinds == [("ac:10", "fail", "error"), ("ac:3", "fail", "error"), ("ac:3", "fail", "error")]
    assert run["properties"]["summary"] == {"pass": 1, "violation": 2, "undecidable": 1, "no-check": 1}
    located = run["results"][1]["locations"][0]["physicalLocation"]
    assert located == {"artifactLocation": {"uri": "svc/api/uv.lock", "uriBaseId": "%SRCROOT%"},
                       "region": {"startLine": 2, "startColumn": 5}}
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "a%20b.py"
    rules = run["tool"]["driver"]["rules"]
    assert [rules[r["ruleIndex"]]["id"] for r in run["results"]] == [r["ruleId"] for r in run["results"]]
    assert [rule["id"] for rule in rules] == ["ac:1", "ac:2", "ac:4", "ac:10", "ac:3"]


def test_a_finding_without_a_file_of_the_repository_is_anchored_at_the_manifest():
    results = [result("ac:14", Outcome.VIOLATION, findings=(
        Finding("force push to main", "/home/me/.codex/sessions/rollout.jsonl", 3),
        Finding("whole repository"),
        Finding("gone", "deleted.py", 4),
        Finding("here", "src/a.py", 1)))]
    log = json.loads(sarif(results, exists=lambda path: path == "src/a.py"))
    jsonschema.validate(log, SCHEMA)
    located = [(r["message"]["text"], r["locations"][0]["physicalLocation"]) for r in log["runs"][0]["results"]]
    manifest = {"artifactLocation": {"uri": "rules.toml", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}
    assert located == [
        ("force push to main (/home/me/.codex/sessions/rollout.jsonl)", manifest),
        ("whole repository", manifest),
        ("gone (deleted.py:4)", manifest),
        ("here", {"artifactLocation": {"uri": "src/a.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1}}),
    ]


def test_every_rule_has_help_with_its_references_rendered():
    text = "Ask first ({@must-ask.irreversible}); see {@rule:5} and {@rule:py:7}."
    results = [result("ac:14", Outcome.PASS, text=text), result("ext:2", None, text="Plain.")]
    log = json.loads(sarif(results, rule_pages={"ac": "https://github.com/o/r/blob/0123abc/"}))
    jsonschema.validate(log, SCHEMA)
    ac, ext = log["runs"][0]["tool"]["driver"]["rules"]
    rendered = "Ask first (the constitution's provision must-ask.irreversible); see ac:5 and py:7."
    assert ac["help"] == {"text": f"ac:14 Title of ac:14\n\n{rendered}", "markdown": f"**ac:14 Title of ac:14**\n\n{rendered}"}
    assert ac["fullDescription"] == {"text": rendered}
    assert ac["helpUri"] == "https://github.com/o/r/blob/0123abc/rules/14.toml"
    assert ext["help"]["text"] == "ext:2 Title of ext:2\n\nPlain." and "helpUri" not in ext
    assert "{@" not in json.dumps(log)


@pytest.mark.parametrize("url, page", [
    ("github.com/Luolc/agent-constitution", "https://github.com/Luolc/agent-constitution/blob/c0ffee/"),
    ("https://gitlab.com/a/b.git", "https://gitlab.com/a/b/blob/c0ffee/"),
    ("git@github.com:a/b.git", None),
    ("ssh://git@host/a/b", None),
    ("file:///srv/rules", None),
    (None, None),
])
def test_rule_pages_of_git_sources(url, page):
    assert rule_pages([("ac", url, "c0ffee")]).get("ac") == page
    assert rule_pages([("ac", url, None)]) == {}


def test_github_upload_requirements_hold_for_every_outcome():
    """GitHub code scanning's documented requirements on an uploaded log: each result has a ruleId,
    a valid level and at least one location with a repository-relative URI; each rule has help."""
    waived = Suppression(Finding("waived finding", "a.py", 2), "external", "fixture data")
    results = [*RESULTS, result("ac:20", Outcome.PASS, suppressed=(waived,))]
    log = json.loads(sarif(results))
    jsonschema.validate(log, SCHEMA)
    run = log["runs"][0]
    assert run["results"]
    for entry in run["results"]:
        assert entry["ruleId"] and entry["level"] in ("none", "note", "warning", "error")
        assert entry["locations"], entry
        uri = entry["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert not uri.startswith("/") and "://" not in uri
    assert [entry.get("suppressions") for entry in run["results"] if entry["ruleId"] == "ac:20"] == [
        [{"kind": "external", "justification": "fixture data"}]]
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["help"]["text"] and rule["help"]["markdown"]


def test_vendored_schema_rejects_what_sarif_rejects():
    log = json.loads(sarif(RESULTS))
    log["runs"][0]["results"][0]["kind"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SCHEMA)
    log = json.loads(sarif(RESULTS))
    del log["runs"][0]["tool"]["driver"]["name"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SCHEMA)


def test_a_rule_without_a_check_is_listed_once_for_all_its_segments():
    from agent_constitution.checks.review import queues

    results = [result("ac:6", None, segment=segment, title="Project instructions") for segment in (".", "svc", "web")]
    text = summary(results)
    assert "without a check, for the reviewer (1)\n  ac:6 Project instructions  [., svc, web]\n" in text
    queue = queues(results, {})["default"]
    assert queue.count("## ac:6") == 1 and "## ac:6 in ., svc, web: no check" in queue


def test_the_complete_log_records_every_outcome_by_kind_each_located():
    """report.sarif: what passed and what needs a reviewer is there too, as SARIF's `kind` says, placed
    at the manifest (code scanning rejects a result without a location)."""
    log = json.loads(sarif(RESULTS, every_outcome=True))
    jsonschema.validate(log, SCHEMA)
    entries = [(r["ruleId"], r["kind"], r["level"], r["properties"]) for r in log["runs"][0]["results"]]
    assert entries == [
        ("ac:1", "pass", "none", {"segment": ".", "outcome": "pass"}),
        ("ac:2", "review", "none", {"segment": ".", "outcome": "undecidable"}),
        ("ac:4", "review", "none", {"segment": ".", "outcome": "no-check"}),
        ("ac:10", "fail", "error", {"segment": ".", "outcome": "violation", "segments": ["."]}),
        ("ac:3", "fail", "error", {"segment": "svc/api", "outcome": "violation", "segments": ["svc/api"]}),
        ("ac:3", "fail", "error", {"segment": "svc/api", "outcome": "violation", "segments": ["svc/api"]}),
    ]
    manifest = {"physicalLocation": {"artifactLocation": {"uri": "rules.toml", "uriBaseId": "%SRCROOT%"},
                                     "region": {"startLine": 1}}}
    assert all(r["locations"] == [manifest] for r in log["runs"][0]["results"][:3])
    assert log["runs"][0]["results"][1]["message"]["text"] == "missing tool: go (not found on PATH)"
    # The code-scanning log is the complete one without the results that are not failures.
    scanning = json.loads(sarif(RESULTS))
    assert scanning["runs"][0]["results"] == [r for r in log["runs"][0]["results"] if r["kind"] == "fail"]


def test_a_fully_waived_violation_is_a_pass_beside_its_suppressed_findings():
    waived = Suppression(Finding("waived finding", "a.py", 2), "inSource", "fixture data")
    log = json.loads(sarif([result("ac:20", Outcome.PASS, suppressed=(waived,))], every_outcome=True))
    assert [(r["kind"], r["properties"]["outcome"], "suppressions" in r) for r in log["runs"][0]["results"]] == [
        ("fail", "waived", True), ("pass", "pass", False)]


def test_a_rule_not_run_is_not_applicable_in_the_complete_log_only():
    skipped = [(result("ac:9", None, segment=segment), "checks a change") for segment in (".", "svc")]
    log = json.loads(sarif(RESULTS, every_outcome=True, not_run=skipped))
    jsonschema.validate(log, SCHEMA)
    entries = [(r["ruleId"], r["kind"], r["properties"], r["message"]["text"])
               for r in log["runs"][0]["results"] if r["kind"] == "notApplicable"]
    assert entries == [("ac:9", "notApplicable", {"segment": ".", "outcome": "not-run"}, "not run: checks a change"),
                       ("ac:9", "notApplicable", {"segment": "svc", "outcome": "not-run"}, "not run: checks a change")]
    assert "ac:9" in [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert json.loads(sarif(RESULTS, not_run=skipped)) == json.loads(sarif(RESULTS))
