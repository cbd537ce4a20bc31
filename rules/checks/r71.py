"""Rule 71: Every workflow job sets timeout-minutes.

A job of a GitHub or Forgejo Actions workflow with `steps` and no `timeout-minutes` is a violation;
a job calling a reusable workflow (`uses:`) cannot set one and is left out. A workflow that does not
parse is undecidable. GitLab CI jobs stop at the project's timeout: nothing to read there.

The fix (safe) adds `timeout-minutes` on the line above each such job's `steps`, at its indentation:
the value the repository's jobs already set most often (its own convention; a tie takes the larger),
else the service's documented default (360 minutes on GitHub, 180 on Forgejo's runner), which
makes the limit explicit without changing what a job does.
"""

from collections import Counter

from agent_constitution.checks.api import Finding, Fix, Repository, Undecidable, Unfixed, insert_lines

from ._fixes import key_place, round_trip
from ._helpers import parse_yaml, workflow_files

DEFAULT_MINUTES = {".github/workflows": 360, ".forgejo/workflows": 180}

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


def fix(repo: Repository, findings: list[Finding]) -> list[Fix | Unfixed]:
    own = _own_minutes(repo)
    answers: list[Fix | Unfixed] = []
    for path in sorted({finding.path for finding in findings if finding.path}):
        text = repo.text(path)
        workflow = round_trip(text) if text is not None else None
        if not isinstance(workflow, dict) or not isinstance(workflow.get("jobs"), dict):
            answers.append(Unfixed("the workflow does not read back as a mapping of jobs", path))
            continue
        minutes = own or DEFAULT_MINUTES.get(path.rsplit("/", 1)[0], 360)
        lines = text.splitlines()
        inserts = []
        for name, job in workflow["jobs"].items():
            if isinstance(job, dict) and "steps" in job and "timeout-minutes" not in job:
                place = key_place(job, "steps", lines)
                if place is None:
                    answers.append(Unfixed(f"job {name!r} is written as a flow mapping; add timeout-minutes by hand",
                                           path))
                    continue
                inserts.append((place[0], " " * place[1] + f"timeout-minutes: {minutes}"))
        if inserts:
            answers.append(Fix(path, insert_lines(text, inserts),
                               note=f"timeout-minutes: {minutes} on {len(inserts)} job{'s' if len(inserts) > 1 else ''}"))
    return answers


def _own_minutes(repo: Repository) -> int | None:
    """The timeout-minutes the repository's jobs set most often (whole minutes; a tie: the larger)."""
    seen: Counter = Counter()
    for path in workflow_files(repo, ".github/workflows") + workflow_files(repo, ".forgejo/workflows"):
        text = repo.text(path)
        workflow, error = parse_yaml(text) if text is not None else (None, "not text")
        jobs = workflow.get("jobs") if isinstance(workflow, dict) and not error else None
        for job in (jobs or {}).values() if isinstance(jobs, dict) else ():
            value = job.get("timeout-minutes") if isinstance(job, dict) else None
            if type(value) is int and value > 0:
                seen[value] += 1
    return max(seen, key=lambda value: (seen[value], value)) if seen else None
