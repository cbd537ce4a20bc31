"""The payload adapter of the tests' fake host: `{"tool": "write", "path": …, "content": …}`.

An adapter module is what a new host adds beside its record in the host table: PREFIX, the default
mutating tools, and `translate(raw, root, mutating)` into the judge's input IR.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_constitution.covenant.adapters.common import NOT_AN_ENVELOPE, Refusal, ir_of, parse_payload, tool_call
from agent_constitution.covenant.adapters.common import FileTool

PREFIX = "adapter-fake failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()
TOOLS: dict[str, list[str]] = {"mutating": ["write"], "shell": [], "commandArgs": []}
FILE_TOOLS = {"write": FileTool("write", ("path",), ("content",))}


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not isinstance(payload, dict) or not isinstance(payload.get("tool"), str):
        raise Refusal(NOT_AN_ENVELOPE)
    arguments = {key: value for key, value in payload.items() if key != "tool"}
    return ir_of([tool_call(payload["tool"], arguments, root, FILE_TOOLS)], TOOLS, mutating)
