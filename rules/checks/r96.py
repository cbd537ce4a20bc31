"""Rule 96: npm audit finds no high or critical advisory.

Runs `npm audit --json --package-lock-only --audit-level=high`: exit 0 passes; exit 1 with
`vulnerabilities` lists the packages, each of high or critical severity a finding. An `error` in the
output (no network, no registry), another exit status or no npm is undecidable.
"""

import json

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool

RULE = 96
SUPERSEDED = False

SEVERE = {"high", "critical"}


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("package-lock.json"):
        return []
    status, out, err = run_tool(["npm", "audit", "--json", "--package-lock-only", "--audit-level=high"], repo.root,
                                timeout=110)
    try:
        report = json.loads(out) if out.strip() else {}
    except ValueError:
        raise Undecidable(f"npm audit printed no JSON (exit {status}): {err.strip()[-300:]}") from None
    if not isinstance(report, dict) or "error" in report or status not in (0, 1):
        problem = report.get("error", {}) if isinstance(report, dict) else {}
        raise Undecidable(f"npm audit failed (exit {status}): {problem.get('summary', err.strip()[-300:]) if isinstance(problem, dict) else problem}")
    findings = [Finding(f"{name}: {entry.get('severity')} advisory", path="package-lock.json")
                for name, entry in (report.get("vulnerabilities") or {}).items()
                if isinstance(entry, dict) and entry.get("severity") in SEVERE]
    if status == 1 and not findings:
        raise Undecidable("npm audit exited 1 without a high or critical vulnerability in its report")
    return findings
