"""Kiro CLI: a `PreToolUse` hook payload into the input IR.

The payload (https://kiro.dev/docs/cli/hooks) is `hook_event_name`, `cwd`, `tool_name` and
`tool_input` ("tool-specific parameters"); Kiro CLI 3 runs the hooks of `.kiro/hooks/*.json` with
the same context on stdin (https://kiro.dev/docs/cli/v3/hooks/; its trigger is `PreToolUse`, the
older agent-file event `preToolUse`: both are read). The one tool name the hook documentation gives
is `fs_write`; the names of `fs_write`'s arguments and of the shell tool are not established from
it, so no file change is computed: every call is judged on its name and arguments (a protected
path its arguments name). No session: Kiro proves no message human.

Answer: exit 2 blocks, stderr goes to the model (the default answer).
"""

from __future__ import annotations

from pathlib import Path

from agent_constitution.covenant.adapters.common import NOT_AN_ENVELOPE, Refusal, ir_of, parse_payload

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PREFIX = "adapter-kiro failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()
TOOLS: dict[str, list[str]] = {"mutating": ["fs_write"], "shell": [], "commandArgs": []}


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not isinstance(payload, dict) or not isinstance(payload.get("tool_name"), str) or not isinstance(
        payload.get("tool_input"), dict
    ):
        raise Refusal(NOT_AN_ENVELOPE)
    event = payload.get("hook_event_name", "PreToolUse")
    if event not in ("PreToolUse", "preToolUse"):
        raise Refusal(f"the payload is a {event} event, not PreToolUse")
    return ir_of([{"name": payload["tool_name"], "args": payload["tool_input"]}], TOOLS, mutating)
