"""Rule 93: A change adds no console.log to library code.

Added `console.log`, `console.debug` and `console.trace` calls in JavaScript and TypeScript source
are violations, except in command-line and script folders (`bin/`, `scripts/`, `cli/`), test files
(`*.test.*`, `*.spec.*`, `__tests__/`, `test/`, `tests/`) and on lines disabling `no-console`. A file
under `tools/` may be a command or a library: undecidable.
"""

import re

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 93
SUPERSEDED = False

SOURCES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
CALL = re.compile(r"\bconsole\.(?:log|debug|trace)\s*\(")
EXEMPT = re.compile(r"(?:^|/)(?:bin|scripts|cli|test|tests|__tests__|e2e)/|\.(?:test|spec)\.[cm]?[jt]sx?$")


def check(change: Change) -> list[Finding]:
    findings, unsure = [], []
    for file in change.files:
        if not file.path.endswith(SOURCES) or file.new_text is None or EXEMPT.search(file.path):
            continue
        for number, line in file.added_lines():
            if not CALL.search(line.split("//")[0]) or "no-console" in line:
                continue
            if re.search(r"(?:^|/)tools/", file.path):
                unsure.append((file.path, number))
            else:
                findings.append(Finding("console output added to library code", path=file.path, line=number))
    if not findings and unsure:
        raise Undecidable(f"{unsure[0][0]}:{unsure[0][1]}: console output in tools/, which may be a command")
    return findings
