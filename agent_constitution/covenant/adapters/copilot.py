"""GitHub Copilot (CLI and cloud agent): a `preToolUse` payload into the input IR.

The payload (GitHub's hooks reference for `.github/hooks/*.json`) is camelCase: `timestamp`,
`cwd`, `toolName`, `toolArgs` (the arguments as a JSON string; an object is read too). `create`
(`path`, `file_text`) and `edit` (`path`, `old_str`, `new_str`: exactly one occurrence) become one
toolCall with the change they would make; `bash` (`command`) one call the shell covenants read;
any other tool, one call with its arguments. The VS Code-compatible form (PascalCase
`PreToolUse`, snake_case `tool_name` / `tool_input`) is read too. No session: Copilot proves no
message human.

Answer: only the JSON answer is documented as blocking, so a blocked call gets
`{"permissionDecision": "deny", "permissionDecisionReason": …}` on stdout and exit 0; a call let
through gets no output (no decision: Copilot's own permission flow stays in charge).
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

PREFIX = "adapter-copilot failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()
TOOLS = {"mutating": ["create", "edit"], "shell": ["bash"], "commandArgs": ["command"]}
FILE_TOOLS = {
    "create": FileTool("write", ("path",), ("file_text",)),
    "edit": FileTool("edit", ("path",), ("new_str",), ("old_str",)),
}


def deny(reason: str) -> str:
    return json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason}, ensure_ascii=False)


ANSWER = Answer(block_exit=0, deny=deny)


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise Refusal(f"the payload toolArgs is not JSON ({error})") from None
    if not isinstance(value, dict):
        raise Refusal("the payload toolArgs is not an object")
    return value


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not isinstance(payload, dict):
        raise Refusal(NOT_AN_ENVELOPE)
    if isinstance(payload.get("toolName"), str) and "toolArgs" in payload:
        name, arguments = payload["toolName"], _arguments(payload["toolArgs"])
    elif isinstance(payload.get("tool_name"), str) and isinstance(payload.get("tool_input"), dict):
        name, arguments = payload["tool_name"], payload["tool_input"]
    else:
        raise Refusal(NOT_AN_ENVELOPE)
    base = Path(payload["cwd"]) if isinstance(payload.get("cwd"), str) else root
    return ir_of([tool_call(name, arguments, base, FILE_TOOLS)], TOOLS, mutating)
