"""The protected files' digests, compared after the fact (§7.5; issue 37, part 6).

A write the judge could not see (a script, a command it cannot see through, an edit made outside
the agent) still changes a protected file's bytes. Every session-surface run, with or without a
session, compares the stored digests of the protected entries with the tree before it judges: an
entry that changed with no `witnessed` or `advised` row naming it since the last run gets a
`blocked baseline <entry>` row, a line on stderr, and blocks the call; a corrupt record blocks the
same way. At the end the record is rewritten, so one change is reported once. A missing record is
the first call's: it is written, and (with a session, as upstream) one `unattributed baseline
<file>` row names it. The Stop hook makes the same comparison (`stop_lines`), for the last call of
a turn, which no later hook call follows. Hot path: standard library only.
"""

from __future__ import annotations

import os

from agent_constitution.covenant import cjson
from agent_constitution.covenant.budget import FILE_LIMIT, Refused, is_fifo_or_device, read_regular
from agent_constitution.covenant.plan import PlanError, load_plan, sha256
from agent_constitution.covenant.telemetry import Row, append, log_path, parse_line, timestamp
from agent_constitution.fsio import write_atomic

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from pathlib import Path

STATE_DIR = ".polydeukes"  # the judge's own state: protected, but changed by every run, so not digested
BASELINE = STATE_DIR + "/baseline.json"
LABEL = "baseline"
ABSENT = b"\0absent"
ATTRIBUTING = ("witnessed", "bypassed", "advised")  # `bypassed` is read as `witnessed`


def entry_digest(root: str | Path, entry: str) -> str:
    """sha256 over (root-relative path, bytes) of the entry's file or of every file beneath it."""
    hasher = sha256()
    top = os.path.join(root, entry)
    base = os.path.normpath(os.fspath(root))
    if os.path.isdir(top):
        files = []
        for folder, dirs, names in os.walk(top):
            dirs.sort()
            files += [os.path.join(folder, name) for name in sorted(names)]
    else:
        files = [top] if os.path.exists(top) else []
    # The root-relative POSIX name, as `Path.relative_to(root).as_posix()` gives it.
    named = sorted((_relative(path, base), path) for path in files)
    for name, path in named:
        hasher.update(name.encode() + b"\0")
        try:
            hasher.update(read_regular(path, FILE_LIMIT))
        except OSError:
            hasher.update(ABSENT)
        except Refused:  # a FIFO or device is never opened; a huge file stands by its size and time
            info = os.stat(path)
            hasher.update(f"\0unread {info.st_mode} {info.st_size} {info.st_mtime_ns}".encode())
    return hasher.hexdigest()


def _relative(path: str, base: str) -> str:
    """The root-relative POSIX name of `path`, as `Path.relative_to(root).as_posix()` gives it (a
    ValueError for a path outside the root)."""
    name = os.path.relpath(path, base).replace(os.sep, "/")
    if name == ".." or name.startswith("../"):
        raise ValueError(f"{path} is not in the subpath of {base}")
    return name


def digests(root: str | Path, protected: list[str]) -> dict[str, str]:
    """The digest of every protected entry now (nothing a pre-tool-call judgment changes)."""
    return {entry: entry_digest(root, entry) for entry in protected}


REPORT = (
    "protected path {entry} changed since the judge last looked, and no judged call wrote it: a write"
    " the judge did not see (a script, a command it cannot see through, or an edit outside the agent);"
    " check it (git diff -- {entry}). Reported once: the record now holds the new state"
)
CORRUPT = (
    "the judge's record of the protected files ({path}) is unreadable, so a change to them cannot be"
    " ruled out; it is written anew"
)


class Drift:
    """What the comparison found: telemetry `rows`, stderr `lines`, and whether the call `blocks`."""

    __slots__ = ("rows", "lines", "blocks")

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.lines: list[str] = []
        self.blocks = False


def compare(root: str | Path, current: dict[str, str], log: str | Path, session: bool = True) -> Drift:
    """The comparison of this run's start: the stored digests against `current`."""
    drift = Drift()
    path = os.path.join(root, BASELINE)
    try:
        stored = cjson.loads(read_regular(path, FILE_LIMIT).decode("utf-8"))
        entries, cut_at = stored["entries"], stored["cutAt"]
        if not isinstance(entries, dict) or not isinstance(cut_at, str):
            raise ValueError("corrupt baseline")
    except FileNotFoundError:
        if session:
            drift.rows.append(Row("unattributed", LABEL, str(path)))
        return drift
    except (OSError, ValueError, KeyError, TypeError, Refused):
        drift.rows.append(Row("blocked", LABEL, str(path)))
        drift.lines.append(CORRUPT.format(path=path))
        drift.blocks = True
        return drift
    changed = [entry for entry, digest in current.items() if entry in entries and entries[entry] != digest]
    if not changed:  # the common case: no need to read the log back
        return drift
    attributed = _attributed_since(log, cut_at)
    for entry in changed:
        if entry not in attributed:
            drift.rows.append(Row("blocked", LABEL, entry))
            drift.lines.append(REPORT.format(entry=entry))
            drift.blocks = True
    return drift


def stop_lines(root: str | Path) -> list[str]:
    """The Stop hook's comparison in `root`: the report lines of protected files changed since the
    last judged call (empty without a covenant config, or with one the judge cannot load: every
    hook call fails closed on that already). Records the digests, as a hook call does."""
    try:
        plan = load_plan(root)
    except (PlanError, OSError):
        return []
    log = log_path(root, plan["logPath"])
    current = digests(root, [p for p in plan["protected"] if p != STATE_DIR])
    drift = compare(root, current, log, session=False)
    append(log, drift.rows)
    update(root, current)
    return drift.lines


def _attributed_since(log: str | Path, cut_at: str) -> set[str]:
    """Subjects of the `witnessed` / `advised` rows at or after `cut_at`; nothing when the log is
    unreadable. The log grows by a row per judgment, so it is streamed, and only rows whose
    timestamp and event already qualify are parsed."""
    subjects: set[str] = set()
    if is_fifo_or_device(log):
        return subjects
    try:
        with open(log, encoding="utf-8") as handle:
            for chunk in handle:
                for line in chunk.splitlines():  # the same lines as `read_text().splitlines()`
                    fields = line.split("\t", 2)  # a row has four or five fields
                    if len(fields) < 3 or fields[0] < cut_at or fields[1] not in ATTRIBUTING:
                        continue
                    parsed = parse_line(line)
                    if parsed is not None:
                        subjects.add(parsed[1].subject)
    except (OSError, UnicodeDecodeError):
        return set()
    return subjects


def update(root: str | Path, current: dict[str, str]) -> None:
    """Store the digests and the cut (one line of JSON: `json`'s indented form is pure Python, the
    compact one is C); a failure is swallowed."""
    try:
        write_atomic(os.path.join(root, BASELINE), cjson.dumps({"entries": current, "cutAt": timestamp()}) + "\n")
    except OSError:
        pass
