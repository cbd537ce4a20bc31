"""Rule 31: Pin actions to a full commit SHA."""

import re

from agent_constitution.checks.api import Finding, Repository

from ._helpers import parse_yaml, workflow_files

RULE = 31
SUPERSEDED = False

SHA = re.compile(r"[0-9a-f]{40}")


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in workflow_files(repo, ".github/workflows"):
        workflow, error = parse_yaml(repo.read_text(path))
        if error or not isinstance(workflow, dict):
            continue  # rule 28 reports a workflow that does not parse
        for name, job in (workflow.get("jobs") or {}).items():
            if not isinstance(job, dict):
                continue
            uses = [job.get("uses")] + [
                step.get("uses") for step in job.get("steps") or [] if isinstance(step, dict)
            ]
            for reference in uses:
                if isinstance(reference, str) and not _pinned(reference):
                    findings.append(
                        Finding(
                            f"job {name!r} uses {reference!r}, not pinned to a full commit SHA", path=path
                        )
                    )
    return findings


def _pinned(reference: str) -> bool:
    if reference.startswith(("./", "docker://")):
        return True
    _, _, ref = reference.partition("@")
    return bool(SHA.fullmatch(ref))
