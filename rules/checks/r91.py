"""Rule 91: A change adds no debugger statement.

An added line whose code holds the statement `debugger` (alone, or after `;`, `{` or `)`) is a
violation. A line where `debugger` stands between quotes or backquotes may be text, not code: the
reviewer decides. The fix (safe: a debugger statement does nothing unless a debugger is attached)
deletes a line that holds only the statement, and takes it out of a line where it follows `;` or `{`.
"""

import re

from agent_constitution.checks.api import Change, Finding, Fix, Undecidable, Unfixed

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


ALONE = re.compile(r"^\s*debugger\s*;?\s*(?://.*)?$")
# After `;` or `{` the statement stands alone; after `)` or `else` it is the body of an `if` or a
# loop, and taking it out would make the next statement the body: left to a person.
AFTER_A_STATEMENT = re.compile(r"([;{])[ \t]*debugger[ \t]*;?")


def fix(change: Change, findings: list[Finding]) -> list[Fix | Unfixed]:
    by_path = {file.path: file for file in change.files}
    answers: list[Fix | Unfixed] = []
    for path in sorted({finding.path for finding in findings if finding.path in by_path}):
        lines = by_path[path].new_text.splitlines(keepends=True)
        rows = {finding.line for finding in findings if finding.path == path and finding.line}
        removed = 0
        for row in sorted(rows, reverse=True):
            line = lines[row - 1]
            body = line.rstrip("\r\n")
            if ALONE.match(body):
                del lines[row - 1]
            elif AFTER_A_STATEMENT.search(body):
                lines[row - 1] = AFTER_A_STATEMENT.sub(r"\1", body, count=1) + line[len(body):]
            else:
                answers.append(Unfixed(f"line {row}: the statement is the body of an `if`, `else` or loop", path))
                continue
            removed += 1
        if removed:
            answers.append(Fix(path, "".join(lines),
                               note=f"{removed} debugger statement{'s' if removed > 1 else ''} removed"))
    return answers
