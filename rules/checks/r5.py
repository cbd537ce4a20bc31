"""Rule 5: Commit the compiled instruction files."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 5
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("rules.toml"):
        return []
    manifest = read_toml(repo, "rules.toml")
    segments = manifest.get("segment", [])
    expected = ["AGENTS.md"] + [
        f"{segment['path'].strip('/')}/AGENTS.md"
        for segment in segments
        if isinstance(segment, dict) and "path" in segment
    ]
    findings = []
    for path in expected:
        if repo.exists(path):
            continue
        state = "is ignored by git" if (repo.root / path).is_file() else "is missing"
        findings.append(Finding(f"{path}, compiled from rules.toml, {state}", path=path))
    return findings
