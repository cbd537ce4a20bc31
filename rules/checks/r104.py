"""Rule 104: A change skips no test without a reason.

On the lines a change adds: pytest `skip`/`skipif`/`xfail` markers without `reason=` (a positional
string counts for `skip` and `unittest.skip`), `pytest.skip()` and Go `t.Skip()`/`t.SkipNow()`
without a message, Rust `#[ignore]` without `= "…"`, and in JavaScript and TypeScript `it`/`test`/
`describe`/`context`/`suite` `.skip`, `xit` and `xdescribe` without a comment on the line or the line
above. Only test files count (Python `test_*.py`, `*_test.py`, `conftest.py` and files under
`tests/`; JavaScript `*.test.*`, `*.spec.*` and `__tests__/`; Go `*_test.go`; any Rust file), and a
marker counts only where it starts its line. `.skip(` on another name in a JavaScript test file is
undecidable (`stream.skip(3)`).
"""

import re

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 104
SUPERSEDED = False

JS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
# Each pattern starts at the line's start, so that a marker quoted in a string (a fixture, a
# docstring) is not taken for one.
PY_MARK = re.compile(r"^\s*(?:@|pytestmark\s*=\s*\[?\s*)pytest\.mark\.(skip|skipif|xfail)\b(\((.*)\))?")
PY_CALL = re.compile(r"^\s*pytest\.(?:skip|xfail)\(\s*\)")
UNITTEST = re.compile(r"^\s*@unittest\.(?:skip|expectedFailure)\b(\(\s*\))?")
GO = re.compile(r"^\s*t\.(?:Skip\(\s*\)|SkipNow\(\))")
RUST = re.compile(r"^\s*#\[ignore\]")
JS_SKIP = re.compile(r"^\s*(?:(?:it|test|describe|context|suite)(?:\.\w+)*\.skip\b|x(?:it|describe|test)\s*\()")
JS_OTHER = re.compile(r"\b\w+\.skip\s*\(")
TEST_FILE = re.compile(r"(?:^|/)(?:tests?|__tests__|spec)/|\.(?:test|spec)\.[cm]?[jt]sx?$|(?:^|/)(?:test_[^/]*|[^/]*_test|"
                       r"conftest)\.py$|_test\.go$|\.rs$")


def check(change: Change) -> list[Finding]:
    findings, unsure = [], []
    for file in change.files:
        if file.new_text is None or not TEST_FILE.search(file.path):
            continue
        lines = file.new_text.splitlines()
        for number, line in file.added_lines():
            why = _unexplained(file.path, line, lines[number - 2] if number > 1 else "")
            if why:
                findings.append(Finding(f"{why} without a reason", path=file.path, line=number))
            elif file.path.endswith(JS) and JS_OTHER.search(line) and \
                    not JS_SKIP.search(line):
                unsure.append((file.path, number))
    if not findings and unsure:
        raise Undecidable(f"{unsure[0][0]}:{unsure[0][1]}: `.skip(` on a name that may not be a test")
    return findings


def _unexplained(path: str, line: str, above: str) -> str | None:
    if path.endswith(".py"):
        match = PY_MARK.search(line)
        if match:
            args = match.group(3) or ""
            explained = "reason=" in args or (match.group(1) == "skip" and re.match(r"\s*[rbuf]*[\"']", args))
            return None if explained else f"pytest.mark.{match.group(1)}"
        if PY_CALL.search(line):
            return "pytest.skip()"
        match = UNITTEST.search(line)
        if match and (match.group(1) or "expectedFailure" in line):
            return "unittest skip"
    elif path.endswith(".go") and GO.search(line):
        return "t.Skip"
    elif path.endswith(".rs") and RUST.search(line):
        return "#[ignore]"
    elif path.endswith(JS) and JS_SKIP.search(line) and not re.search(r"//|/\*", line) and \
            not above.strip().startswith(("//", "/*", "*")):
        return "skipped test"
    return None
