"""Rule 25: No bare except clauses."""

import ast

from agent_constitution.checks.api import Finding, Repository

RULE = 25
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/*.py"):
        try:
            tree = ast.parse(repo.read_text(path), filename=path)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # not parseable Python: other tools report that
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and node.type is None:
                findings.append(
                    Finding(
                        "bare `except:`; name the exceptions",
                        path=path,
                        line=node.lineno,
                        column=node.col_offset + 1,
                    )
                )
    return findings
