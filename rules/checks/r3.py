"""Rule 3: Instruction files stay under 32 KiB per chain."""

from posixpath import dirname, join

from agent_constitution.checks.api import Finding, Repository

RULE = 3
SUPERSEDED = False

LIMIT = 32 * 1024


def check(repo: Repository) -> list[Finding]:
    sizes = {
        path: (repo.root / path).stat().st_size
        for path in repo.glob("**/AGENTS.md")
        if (repo.root / path).is_file()
    }
    findings = []
    for path in sorted(sizes):
        chain = [candidate for candidate in _ancestors(dirname(path)) if candidate in sizes]
        total = sum(sizes[candidate] for candidate in chain)
        if total > LIMIT:
            findings.append(
                Finding(
                    f"the AGENTS.md files read together here ({', '.join(chain)}) total {total} bytes, "
                    f"above {LIMIT}",
                    path=path,
                )
            )
    return findings


def _ancestors(folder: str) -> list[str]:
    """The AGENTS.md paths from the root down to `folder`."""
    parts = folder.split("/") if folder else []
    return [join(*parts[:depth], "AGENTS.md") for depth in range(len(parts) + 1)]
