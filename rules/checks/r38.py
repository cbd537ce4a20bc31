"""Rule 38: Trust only pinned rule sources."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 38
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/rules.toml"):
        for name, source in read_toml(repo, path).get("sources", {}).items():
            if (
                isinstance(source, dict)
                and source.get("trust") is True
                and "url" in source
                and "tag" not in source
                and "rev" not in source
            ):
                findings.append(
                    Finding(f"source {name!r} is trusted but follows a branch, not a tag or rev", path=path)
                )
    return findings
