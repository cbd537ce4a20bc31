"""Rule 111: Rust code is formatted with rustfmt.

`cargo fmt --all --check` exits 0 when formatted and 1 with `Diff in <file>:<line>:` (or `Diff in
<file> at line <line>:` before rustfmt 1.6) for each difference. Exit 1 without one (rustfmt not
installed, a file that does not parse) or any other status is undecidable.
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool

RULE = 111
SUPERSEDED = False

DIFF = re.compile(r"^Diff in (.+?)(?::| at line )(\d+):?$", re.M)


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("Cargo.toml"):
        return []
    status, out, err = run_tool(["cargo", "fmt", "--all", "--check"], repo.root, timeout=110)
    if status == 0:
        return []
    diffs = DIFF.findall(out)
    if status != 1 or not diffs:
        raise Undecidable(f"cargo fmt failed (exit {status}) without showing a difference: {err.strip()[-300:]}")
    root = str(repo.root).rstrip("/") + "/"
    return [Finding("not formatted as rustfmt formats it (run cargo fmt)", path=path.removeprefix(root),
                    line=int(line)) for path, line in diffs]
