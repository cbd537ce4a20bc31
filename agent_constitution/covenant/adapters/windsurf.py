"""Windsurf: a Cascade pre-hook payload into the input IR.

The payload (https://docs.windsurf.com/windsurf/cascade/hooks) carries `agent_action_name`,
`trajectory_id`, `execution_id`, `timestamp` and `tool_info`. `pre_write_code` (`file_path`,
`edits`: `old_string` → `new_string` pairs) becomes one call of `write_code` with the change the
edits make, computed from the file on disk: each edit's `old_string` must occur exactly once (or,
for a file that does not exist, a single edit with an empty `old_string` creates it). How Cascade
applies an edit whose text occurs more than once is not documented, so such a call carries no
change and is judged on its path. `pre_run_command` (`command_line`, `cwd`) becomes one call of the
shell tool `run_command`; `pre_mcp_tool_use` one call of `mcp__<server>__<tool>` with
`mcp_tool_arguments`. `pre_read_code` is not registered (reading changes nothing the judge reads).
No session: Windsurf proves no message human.

Answer: exit 2 blocks, stderr reaches the Cascade agent (the default answer).
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_constitution.covenant.adapters.common import (
    NOT_AN_ENVELOPE,
    Refusal,
    file_change,
    ir_of,
    parse_payload,
    read_pre_state,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PREFIX = "adapter-windsurf failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()
WRITE, SHELL = "write_code", "run_command"
TOOLS = {"mutating": [WRITE], "shell": [SHELL], "commandArgs": ["command_line"]}
EVENTS = ("pre_write_code", "pre_run_command", "pre_mcp_tool_use")


def edited(pre: str | None, edits: Any) -> str | None:
    """The file after `edits`, or None when the edits do not say it unambiguously."""
    if not isinstance(edits, list) or not edits:
        return None
    if not all(isinstance(e, dict) and isinstance(e.get("old_string"), str) and isinstance(e.get("new_string"), str)
               for e in edits):
        return None
    if pre is None:
        return edits[0]["new_string"] if len(edits) == 1 and edits[0]["old_string"] == "" else None
    content = pre
    for edit in edits:
        old = edit["old_string"]
        if old == "" or content.count(old) != 1:
            return None
        content = content.replace(old, edit["new_string"], 1)
    return content


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not isinstance(payload, dict) or not isinstance(payload.get("tool_info"), dict):
        raise Refusal(NOT_AN_ENVELOPE)
    event, info = payload.get("agent_action_name"), payload["tool_info"]
    if event == "pre_write_code":
        path = info.get("file_path")
        if not isinstance(path, str) or not path:
            raise Refusal("the payload tool_info.file_path is not a string")
        call: dict[str, Any] = {"name": WRITE, "args": info}
        pre = read_pre_state(path, root)
        post = edited(pre, info.get("edits"))
        if post is not None:
            call["fileChange"] = file_change(path, pre, post)
    elif event == "pre_run_command":
        if not isinstance(info.get("command_line"), str):
            raise Refusal("the payload tool_info.command_line is not a string")
        call = {"name": SHELL, "args": info}
    elif event == "pre_mcp_tool_use":
        server, tool = info.get("mcp_server_name"), info.get("mcp_tool_name")
        if not isinstance(server, str) or not isinstance(tool, str):
            raise Refusal("the payload tool_info names no MCP server and tool")
        arguments = info.get("mcp_tool_arguments", {})
        call = {"name": f"mcp__{server}__{tool}", "args": arguments if isinstance(arguments, dict) else {}}
    else:
        shown = json.dumps(event) if not isinstance(event, str) else event
        raise Refusal(f"the payload is a {shown} event, not one of {', '.join(EVENTS)}")
    return ir_of([call], TOOLS, mutating)
