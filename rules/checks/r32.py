"""Rule 32: Workflows declare their permissions.

Decides for every GitHub workflow: `permissions` is declared at the top level or on each job, and
no declaration grants `write-all`.
"""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import parse_yaml, workflow_files

RULE = 32
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in workflow_files(repo, ".github/workflows"):
        workflow, error = parse_yaml(repo.read_text(path))
        if error or not isinstance(workflow, dict):
            continue  # rule 28 reports a workflow that does not parse
        jobs = workflow.get("jobs") if isinstance(workflow.get("jobs"), dict) else {}
        if workflow.get("permissions") == "write-all":
            findings.append(Finding("the workflow grants permissions: write-all", path=path))
        for name, job in jobs.items():
            if not isinstance(job, dict):
                continue
            if job.get("permissions") == "write-all":
                findings.append(Finding(f"job {name!r} grants permissions: write-all", path=path))
            elif "permissions" not in workflow and "permissions" not in job:
                findings.append(Finding(f"job {name!r} has no permissions and the workflow sets none", path=path))
    return findings
