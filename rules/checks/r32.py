"""Rule 32: Workflows declare their permissions.

Decides for every GitHub workflow: `permissions` is declared at the top level or on each job, and
no declaration grants `write-all`. A workflow that does not parse is undecidable, unless another one
is a violation. The fix (unsafe) declares `contents: read` at the top level of a workflow that
declares nothing.
"""

from agent_constitution.checks.api import Finding, Fix, Repository, Undecidable, Unfixed, insert_lines

from ._fixes import key_place, mapping_indent, round_trip
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


def fix(repo: Repository, findings: list[Finding]) -> list[Fix | Unfixed]:
    """Unsafe: a workflow that declares no permissions gets `permissions: contents: read` at its top
    level, above `jobs:`, the least a job that checks out code needs; a job that writes (a release,
    a comment) then needs its own grant. `write-all` is left to a person: what a job needs is not
    for a program to guess."""
    answers: list[Fix | Unfixed] = []
    for path in sorted({finding.path for finding in findings if finding.path}):
        reasons = [finding.reason for finding in findings if finding.path == path]
        if any("write-all" in reason for reason in reasons):
            answers.append(Unfixed("permissions: write-all is narrowed by a person, who knows what the jobs need",
                                   path))
        if not any("has no permissions" in reason for reason in reasons):
            continue
        text = repo.text(path)
        workflow = round_trip(text) if text is not None else None
        lines = (text or "").splitlines()
        place = key_place(workflow, "jobs", lines) if isinstance(workflow, dict) and "jobs" in workflow else None
        if place is None or place[1] != 0:
            answers.append(Unfixed("the workflow's top level is not a block mapping with `jobs:` at its start", path))
            continue
        indent = " " * mapping_indent(workflow["jobs"], lines)
        row = place[0]
        inserts = [(row, "permissions:"), (row, f"{indent}contents: read")]
        if row > 0 and not lines[row - 1].strip():
            inserts.append((row, ""))
        answers.append(Fix(path, insert_lines(text, inserts), unsafe=True,
                           note="permissions: contents: read for every job without its own"))
    return answers
