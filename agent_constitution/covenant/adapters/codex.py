"""Codex: `apply_patch` and `Bash` PreToolUse payloads into the input IR (§9.2).

A V4A patch (`*** Begin Patch` … `*** End Patch`) becomes one toolCall per file it touches, each
with the change it would make computed against the file on disk; `Bash` becomes one call with its
command. Paths resolve against the payload's `cwd` and must stay inside the project. Codex carries no
session and no actor in this IR.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_constitution.covenant.adapters.common import (
    NOT_AN_ENVELOPE,
    Refusal,
    file_change,
    parse_payload,
    read_pre_state,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PREFIX = "adapter-codex failed before spawn:"
# The keys this adapter reads from its `adapters.<host>` namespace in the config: none yet, so
# any key there is refused (config.py asks each adapter) rather than silently ignored.
SETTINGS: tuple[str, ...] = ()
TOOLS = {"mutating": ["apply_patch"], "shell": ["Bash"], "commandArgs": ["command"]}
REQUIRED = (
    "cwd",
    "hook_event_name",
    "model",
    "permission_mode",
    "session_id",
    "tool_input",
    "tool_name",
    "tool_use_id",
    "transcript_path",
    "turn_id",
)


def _project_path(path: str, cwd: Path, root: Path) -> str:
    absolute = Path(os.path.normpath(path if os.path.isabs(path) else cwd / path))
    try:
        return absolute.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise Refusal(f"apply_patch names a path outside the project: {path}") from None


def _apply_chunks(pre: str, chunks: list[tuple[str, list[str]]], path: str) -> str:
    lines = pre.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    at = 0
    for anchor, body in chunks:
        if anchor:
            try:
                at = lines.index(anchor, at) + 1
            except ValueError:
                raise Refusal(f"apply_patch context '{anchor}' is not in {path}") from None
        old = [line[1:] for line in body if line[:1] in (" ", "-")]
        new = [line[1:] for line in body if line[:1] in (" ", "+")]
        found = next(
            (i for i in range(at, len(lines) - len(old) + 1) if lines[i : i + len(old)] == old), None
        )
        if found is None:
            raise Refusal(f"apply_patch lines to change are not in {path}")
        lines[found : found + len(old)] = new
        at = found + len(new)
    return "\n".join(lines) + "\n"


def parse_patch(text: str, cwd: Path, root: Path) -> list[dict[str, Any]]:
    """The file changes a V4A patch makes, in patch order (a move is a delete then a create)."""
    lines = text.replace("\r", "").strip().split("\n")
    if len(lines) < 2 or lines[0] != "*** Begin Patch" or lines[-1] != "*** End Patch":
        raise Refusal("apply_patch text is not enclosed in *** Begin Patch / *** End Patch")
    body = lines[1:-1]
    if body and body[0].startswith("*** Environment ID:"):
        body = body[1:]
    changes: list[dict[str, Any]] = []
    i = 0
    while i < len(body):
        header = body[i]
        i += 1
        if header.startswith("*** Add File: "):
            path = _project_path(header[len("*** Add File: ") :], cwd, root)
            post = []
            while i < len(body) and not body[i].startswith("*** "):
                if not body[i].startswith("+"):
                    raise Refusal(f"apply_patch Add File line does not start with '+': {body[i]}")
                post.append(body[i][1:] + "\n")
                i += 1
            changes.append(file_change(path, None, "".join(post)))
        elif header.startswith("*** Delete File: "):
            path = _project_path(header[len("*** Delete File: ") :], cwd, root)
            pre = read_pre_state(path, root)
            if pre is None:
                raise Refusal(f"apply_patch deletes a file that does not exist: {path}")
            changes.append({"kind": "delete", "path": path, "pre": pre})
        elif header.startswith("*** Update File: "):
            path = _project_path(header[len("*** Update File: ") :], cwd, root)
            target = path
            if i < len(body) and body[i].startswith("*** Move to: "):
                target = _project_path(body[i][len("*** Move to: ") :], cwd, root)
                i += 1
            chunks: list[tuple[str, list[str]]] = []
            while i < len(body) and (not body[i].startswith("*** ") or body[i] == "*** End of File"):
                line = body[i]
                i += 1
                if line == "*** End of File":
                    continue
                if line.startswith("@@"):
                    chunks.append((line[2:].strip(), []))
                    continue
                if not chunks:
                    chunks.append(("", []))
                if line == "":
                    line = " "
                if line[:1] not in (" ", "-", "+"):
                    raise Refusal(f"apply_patch hunk line is not context, removal or addition: {line}")
                chunks[-1][1].append(line)
            pre = read_pre_state(path, root)
            if pre is None:
                raise Refusal(f"apply_patch updates a file that does not exist: {path}")
            post = _apply_chunks(pre, chunks, path)
            if target == path:
                changes.append(file_change(path, pre, post))
            else:
                changes.append({"kind": "delete", "path": path, "pre": pre})
                changes.append(file_change(target, read_pre_state(target, root), post))
        else:
            raise Refusal(f"apply_patch line is not a file operation: {header}")
    return changes


def translate(raw: str, root: Path) -> dict[str, Any]:
    payload = parse_payload(raw)
    if not isinstance(payload, dict) or any(key not in payload for key in REQUIRED):
        raise Refusal(NOT_AN_ENVELOPE)
    if payload["hook_event_name"] != "PreToolUse" or not isinstance(payload["tool_input"], dict):
        raise Refusal(NOT_AN_ENVELOPE)
    name = payload["tool_name"]
    if name not in ("apply_patch", "Bash"):
        raise Refusal(
            f"this adapter does not translate tool '{name}'; the roster is apply_patch, Bash — "
            "see the package README, What this surface does not observe"
        )
    command = payload["tool_input"].get("command")
    if not isinstance(command, str):
        raise Refusal(f"{name} tool_input is missing a string command")
    if name == "Bash":
        calls = [{"name": "Bash", "args": {"command": command}}]
    else:
        cwd = Path(payload["cwd"]) if isinstance(payload["cwd"], str) else root
        calls = [{"name": "apply_patch", "fileChange": change} for change in parse_patch(command, cwd, root)]
    return {"toolCalls": calls, "subagentSpawns": [], "userMessages": [], "tools": TOOLS}
