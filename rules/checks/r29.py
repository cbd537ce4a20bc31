"""Rule 29: Run CI on GitLab CI.

`.gitlab-ci.yml` defines a job (a table with `script`, `trigger` or `extends`). A configuration
without one of its own that `include`s others may get its jobs from them, which the check does not
read (another project, a template, a remote file): undecidable.
"""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml

RULE = 29
SUPERSEDED = False

PATH = ".gitlab-ci.yml"
KEYWORDS = {
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
    if not repo.exists(PATH):
        return [Finding(f"no {PATH} at the repository root", path=PATH)]
    config, error = parse_yaml(repo.read_text(PATH))
    if error:
        return [Finding(f"not valid YAML: {error}", path=PATH)]
    jobs = [
        name
        for name, job in (config.items() if isinstance(config, dict) else ())
        if name not in KEYWORDS
        and not str(name).startswith(".")
        and isinstance(job, dict)
        and any(key in job for key in ("script", "trigger", "extends"))
    ]
    if jobs:
        return []
    if isinstance(config, dict) and config.get("include"):
        raise Undecidable(f"{PATH} defines no job of its own and includes other files, which may define them")
    return [Finding("the configuration defines no job", path=PATH)]
