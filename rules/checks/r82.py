"""Rule 82: No secret in the git history.

Runs `gitleaks git --no-banner --report-format json --report-path FILE --exit-code 1` in the
repository; exit 1 with the report's leaks (`RuleID`, `File`, `StartLine`, `Commit`) is a
violation, exit 0 passes, and anything else (no gitleaks, not a git repository, a timeout) is
undecidable.
"""

import json
import tempfile
from pathlib import Path

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool

RULE = 82
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    with tempfile.TemporaryDirectory() as scratch:
        report_path = Path(scratch) / "report.json"
        status, _, err = run_tool(["gitleaks", "git", "--no-banner", "--report-format", "json", "--report-path",
                                   str(report_path), "--exit-code", "1", "."], repo.root, timeout=110)
        if status not in (0, 1):
            raise Undecidable(f"gitleaks failed (exit {status}): {err.strip()[-300:]}")
        if status == 0:
            return []
        try:
            leaks = json.loads(report_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise Undecidable("gitleaks exited 1 without a readable report") from None
    findings = [Finding(f"{leak.get('RuleID', 'secret')} in commit {str(leak.get('Commit', ''))[:12]}: "
                        f"{leak.get('Description', '')}", path=leak.get("File"), line=leak.get("StartLine") or None)
                for leak in leaks if isinstance(leak, dict)] if isinstance(leaks, list) else []
    if not findings:
        raise Undecidable("gitleaks exited 1 but reported no leak")
    return findings
