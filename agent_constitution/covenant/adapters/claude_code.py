"""Claude Code: one PreToolUse payload into the input IR (POLYDEUKES §9.1).

`Task` becomes a subagent spawn, every other tool one toolCall with its `tool_input` as args; the
file change an Edit / Write / MultiEdit / NotebookEdit would make is computed from the pre-state on
disk (the virtual post state) and attached as `fileChange`; the actor is `{agentType}` inside a
subagent (top-level `agent_type`) and `{}` in the main session; the session evidence comes from the
transcript JSONL (human messages, tool calls joined with their results) and the subagent sidecar
files beside it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from agent_constitution.covenant.budget import FILE_LIMIT, TRANSCRIPT_LIMIT, Refused, read_regular
from agent_constitution.covenant.adapters.common import (
    NOT_AN_ENVELOPE,
    Refusal,
    apply_edit,
    file_change,
    parse_payload,
    read_pre_state,
    with_mutating,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PREFIX = "adapter-claude-code failed before spawn:"
# The keys this adapter reads from its `adapters.<host>` namespace in the config; any other key
# there is refused (config.py asks each adapter) rather than silently ignored.
SETTINGS: tuple[str, ...] = ("mutatingTools",)
# `adapters.claude-code.mutatingTools` when the config names none: the writers of the reference MCP
# filesystem server under the server name its documentation uses (`mcp__<server>__<tool>`).
MUTATING_DEFAULTS = (
    "mcp__filesystem__write_file",
    "mcp__filesystem__edit_file",
    "mcp__filesystem__move_file",
    "mcp__filesystem__create_directory",
)
TOOLS = {
    "mutating": ["Edit", "Write", "MultiEdit", "NotebookEdit"],
    "shell": ["Bash"],
    "commandArgs": ["command"],
}


def is_envelope(payload: Any) -> bool:
    """A PreToolUse envelope: a string tool_name and an object tool_input (a Task names its kind)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("tool_name"), str):
        return False
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return False
    return payload["tool_name"] != "Task" or isinstance(tool_input.get("subagent_type"), str)


def _multi_edit(pre: str | None, edits: Any) -> str | None:
    if not isinstance(edits, list) or not edits:
        return None
    if pre is None:
        # The real tool creates a file when there is none and the first edit's old_string is empty.
        first = edits[0]
        if not isinstance(first, dict) or first.get("old_string") != "" or not isinstance(first.get("new_string"), str):
            return None
        content, rest = first["new_string"], edits[1:]
    else:
        content, rest = pre, edits
    for edit in rest:
        if not isinstance(edit, dict):
            return None
        content = apply_edit(content, edit)
        if content is None:
            return None
    return content


def _cell_source(cells: list[Any], cell_id: Any) -> str | None:
    if not isinstance(cell_id, str):
        return None
    for cell in cells:
        if isinstance(cell, dict) and cell.get("id") == cell_id:
            source = cell.get("source")
            if isinstance(source, str):
                return source
            if isinstance(source, list) and all(isinstance(s, str) for s in source):
                return "".join(source)
            return None
    return None


def _notebook_change(tool_input: dict[str, Any], base: Path) -> dict[str, Any] | None:
    """Cell-level evidence: path names the notebook, pre/post carry the target cell's source."""
    path, new_source = tool_input.get("notebook_path"), tool_input.get("new_source")
    if not isinstance(path, str) or not isinstance(new_source, str):
        return None
    pre_state = read_pre_state(path, base)
    if pre_state is None:
        return None
    try:
        notebook = json.loads(pre_state)
    except ValueError:
        return None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None
    mode = tool_input.get("edit_mode", "replace")
    if mode == "insert":
        if not isinstance(tool_input.get("cell_type"), str):
            return None
        return {"kind": "modify", "path": path, "pre": "", "post": new_source}
    if mode not in ("replace", "delete"):
        return None
    pre = _cell_source(notebook["cells"], tool_input.get("cell_id"))
    if pre is None:
        return None
    return {"kind": "modify", "path": path, "pre": pre, "post": "" if mode == "delete" else new_source}


def file_change_of(tool_name: str, tool_input: dict[str, Any], base: Path) -> dict[str, Any] | None:
    """The change the call would make, or None when it is not computable (the tool would refuse it)."""
    if tool_name == "NotebookEdit":
        return _notebook_change(tool_input, base)
    if tool_name not in ("Write", "Edit", "MultiEdit"):
        return None
    path = tool_input.get("file_path")
    if not isinstance(path, str):
        return None
    pre = read_pre_state(path, base)
    if tool_name == "Write":
        post = tool_input.get("content")
        post = post if isinstance(post, str) else None
    elif tool_name == "Edit":
        post = None if pre is None else apply_edit(pre, tool_input)
    else:
        post = _multi_edit(pre, tool_input.get("edits"))
    return None if post is None else file_change(path, pre, post)


_ISO = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?(Z|[+-]\d\d:\d\d)?"
)
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


def _timestamp_ms(value: Any) -> int | None:
    """Epoch milliseconds of an ISO 8601 timestamp, or None when it is not one (no offset = UTC)."""
    match = _ISO.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g or 0) for g in match.groups()[:6])
    if not 1 <= month <= 12 or not 1 <= day <= _MONTH_DAYS[month - 1] or hour > 23 or minute > 59 or second > 59:
        return None
    millis = int((match.group(7) or "0").ljust(3, "0")[:3])
    zone = match.group(8)
    offset = 0 if zone in (None, "Z") else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[4:6]))
    minutes = (_days_from_civil(year, month, day) * 24 + hour) * 60 + minute - offset
    return (minutes * 60 + second) * 1000 + millis


