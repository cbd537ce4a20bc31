"""Rule 108: Go code is formatted with gofmt (`gofmt -l .` lists the files that differ)."""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool

RULE = 108
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.glob("**/*.go"):
        return []
    status, out, err = run_tool(["gofmt", "-l", "."], repo.root)
    if status != 0:
        raise Undecidable(f"gofmt failed (exit {status}): {err.strip()[-300:]}")
    return [Finding("not formatted as gofmt formats it (run gofmt -w)", path=line.strip().removeprefix("./"))
            for line in out.splitlines() if line.strip()]
