"""Rule 71: Every workflow job sets timeout-minutes.

A job of a GitHub or Forgejo Actions workflow with `steps` and no `timeout-minutes` is a violation;
a job calling a reusable workflow (`uses:`) cannot set one and is left out. A workflow that does not
parse is undecidable. GitLab CI jobs stop at the project's timeout: nothing to read there.
"""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml, workflow_files

RULE = 71
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in workflow_files(repo, ".github/workflows") + workflow_files(repo, ".forgejo/workflows"):
        workflow, error = parse_yaml(repo.read_text(path))
        if error:
            raise Undecidable(f"{path} is not valid YAML: {error}")
        jobs = workflow.get("jobs") if isinstance(workflow, dict) else None
        for name, job in (jobs or {}).items():
            if isinstance(job, dict) and "steps" in job and "timeout-minutes" not in job:
                findings.append(Finding(f"job {name!r} sets no timeout-minutes (a hung job runs until the service's default timeout)",
                                        path=path))
    return findings
