"""What a check reports, made safe to show: paths inside the folder it governs, text without control codes.

A finding comes from code the repository did not write (a source's python check, an external
command), and its reason and path reach the terminal, the JSON and SARIF reports and the review
queue. So every finding is normalized once, where the runner receives it:

- its path becomes a relative POSIX path inside the folder the check governs (the repository root
  or a segment's folder): `a/./b` and `a//b` become `a/b`, an absolute path below the folder becomes
  relative to it. A path that leaves the folder (`../../etc/passwd`, `/etc/passwd`), is empty or
  holds a NUL byte is dropped, with line and column, and the reason says so;
- control characters (ANSI escape sequences start with one) and the bidirectional-override
  characters of "trojan source" text are written as `\\x1b`, `\\u202e`: shown, never obeyed.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from agent_constitution.checks.api import Finding

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\u202e`)."""
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def normalized(finding: Finding, folder: Path) -> Finding:
    """`finding` with a printable reason and a path inside `folder` (or none, said in the reason)."""
    reason = printable(finding.reason)
    if finding.path is None:
        return Finding(reason, None, finding.line, finding.column, finding.end_line, finding.end_column)
    path, problem = _inside(finding.path, folder)
    if problem:
        return Finding(f"{reason} (path {printable(finding.path)!r} dropped: {problem})")
    return Finding(reason, printable(path), finding.line, finding.column, finding.end_line, finding.end_column)


def _inside(path: str, folder: Path) -> tuple[str, str | None]:
    if not path:
        return path, "it is empty"
    if "\0" in path:
        return path, "it holds a NUL byte"
    if posixpath.isabs(path):
        normal = posixpath.normpath(path)
        for base in dict.fromkeys((os.path.abspath(folder), os.path.realpath(folder))):
            if normal == base or normal.startswith(base.rstrip("/") + "/"):
                return posixpath.relpath(normal, base), None
        return path, "an absolute path outside the folder the check governs"
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../"):
        return path, "it leads outside the folder the check governs"
    return normal, None
