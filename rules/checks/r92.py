"""Rule 92: A change adds no focused test.

An added line of a JavaScript or TypeScript file that calls `it.only`, `test.only`, `describe.only`,
`context.only`, `suite.only` (also with `.each`/`.concurrent` between), `fit(` or `fdescribe(` is a
violation; `.only(` on another name is undecidable.
"""

import re

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 92
SUPERSEDED = False

SOURCES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
FOCUS = re.compile(r"\b(?:(?:it|test|describe|context|suite)(?:\.(?:concurrent|each|skipIf\([^)]*\)|runIf\([^)]*\)))*"
                   r"\.only\b|f(?:it|describe)\s*\()")
OTHER_ONLY = re.compile(r"\b\w+\.only\s*\(")


def check(change: Change) -> list[Finding]:
    findings, unsure = [], []
    for file in change.files:
        if not file.path.endswith(SOURCES) or file.new_text is None:
            continue
        for number, line in file.added_lines():
            code = line.split("//")[0]
            if FOCUS.search(code):
                findings.append(Finding("focused test: every other test is skipped", path=file.path, line=number))
            elif OTHER_ONLY.search(code):
                unsure.append((file.path, number))
    if not findings and unsure:
        raise Undecidable(f"{unsure[0][0]}:{unsure[0][1]}: `.only(` on a name that may not be a test")
    return findings