# `json.loads` per line spends most of its time in Python-level layers around the C scanner; a
# 2,000-line transcript is read on every hook call, so lines go straight to the scanner.
_SCAN = json.JSONDecoder().scan_once
_JSON_WHITESPACE = " \t\n\r"


def _json_line(line: str) -> Any:
    """`json.loads(line)` (the same values, the same lines refused with ValueError), faster."""
    text = line.strip(_JSON_WHITESPACE)
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        raise ValueError("Expecting value") from None
    if end != len(text):
        raise ValueError("Extra data")
    return value


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
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(
        isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        for block in content
    ):
        return "\n".join(block["text"] for block in content)
    return None


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
    # The lines text-mode reading gives: universal newlines, split on "\n" only (JSON text may
    # carry a raw U+2028, which `str.splitlines` would cut at).
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    messages: list[tuple[bool, dict[str, Any]]] = []
    any_marked = False  # a transcript that marks provenance anywhere is read by its marks alone
    calls: list[tuple[str, dict[str, Any]]] = []
    results: dict[str, bool] = {}
    for line in lines:
        # Every entry this reader keeps is a user entry or carries a tool use; skip the rest
        # unparsed (`userType: "external"` is on every line of a 2.0 transcript, so not that).
        if '"user"' not in line and '"tool_use"' not in line:
            continue
        try:
            entry = _json_line(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        kind = entry.get("type")
        if kind == "user":
            marked = "origin" in entry
            any_marked = any_marked or marked
            # a tool result's list opens with its tool_result block: no person's text there
            first = content[0] if isinstance(content, list) and content else None
            text = _human_text(entry, content) if isinstance(content, str) or (
                isinstance(first, dict) and first.get("type") == "text"
            ) else None
            if text is not None:
                human: dict[str, Any] = {"text": text}
                stamp = _timestamp_ms(entry.get("timestamp"))
                if stamp is not None:
                    human["timestampMs"] = stamp
                messages.append((marked, human))
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    use_id = block.get("tool_use_id")
                    if isinstance(use_id, str) and use_id not in results:
                        results[use_id] = block.get("is_error") in (None, False)
        elif kind == "assistant":
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                    args = block.get("input")
                    call = {"name": block["name"], "args": args if isinstance(args, dict) else {}}
                    calls.append((block.get("id"), call))
    tool_calls = []
    for use_id, call in calls:
        call["succeeded"] = results.get(use_id, False) if isinstance(use_id, str) else False
        tool_calls.append(call)
    return [human for marked, human in messages if marked or not any_marked], tool_calls


def read_sidecar(transcript_path: str) -> str | None:
    """The subagent records beside the transcript as one JSON array text; None when there is no
    channel (a relative transcript path, or no such directory). A refused read raises."""
    if not os.path.isabs(transcript_path):
        return None
    session_id = os.path.basename(transcript_path)
    if session_id.endswith(".jsonl"):
        session_id = session_id[: -len(".jsonl")]
    directory = Path(os.path.dirname(transcript_path)) / session_id / "subagents"
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(directory)
            if entry.is_file() and entry.name.startswith("agent-") and entry.name.endswith(".meta.json")
        )
    except (FileNotFoundError, NotADirectoryError):
        return None
    records = []
    for name in names:
        try:
            text = read_regular(directory / name, FILE_LIMIT, "the subagent record").decode("utf-8")
        except FileNotFoundError:
            continue
        try:
            records.append(json.loads(text))
        except ValueError:
            continue
    return json.dumps(records, ensure_ascii=False, separators=(",", ":"))


def session_of(transcript_path: str) -> dict[str, Any]:
    try:
        messages, calls = read_transcript(transcript_path)
        sidecar = read_sidecar(transcript_path)
    except (OSError, ValueError, Refused) as error:
        raise Refusal(f"the session evidence could not be gathered ({error})") from None
    session: dict[str, Any] = {"evidencePath": transcript_path, "userMessages": messages, "toolCalls": calls}
    if sidecar is not None:
        session["channels"] = {"sidecar": sidecar}
    return session


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not is_envelope(payload):
        raise Refusal(NOT_AN_ENVELOPE)
    tool_name, tool_input = payload["tool_name"], payload["tool_input"]
    base = Path(payload["cwd"]) if isinstance(payload.get("cwd"), str) else root
    agent_type = payload.get("agent_type")
    ir: dict[str, Any] = {"toolCalls": [], "subagentSpawns": [], "userMessages": []}
    if tool_name == "Task":
        ir["subagentSpawns"].append({"kind": tool_input["subagent_type"]})
    else:
        call: dict[str, Any] = {"name": tool_name, "args": tool_input}
        change = file_change_of(tool_name, tool_input, base)
        if change is not None:
            call["fileChange"] = change
        ir["toolCalls"].append(call)
    ir["actor"] = {"agentType": agent_type} if isinstance(agent_type, str) and agent_type else {}
    ir["tools"] = with_mutating(TOOLS, mutating)
    if isinstance(payload.get("transcript_path"), str):
        ir["session"] = session_of(payload["transcript_path"])
    return ir
