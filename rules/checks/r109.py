"""Rule 109: go vet reports nothing.

`go vet ./...` exits 0 when clean; on exit 1 each `file.go:line:col: message` it prints (on stderr) is
a finding. Exit 1 without such a line (a module that does not build) or any other status is
undecidable.
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool

RULE = 109
SUPERSEDED = False

PROBLEM = re.compile(r"^(?:vet: )?(\S+\.go):(\d+)(?::(\d+))?: (.+)$", re.M)


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("go.mod"):
        return []
    status, out, err = run_tool(["go", "vet", "./..."], repo.root, timeout=110)
    if status == 0:
        return []
    problems = PROBLEM.findall(err + out)
    if status != 1 or not problems:
        raise Undecidable(f"go vet failed (exit {status}) without naming a file: {err.strip()[-300:]}")
    return [Finding(f"go vet: {message}", path=path.removeprefix("./"), line=int(line),
                    column=int(column) if column else None) for path, line, column, message in problems]
