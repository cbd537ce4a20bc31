"""Rule 73: Dependency updates are automated (Dependabot or Renovate)."""

import json

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml

RULE = 73
SUPERSEDED = False

DEPENDABOT = (".github/dependabot.yml", ".github/dependabot.yaml")
RENOVATE = ("renovate.json", "renovate.json5", ".github/renovate.json", ".github/renovate.json5",
            ".gitlab/renovate.json", ".renovaterc", ".renovaterc.json")


def check(repo: Repository) -> list[Finding]:
    if any(repo.exists(path) for path in RENOVATE):
        return []
    for path in DEPENDABOT:
        if repo.exists(path):
            config, error = parse_yaml(repo.read_text(path))
            if error:
                raise Undecidable(f"{path} is not valid YAML: {error}")
            if isinstance(config, dict) and config.get("updates"):
                return []
            return [Finding("the Dependabot configuration lists no updates", path=path)]
    if repo.exists("package.json"):
        try:
            if "renovate" in json.loads(repo.read_text("package.json")):
                return []
        except (ValueError, TypeError):
            pass
    return [Finding("no Dependabot or Renovate configuration: dependency updates are left to hand work")]
