"""Rule 25: No bare except clauses.

A file that does not parse as Python (a template, syntax newer than the checker's Python) is judged
by its text: without anything that looks like a bare except it passes; with it the check cannot tell
code from text and is undecidable, unless another file is a violation.
"""

import ast
import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 25
SUPERSEDED = False

LOOKS_LIKE = re.compile(r"\bexcept\s*:")
# What every bare except and every LOOKS_LIKE match holds: the keyword, blanks or line joins, the
# colon. A file without it is skipped without parsing.
BARE = re.compile(r"\bexcept(?:\s|\\\r?\n)*:")


def check(repo: Repository) -> list[Finding]:
    findings, unsure = [], []
    for path in repo.glob("**/*.py"):
        text = repo.text(path)
        if text is not None and not BARE.search(text):
            continue  # no bare except can be in it: no parse
        try:
            tree = ast.parse(text, filename=path) if text is not None else None
        except (SyntaxError, ValueError):
            tree = None
        if tree is None:  # not parseable Python: other tools report that; only its text can be read
            if text is not None and LOOKS_LIKE.search(text):
                unsure.append(path)
            continue
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
    if unsure and not findings:
        raise Undecidable(f"{unsure[0]} does not parse as Python and its text holds what looks like a bare except")
    return findings
