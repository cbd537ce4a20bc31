"""Cursor: `preToolUse` and `beforeShellExecution` payloads into the input IR.

Every Cursor hook payload carries `hook_event_name`, `conversation_id`, `generation_id` and
`workspace_roots` (https://cursor.com/docs/agent/hooks). `beforeShellExecution` adds `command` and
`cwd`: one call of the shell tool `Shell`. `preToolUse` adds `tool_name`, `tool_input` and `cwd`:
`Write` (`file_path`, `contents` or `content`), `StrReplace` / `Edit` (`file_path` or `path`,
`old_string`, `new_string`, `replace_all`) and `Delete` (`file_path` or `path`) become one toolCall
with the change they would make; any other tool, one call with its arguments (the path covenants
still read them). Cursor's argument names are taken from its documentation's examples and from
secondary references; a tool whose arguments do not compute a change is judged on its arguments
alone. No session: Cursor proves no message human.

Answer: JSON `permission: "deny"` with `user_message` / `agent_message`, and exit 2 (either blocks);
a call let through gets `{}`: with `failClosed` an empty answer would block.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_constitution.covenant.adapters.common import (
    NOT_AN_ENVELOPE,
    Answer,
    FileTool,
    Refusal,
    ir_of,
    parse_payload,
    tool_call,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PREFIX = "adapter-cursor failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()
SHELL = "Shell"
TOOLS = {"mutating": ["Write", "StrReplace", "Edit", "MultiEdit", "Delete"], "shell": [SHELL], "commandArgs": ["command"]}
_PATH = ("file_path", "path")
_EDIT = FileTool("edit", _PATH, ("new_string",), ("old_string",), every="replace_all")
FILE_TOOLS = {
    "Write": FileTool("write", _PATH, ("contents", "content")),
    "StrReplace": _EDIT,
    "Edit": _EDIT,
    "Delete": FileTool("delete", _PATH),
}


def deny(reason: str) -> str:
    return json.dumps({"permission": "deny", "user_message": reason, "agent_message": reason}, ensure_ascii=False)


ANSWER = Answer(deny=deny, allow="{}")


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not isinstance(payload, dict):
        raise Refusal(NOT_AN_ENVELOPE)
    event = payload.get("hook_event_name")
    base = Path(payload["cwd"]) if isinstance(payload.get("cwd"), str) else root
    if event == "beforeShellExecution":
        if not isinstance(payload.get("command"), str):
            raise Refusal("the payload command is not a string")
        call = {"name": SHELL, "args": {"command": payload["command"]}}
    elif event == "preToolUse":
        if not isinstance(payload.get("tool_name"), str) or not isinstance(payload.get("tool_input"), dict):
            raise Refusal(NOT_AN_ENVELOPE)
        call = tool_call(payload["tool_name"], payload["tool_input"], base, FILE_TOOLS)
    else:
        shown = json.dumps(event) if not isinstance(event, str) else event
        raise Refusal(f"the payload is a {shown} event, not preToolUse or beforeShellExecution")
    return ir_of([call], TOOLS, mutating)
