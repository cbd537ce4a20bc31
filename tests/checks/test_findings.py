"""A check's findings are normalized where they arrive: paths inside the folder it governs, text printable."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.checks.api import Finding
from agent_constitution.checks.findings import normalized, printable
from agent_constitution.checks.model import Outcome
from agent_constitution.checks.report import json_report, sarif, summary
from agent_constitution.checks.review import queues
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan

from .conftest import make_source, rule

ESC = "\x1b[31mred\x1b[0m"
HOSTILE = [
    {"reason": f"a {ESC} reason \u202eevil", "path": "ok/./a.py", "line": 2},
    {"reason": "up", "path": "../../etc/passwd", "line": 1, "column": 1},
    {"reason": "abs", "path": "/etc/passwd"},
    {"reason": "in path", "path": f"x{ESC}.py"},
]


@pytest.mark.parametrize(("path", "expected"), [
    ("a//b/./c.py", "a/b/c.py"),
    ("a/../b.py", "b.py"),
    ("../x", None),
    ("a/../../x", None),
    ("/etc/passwd", None),
    ("", None),
    ("nul\0byte", None),
])
def test_paths_stay_inside_the_folder(tmp_path, path, expected):
    found = normalized(Finding("why", path, 3, 4), tmp_path)
    assert found.path == expected
    if expected is None:
        assert found.line is None and "dropped" in found.reason and found.reason.startswith("why (path ")


def test_an_absolute_path_below_the_folder_becomes_relative(tmp_path):
    assert normalized(Finding("why", str(tmp_path / "src" / "a.py")), tmp_path).path == "src/a.py"


@given(st.text())
def test_printable_leaves_no_control_character(text):
    shown = printable(text)
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or c in "\u202a\u202b\u202c\u202d\u202e" for c in shown)
    assert printable(shown) == shown


def hostile_results(root: Path):
    code = ("from agent_constitution.checks.api import Finding\nRULE = 1\n"
            f"def check(repo):\n    return [Finding(**f) for f in {HOSTILE!r}]\n")
    make_source(root, {}, {"r1": code})
    command = [sys.executable, "-c", f"print({json.dumps(json.dumps({'findings': HOSTILE}))}); raise SystemExit(1)"]
    subjects = Subjects(scan(root))
    return [run_check(rule(root, 1, python="r1"), ".", subjects),
            run_check(rule(root, 2, command=command), ".", subjects),
            run_check(rule(root, 3, command=[sys.executable, "-c", f"import sys; sys.stderr.write({ESC!r}); exit(3)"]),
                      ".", subjects)]


def test_no_escape_reaches_the_terminal_or_a_report(tmp_path):
    results = hostile_results(tmp_path)
    assert [r.outcome for r in results] == [Outcome.VIOLATION, Outcome.VIOLATION, Outcome.UNDECIDABLE]
    for result in results[:2]:
        assert [(f.path, f.line) for f in result.findings] == [
            ("ok/a.py", 2), (None, None), (None, None), ("x\\x1b[31mred\\x1b[0m.py", None)]
        assert result.findings[0].reason == "a \\x1b[31mred\\x1b[0m reason \\u202eevil"
        assert result.findings[1].reason == ("up (path '../../etc/passwd' dropped: it leads outside the folder "
                                             "the check governs)")
    assert results[2].cause == "crash: exit status 3: \\x1b[31mred\\x1b[0m"
    shown = summary(results) + json_report(results) + sarif(results) + "".join(queues(results, {}).values())
    assert "\x1b" not in shown and "\u202e" not in shown and "etc/passwd:" not in shown
    assert "\\x1b[31m" in shown


@given(st.text(alphabet="ab./\\\x1b\0", max_size=30))
def test_a_kept_path_never_leaves_the_folder(path):
    found = normalized(Finding("why", path, 1), Path("/repo/svc"))
    if found.path is not None:
        assert not found.path.startswith(("/", "../")) and found.path != ".."
        assert "\x1b" not in found.path and "\0" not in found.path and found.line == 1
    else:
        assert "dropped" in found.reason and found.line is None
