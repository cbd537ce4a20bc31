"""Rule 28: Run CI on GitHub Actions."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import parse_yaml, workflow_files

RULE = 28
SUPERSEDED = False

FOLDER = ".github/workflows"


def check(repo: Repository) -> list[Finding]:
    paths = workflow_files(repo, FOLDER)
    if not paths:
        return [Finding(f"no workflow in {FOLDER}/", path=FOLDER)]
    findings = []
    for path in paths:
        text = repo.text(path)
        workflow, error = parse_yaml(text) if text is not None else (None, "the file is not UTF-8 text")
        if error:
            findings.append(Finding(f"not valid YAML: {error}", path=path))
        elif not isinstance(workflow, dict) or not ("on" in workflow or True in workflow):
            findings.append(Finding("the workflow has no `on` trigger", path=path))
        elif not isinstance(workflow.get("jobs"), dict) or not workflow["jobs"]:
            findings.append(Finding("the workflow has no jobs", path=path))
    return findings
