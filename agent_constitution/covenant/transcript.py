"""Session transcripts: the one reader of a JSONL transcript, shared by the hook adapters and the checks.

`json_line` reads one line as `json.loads` does (the same values, the same errors), faster
(cjson.py): a 2,000-line transcript is read on every hook call that needs it. `read_transcript`
is the Claude Code session evidence (human messages, tool calls joined with their results; POLYDEUKES §9.1),
`read_sidecar` the subagent records beside it, and `Session` is the IR's `session` with that
evidence read only when the judge first asks for it: a call nothing blocks never reads the
transcript (the witness valve and transcript sources are the only readers of its messages).
Standard library only (hot path).
"""

from __future__ import annotations

import os
import stat

from agent_constitution.covenant import cjson
from agent_constitution.covenant.budget import FILE_LIMIT, TRANSCRIPT_LIMIT, Refused, read_regular, size_text
from agent_constitution.covenant.patterns import fixed

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

_ISO = fixed(r"(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?(Z|[+-]\d\d:\d\d)?")
_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (the transcript's ISO timestamps).

    Hand-rolled because importing `datetime` costs more than the rest of the transcript reading."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def timestamp_ms(value: Any) -> int | None:
    """Epoch milliseconds of an ISO 8601 timestamp, or None when it is not one (no offset = UTC)."""
    match = _ISO.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g or 0) for g in match.groups()[:6])
    if not _valid(month, day, hour, minute, second):
        return None
    millis = int((match.group(7) or "0").ljust(3, "0")[:3])
    minutes = (_days_from_civil(year, month, day) * 24 + hour) * 60 + minute - _offset_minutes(match.group(8))
    return (minutes * 60 + second) * 1000 + millis


def _valid(month: int, day: int, hour: int, minute: int, second: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= _MONTH_DAYS[month - 1] and hour <= 23 and minute <= 59 and second <= 59


def _offset_minutes(zone: str | None) -> int:
    """Minutes east of UTC of a `+hh:mm`/`-hh:mm` zone; 0 for `Z` or none."""
    if zone in (None, "Z"):
        return 0
    return (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[4:6]))


# `json.loads` per line spends most of its time in Python-level layers around the C scanner, so
# lines go straight to the scanner, raising what `json.loads` raises where it raises.
json_line = cjson.loads


def lines_of(text: str) -> list[str]:
    """The lines text-mode reading gives: universal newlines, split on "\n" only (JSON text may
    carry a raw U+2028, which `str.splitlines` would cut at)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


# Flags Claude Code sets on `user` entries it wrote itself (caveats and skill text, compaction
# summaries, a subagent's prompt, a tool's result, replayed or synthetic input).
_NOT_TYPED = ("isMeta", "isCompactSummary", "isSidechain", "isSynthetic", "isReplay", "isVisibleInTranscriptOnly")
_TOOL_OUTPUT = ("toolUseResult", "sourceToolAssistantUUID")


def _human_text(entry: dict[str, Any], content: Any) -> str | None:
    """The text a person typed, or None.

    Claude Code 2.1 marks provenance per entry (`origin: {kind: 'human'}`; other kinds such as
    `peer` are not a person). Earlier versions write no `origin`: every entry carries the session's
    `userType: 'external'`, so there a person's message is a `user` entry with that marker, a
    string content (or text blocks only) and none of the flags Claude Code puts on text it wrote.
    """
    if "origin" in entry:
        origin = entry["origin"]
        human = isinstance(origin, dict) and origin.get("kind") == "human" and isinstance(content, str)
        return content if human else None
    if entry.get("userType") != "external" or any(entry.get(flag) for flag in _NOT_TYPED):
        return None
    if any(key in entry for key in _TOOL_OUTPUT):
        return None
    return _text_of(content)


def _text_of(content: Any) -> str | None:
    """A string content, or the lines of a content of text blocks only; else None."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(_text_block(block) for block in content):
        return "\n".join(block["text"] for block in content)
    return None


def _text_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


