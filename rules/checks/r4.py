"""Rule 4: CLAUDE.md imports AGENTS.md.

A `CLAUDE.md` that cannot be read as text (not UTF-8) hides whether it has the import line: undecidable, unless
another `CLAUDE.md` lacks it. A `CLAUDE.md` that is one file with the `AGENTS.md` beside it (either
a symbolic link to the other, or both to a third: `Repository.same_file`) holds the rules itself and
passes. The fix (safe) adds the import line at the top.
"""

from posixpath import dirname, join

from agent_constitution.checks.api import Finding, Fix, Repository, Undecidable, insert_lines

RULE = 4
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings, unread = [], []
    for path in repo.glob("**/CLAUDE.md"):
        agents = join(dirname(path), "AGENTS.md")
        if not repo.exists(agents) or repo.same_file(path, agents):
            continue
        text = repo.text(path)
        if text is None:
            unread.append(path)
        elif not any(line.strip() == "@AGENTS.md" for line in text.splitlines()):
            findings.append(
                Finding("CLAUDE.md has an AGENTS.md beside it but no line `@AGENTS.md`", path=path)
            )
    if not findings and unread:
        raise Undecidable(f"{unread[0]} cannot be read as text (not UTF-8, or over 4 MiB): "
                          "whether it imports AGENTS.md is unknown")
    return findings


def fix(repo: Repository, findings: list[Finding]) -> list[Fix]:
    """Safe: `@AGENTS.md` as the first line of each such `CLAUDE.md`, above what it held (kept, byte
    for byte: removing what repeats AGENTS.md is for a person to judge)."""
    fixes = []
    for path in sorted({finding.path for finding in findings if finding.path}):
        text = repo.text(path)
        if text is not None:
            fixes.append(Fix(path, insert_lines(text, [(0, "@AGENTS.md"), (0, "")]) if text else "@AGENTS.md\n",
                             note="imports @AGENTS.md"))
    return fixes
