"""Rule 32: Workflows declare their permissions."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import parse_yaml, workflow_files

RULE = 32
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in workflow_files(repo, ".github/workflows"):
        workflow, error = parse_yaml(repo.read_text(path))
        if error or not isinstance(workflow, dict) or "permissions" in workflow:
            continue  # rule 28 reports a workflow that does not parse
        for name, job in (workflow.get("jobs") or {}).items():
            if not isinstance(job, dict) or "permissions" not in job:
                findings.append(
                    Finding(f"job {name!r} has no permissions and the workflow sets none", path=path)
                )
    return findings
