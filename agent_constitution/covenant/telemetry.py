"""Telemetry: one tab-separated row per routed registration (POLYDEUKES §7; hot path).

`timestamp  event  label  subject  [fifth]` — the fifth field is a skip reason token on `skipped`
rows and the witnesses (JSON) of a declaration break on the others. Writing is fail-open: a row
that cannot be written never changes a verdict.
"""

from __future__ import annotations

import os
import time

from agent_constitution.covenant import cjson
from agent_constitution.covenant.budget import is_fifo_or_device
from agent_constitution.covenant.record import record
from agent_constitution.covenant.values import js_json

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

EVENTS = ("passed", "blocked", "witnessed", "advised", "skipped", "unattributed")
SKIP_REASONS = ("no-observation", "config-fault", "supply-pass")
DEFAULT_LOG = ".polydeukes/roi.log"
ENV_PATH = "POLYDEUKES_TELEMETRY_PATH"


class Row(record("Row", ["event", "label", "subject", "fifth"], defaults=[None])):
    """One row; `fifth` is a skip reason token, witnesses as JSON text, or None (four fields)."""

    __slots__ = ()


def log_path(root: str | Path, configured: str | None) -> str | Path:
    """Env `POLYDEUKES_TELEMETRY_PATH` > config `telemetry.logPath` > `.polydeukes/roi.log`, joined
    to `root` as `root / name` joins (an absolute name stands alone), in the type of `root`: the
    hook passes a str (importing `pathlib` costs it ~8 ms), a library caller may pass a Path."""
    override = os.environ.get(ENV_PATH)
    name = override if override else (configured.strip() if configured else DEFAULT_LOG)
    return type(root)(os.path.join(root, name))


def timestamp(now: float | None = None) -> str:
    """ISO-8601 UTC with milliseconds, as JavaScript's toISOString."""
    now = time.time() if now is None else now
    millis = int(now * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(millis // 1000)) + f".{millis % 1000:03d}Z"


def witnesses_text(witnesses: list[dict[str, Any]] | None) -> str | None:
    """The fifth field of a break; None (a four-field row) when it cannot be serialised."""
    if witnesses is None:
        return None
    try:
        return js_json(witnesses)
    except (TypeError, ValueError, RecursionError):
        return None


def format_row(row: Row, now: float | None = None) -> str:
    fields = [timestamp(now), row.event, row.label, row.subject]
    if row.fifth is not None:
        fields.append(row.fifth)
    return "\t".join(f.replace("\t", " ").replace("\r", " ").replace("\n", " ") for f in fields) + "\n"


def append(path: str | Path, rows: list[Row]) -> None:
    """Append rows, one write each; any failure is swallowed (fail-open)."""
    if not rows:
        return
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        if is_fifo_or_device(path):  # opening a FIFO to write blocks until someone reads it
            return
        with open(path, "a", encoding="utf-8") as handle:
            for row in rows:
                handle.write(format_row(row))
                handle.flush()
    except (OSError, ValueError):
        pass


def parse_line(line: str) -> tuple[str, Row] | None:
    """(timestamp, row) of one log line, or None when the line is corrupt (§7.1 reader rules)."""
    fields = line.rstrip("\n").split("\t")
    if len(fields) not in (4, 5):
        return None
    stamp, event, label, subject = fields[:4]
    event = "witnessed" if event == "bypassed" else event
    if event not in EVENTS:
        return None
    fifth = fields[4] if len(fields) == 5 else None
    if fifth is not None:
        if event == "skipped":
            if fifth not in SKIP_REASONS:
                return None
        else:
            try:
                if not isinstance(cjson.loads(fifth), list):
                    return None
            except ValueError:
                return None
    return stamp, Row(event, label, subject, fifth)