def read_transcript(path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Human messages and tool calls from a transcript JSONL; unreadable means both empty.

    A human message is what `_human_text` accepts; a tool call is a `tool_use` block of an
    `assistant` entry, `succeeded` when a `tool_result` for its id exists with `is_error` absent or
    false (the first result wins).
    """
    try:  # a FIFO or device raises Refused, and the hook blocks: opening one could hang it
        text = read_regular(path, TRANSCRIPT_LIMIT, "the transcript").decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return [], []
    reading = _Reading()
    for line in lines_of(text):
        # Every entry this reader keeps is a user entry or carries a tool use; skip the rest
        # unparsed (`userType: "external"` is on every line of a 2.0 transcript, so not that).
        if '"user"' not in line and '"tool_use"' not in line:
            continue
        try:
            entry = json_line(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            reading.entry(entry)
    return reading.evidence()


class _Reading:
    """What a transcript has said so far: human messages (each with whether its entry marks
    provenance), tool calls with their ids, and per tool-use id whether its first result succeeded."""

    __slots__ = ("messages", "any_marked", "calls", "results")

    def __init__(self) -> None:
        self.messages: list[tuple[bool, dict[str, Any]]] = []
        self.any_marked = False  # a transcript that marks provenance anywhere is read by its marks alone
        self.calls: list[tuple[Any, dict[str, Any]]] = []
        self.results: dict[str, bool] = {}

    def entry(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        kind = entry.get("type")
        if kind == "user":
            self.user(entry, content)
        elif kind == "assistant" and isinstance(content, list):
            self.tool_uses(content)

    def user(self, entry: dict[str, Any], content: Any) -> None:
        marked = "origin" in entry
        self.any_marked = self.any_marked or marked
        # a tool result's list opens with its tool_result block: no person's text there
        first = content[0] if isinstance(content, list) and content else None
        if isinstance(content, str) or (isinstance(first, dict) and first.get("type") == "text"):
            self.human(marked, entry, content)
        if isinstance(content, list):
            self.tool_results(content)

    def human(self, marked: bool, entry: dict[str, Any], content: Any) -> None:
        text = _human_text(entry, content)
        if text is None:
            return
        human: dict[str, Any] = {"text": text}
        stamp = timestamp_ms(entry.get("timestamp"))
        if stamp is not None:
            human["timestampMs"] = stamp
        self.messages.append((marked, human))

    def tool_results(self, content: list[Any]) -> None:
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                use_id = block.get("tool_use_id")
                if isinstance(use_id, str) and use_id not in self.results:
                    self.results[use_id] = block.get("is_error") in (None, False)

    def tool_uses(self, content: list[Any]) -> None:
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                args = block.get("input")
                self.calls.append((block.get("id"), {"name": block["name"], "args": args if isinstance(args, dict) else {}}))

    def evidence(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(human messages, tool calls), each call `succeeded` or not by its result."""
        tool_calls = []
        for use_id, call in self.calls:
            call["succeeded"] = self.results.get(use_id, False) if isinstance(use_id, str) else False
            tool_calls.append(call)
        return [human for marked, human in self.messages if marked or not self.any_marked], tool_calls


def read_sidecar(transcript_path: str) -> str | None:
    """The subagent records beside the transcript as one JSON array text; None when there is no
    channel (a relative transcript path, or no such directory). A refused read raises."""
    if not os.path.isabs(transcript_path):
        return None
    session_id = os.path.basename(transcript_path).removesuffix(".jsonl")
    directory = os.path.join(os.path.dirname(transcript_path), session_id, "subagents")
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if _subagent_record(entry))
    except (FileNotFoundError, NotADirectoryError):
        return None
    records = []
    for name in names:
        try:
            text = read_regular(os.path.join(directory, name), FILE_LIMIT, "the subagent record").decode("utf-8")
        except FileNotFoundError:
            continue
        try:
            records.append(cjson.loads(text))
        except ValueError:
            continue
    return cjson.dumps(records, ensure_ascii=False, separators=(",", ":"))


def _subagent_record(entry: os.DirEntry[str]) -> bool:
    return entry.is_file() and entry.name.startswith("agent-") and entry.name.endswith(".meta.json")


def check_readable(path: str) -> None:
    """Refused when the transcript exists but is not a regular file or is over its limit: what
    reading it would refuse, found without reading it. Absent or unreadable is no refusal (it
    reads as empty)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"the transcript {path} is not a regular file")
    if info.st_size > TRANSCRIPT_LIMIT:
        raise Refused(f"the transcript {path} is {info.st_size} bytes, over the {size_text(TRANSCRIPT_LIMIT)} limit")


EVIDENCE = ("userMessages", "toolCalls")


class Session(dict):
    """The IR `session` of a transcript whose messages and tool calls are read on first use.

    `evidencePath` and the sidecar channel are there from the start; `userMessages` and `toolCalls`
    appear when the judge first reads either (through `[]`, `get` or `in`). The adapter built
    both lists itself, so the IR check has nothing to check in them (`deferred`)."""

    deferred = True

    def __init__(self, path: str, sidecar: str | None) -> None:
        super().__init__(evidencePath=path)
        if sidecar is not None:
            self["channels"] = {"sidecar": sidecar}

    def _load(self) -> None:
        messages, calls = read_transcript(dict.__getitem__(self, "evidencePath"))
        dict.__setitem__(self, "userMessages", messages)
        dict.__setitem__(self, "toolCalls", calls)

    def __getitem__(self, key: str) -> Any:
        if key in EVIDENCE and not dict.__contains__(self, key):
            self._load()
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in EVIDENCE and not dict.__contains__(self, key):
            self._load()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        return key in EVIDENCE or dict.__contains__(self, key)

    def loaded(self) -> dict[str, Any]:
        """A plain dict of the whole session (read now if it was not yet)."""
        self.get("userMessages")
        return dict(self)
