"""Rule 70: pull_request_target never checks out the pull request's code.

In every workflow triggered by `pull_request_target`: an `actions/checkout` step whose `ref` (or
`repository`) refers to `github.event.pull_request.head` or `github.head_ref` is a violation, and so
is a `run` script with `gh pr checkout` or a fetch of `refs/pull/` or the head ref. Since revision 2
a `ref` that names another job's output (`needs.authorize.outputs.head_sha`) is read through that
job's `outputs`, and an output set by one of its steps (`steps.pr.outputs.sha`) through that step's
script and `with:`: an output that carries the head is the head. A `ref` given by another expression
(an input, an environment variable) is undecidable.
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml, workflow_files

RULE = 70
SUPERSEDED = False

NEEDS_OUTPUT = re.compile(r"needs\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)")
STEP_OUTPUT = re.compile(r"steps\.([A-Za-z0-9_-]+)\.outputs\.")
HEAD = re.compile(r"github\.event\.pull_request\.head|github\.head_ref|github\.event\.number|refs/pull/")
RUNS_HEAD = re.compile(r"gh\s+pr\s+checkout|git\s+(?:fetch|checkout)[^\n]*(?:refs/pull/|head_ref|pull_request\.head)")


def check(repo: Repository) -> list[Finding]:
    findings, unsure = [], []
    for path in workflow_files(repo, ".github/workflows"):
        workflow, error = parse_yaml(repo.read_text(path))
        if error or not isinstance(workflow, dict) or not _triggered(workflow):
            continue
        jobs = workflow.get("jobs") if isinstance(workflow.get("jobs"), dict) else {}
        for name, job in jobs.items():
            for step in (job.get("steps") or []) if isinstance(job, dict) else []:
                if not isinstance(step, dict):
                    continue
                uses, given = str(step.get("uses", "")), step.get("with") or {}
                if uses.startswith("actions/checkout@") and isinstance(given, dict):
                    ref = " ".join(str(given.get(key, "")) for key in ("ref", "repository"))
                    if HEAD.search(_through_outputs(ref, jobs)):
                        findings.append(Finding(f"job {name!r} checks out the pull request's head under "
                                                f"pull_request_target: {ref.strip()}", path=path))
                    elif "${{" in ref:
                        unsure.append((path, name, ref.strip()))
                if isinstance(step.get("run"), str) and RUNS_HEAD.search(step["run"]):
                    findings.append(Finding(f"job {name!r} fetches the pull request's code under pull_request_target",
                                            path=path))
    if not findings and unsure:
        path, name, ref = unsure[0]
        raise Undecidable(f"{path}: job {name!r} checks out {ref} under pull_request_target; which code that is "
                          "the check cannot tell")
    return findings


def _triggered(workflow: dict) -> bool:
    # YAML 1.1 reads the key `on` as True.
    on = workflow.get("on", workflow.get(True))
    if isinstance(on, str):
        return on == "pull_request_target"
    return isinstance(on, (list, dict)) and "pull_request_target" in on


def _through_outputs(ref: str, jobs: dict) -> str:
    """`ref` with each `needs.<job>.outputs.<name>` it names followed to what that output is set from
    (the job's `outputs` and the step that sets it), appended, so that a head behind an output is seen."""
    seen = [ref]
    for job_name, output in NEEDS_OUTPUT.findall(ref):
        job = jobs.get(job_name)
        outputs = job.get("outputs") if isinstance(job, dict) and isinstance(job.get("outputs"), dict) else {}
        value = str(outputs.get(output, ""))
        seen.append(value)
        steps = [step for step in job.get("steps") or [] if isinstance(step, dict)] if isinstance(job, dict) else []
        for step_id in STEP_OUTPUT.findall(value):
            step = next((step for step in steps if str(step.get("id", "")) == step_id), {})
            seen += [str(step.get("run", "")), str(step.get("with", ""))]
    return " ".join(seen)
