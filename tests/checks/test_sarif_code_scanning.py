"""The SARIF logs as GitHub code scanning takes them: validated against the SARIF 2.1.0 schema and by
the SARIF Multitool (`validate --rule-kind "Gh;Sarif"`: GitHub's ingestion rules, GH1xxx/GH2xxx, and
SARIF's own), with regions on every result, end positions where a finding knows them, messages cut to
1,024 characters and at most 25,000 results, as GitHub documents ("SARIF support for code scanning",
"SARIF results exceed limits", docs.github.com)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema

from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.report import MAX_MESSAGE, MAX_RESULTS, sarif
from tests.consumers import npm_bin

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())


def result(ref: str, outcome: Outcome | None, segment: str = ".", **fields) -> Result:
    defaults = {"check": None if outcome is None else "python:r1", "title": f"Title of {ref}",
                "text": f"The text of {ref}. It says why. A check finds it."}
    return Result(segment=segment, ref=ref, outcome=outcome, **{**defaults, **fields})


RESULTS = [
    result("ac:3", Outcome.VIOLATION, "svc", findings=(
        Finding("no lock", "uv.lock", 2, 5, 2, 9), Finding("whole file", "pyproject.toml"),
        Finding("spans lines", "a.py", 3, 1, 5, 2), Finding("no place at all"))),
    result("ac:1", Outcome.PASS),
    result("ac:2", Outcome.UNDECIDABLE, cause="missing tool: go (not found on PATH)"),
    result("ac:4", None),
    result("ac:10", Outcome.VIOLATION, findings=(Finding("x" * 5000, "b.py", 1),)),
]


def regions(log: dict) -> list[dict]:
    return [r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]]


def test_every_result_has_a_region_and_its_end_where_known():
    log = json.loads(sarif(RESULTS))
    jsonschema.validate(log, SCHEMA)
    assert regions(log) == [
        {"startLine": 1},  # b.py:1
        {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 9},
        {"startLine": 1},  # a whole file
        {"startLine": 3, "startColumn": 1, "endLine": 5, "endColumn": 2},
        {"startLine": 1},  # no place: the manifest
    ]


def test_an_end_before_the_start_is_left_out():
    backwards = [result("ac:5", Outcome.VIOLATION, findings=(Finding("r", "a.py", 4, 7, 3, 1),
                                                             Finding("s", "a.py", 4, 7, 4, 2)))]
    assert regions(json.loads(sarif(backwards))) == [{"startLine": 4, "startColumn": 7},
                                                     {"startLine": 4, "startColumn": 7, "endLine": 4}]


def test_messages_are_cut_to_githubs_length():
    log = json.loads(sarif(RESULTS))
    text = log["runs"][0]["results"][0]["message"]["text"]
    assert len(text) == MAX_MESSAGE and text.endswith("…")


def test_at_most_25000_results_and_the_rest_counted():
    many = [result("ac:7", Outcome.VIOLATION, findings=tuple(Finding(f"finding {n}", "a.py", n + 1)
                                                             for n in range(MAX_RESULTS + 3)))]
    run = json.loads(sarif(many))["runs"][0]
    assert len(run["results"]) == MAX_RESULTS and run["properties"]["omitted"] == 3
    assert "omitted" not in json.loads(sarif(RESULTS))["runs"][0]["properties"]


def test_githubs_rules_accept_both_logs(tmp_path):
    """The SARIF Multitool's GitHub rules (GH1xxx, GH2xxx) and SARIF's: no error in either log."""
    wrapper = npm_bin("sarif-multitool").resolve()
    tool = wrapper.parent.parent / "sarif-multitool-linux" / "Sarif.Multitool"  # the wrapper runs it through a shell
    for name, every in (("code-scanning.sarif", False), ("report.sarif", True)):
        path = tmp_path / name
        path.write_text(sarif(RESULTS, every_outcome=every))
        done = subprocess.run([str(tool), "validate", "--rule-kind", "Gh;Sarif", "--output",
                               str(tmp_path / f"{name}.validation.sarif"), str(path)],
                              capture_output=True, text=True, timeout=300)
        errors = [line for line in done.stdout.splitlines() if ": error " in line]
        assert done.returncode == 0 and errors == [], done.stdout
    # It does judge: a result without a location is GitHub's GH1017.
    broken = json.loads(sarif(RESULTS))
    del broken["runs"][0]["results"][0]["locations"]
    path = tmp_path / "broken.sarif"
    path.write_text(json.dumps(broken))
    done = subprocess.run([str(tool), "validate", "--rule-kind", "Gh;Sarif", "--output",
                           str(tmp_path / "broken.validation.sarif"), str(path)], capture_output=True, text=True)
    assert "error GH1017" in done.stdout
