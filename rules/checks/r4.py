"""Rule 4: CLAUDE.md imports AGENTS.md.

A `CLAUDE.md` that cannot be read as text (not UTF-8) hides whether it has the import line: undecidable, unless
another `CLAUDE.md` lacks it. A `CLAUDE.md` that is one file with the `AGENTS.md` beside it (either
a symbolic link to the other, or both to a third: `Repository.same_file`) holds the rules itself and
passes.
"""

from posixpath import dirname, join

from agent_constitution.checks.api import Finding, Repository, Undecidable

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
