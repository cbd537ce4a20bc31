"""Rule 105: A change deletes no test without saying so.

Collects test names from the old and new text of every changed file: Python `def test_*` (also
`async def`), JavaScript `it('…'`/`test('…'`, Go `func TestX(`, and Rust functions after `#[test]`.
A name in some old text and in no new text of the change is deleted: a violation when no commit
message names it; undecidable when one does (the reviewer judges the reason) or when the change is
staged and has no messages yet.
"""

import re

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 105
SUPERSEDED = False

PYTHON = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w*)\s*\(", re.M)
JS = re.compile(r"""\b(?:it|test)(?:\.\w+)*\(\s*(["'`])(.+?)\1""")
GO = re.compile(r"^func\s+(Test\w*)\s*\(", re.M)
RUST = re.compile(r"#\[(?:\w+::)?test\]\s*(?:#\[[^\]]*\]\s*)*(?:pub\s+)?(?:async\s+)?fn\s+(\w+)")


def check(change: Change) -> list[Finding]:
    before: dict[str, str] = {}
    after: set[str] = set()
    for file in change.files:
        for name in _tests(file.path, file.old_text):
            before.setdefault(name, file.path)
        after |= _tests(file.path, file.new_text)
    deleted = sorted(name for name in before if name not in after)
    if not deleted:
        return []
    if not change.messages:
        raise Undecidable(f"{before[deleted[0]]} loses the test {deleted[0]!r}, and a staged change has no message "
                          "yet to say why")
    said = "\n".join(change.messages)
    named = [name for name in deleted if name in said]
    findings = [Finding(f"the test {name!r} is deleted and no commit message names it", path=before[name])
                for name in deleted if name not in named]
    if not findings:
        raise Undecidable(f"the test {named[0]!r} is deleted; a commit message names it, so the reviewer judges why")
    return findings


def _tests(path: str, text: str | None) -> set[str]:
    if not text:
        return set()
    if path.endswith(".py"):
        return set(PYTHON.findall(text))
    if path.endswith((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")):
        return {name for _, name in JS.findall(text)}
    if path.endswith("_test.go"):
        return set(GO.findall(text))
    if path.endswith(".rs"):
        return set(RUST.findall(text))
    return set()
