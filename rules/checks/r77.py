"""Rule 77: GitLab jobs name their image by a version or digest."""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import GITLAB_CI, parse_yaml

RULE = 77
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists(GITLAB_CI):
        return []
    config, error = parse_yaml(repo.read_text(GITLAB_CI))
    if error:
        raise Undecidable(f"{GITLAB_CI} is not valid YAML: {error}")
    if not isinstance(config, dict):
        return []
    places = [("the top level", config)] + [(f"job {name!r}", job) for name, job in config.items()
                                              if isinstance(job, dict)]
    findings, variables = [], []
    for where, table in places:
        image = table.get("image")
        name = image.get("name") if isinstance(image, dict) else image
        if not isinstance(name, str):
            continue
        if "$" in name:
            variables.append(name)
        elif "@sha256:" not in name and (":" not in name.rpartition("/")[2] or name.endswith(":latest")):
            findings.append(Finding(f"{where} uses the image {name!r} without a version tag or digest", path=GITLAB_CI))
    if not findings and variables:
        raise Undecidable(f"the image {variables[0]!r} is named by a variable")
    return findings
