"""Rule 21: Run uv sync --locked first in CI."""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml, simple_commands, workflow_files

RULE = 21
SUPERSEDED = False

GITLAB = ".gitlab-ci.yml"
GITLAB_KEYWORDS = {
    "default",
    "include",
    "stages",
    "variables",
    "workflow",
    "image",
    "services",
    "cache",
    "before_script",
    "after_script",
    "spec",
}


def check(repo: Repository) -> list[Finding]:
    jobs = list(_jobs(repo))
    if not jobs:
        # No job to judge here is not a violation: CI may run on a service this check cannot read.
        raise Undecidable("no CI configuration this check reads (GitHub Actions, GitLab CI, Forgejo Actions)")
    findings = []
    synced = False
    for path, job, scripts in jobs:
        uv_commands = [words for script in scripts for words in simple_commands(script) if words[0] == "uv"]
        if not uv_commands:
            continue
        first = uv_commands[0]
        if first[1:2] == ["sync"] and "--locked" in first:
            synced = True
        else:
            findings.append(
                Finding(f"job {job!r} runs {' '.join(first)!r} before `uv sync --locked`", path=path)
            )
    if not synced and not findings:
        findings.append(Finding("no CI job runs `uv sync --locked`", path=jobs[0][0]))
    return findings


def _jobs(repo: Repository):
    """(file, job name, the job's shell scripts in order) for every CI job of the repository."""
    for folder in (".github/workflows", ".forgejo/workflows"):
        for path in workflow_files(repo, folder):
            workflow = _load(repo, path)
            for name, job in (workflow.get("jobs") or {}).items():
                steps = job.get("steps") if isinstance(job, dict) else None
                scripts = [
                    step["run"]
                    for step in steps or []
                    if isinstance(step, dict) and isinstance(step.get("run"), str)
                ]
                yield path, name, scripts
    if repo.exists(GITLAB):
        config = _load(repo, GITLAB)
        default = config.get("default") if isinstance(config.get("default"), dict) else {}
        for name, job in config.items():
            if name in GITLAB_KEYWORDS or name.startswith(".") or not isinstance(job, dict):
                continue
            before = job.get("before_script", default.get("before_script", config.get("before_script", [])))
            yield GITLAB, name, _lines(before) + _lines(job.get("script", []))


def _load(repo: Repository, path: str) -> dict:
    data, error = parse_yaml(repo.read_text(path))
    if error:
        raise Undecidable(f"{path} is not valid YAML: {error}")
    return data if isinstance(data, dict) else {}


def _lines(script) -> list[str]:
    # GitLab scripts are a string or a list whose items may be nested lists.
    if isinstance(script, str):
        return [script]
    if isinstance(script, list):
        return [line for item in script for line in _lines(item)]
    return []
