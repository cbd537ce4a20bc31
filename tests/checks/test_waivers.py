"""Waivers: in the manifest and inline, reported as suppressed, expired and unused ones reported."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from agent_constitution.checks.api import Finding
from agent_constitution.checks.fingerprints import fingerprint
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.waivers import Waiver, apply, file_lines, inline

from .conftest import write
from .test_tasks import doit, project  # noqa: F401  (the fixture)

TODAY = datetime.date(2026, 12, 1)


def violation(*findings: Finding, ref: str = "ac:24", segment: str = ".") -> Result:
    return Result(segment=segment, ref=ref, outcome=Outcome.VIOLATION, findings=findings)


def test_a_manifest_waiver_suppresses_the_findings_its_globs_match():
    result = violation(Finding("pdb imported", "src/click/testing.py", 3), Finding("pdb imported", "src/click/core.py", 9))
    waived = apply([result], [Waiver("ac:24", ("src/click/testing.py",), "the debugger is the point", None, 1)], TODAY)
    [after] = waived.results
    assert after.outcome is Outcome.VIOLATION and [f.path for f in after.findings] == ["src/click/core.py"]
    assert [(s.finding.path, s.kind, s.justification) for s in after.suppressed] == [
        ("src/click/testing.py", "external", "the debugger is the point")]
    assert waived.notes == ()


def test_a_violation_with_every_finding_waived_passes_and_keeps_them_as_suppressed():
    result = violation(Finding("x", "pkg/a.py", 1), segment="svc")
    [after] = apply([result], [Waiver("ac:24", ("svc/pkg/*.py",), "why", None, 1)], TODAY).results
    assert after.outcome is Outcome.PASS and after.findings == () and len(after.suppressed) == 1


def test_expired_and_unused_waivers_are_reported():
    results = [violation(Finding("x", "a.py", 1)), Result(segment=".", ref="ac:25", outcome=Outcome.PASS)]
    waivers = [Waiver("ac:24", ("a.py",), "why", datetime.date(2026, 11, 30), 1),
               Waiver("ac:25", (), "why", None, 2),
               Waiver("ac:26", (), "a rule that did not run", None, 3)]
    waived = apply(results, waivers, TODAY)
    assert waived.results[0].outcome is Outcome.VIOLATION
    assert waived.notes == (
        "rules.toml [[waive]] #1 (ac:24) expired on 2026-11-30: it no longer applies; fix the findings or extend `until`",
        "rules.toml [[waive]] #2 (ac:25) matched no finding: remove it",
    )


def test_an_inline_waiver_on_the_line_or_the_line_above(tmp_path: Path):
    write(tmp_path, {
        "a.py": "import pdb  # waive[ac:24]: the debugger is the point\n",
        "b.ts": "// waive[ac:11, ac:24]: a fixture that must hold it\ndebugger;\n",
        "c.md": "<!-- waive[ac:24]: shown as an example -->\nbreakpoint()\n",
        "d.py": "import pdb  # waive[ac:24]\n",
        "e.py": "import pdb  # waive[ac:25]: another rule\n",
    })
    result = violation(*(Finding("found", name, line) for name, line in
                         (("a.py", 1), ("b.ts", 2), ("c.md", 2), ("d.py", 1), ("e.py", 1))))
    after = inline(result, file_lines(tmp_path))
    assert [(s.finding.path, s.kind, s.justification) for s in after.suppressed] == [
        ("a.py", "inSource", "the debugger is the point"), ("b.ts", "inSource", "a fixture that must hold it"),
        ("c.md", "inSource", "shown as an example")]
    assert [f.path for f in after.findings] == ["d.py", "e.py"]
    assert "the waive[ac:24] comment on line 1 gives no reason" in after.findings[0].reason


def test_an_inline_waiver_never_reads_outside_the_repository(tmp_path: Path):
    (tmp_path / "outside.py").write_text("x  # waive[ac:24]: outside\n")
    (tmp_path / "repo").mkdir()
    after = inline(violation(Finding("found", "../outside.py", 1)), file_lines(tmp_path / "repo"))
    assert after.suppressed == ()


def test_waivers_end_to_end(project: Path):  # noqa: F811
    with (project / "rules.toml").open("a") as manifest:
        manifest.write('\n[[waive]]\nrule = "ac:2"\npaths = ["src/a.py"]\nreason = "the TODO is tracked upstream"\n')
    run = doit(project, "checks")
    assert "waived (1)\n  ac:2 Rule 2\n    src/a.py:1: TODO left in code (waived: the TODO is tracked upstream)\n" in run.stdout
    sarif = json.loads((project / "cache/checks/report.sarif").read_text())
    suppressed = [r for r in sarif["runs"][0]["results"] if "suppressions" in r]
    assert suppressed == [{
        "ruleId": "ac:2", "ruleIndex": suppressed[0]["ruleIndex"], "kind": "fail", "level": "error",
        "message": {"text": "TODO left in code"},
        "suppressions": [{"kind": "external", "justification": "the TODO is tracked upstream"}],
        "properties": {"segment": ".", "outcome": "waived", "segments": ["."]},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "src/a.py", "uriBaseId": "%SRCROOT%"},
                                            "region": {"startLine": 1}}}],
        "partialFingerprints": {"agentConstitution/v1": fingerprint("ac:2", "src/a.py", "TODO left in code")},
    }]
    report = json.loads((project / "cache/checks/report.json").read_text())
    [result] = [r for r in report["results"] if r["ref"] == "ac:2"]
    assert result["outcome"] == "pass" and result["suppressed"][0]["justification"] == "the TODO is tracked upstream"

    (project / "rules.toml").write_text((project / "rules.toml").read_text().replace('paths = ["src/a.py"]', 'paths = ["src/b.py"]'))
    rerun = doit(project, "checks")
    assert "TODO left in code" in rerun.stdout and rerun.returncode != 0
    assert "rules.toml [[waive]] #1 (ac:2) matched no finding: remove it" in rerun.stderr


def test_an_inline_waiver_end_to_end(project: Path):  # noqa: F811
    write(project, {"src/a.py": "x = 1  # TODO: name this  # waive[ac:2]: named in the next release\n"})
    run = doit(project, "checks")
    assert "(waived: named in the next release)" in run.stdout


def test_a_waiver_needs_a_reason(project: Path):  # noqa: F811
    with (project / "rules.toml").open("a") as manifest:
        manifest.write('\n[[waive]]\nrule = "ac:2"\nreason = ""\n')
    run = doit(project, "checks")
    assert run.returncode != 0 and "waive" in run.stdout + run.stderr and "Traceback" not in run.stdout + run.stderr
