"""Gemini CLI: a `BeforeTool` payload into the input IR.

The payload (Gemini CLI `docs/hooks/reference.md`) carries `hook_event_name`, `session_id`,
`transcript_path`, `cwd`, `timestamp`, `tool_name` and `tool_input`. `write_file` (`file_path`,
`content`) and `replace` (`file_path`, `old_string`, `new_string`, `expected_replacements`, default
1: the tool fails unless exactly that many occurrences are found, and replaces them all) become one
toolCall with the change they would make; `run_shell_command` (`command`) one call the shell
covenants read. Gemini CLI's transcript is not read: its format proves no message human, so the IR
carries no session (like Codex and Grok: the witness valve never opens, transcript sources are
absent).

Answer: exit 2 blocks with stderr as the reason; stdout must hold JSON only, so a call let through
gets `{}` (no decision: Gemini CLI's own confirmation stays in charge).
"""

from __future__ import annotations

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

PREFIX = "adapter-gemini-cli failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()
TOOLS = {"mutating": ["write_file", "replace"], "shell": ["run_shell_command"], "commandArgs": ["command"]}
FILE_TOOLS = {
    "write_file": FileTool("write", ("file_path",), ("content",)),
    "replace": FileTool("edit", ("file_path",), ("new_string",), ("old_string",), count="expected_replacements"),
}
ANSWER = Answer(allow="{}")


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not isinstance(payload, dict) or not isinstance(payload.get("tool_name"), str) or not isinstance(
        payload.get("tool_input"), dict
    ):
        raise Refusal(NOT_AN_ENVELOPE)
    event = payload.get("hook_event_name", "BeforeTool")
    if event != "BeforeTool":
        raise Refusal(f"the payload is a {event} event, not BeforeTool")
    base = Path(payload["cwd"]) if isinstance(payload.get("cwd"), str) else root
    return ir_of([tool_call(payload["tool_name"], payload["tool_input"], base, FILE_TOOLS)], TOOLS, mutating)
