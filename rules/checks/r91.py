"""Rule 91: A change adds no debugger statement.

An added line whose code holds the statement `debugger` (alone, or after `;`, `{` or `)`) is a
violation. A line where `debugger` stands between quotes or backquotes may be text, not code: the
reviewer decides.
"""

import re

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 91
SUPERSEDED = False

SOURCES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
STATEMENT = re.compile(r"(?:^|[;{})]|\belse)\s*debugger\s*(?:;|$|})")
QUOTED = re.compile(r"""["'`][^"'`]*\bdebugger\b""")


def check(change: Change) -> list[Finding]:
    findings, unsure = [], []
    for file in change.files:
        if not file.path.endswith(SOURCES) or file.new_text is None:
            continue
        for number, line in file.added_lines():
            code = line.split("//")[0]
            if not re.search(r"\bdebugger\b", code):
                continue
            if QUOTED.search(code):
                unsure.append((file.path, number))
            elif STATEMENT.search(code.strip()):
                findings.append(Finding("debugger statement", path=file.path, line=number))
    if not findings and unsure:
        raise Undecidable(f"{unsure[0][0]}:{unsure[0][1]}: `debugger` inside quotes, maybe not a statement")
    return findings
