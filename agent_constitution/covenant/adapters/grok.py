"""Grok: its write / search_replace / run_terminal_command envelopes into the input IR (§9.3).

Grok carries no session and no actor: declarations reading the transcript see an absent source (so
`supply: { session: 'pass' }` records `skipped` with `supply-pass`), and the witness valve never opens.
"""

from __future__ import annotations


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

PREFIX = "adapter-grok failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()  # `mutatingTools` when the config names none
TOOLS = {"mutating": ["write", "search_replace"], "shell": ["run_terminal_command"], "commandArgs": ["command"]}


def _envelope(payload: Any) -> tuple[str, dict[str, Any]]:
    """(tool name, tool input) from the camelCase keys, or the snake_case ones."""
    if isinstance(payload, dict):
        for name_key, input_key in (("toolName", "toolInput"), ("tool_name", "tool_input")):
            name, tool_input = payload.get(name_key), payload.get(input_key)
            if isinstance(name, str) and isinstance(tool_input, dict):
                return name, tool_input
    raise Refusal(NOT_AN_ENVELOPE)


def is_envelope(payload: Any) -> bool:
    """A Grok payload, by its shape: the camelCase keys, or one of Grok's lower-case tool names
    (Claude Code's tools are capitalised, its MCP tools start `mcp__`). Grok also runs the hooks of
    `.claude/settings.json`, so `pdks hook claude-code` hands such a payload to this adapter."""
    if not isinstance(payload, dict):
        return False
    if isinstance(payload.get("toolName"), str):
        return True
    name = payload.get("tool_name")
    return isinstance(name, str) and name[:1].islower() and not name.startswith("mcp__")


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    name, tool_input = _envelope(parse_payload(raw))
    call: dict[str, Any] = {"name": name, "args": tool_input}
    path = tool_input.get("file_path")
    if name in ("write", "search_replace") and isinstance(path, str):
        pre = read_pre_state(path, root)
        if name == "write":
            post = tool_input.get("content") if isinstance(tool_input.get("content"), str) else None
        else:
            post = None if pre is None else apply_edit(pre, tool_input)
        if post is not None:
            call["fileChange"] = file_change(path, pre, post)
    return {"toolCalls": [call], "subagentSpawns": [], "userMessages": [], "tools": with_mutating(TOOLS, mutating)}
