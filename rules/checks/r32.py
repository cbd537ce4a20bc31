"""Rule 32: Workflows declare their permissions.

Decides for every GitHub workflow: `permissions` is declared at the top level or on each job, and
no declaration grants `write-all`. A workflow that does not parse is undecidable, unless another one
is a violation.
"""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml, workflow_files

RULE = 32
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings, unparsed = [], []
    for path in workflow_files(repo, ".github/workflows"):
        text = repo.text(path)
        workflow, error = parse_yaml(text) if text is not None else (None, "not UTF-8 text")
        if error or not isinstance(workflow, dict):
            unparsed.append(path)  # rule 28 reports it; what it would run is unknown
            continue
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
    if unparsed and not findings:
        raise Undecidable(f"{unparsed[0]} does not parse as a workflow: what it runs is unknown")
    return findings
