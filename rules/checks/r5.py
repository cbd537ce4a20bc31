"""Rule 5: Commit the compiled instruction files.

The files compile writes: the root `AGENTS.md`, and the `AGENTS.md` of each segment that adds a rule
to the files above it (`added` in its `[[segment]]` of `rules.lock`). A segment that adds nothing
(none of its own rules, or only exclusions, which the root file's index states in one line) has no
file, so none is expected. Without a lock yet, a segment of `rules.toml` is expected to have a file
when it lists `rules` or `choices`.
"""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 5
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("rules.toml"):
        return []
    findings = []
    for path in ["AGENTS.md"] + [f"{folder}/AGENTS.md" for folder in _segments_with_files(repo)]:
        if repo.exists(path):
            continue
        state = "is ignored by git" if (repo.root / path).is_file() else "is missing"
        findings.append(Finding(f"{path}, compiled from rules.toml, {state}", path=path))
    return findings


def _segments_with_files(repo: Repository) -> list[str]:
    if repo.exists("rules.lock"):
        entries = read_toml(repo, "rules.lock").get("segment", [])
        return [entry["path"].strip("/") for entry in entries
                if isinstance(entry, dict) and isinstance(entry.get("path"), str) and entry["path"] != "."
                and entry.get("added")]
    entries = read_toml(repo, "rules.toml").get("segment", [])
    return [entry["path"].strip("/") for entry in entries
            if isinstance(entry, dict) and isinstance(entry.get("path"), str)
            and (entry.get("rules") or entry.get("choices"))]
