"""Rule 110: Cargo.lock is committed (beside the Cargo.toml or in a folder above it)."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 110
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    whole = repo.repository
    for path in repo.glob("**/Cargo.toml"):
        manifest = read_toml(repo, path)
        if "package" not in manifest and "workspace" not in manifest:
            continue
        parts = [part for part in f"{repo.folder}/{path}".split("/")[:-1] if part]
        folders = ["/".join(parts[:depth]) for depth in range(len(parts), -1, -1)]
        if not any(whole.exists(f"{folder}/Cargo.lock" if folder else "Cargo.lock") for folder in folders):
            findings.append(Finding("no Cargo.lock for this package: run cargo generate-lockfile and commit it",
                                    path=path))
    return findings
