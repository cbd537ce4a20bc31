"""Claude Code: one PreToolUse payload into the input IR (POLYDEUKES §9.1).

`Task` becomes a subagent spawn, every other tool one toolCall with its `tool_input` as args; the
file change an Edit / Write / MultiEdit / NotebookEdit would make is computed from the pre-state on
disk (the virtual post state) and attached as `fileChange`; the actor is `{agentType}` inside a
subagent (top-level `agent_type`) and `{}` in the main session; the session evidence comes from the
transcript JSONL (human messages, tool calls joined with their results) and the subagent sidecar
files beside it (`covenant/transcript.py`).
"""

from __future__ import annotations

from agent_constitution.covenant import cjson, transcript
from agent_constitution.covenant.budget import Refused
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
    from pathlib import Path
    from typing import Any

PREFIX = "adapter-claude-code failed before spawn:"
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


def _notebook_change(tool_input: dict[str, Any], base: str | Path) -> dict[str, Any] | None:
    """Cell-level evidence: path names the notebook, pre/post carry the target cell's source."""
    path, new_source = tool_input.get("notebook_path"), tool_input.get("new_source")
    if not isinstance(path, str) or not isinstance(new_source, str):
        return None
    pre_state = read_pre_state(path, base)
    if pre_state is None:
        return None
    try:
        notebook = cjson.loads(pre_state)
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


def file_change_of(tool_name: str, tool_input: dict[str, Any], base: str | Path) -> dict[str, Any] | None:
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


def session_of(transcript_path: str, *, deferred: bool = False) -> dict[str, Any]:
    """The IR session of a transcript; `deferred`: its messages read only when the judge asks."""
    try:
        if deferred:
            transcript.check_readable(transcript_path)
            return transcript.Session(transcript_path, transcript.read_sidecar(transcript_path))
        messages, calls = transcript.read_transcript(transcript_path)
        sidecar = transcript.read_sidecar(transcript_path)
    except (OSError, ValueError, Refused) as error:
        raise Refusal(f"the session evidence could not be gathered ({error})") from None
    session: dict[str, Any] = {"evidencePath": transcript_path, "userMessages": messages, "toolCalls": calls}
    if sidecar is not None:
        session["channels"] = {"sidecar": sidecar}
    return session


def translate(raw: str, root: str | Path, mutating: tuple[str, ...] = (), *, deferred: bool = False) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not is_envelope(payload):
        raise Refusal(NOT_AN_ENVELOPE)
    tool_name, tool_input = payload["tool_name"], payload["tool_input"]
    base = payload["cwd"] if isinstance(payload.get("cwd"), str) else root
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
        ir["session"] = session_of(payload["transcript_path"], deferred=deferred)
    return ir
