"""Rule 81: The locked Python dependencies have no known vulnerability.

Exports `uv.lock` (`uv export --frozen --no-hashes --no-emit-project --format requirements-txt`) to a
temporary file and runs `pip-audit -r FILE --no-deps --disable-pip --format json` on it. pip-audit
exits 1 when it finds vulnerabilities; each one with a fixed version is a finding. Any other failure
(no uv or pip-audit, no network for the advisory database) is undecidable.
"""

import json
import tempfile
from pathlib import Path

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool

RULE = 81
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("uv.lock"):
        return []
    with tempfile.TemporaryDirectory() as scratch:
        requirements = Path(scratch) / "requirements.txt"
        status, _, err = run_tool(["uv", "export", "--frozen", "--no-hashes", "--no-emit-project", "--format",
                                   "requirements-txt", "-o", str(requirements)], repo.root)
        if status != 0:
            raise Undecidable(f"uv export failed (exit {status}): {err.strip()[-300:]}")
        status, out, err = run_tool(["pip-audit", "-r", str(requirements), "--no-deps", "--disable-pip", "--format",
                                     "json", "--progress-spinner", "off"], repo.root, timeout=110)
    if status not in (0, 1):
        raise Undecidable(f"pip-audit failed (exit {status}): {err.strip()[-300:]}")
    try:
        report = json.loads(out)
    except ValueError:
        raise Undecidable(f"pip-audit printed no JSON report: {err.strip()[-300:]}") from None
    findings = []
    for package in report.get("dependencies", []) if isinstance(report, dict) else []:
        for vuln in package.get("vulns") or []:
            if vuln.get("fix_versions"):
                findings.append(Finding(f"{package.get('name')} {package.get('version')} has {vuln.get('id')}, fixed "
                                        f"in {', '.join(vuln['fix_versions'])}", path="uv.lock"))
    if status == 1 and not report.get("dependencies"):
        raise Undecidable("pip-audit exited 1 without a report of dependencies")
    return findings
