"""The summary, the JSON report and the SARIF log (validated against the vendored SARIF 2.1.0 schema)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.report import json_report, sarif, summary

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


def test_sarif_is_valid_and_uses_kinds():
    log = json.loads(sarif(RESULTS))
    jsonschema.validate(log, SCHEMA)
    run = log["runs"][0]
    kinds = [(r["ruleId"], r["kind"], r["level"]) for r in run["results"]]
    assert kinds == [("ac:1", "pass", "none"), ("ac:2", "review", "none"), ("ac:4", "review", "none"),
                     ("ac:10", "fail", "error"), ("ac:3", "fail", "error"), ("ac:3", "fail", "error")]
    located = run["results"][4]["locations"][0]["physicalLocation"]
    assert located == {"artifactLocation": {"uri": "svc/api/uv.lock", "uriBaseId": "%SRCROOT%"},
                       "region": {"startLine": 2, "startColumn": 5}}
    assert run["results"][3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "a%20b.py"
    rules = run["tool"]["driver"]["rules"]
    assert [rules[r["ruleIndex"]]["id"] for r in run["results"]] == [r["ruleId"] for r in run["results"]]


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
